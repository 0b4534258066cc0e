// tessel/kernels/gemm/fused_epilogue.cuh — the fused part of a GEMM
// epilogue (docs/epilogues.md): D = act(alpha * acc + beta * C + bias), with
// the pre-activation value optionally written to an auxiliary output.
//
// Used by TmaStoreEpilogue (tma_store_epilogue.cuh) as a compile-time
// policy: the plain instances pass NoFusion and compile to the code they had
// before fusion existed; k13's fused instances (Config<BN, true>) pass a
// FusedTile.  Inside a fused instance the activation is a run-time value,
// a warp-uniform switch per value pair (activate_pair), so that one instance
// serves every activation and bias kind.
//
// The bias.  Each work unit stages its tile's slice of the bias in shared
// memory as fp32 (kBM row values and kBN column values, zeros where the
// call has no bias of that kind or the tile leaves D) before its main loop,
// where the load's latency hides behind the first TMA loads; the epilogue
// then reads one float2 (the pair's two columns) and one float (the pair's
// row) per value pair from shared memory, with no branch on the bias kind
// and no global load among the accumulators (the previous attempt, which
// loaded the bias from global memory inside the value loop, spilled 24
// bytes at BN = 128: the loads were hoisted above the loop, their results
// held beside 64-128 live accumulators).
#pragma once

#include <cstdint>

#include "tessel/arch/common.hpp"
#include "tessel/kernels/gemm/common.cuh"

namespace tessel::gemm_kernels {

/// act(x) for a compile-time activation (gemm_types.hpp, Activation):
///   relu       max(x, 0) (NaN gives 0)
///   gelu_erf   0.5 x (1 + erff(x / sqrt 2))             erff: CUDA's, within 2 ulp
///   gelu_tanh  0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))  tanh.approx.f32: rel. error 2^-10.99
///   silu       x / (1 + e^-x)                            __expf and rcp.approx: a few fp32 ulp
/// The approximate forms stay below a bf16 or fp16 D's rounding (2^-9,
/// 2^-12 relative); an fp32 D shows them (docs/epilogues.md, tolerances).
template <Activation A>
__device__ __forceinline__ float activate(float x) {
  if constexpr (A == Activation::relu) {
    return fmaxf(x, 0.0f);
  } else if constexpr (A == Activation::gelu_erf) {
    return 0.5f * x * (1.0f + erff(x * 0.70710678118654752f));
  } else if constexpr (A == Activation::gelu_tanh) {
    const float u = 0.79788456080286536f * fmaf(0.044715f * x, x * x, x);  // sqrt(2/pi) (x + 0.044715 x^3)
    return 0.5f * x * (1.0f + arch::tanh_approx(u));
  } else if constexpr (A == Activation::silu) {
    // e^-x overflows to inf for x < -88: rcp(inf) = 0 and the result is -0, the limit.
    return x * arch::rcp_approx(1.0f + __expf(-x));
  } else {
    return x;
  }
}

/// x0 = act(x0), x1 = act(x1) for the run-time activation `a` (uniform over
/// a launch, so the branch never diverges).
__device__ __forceinline__ void activate_pair(Activation a, float& x0, float& x1) {
  switch (a) {
    case Activation::none:
      break;
    case Activation::relu:
      x0 = activate<Activation::relu>(x0);
      x1 = activate<Activation::relu>(x1);
      break;
    case Activation::gelu_erf:
      x0 = activate<Activation::gelu_erf>(x0);
      x1 = activate<Activation::gelu_erf>(x1);
      break;
    case Activation::gelu_tanh:
      x0 = activate<Activation::gelu_tanh>(x0);
      x1 = activate<Activation::gelu_tanh>(x1);
      break;
    case Activation::silu:
      x0 = activate<Activation::silu>(x0);
      x1 = activate<Activation::silu>(x1);
      break;
  }
}

/// The policy of a plain epilogue: nothing beyond alpha * acc + beta * C.
struct NoFusion {
  static constexpr bool kActive = false;
};

/// The fused part of the epilogue of one (BM, BN) tile with output type U,
/// over the tile's bias slice in shared memory (`bias_row`: BM floats,
/// `bias_col`: BN floats, 8-byte aligned; written by stage_bias).
template <class U, int BM, int BN>
struct FusedTile {
  static constexpr bool kActive = true;
  const EpilogueParams& e;
  const float* bias_row;
  const float* bias_col;

  /// Writes the bias slice of tile (tile_m, tile_n) into `row` (BM floats)
  /// and `col` (BN floats): the bias as fp32 where the call has a bias of
  /// that kind and the element is inside D, else 0.  Called by the
  /// `threads` threads t = 0..threads-1 of the epilogue before the
  /// epilogue's first barrier, and only once every thread has left the
  /// previous tile's epilogue (whose last reads precede its last barrier).
  __device__ static void stage_bias(const EpilogueParams& e, index_t m, index_t n, index_t tile_m, index_t tile_n,
                                    float* row, float* col, int t, int threads) {
    const U* bias = static_cast<const U*>(e.bias);
    for (int x = t; x < BN + BM; x += threads) {
      if (x < BN) {
        const index_t j = tile_n * BN + x;
        col[x] = e.bias_kind == BiasKind::col && j < n ? detail::to_float(bias[j]) : 0.0f;
      } else {
        const index_t i = tile_m * BM + (x - BN);
        row[x - BN] = e.bias_kind == BiasKind::row && i < m ? detail::to_float(bias[i]) : 0.0f;
      }
    }
  }

  /// Adds the bias to the value pair at tile row `r`, columns `c` and c + 1
  /// (c even: the pair's 8 bytes of the column slice are one load).
  __device__ void add_bias(float& x0, float& x1, int r, int c) const {
    const float2 b = *reinterpret_cast<const float2*>(bias_col + c);
    const float br = bias_row[r];
    x0 += b.x + br;  // one of b.x and br is 0 (a single bias kind): the sum is exact
    x1 += b.y + br;
  }

  /// Whether aux takes a pair as one store: rows of an even number of
  /// elements from a base aligned to the pair's 4 (8 for fp32) bytes.
  __device__ bool aux_pairs() const {
    return e.ldaux % 2 == 0 && reinterpret_cast<std::uintptr_t>(e.aux) % (2 * sizeof(U)) == 0;
  }

  /// aux(i, j) = x0 and aux(i, j + 1) = x1, rounded to U, for those of the
  /// two inside D (`in0`, `in1`; in1 implies in0: the pair shares a row).
  __device__ void store_aux(index_t i, index_t j, float x0, float x1, bool in0, bool in1, bool pairs) const {
    U* a = static_cast<U*>(e.aux) + i * e.ldaux + j;
    if (pairs && in1) {
      if constexpr (sizeof(U) == 4) {
        *reinterpret_cast<float2*>(a) = make_float2(x0, x1);
      } else {
        *reinterpret_cast<std::uint32_t*>(a) = pack_pair(detail::from_float<U>(x0), detail::from_float<U>(x1));
      }
      return;
    }
    if (in0) a[0] = detail::from_float<U>(x0);
    if (in1) a[1] = detail::from_float<U>(x1);
  }
};

}  // namespace tessel::gemm_kernels
