// tessel/kernels/gemm/fused_epilogue.cuh — the fused part of a GEMM
// epilogue (docs/epilogues.md): D = act(alpha * acc + bias), for the calls
// that k13 fuses (k13_fuses, gemm_plan.hpp: beta = 0 and no auxiliary
// output; with C or aux the call takes the unfused path), and
// D = act(alpha * acc + beta * C + bias) with aux for the run-time compiled
// instances (StaticEpilogue, StaticEpilogueValues below; docs/design.md §6).
//
// Used by k13's fused instances (Config<BN, true>; the plain instances
// never see it): fuse_in_registers finishes the values in the accumulator
// registers, then the plain TmaStoreEpilogue (tma_store_epilogue.cuh) stores
// them with alpha = 1, beta = 0, so the TMA stores, the row stores and split
// K's last unit all write the fused result.  Inside a fused instance the
// activation and the output type are run-time values, warp-uniform switches
// around unrolled passes over the accumulators (fuse_in_registers), so that
// one instance serves every activation, bias kind and output type.
//
// The bias.  Each work unit stages its tile's slice of the bias in shared
// memory as fp32 (kBM row values and kBN column values, zeros where the
// call has no bias of that kind or the tile leaves D) before its main loop,
// where the load's latency hides behind the first TMA loads; the epilogue
// then reads one float2 (the pair's two columns) and one float (the pair's
// row) per value pair from shared memory, with no branch on the bias kind
// and no global load while the accumulators are live (an earlier attempt,
// which loaded the bias from global memory inside the epilogue's value loop,
// spilled 24 bytes at BN = 128, and a later one with a C pass and an aux
// pass beside the accumulators 80 bytes at BN = 256; these instances spill
// nothing: docs/epilogues.md).
#pragma once

#include <cstdint>

#include "tessel/arch/common.hpp"
#include "tessel/kernels/gemm/common.cuh"

namespace tessel::gemm_kernels {

/// A fused instance's epilogue as run-time values (EpilogueParams): the
/// ahead-of-time instances (src/kernels/gemm/instances.cu), one per tile width, input type
/// and layout, serving every activation and bias kind, beta = 0 and no aux
/// (k13_fuses).  The sentinel of StaticEpilogue below.
struct RuntimeEpilogue {
  static constexpr bool kStatic = false;
};

/// A fused instance's epilogue as compile-time constants: the activation,
/// the bias kind, whether C is read (beta != 0) and whether aux is written.
/// Only the run-time compiled instances (docs/design.md §6: nvcc at run time,
/// disk cache; src/kernels/gemm/k13_jit.cu) use it: each serves one
/// combination, so its epilogue has no switch and no pass it does not need,
/// and C and aux are fused without the spills of the RuntimeEpilogue instance.  The
/// output type stays a run-time value (one switch outside the value loops,
/// as in every k13 instance).
template <Activation A, BiasKind B, bool WithC, bool WithAux>
struct StaticEpilogue {
  static constexpr bool kStatic = true;
  static constexpr Activation kAct = A;
  static constexpr BiasKind kBias = B;
  static constexpr bool kWithC = WithC;
  static constexpr bool kWithAux = WithAux;
};

/// Does a fused instance with epilogue E stage a bias slice in shared
/// memory (everything but a compile-time "no bias")?
template <class E>
constexpr bool stages_bias() {
  if constexpr (E::kStatic)
    return E::kBias != BiasKind::none;
  else
    return true;
}

/// act(x) for a compile-time activation (gemm_types.hpp, Activation):
///   relu       max(x, 0) (NaN gives 0)
///   gelu_erf   0.5 x (1 + erff(x / sqrt 2))             erff: CUDA's, within 2 ulp
///   gelu_tanh  0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))  tanh.approx.f32: rel. error 2^-10.99
///   silu       x / (1 + e^-x)                            __expf and rcp.approx: a few fp32 ulp
/// The approximate forms stay below a bf16 D's rounding (2^-9 relative);
/// tanh.approx is of the order of an fp16 D's (2^-12), and an fp32 D shows
/// them all (docs/epilogues.md, "Accuracy").
template <Activation A>
__device__ __forceinline__ float activate(float x) {
  if constexpr (A == Activation::relu) {
    return fmaxf(x, 0.0f);
  } else if constexpr (A == Activation::gelu_erf) {
    const float h = 0.5f * x;
    return fmaf(h, erff(x * 0.70710678118654752f), h);  // h (1 + erf)
  } else if constexpr (A == Activation::gelu_tanh) {
    // sqrt(2/pi) (x + 0.044715 x^3) = x (sqrt(2/pi) + 0.044715 sqrt(2/pi) x^2), and
    // h (1 + tanh) as one FMA: 6 instructions a value where the formula as written takes 8.
    const float u = x * fmaf(0.035677408136300125f, x * x, 0.79788456080286536f);
    const float h = 0.5f * x;
    return fmaf(h, arch::tanh_approx(u), h);
  } else if constexpr (A == Activation::silu) {
    // e^-x overflows to inf for x < -88: rcp(inf) = 0 and the result is -0, the limit.
    return x * arch::rcp_approx(1.0f + __expf(-x));
  } else {
    return x;
  }
}

/// The scale s by which a fused instance's first pass multiplies x (alpha,
/// and the bias as staged), so that its second pass starts from s x: 1/2 for
/// the GELUs, whose formulas are written on h = x / 2 (activate_prescaled),
/// 1 for the others.  A power of two commutes with fp32 rounding (outside
/// the subnormals), so fma(alpha / 2, acc, bias / 2) is bit for bit half of
/// fma(alpha, acc, bias), and the product h = 0.5 x that the GELUs need
/// costs no instruction: one fewer per value (docs/history/epilogues.md,
/// "Measured").
__device__ __forceinline__ float prescale_of(Activation a) {
  return a == Activation::gelu_erf || a == Activation::gelu_tanh ? 0.5f : 1.0f;
}

/// act(x) from y = prescale_of(A) * x, with the same value as activate<A>(x):
///   gelu_tanh  h (1 + tanh(h (2 sqrt(2/pi) + 8 * 0.044715 sqrt(2/pi) h^2)))   with h = x / 2
///   gelu_erf   h (1 + erff(h sqrt 2))
/// each operation being 2^k times activate's (the constants are its own
/// times 2 and 8), so every rounding is the same: 5 instructions a value
/// for the tanh GELU where activate takes 6.
template <Activation A>
__device__ __forceinline__ float activate_prescaled(float y) {
  if constexpr (A == Activation::gelu_tanh) {
    const float u = y * fmaf(8.0f * 0.035677408136300125f, y * y, 2.0f * 0.79788456080286536f);
    return fmaf(y, arch::tanh_approx(u), y);
  } else if constexpr (A == Activation::gelu_erf) {
    return fmaf(y, erff(y * 1.4142135623730950f), y);
  } else {
    return activate<A>(y);
  }
}

/// A thread's share of the bias slice of tile (tile_m, tile_n) of a (BM, BN)
/// tiling, for the `Threads` threads t of an epilogue: slice elements
/// x = t, t + Threads, ..., where 0..BN-1 are the column values and
/// BN..BN+BM-1 the row values.  load() reads the elements' bits (cd_type's,
/// D's type) where the call has a bias of that kind and the element is
/// inside D, else 0 (+0 in every type); store() writes `scale` times each
/// as fp32 into `row` (BM floats) and `col` (BN floats).
///
/// Two steps so that a kernel can issue the loads before a unit's main loop
/// and convert and store after it (k13): nothing reads the loaded registers
/// before store(), so the loads' latency (L2 or DRAM) hides behind the main
/// loop.  Loaded and stored before the main loop, each unit's consumers
/// waited for the loads before their first wgmma, with the tensor cores idle:
/// 27 % of the extra warp samples of k13's fused ReLU instance at
/// 8192 x 28672 x 8192 (docs/history/epilogues.md, "Measured").  (A form that converted in
/// load() kept that wait: the conversion needs the loaded value, and the
/// compiler placed it beside the load.)
/// store() must come after every thread of the epilogue has read the
/// previous unit's slice, and before the barrier that precedes the first
/// read of this one.
///
/// Example: BM = 128, BN = 256, Threads = 256: thread 3 holds column 3 of
/// the tile and row 3 (x = 259); thread 200 holds column 200 only.
template <int BM, int BN, int Threads>
struct BiasShare {
  static constexpr int kPer = (BM + BN + Threads - 1) / Threads;
  unsigned bits[kPer];

  __device__ __forceinline__ void load(const EpilogueParams& e, DType cd_type, index_t m, index_t n, index_t tile_m,
                                       index_t tile_n, int t) {
    TESSEL_UNROLL
    for (int q = 0; q < kPer; ++q) {
      const int x = t + q * Threads;
      bits[q] = 0;
      index_t idx = -1;
      if (x < BN) {
        const index_t j = tile_n * BN + x;
        if (e.bias_kind == BiasKind::col && j < n) idx = j;
      } else if (x < BN + BM) {
        const index_t i = tile_m * BM + (x - BN);
        if (e.bias_kind == BiasKind::row && i < m) idx = i;
      }
      if (idx >= 0)
        bits[q] = cd_type == DType::f32 ? static_cast<const unsigned*>(e.bias)[idx]
                                        : static_cast<const unsigned short*>(e.bias)[idx];
    }
  }

  __device__ __forceinline__ void store(DType cd_type, float scale, float* row, float* col, int t) const {
    TESSEL_UNROLL
    for (int q = 0; q < kPer; ++q) {
      const int x = t + q * Threads;
      if (x >= BN + BM) continue;
      const auto half = static_cast<unsigned short>(bits[q]);
      const float v = cd_type == DType::bf16  ? detail::to_float(__ushort_as_bfloat16(half))
                      : cd_type == DType::f16 ? detail::to_float(__ushort_as_half(half))
                                              : __uint_as_float(bits[q]);
      (x < BN ? col[x] : row[x - BN]) = scale * v;
    }
  }
};

/// Pass 1 of fuse_in_registers: acc = alpha * acc + bias, with the bias of
/// one kind, `Row` (one value per row) or not (a column bias, or none: the
/// column slice then holds zeros), so that a value costs one FMA.  (The
/// first form added the row and the column value, one of them 0, before
/// the FMA: one more instruction per value, where the fused epilogue's
/// cost is its instructions' energy at the power cap.)
///
/// `Coord` is the TiledMMA's (thread, value) -> packed (row, column) layout
/// of the tile (TmaStoreEpilogue::kCoord).  Value v of thread t sits at
/// Coord(t, 0) + Coord(0, v), field by field (a layout is the sum of its
/// modes' and maps 0 to 0; no field carries inside a tile), so its row and
/// column are the thread's, read once from tCcD.coord(0), plus constants of
/// the unrolled loop.  (Taking the fields of tCcD.coord(v) for each pair
/// instead cost an add, a shift and a mask per pair for the column bias's
/// address: the add of the thread's part ahead of the shift does not fold.)
template <bool Row, Layout Coord, class Frag, class View>
__device__ __forceinline__ void fuse_bias(float alpha, Frag& acc, const View& tCcD, const float* bias_row,
                                          const float* bias_col) {
  const index_t base = tCcD.coord(0);
  const float* row = bias_row + coord_field(base, 0);
  const float* col = bias_col + coord_field(base, 1);
  TESSEL_UNROLL
  for (int v = 0; v < Frag::kValues; v += 2) {
    const index_t at = StaticLayout<Coord>{}(0, v);  // value v's offset from the thread's value 0
    float b0, b1;
    if constexpr (Row) {
      b0 = b1 = row[coord_field(at, 0)];
    } else {
      const float2 bc = *reinterpret_cast<const float2*>(col + coord_field(at, 1));
      b0 = bc.x;
      b1 = bc.y;
    }
    *acc.addr(v) = fmaf(alpha, *acc.addr(v), b0);
    *acc.addr(v + 1) = fmaf(alpha, *acc.addr(v + 1), b1);
  }
}

/// Pass 2: acc = act(x) for a compile-time activation, from acc = the
/// prescaled x (prescale_of, activate_prescaled).
template <Activation A, class Frag>
__device__ __forceinline__ void fuse_activation(Frag& acc) {
  TESSEL_UNROLL
  for (int v = 0; v < Frag::kValues; ++v) *acc.addr(v) = activate_prescaled<A>(*acc.addr(v));
}

/// The fused epilogue's math in the accumulator registers, in two passes,
/// the bias kind and the activation switches on run-time values *outside*
/// the unrolled loops: the path a tile executes is then one contiguous
/// block of code.  (A switch per value pair inside one loop, the first
/// form, spread each tile's path over the whole ~17k-instruction epilogue:
/// every pair's case sat in other instruction-cache lines, and the fused
/// GEMM ran 2.9x slower than the plain one at 4096^3 on an H100.  The math done
/// a 128-byte chunk of D at a time, just ahead of the chunk's staging, so that
/// it overlapped the TMA store's reads, cost k13 1 % more: docs/history/epilogues.md,
/// "Measured".)
/// Only calls
/// with beta = 0 and no aux output come here (k13_fuses, gemm_plan.hpp): a
/// C pass or an aux pass beside the accumulators spilled.  The bias slice
/// was staged times prescale_of(p.epi.act) (k13's TileEpilogue::store_bias),
/// and pass 1 scales alpha the same way.  `Coord`: fuse_bias's.
template <Layout Coord, class T, class Frag, class View>
__device__ __forceinline__ void fuse_in_registers(const FusedParams<T>& p, Frag& acc, const View& tCcD,
                                                  const float* bias_row, const float* bias_col) {
  const float alpha = prescale_of(p.epi.act) * alpha_of(p);
  if (p.epi.bias_kind == BiasKind::row)
    fuse_bias<true, Coord>(alpha, acc, tCcD, bias_row, bias_col);
  else
    fuse_bias<false, Coord>(alpha, acc, tCcD, bias_row, bias_col);
  switch (p.epi.act) {
    case Activation::none:
      break;
    case Activation::relu:
      fuse_activation<Activation::relu>(acc);
      break;
    case Activation::gelu_erf:
      fuse_activation<Activation::gelu_erf>(acc);
      break;
    case Activation::gelu_tanh:
      fuse_activation<Activation::gelu_tanh>(acc);
      break;
    case Activation::silu:
      fuse_activation<Activation::silu>(acc);
      break;
  }
}

/// A StaticEpilogue's values, for TmaStoreEpilogue<U, ...>::apply_with: for
/// the value pair (v, v + 1) of a thread, with x the fp32 accumulators,
///   x = alpha * acc + beta * C + bias     (C and the bias only where E has them)
///   aux = x                               (rounded to U; where E has aux)
///   D = act(x)                            (returned, rounded to U by the store)
/// all in one pass over the chunk's values, with nothing decided at run time
/// but D's edges.  C is read as U (D's type) straight from global memory, a
/// chunk at a time as the plain epilogue reads it; aux is written from
/// registers, a pair of neighbouring columns as one 4- or 8-byte store where
/// `ldaux` and the pointer keep pairs aligned (warp-uniform), else element
/// by element, never outside D.  The bias comes from the unit's slice in
/// shared memory (BiasShare), read after apply_with's first barrier.
template <class E, class U, int BM, int BN, class T>
struct StaticEpilogueValues {
  static_assert(E::kStatic, "tessel: StaticEpilogueValues takes a StaticEpilogue");
  const FusedParams<T>& p;
  index_t tile_m, tile_n;
  const float* bias_row;  // the slice's kBM row values (BiasKind::row)
  const float* bias_col;  // the slice's kBN column values (BiasKind::col)
  bool aux_pairs;         // aux's pairs are aligned: one store per pair

  __device__ static bool pairs_aligned(const EpilogueParams& e) {
    return e.ldaux % 2 == 0 && reinterpret_cast<std::uintptr_t>(e.aux) % (2 * sizeof(U)) == 0;
  }

  template <class View>
  __device__ __forceinline__ void operator()(const View& tCcD, int v, float& x0, float& x1) const {
    const float s_alpha = alpha_of(p);
    x0 *= s_alpha;
    x1 *= s_alpha;
    const index_t at = tCcD.coord(v);
    const int r = static_cast<int>(coord_field(at, 0)), c = static_cast<int>(coord_field(at, 1));
    const index_t i = tile_m * BM + r, j = tile_n * BN + c;
    const bool in0 = tCcD.inside(v), in1 = tCcD.inside(v + 1);
    if constexpr (E::kWithC) {
      const U* cp = static_cast<const U*>(p.c) + i * p.ldc + j;
      const float s_beta = beta_of(p);
      if (in0) x0 += s_beta * detail::to_float(cp[0]);
      if (in1) x1 += s_beta * detail::to_float(cp[1]);
    }
    if constexpr (E::kBias == BiasKind::col) {
      const float2 bc = *reinterpret_cast<const float2*>(bias_col + c);  // pairs start on even columns
      x0 += bc.x;
      x1 += bc.y;
    } else if constexpr (E::kBias == BiasKind::row) {
      const float br = bias_row[r];
      x0 += br;
      x1 += br;
    }
    if constexpr (E::kWithAux) {
      U* a = static_cast<U*>(p.epi.aux) + i * p.epi.ldaux + j;
      if (aux_pairs && in1) {
        if constexpr (sizeof(U) == 4) {
          *reinterpret_cast<float2*>(a) = make_float2(x0, x1);
        } else {
          *reinterpret_cast<std::uint32_t*>(a) = pack_pair(detail::from_float<U>(x0), detail::from_float<U>(x1));
        }
      } else {
        if (in0) a[0] = detail::from_float<U>(x0);
        if (in1) a[1] = detail::from_float<U>(x1);
      }
    }
    x0 = activate<E::kAct>(x0);
    x1 = activate<E::kAct>(x1);
  }
};

}  // namespace tessel::gemm_kernels
