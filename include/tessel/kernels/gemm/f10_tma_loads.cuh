// f10 — TMA loads: the k-tiles arrive without a copy instruction per thread.
//
// Why (measured, docs/ladder-fp32.md, f10): f08's threads issue 6..18 cp.async per
// k-tile and the address arithmetic that goes with them; ncu's stall samples
// put about 40 % of f08's not-issued cycles on that block (the LSU queue
// full, lg_throttle, and registers that a queued LDGSTS still reads,
// long_scoreboard), and spreading the copies over the k-steps (f09) cost
// more instructions than it saved.  With TMA one thread asks for a whole
// k-tile of A and of B (two instructions per k-tile for the CTA, not 6..18
// per thread) and an mbarrier says when it has landed; out-of-range rows,
// columns and k are zero-filled by the copy engine, so the loop has no edge
// path either.
//
// The tile is 128 x 256 (the best of a screen of f08's configurations against
// cuBLAS, fp32_configs.cu), 8 warps of 64 x 64 (2 along M, 4 along N), k-tiles
// of 16 in 4 stages.  The shared layouts are the ones TMA writes, so the thread
// tile adapts to them: a thread holds 8 rows x 16 columns (lanes 8 along M, 4
// along N; columns 4*tn + 16*j + [0,4), j < 4, as one LDS.128 each per k):
//  * B:n (N-contiguous), stage (16 k, 256 columns), rows of 1 KB: per k 4
//    LDS.128, a warp's 4 distinct vectors 64 contiguous bytes;
//  * A:k (K-contiguous), stage (128 rows, 16 k) with rows of 64 bytes in
//    TMA's 64-byte swizzle (16-byte chunk c of row r at chunk c ^ ((r/2) % 4)):
//    a thread's rows are tm + 8*i (i < 8), and one LDS.128 reads 4 k of one
//    row, so per 4 k 8 LDS.128 (2 per k); the 8 rows tm..tm+7 that a warp
//    reads at once land in 8 distinct 16-byte slots of the 128 banks'
//    bytes: conflict-free;
//  * A:m (M-contiguous), stage (16 k, 128 rows), rows of 512 bytes: a
//    thread's rows are 4*tm + 32*b + [0,4) (b < 2), 2 LDS.128 per k.
// Per k: 6 LDS.128 for 128 FFMAs, as f08.  Fragments of the next k (for A:k
// the next 4 k) are read during the current FFMAs; the next k-tile's first
// ones right after its mbarrier wait, before the last k's FFMAs.  One
// __syncthreads per k-tile ends the reads of a stage; then thread 0 refills
// it with the k-tile kStages ahead.
// Epilogue from registers as f08: 128-bit loads of C and stores of D where
// the rows are 16-byte aligned, element by element elsewhere.
// The addresses are the library's layouts, in 32 bits: the thread tile is a
// set of thread-value layouts (Tiling), the fragment reads are partitions of
// the stages' static layouts (A:k's swizzle included) at 32-bit shared
// addresses, and the epilogue's accesses are partitions of D's and C's tiles
// whose offsets are int (narrow_offsets, on the host).  64-bit offsets per
// access (f05/f06) cost two registers per base and two instructions per
// add, and spilled; in 32 bits the loop keeps one register per base, as raw
// shared addresses did, and the epilogue's arithmetic shrinks by a fourth.
// Served: B:n with A:k or A:m, A and B rows that TMA can describe (leading
// dimensions multiples of 4 floats, 16-byte aligned bases), C and D whose
// tiles' offsets fit in int; the launcher runs f08 for the other problems.
#pragma once

#include <cstdint>

#include "tessel/arch/sm90.hpp"
#include "tessel/atom/copy_atom.hpp"
#include "tessel/atom/tiled_copy.hpp"
#include "tessel/kernels/gemm/common.cuh"
#include "tessel/tensor/tensor.hpp"

namespace tessel::gemm_kernels::f10 {

inline constexpr int kBM = 128, kBN = 256, kBK = 16, kStages = 4, kThreads = 256;
inline constexpr int kStageBytesA = kBM * kBK * 4;  // 8 KB
inline constexpr int kStageBytesB = kBN * kBK * 4;  // 16 KB
/// The 64-byte swizzle repeats every 512 bytes and TMA applies it to the
/// shared address itself: stages start at multiples of 1024 bytes (the
/// dynamic shared memory is aligned up to that, hence the slack).
inline constexpr int kAlign = 1024;
inline constexpr int kSmemBytes = kStages * (kStageBytesA + kStageBytesB) + kAlign;
static_assert(kStageBytesA % kAlign == 0 && kStageBytesB % kAlign == 0);

/// TMA boxes (innermost first): A:k {16 k, 128 rows} with the 64-byte
/// swizzle, A:m {128 rows, 16 k}, B:n {256 columns, 16 k}.
inline constexpr int kBoxAk[2] = {kBK, kBM}, kBoxAm[2] = {kBM, kBK}, kBoxBn[2] = {kBN, kBK};

__device__ inline void lds128(std::uint32_t addr, float* f) {
  asm volatile("ld.shared.v4.f32 {%0, %1, %2, %3}, [%4];\n"
               : "=f"(f[0]), "=f"(f[1]), "=f"(f[2]), "=f"(f[3])
               : "r"(addr));
}

/// The thread tile as layouts.  Thread t is lane (tm, tn) = (t % 8, t / 8 % 4)
/// of warp (wm, wn) = (t / 32 % 2, t / 64): thread mode (8,4,2,4), 2 warps
/// of 64 x 64 along M and 4 along N.  Each TV layout maps (thread, value)
/// to the column-major index of the element in its tile:
///  * C on the (128,256) tile of D, value c + 16 i (acc[i][c]) at row i,
///    column c of the thread: columns 4 tn + 64 wn + c % 4 + 16 (c / 4);
///    rows tm + 64 wm + 8 i (A:k) or 4 tm + 64 wm + i % 4 + 32 (i / 4) (A:m);
///  * A on the (128,4) slice of 4 k (A:k: value q + 4 i is row i at k q) or
///    the (128,1) slice of one k (A:m: value i is row i): C's rows;
///  * B on the (256,1) slice of one k, value c is column c: C's columns.
/// A's thread strides are C's along M (0 along N: a row of warps shares A),
/// B's C's along N (checked below).
template <MajorA MA>
struct Tiling {
  static constexpr bool kAk = MA == MajorA::k;
  static constexpr IntTuple kThr = make_shape(8, 4, 2, 4);
  static constexpr Layout kC =
      kAk ? make_layout(make_shape(kThr, make_shape(make_shape(4, 4), 8)),
                        make_stride(make_stride(1, 4 * kBM, 64, 64 * kBM), make_stride(make_stride(kBM, 16 * kBM), 8)))
          : make_layout(make_shape(kThr, make_shape(make_shape(4, 4), make_shape(4, 2))),
                        make_stride(make_stride(4, 4 * kBM, 64, 64 * kBM),
                                    make_stride(make_stride(kBM, 16 * kBM), make_stride(1, 32))));
  static constexpr IntTuple kTileC = make_shape(kBM, kBN);
  static constexpr Layout kA =
      kAk ? make_layout(make_shape(kThr, make_shape(4, 8)), make_stride(make_stride(1, 0, 64, 0), make_stride(kBM, 8)))
          : make_layout(make_shape(kThr, make_shape(4, 2)), make_stride(make_stride(4, 0, 64, 0), make_stride(1, 32)));
  static constexpr IntTuple kTileA = kAk ? make_shape(kBM, 4) : make_shape(kBM, 1);
  static constexpr Layout kB =
      make_layout(make_shape(kThr, make_shape(4, 4)), make_stride(make_stride(0, 4, 0, 64), make_stride(1, 16)));
  static constexpr IntTuple kTileB = make_shape(kBN, 1);

  /// The stages as TMA writes them, in floats: A:k (128 rows, 16 k), rows
  /// of 16 floats in the 64-byte swizzle (Sw<2,2,3>: 16-byte chunk q of row
  /// r at q ^ ((r/2) % 4)); A:m (128,16) M-contiguous; B:n (256,16).
  static constexpr SwizzledLayout kSmemAk{Swizzle{2, 2, 3}, make_layout(make_shape(kBM, kBK), LayoutRight{})};
  static constexpr Layout kSmemAm = make_layout(make_shape(kBM, kBK));
  static constexpr Layout kSmemB = make_layout(make_shape(kBN, kBK));

  /// The LDS.128 reads of A and B (4 floats contiguous in the stage) and
  /// the epilogue's 128-bit accesses of C and D (4 neighbouring columns).
  using ReadA = TiledCopy<UniversalCopy<float, 128>, kA, kTileA>;
  using ReadB = TiledCopy<UniversalCopy<float, 128>, kB, kTileB>;
  using WriteC = TiledCopy<UniversalCopy<float, 128>, kC, kTileC>;

  /// Thread t's share of the A (B) stage at shared address `stage`, offsets
  /// in int: A:k (16,1,4) (4 k x 8 rows, per group of 4 k), A:m (8,1,16)
  /// (8 rows, per k), B (16,1,16) (16 columns, per k).  A:k's 8 rows of a
  /// group have the same swizzle term, (tm/2) % 4, so the partition
  /// swizzles the thread's base once and a group costs one XOR.
  __device__ static auto part_a(std::uint32_t stage, int t) {
    if constexpr (kAk)
      return ReadA{}.get_slice(t).partition_S(make_smem_tensor<kSmemAk>(SmemAddr<float>{stage}));
    else
      return ReadA{}.get_slice(t).partition_S(make_smem_tensor<kSmemAm>(SmemAddr<float>{stage}));
  }
  __device__ static auto part_b(std::uint32_t stage, int t) {
    return ReadB{}.get_slice(t).partition_S(make_smem_tensor<kSmemB>(SmemAddr<float>{stage}));
  }

  /// C is a bijection onto the tile, and A's rows and B's columns are C's:
  /// C(t, c + 16 i) = A(t, i') + 128 B(t, c), thread and value parts apart
  /// (a layout is linear over its modes), i' = 4 i for A:k (k = 0), i for A:m.
  static constexpr bool consistent() {
    if (size(right_inverse(kC).value()) != kBM * kBN) return false;
    const Layout tc = mode(kC, 0), ta = mode(kA, 0), tb = mode(kB, 0);
    for (int t = 0; t < kThreads; ++t)
      if (tc(t) != ta(t) + kBM * tb(t)) return false;
    const Layout vc = mode(kC, 1), va = mode(kA, 1), vb = mode(kB, 1);
    for (int i = 0; i < 8; ++i)
      for (int c = 0; c < 16; ++c)
        if (vc(c + 16 * i) != va(kAk ? 4 * i : i) + kBM * vb(c)) return false;
    return true;
  }
  static_assert(consistent(), "tessel: f10's A, B and C thread layouts disagree");
};

/// Every vector of a thread's slice of a shared stage into registers f, one LDS.128 each.
template <class Part>
__device__ inline void read_slice(const Part& part, float* f) {
  TESSEL_UNROLL
  for (int v = 0; v < Part::kValues; v += 4) lds128(part.addr(v).addr, f + v);
}

/// D and C (read where beta != 0) as the epilogue addresses them: (M, N)
/// row-major tensors, columns contiguous (unit-stride mode 1), offsets in
/// int.  make_out builds them on the host with narrow_offsets, which checks
/// that every offset of every 128 x 256 tile, the last ones past the edges
/// included, fits.
struct Out {
  Tensor<ViewEngine<float, Space::global>, Strided<2, int, 1>> d;
  Tensor<ViewEngine<const float, Space::global>, Strided<2, int, 1>> c;
};
/// The epilogue's tensors of problem p (host side): false, `out` unusable,
/// where an offset of D's or C's tiles does not fit in int (the launcher
/// then runs f08's kernel, which computes them in 64 bits).
inline bool make_out(const Params<float>& p, Out& out) {
  using Tile = TileShape<kBM, kBN>;
  if (!narrow_offsets<Tile>(make_global_tensor(static_cast<float*>(p.d), {p.m, p.n}, {p.ldd, index_t{1}}), out.d))
    return false;
  if (p.c == nullptr) {  // never read (beta == 0): D's layout keeps the tensor well formed
    out.c = {{nullptr}, out.d.layout};
    return true;
  }
  return narrow_offsets<Tile>(make_global_tensor(static_cast<const float*>(p.c), {p.m, p.n}, {p.ldc, index_t{1}}),
                              out.c);
}

/// D = alpha * acc + beta * C for this thread's 8 x 16 values of tile (bm,
/// bn) (tile coordinates), from registers as f08's (f07::RegisterEpilogue): where D's rows (and, with
/// beta != 0, C's) are 16-byte aligned, four neighbouring columns go as one
/// 128-bit load of C and one 128-bit store of D, element by element
/// elsewhere; rows >= M and columns >= N are skipped.  alpha and beta are
/// read once per row, as that class reads them once per four columns: read
/// once before the rows, ptxas gave the A:m kernel 230 registers instead of
/// 202 and more FFMAs with two source registers in one bank (16.6 against
/// 15.4 % of the loop's; A:k 28.7 against 27.0 %: ffma_banks.py).
template <MajorA MA>
__device__ inline void epilogue(const Params<float>& p, const Out& out, int bm, int bn, int t,
                                const float (&acc)[8][16]) {
  using WriteC = typename Tiling<MA>::WriteC;
  using Tile = TileShape<kBM, kBN>;
  // ((4,4),8) or ((4,4),(4,2)), 1, 1: value c + 16 i is acc[i][c].
  const auto tDgD = WriteC{}.get_slice(t).partition_D(local_tile<Tile>(out.d, bm, bn));
  const auto tDgC = WriteC{}.get_slice(t).partition_S(local_tile<Tile>(out.c, bm, bn));
  const bool read_c = p.beta != 0.0f;
  const bool vec =
      reinterpret_cast<std::uintptr_t>(out.d.data()) % 16 == 0 && out.d.layout.stride[0] % 4 == 0 &&
      (!read_c || (reinterpret_cast<std::uintptr_t>(out.c.data()) % 16 == 0 && out.c.layout.stride[0] % 4 == 0));
  TESSEL_UNROLL
  for (int i = 0; i < 8; ++i) {
    // Row i outside D, or its first column (then every column): nothing to write.
    if (!tDgD.inside(16 * i)) continue;
    const float s_alpha = alpha_of(p), s_beta = read_c ? beta_of(p) : 0.0f;
    TESSEL_UNROLL
    for (int j = 0; j < 4; ++j) {
      const int v = 16 * i + 4 * j;
      const float* a = &acc[i][4 * j];
      if (vec && tDgD.inside(v + 3)) {
        float4 x = make_float4(s_alpha * a[0], s_alpha * a[1], s_alpha * a[2], s_alpha * a[3]);
        if (read_c) {
          const float4 y = *reinterpret_cast<const float4*>(tDgC.addr(v));
          x.x += s_beta * y.x, x.y += s_beta * y.y, x.z += s_beta * y.z, x.w += s_beta * y.w;
        }
        *reinterpret_cast<float4*>(tDgD.addr(v)) = x;
      } else {
        TESSEL_UNROLL
        for (int e = 0; e < 4; ++e) {
          if (!tDgD.inside(v + e)) continue;
          float x = s_alpha * a[e];
          if (read_c) x += s_beta * *tDgC.addr(v + e);
          *tDgD.addr(v + e) = x;
        }
      }
    }
  }
}

/// The fp32 GEMM of f10 (see the header comment): one CTA of 256 threads per
/// 128 x 256 tile of D (blockIdx.x along N, blockIdx.y along M), one per SM.
/// map_a: A:k {K, M} or A:m {M, K}; map_b: B:n {N, K} (f10.cu); out: D and C
/// with int offsets (make_out).
/// Serpentine: the FFMA order of f08's Config (every other row of the thread
/// tile backwards, so that a row's last FFMA and the next row's first share
/// B's value).  On for A:m: in its SASS the FFMAs with two source registers
/// in one bank fell from 17.9 to 14.9 % of the main loop's (A:k: 25.0 to
/// 27.9 %, so off there; counted with ffma_banks.py).
/// NextReadsAfterRow: where in a k-step the next step's fragments are read:
/// -1 before the FFMAs (measured best), r >= 0 after row r's FFMAs (A:m's
/// SASS: 14.9 -> 10.9 % same-bank FFMAs for r = 1..5, yet 1-2 % slower on
/// the H100).
/// The loop stays written out here, not shared with f11's
/// product_of_k_range: as that function f10's A:m instance measured 3.7 %
/// slower (0.989 -> 0.952 of cuBLAS at 4096^3; ptxas placed 19 of the 96
/// LDS.128 within 20 instructions of their first use, against 6 here).
template <MajorA MA, bool Serpentine = MA == MajorA::m, int NextReadsAfterRow = -1>
__global__ void __launch_bounds__(kThreads, 1)
    gemm_tma_loads(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b,
                   Params<float> p, Out out) {
  extern __shared__ std::uint8_t smem_raw[];
  __shared__ alignas(8) std::uint64_t full[kStages];
  const std::uint32_t base = (arch::smem_addr(smem_raw) + kAlign - 1) & ~std::uint32_t{kAlign - 1};
  const std::uint32_t sa = base, sb = base + kStages * kStageBytesA;
  const std::uint32_t bar0 = arch::smem_addr(&full[0]);

  const int t = static_cast<int>(threadIdx.x);
  const int m0 = static_cast<int>(blockIdx.y) * kBM, n0 = static_cast<int>(blockIdx.x) * kBN;
  const int k_tiles = static_cast<int>((p.k + kBK - 1) / kBK);

  // k-tile kt into stage s (thread 0): the barrier expects both boxes' bytes
  // (out-of-range parts count too: TMA writes zeros there).
  const auto load = [&](int kt, int s) {
    const std::uint32_t bar = bar0 + 8 * s;
    arch::sm90::mbarrier_arrive_expect_tx(bar, kStageBytesA + kStageBytesB);
    if constexpr (MA == MajorA::k)
      arch::sm90::tma_load(sa + s * kStageBytesA, &map_a, bar, kt * kBK, m0);
    else
      arch::sm90::tma_load(sa + s * kStageBytesA, &map_a, bar, m0, kt * kBK);
    arch::sm90::tma_load(sb + s * kStageBytesB, &map_b, bar, n0, kt * kBK);
  };
  if (t == 0) {
    arch::sm90::prefetch_tensormap(&map_a);
    arch::sm90::prefetch_tensormap(&map_b);
    for (int s = 0; s < kStages; ++s) arch::sm90::mbarrier_init(bar0 + 8 * s, 1);
    arch::sm90::fence_mbarrier_init();
  }
  __syncthreads();
  if (t == 0)
    for (int s = 0; s < kStages && s < k_tiles; ++s) load(s, s);

  using TL = Tiling<MA>;
  // A's 8 values at one k (A:m), or at 4 consecutive k (A:k: a[i][q], one
  // LDS.128 per row), from the stage at shared address `stage`.
  const auto read_a = [&](std::uint32_t stage, int k, float(&a)[8][4]) {
    const auto tCsA = TL::part_a(stage, t);  // A:k (16,1,4), A:m (8,1,16)
    if constexpr (MA == MajorA::k)
      read_slice(tCsA(_, 0, k / 4), &a[0][0]);
    else
      read_slice(tCsA(_, 0, k), &a[0][0]);
  };
  const auto read_b = [&](std::uint32_t stage, int k, float(&b)[16]) {
    const auto tCsB = TL::part_b(stage, t);  // (16,1,16)
    read_slice(tCsB(_, 0, k), b);
  };

  float acc[8][16];
  TESSEL_UNROLL
  for (int i = 0; i < 8; ++i) {
    TESSEL_UNROLL
    for (int c = 0; c < 16; ++c) acc[i][c] = 0.0f;
  }
  // A: [buffer][...]: for A:k a[i][q] over 4 k (buffer = group parity); for
  // A:m the 8 values at one k as a[0..1][0..3] (buffer = k parity).
  float fa[2][8][4], fb[2][16];
  arch::sm90::mbarrier_wait_parity(bar0, 0);
  read_a(sa, 0, fa[0]);
  read_b(sb, 0, fb[0]);

  for (int kt = 0; kt < k_tiles; ++kt) {
    const int s = kt % kStages;
    const std::uint32_t a_now = sa + s * kStageBytesA, b_now = sb + s * kStageBytesB;
    TESSEL_UNROLL
    for (int k = 0; k < kBK; ++k) {
      constexpr bool kGroups = MA == MajorA::k;
      const int ab = kGroups ? (k / 4) % 2 : k % 2;  // buffer of A in use
      // The next fragments: this stage's k+1, or the next k-tile's k = 0
      // once its barrier has completed; before this step's FFMAs, or after
      // row NextReadsAfterRow's (a knob of fp32_configs.cu's screen).
      const auto read_next = [&] {
        if (k < kBK - 1) {
          if (!kGroups || k % 4 == 3) read_a(a_now, k + 1, fa[ab ^ 1]);
          read_b(b_now, k + 1, fb[(k + 1) % 2]);
        } else {
          // Read unconditionally: after the last k-tile the stage holds stale
          // values that nothing uses, and without a branch around the reads the
          // fragments are one value in one register each, not a merge of two
          // paths (ptxas then moved fewer accumulators between registers:
          // ffma_banks.py, docs/ladder-fp32.md, f10).  Only the wait is skipped.
          const int s1 = (kt + 1) % kStages;
          if (kt + 1 < k_tiles)
            arch::sm90::mbarrier_wait_parity(bar0 + 8 * s1, static_cast<std::uint32_t>(((kt + 1) / kStages) & 1));
          read_a(sa + s1 * kStageBytesA, 0, fa[ab ^ 1]);
          read_b(sb + s1 * kStageBytesB, 0, fb[(k + 1) % 2]);
        }
      };
      if constexpr (NextReadsAfterRow < 0) read_next();
      const float* const b = fb[k % 2];
      TESSEL_UNROLL
      for (int i = 0; i < 8; ++i) {
        const float a = kGroups ? fa[ab][i][k % 4] : fa[ab][i / 4][i % 4];
        TESSEL_UNROLL
        for (int cc = 0; cc < 16; ++cc) {
          const int c = Serpentine && i % 2 == 1 ? 15 - cc : cc;
          acc[i][c] += a * b[c];
        }
        if constexpr (NextReadsAfterRow >= 0)
          if (i == NextReadsAfterRow) read_next();
      }
    }
    // Every warp is done with stage s: refill it with k-tile kt + kStages.
    __syncthreads();
    if (t == 0 && kt + kStages < k_tiles) load(kt + kStages, s);
  }

  epilogue<MA>(p, out, static_cast<int>(blockIdx.y), static_cast<int>(blockIdx.x), t, acc);
}

}  // namespace tessel::gemm_kernels::f10
