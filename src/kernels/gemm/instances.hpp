// The entry points of the Hopper steps' launchers (k13, k14, k15), each defined in one translation unit of its own
// so that nvcc compiles them in parallel: k13.cu, k14.cu, k15.cu and k13_grouped.cu check the arguments, resolve the
// tuning (the caller's, else the plan's, tessel/gemm_plan.hpp), make the padded copies of operands TMA cannot read and
// call one of these; instances.cu defines them, one CMake-generated unit per tile (its table of units is there).
#pragma once

#include <cuda_runtime.h>

#include <string>
#include <type_traits>

#include "tessel/host/gemm.hpp"

/// The declaration of launcher NAME's instance for width BN (a CMake unit defines each).
#define TESSEL_WIDTH_LAUNCHER(NAME, BN) \
  template <>                           \
  Status NAME<BN>(const GemmArgs& g, cudaStream_t stream);
// The width lists by hand: clang-format reflows them differently on each pass.
// clang-format off
/// X(NAME, w) for every 128-row swapped width w (swapped_wide_width: multiples of 16 from 80 to 256)...
#define TESSEL_WIDE_WIDTHS(X, NAME) \
  X(NAME, 80) X(NAME, 96) X(NAME, 112) X(NAME, 128) X(NAME, 144) X(NAME, 160) \
  X(NAME, 176) X(NAME, 192) X(NAME, 208) X(NAME, 224) X(NAME, 240) X(NAME, 256)
/// ... and every unswapped width fitted to a thin N (fitted_width: the same but 128 and 192, and 256).
#define TESSEL_FITTED_WIDTHS(X, NAME) \
  X(NAME, 80) X(NAME, 96) X(NAME, 112) X(NAME, 144) X(NAME, 160) \
  X(NAME, 176) X(NAME, 208) X(NAME, 224) X(NAME, 240)
// clang-format on

namespace tessel::gemm_launch {

/// f(std::integral_constant<int, W>{}) for the 128-row width W (swapped_wide_width's range: kWideFirst to
/// kWideLast in steps of kWideStep) equal to w, none() where w is none of them: a run-time width to its
/// instance, for k13's and k14's launchers.
template <int W = kWideFirst, class F, class None>
Status with_wide_width(int w, const F& f, const None& none) {
  if constexpr (W > kWideLast)
    return none();
  else
    return w == W ? f(std::integral_constant<int, W>{}) : with_wide_width<W + kWideStep>(w, f, none);
}

}  // namespace tessel::gemm_launch

namespace tessel::gemm_launch::k13 {

/// The k-tiles per promotion of an FP8 call's sums into fp32 (0: at a unit's end).
inline int fp8_promote_interval(const GemmArgs& g) {
  return g.fp8_fast_accum ? 0 : g.fp8_promote_every > 0 ? g.fp8_promote_every : kFp8PromoteEvery;
}

/// k13 with tile 128 x BN and g.tuning.splits (>= 1) splits of K, on A and B
/// whose rows TMA can read.  `transposed`: g is the swapped problem (k13.cu's
/// swapped()), whose D and C the kernel writes and reads transposed; only
/// BN <= 64 takes it, and BN < 64 takes nothing else.
template <int BN>
Status launch_tiles(const GemmArgs& g, cudaStream_t stream, bool transposed);
template <>
Status launch_tiles<16>(const GemmArgs& g, cudaStream_t stream, bool transposed);
template <>
Status launch_tiles<32>(const GemmArgs& g, cudaStream_t stream, bool transposed);
template <>
Status launch_tiles<64>(const GemmArgs& g, cudaStream_t stream, bool transposed);
template <>
Status launch_tiles<128>(const GemmArgs& g, cudaStream_t stream, bool transposed);
template <>
Status launch_tiles<192>(const GemmArgs& g, cudaStream_t stream, bool transposed);
template <>
Status launch_tiles<256>(const GemmArgs& g, cudaStream_t stream, bool transposed);

/// k13 with the swapped one-warpgroup tile 64 x BN (BN = 16, 32, 64, and 48, 80, 96 below;
/// GemmTuning::tile_m = 64) on the swapped problem g (transposed D and C),
/// g.tuning.splits (>= 1) splits of K, A and B whose rows TMA can read.
template <int BN>
Status launch_tiles_m64(const GemmArgs& g, cudaStream_t stream);
TESSEL_WIDTH_LAUNCHER(launch_tiles_m64, 16)
TESSEL_WIDTH_LAUNCHER(launch_tiles_m64, 32)
TESSEL_WIDTH_LAUNCHER(launch_tiles_m64, 64)
/// The swapped-only widths 48, 80, 96: the caller's A K-major (A:k), else a status saying so.
TESSEL_WIDTH_LAUNCHER(launch_tiles_m64, 48)
TESSEL_WIDTH_LAUNCHER(launch_tiles_m64, 80)
TESSEL_WIDTH_LAUNCHER(launch_tiles_m64, 96)
/// k13 with the 128-row swapped-only tile 128 x BN (BN a multiple of 16 from
/// 80 to 256: swapped_wide_width; GemmTuning::tile_m 0 or 128) on the swapped
/// problem g, A read K-major (the swapped problem's B: MajorB::k), else a
/// status saying so; splits of K as above.
template <int BN>
Status launch_tiles_wide(const GemmArgs& g, cudaStream_t stream);
TESSEL_WIDE_WIDTHS(TESSEL_WIDTH_LAUNCHER, launch_tiles_wide)
/// k13 with the unswapped tile 128 x BN fitted to a thin N (BN a multiple of
/// 16 from 80 to 240 but 128 and 192: fitted_width; GemmTuning::swap_ab off),
/// either B layout, splits of K as above.
template <int BN>
Status launch_tiles_fitted(const GemmArgs& g, cudaStream_t stream);
TESSEL_FITTED_WIDTHS(TESSEL_WIDTH_LAUNCHER, launch_tiles_fitted)
/// k13 with the unswapped one-warpgroup tile 64 x 128 (GemmTuning::tile_m =
/// 64 on an unswapped problem): TMA-stored D, splits of K as above.
Status launch_tiles_m64_n128(const GemmArgs& g, cudaStream_t stream);

/// k13 on FP8 A and B (e4m3 or e5m2; A:k, B:k, rows TMA can read;
/// wgmma_fp8.cuh) with tile 128 x BN (BN = 128, 192, 256), or 64 x 128 (_m64);
/// unswapped, g.tuning.splits (>= 1) splits of K.  Mixed: A and B differ in
/// format (b_type_of(g) != g.ab_type), instances of units of their own.
template <int BN, bool Mixed>
Status launch_fp8_tiles(const GemmArgs& g, cudaStream_t stream);
#define TESSEL_FP8_LAUNCHERS(MIXED)                                             \
  template <>                                                                   \
  Status launch_fp8_tiles<128, MIXED>(const GemmArgs& g, cudaStream_t stream);  \
  template <>                                                                   \
  Status launch_fp8_tiles<192, MIXED>(const GemmArgs& g, cudaStream_t stream);  \
  template <>                                                                   \
  Status launch_fp8_tiles<256, MIXED>(const GemmArgs& g, cudaStream_t stream);  \
  template <>                                                                   \
  Status launch_fp8_tiles_m64<MIXED>(const GemmArgs& g, cudaStream_t stream);   \
  template <>                                                                   \
  Status launch_fp8_swapped<16, MIXED>(const GemmArgs& g, cudaStream_t stream); \
  template <>                                                                   \
  Status launch_fp8_swapped<32, MIXED>(const GemmArgs& g, cudaStream_t stream); \
  template <>                                                                   \
  Status launch_fp8_swapped<64, MIXED>(const GemmArgs& g, cudaStream_t stream); \
  template <>                                                                   \
  Status launch_grouped_fp8_tiles<MIXED>(const GemmArgs* problems, int count, int tile_m, cudaStream_t stream);
template <bool Mixed>
Status launch_fp8_tiles_m64(const GemmArgs& g, cudaStream_t stream);
/// The swapped FP8 tiles 64 x BN (BN = 16, 32, 64) on the swapped problem g
/// (D^T = B^T A^T: g's A is the caller's B; D and C transposed).
template <int BN, bool Mixed>
Status launch_fp8_swapped(const GemmArgs& g, cudaStream_t stream);
/// The grouped FP8 kernel (launch_grouped_tiles<128>'s, FP8 main loop; built
/// in every build), the tiles `tile_m` (128 or 64) rows high.
template <bool Mixed>
Status launch_grouped_fp8_tiles(const GemmArgs* problems, int count, int tile_m, cudaStream_t stream);
TESSEL_FP8_LAUNCHERS(false)
TESSEL_FP8_LAUNCHERS(true)
#undef TESSEL_FP8_LAUNCHERS

/// k13's fused-epilogue instance with tile 128 x BN (BN = 64, 128, 256): D = act(alpha * A B + beta * C + bias) and
/// aux, g.epilogue, computed in the kernel's epilogue; unswapped problems,
/// g.tuning.splits (>= 1) splits of K, A and B whose rows TMA can read.
template <int BN>
Status launch_fused_tiles(const GemmArgs& g, cudaStream_t stream);
TESSEL_WIDTH_LAUNCHER(launch_fused_tiles, 64)
TESSEL_WIDTH_LAUNCHER(launch_fused_tiles, 128)
TESSEL_WIDTH_LAUNCHER(launch_fused_tiles, 256)

/// The run-time compiled fused instance for `g` (k13_jit.cu; GemmJit,
/// docs/design.md §6): gk::SpecializedConfig<tile_n, StaticEpilogue<act,
/// bias kind, beta != 0, aux != null>> for g's input type and layout,
/// compiled by nvcc or read from the disk cache on the first call of that
/// configuration in the process, then looked up.  On success `kernel` is its
/// handle; a failure's message says why (no nvcc, a compile error, a driver
/// without cudaLibraryLoadData), and the same configuration fails at once on
/// later calls (no second compile).  g.tuning.tile_n must be 64, 128 or 256
/// (k13_fused_instance).
Status jit_kernel(const GemmArgs& g, const void*& kernel);
/// Launches `kernel` (from jit_kernel for this g's configuration) as the
/// fused instance of width g.tuning.tile_n is launched: launch_tiles_with.
Status launch_jit_tiles(const GemmArgs& g, cudaStream_t stream, const void* kernel);

/// `count` checked problems (one with batch >= 1, or a group of batch-1
/// problems sharing types and layout, whose A and B rows TMA can read) in
/// one launch with tile 128 x BN.  One problem: its descriptor is the
/// kernel's parameter; more: the descriptors go to device memory on `stream`.
template <int BN>
Status launch_grouped_tiles(const GemmArgs* problems, int count, cudaStream_t stream);
template <>
Status launch_grouped_tiles<128>(const GemmArgs* problems, int count, cudaStream_t stream);
template <>
Status launch_grouped_tiles<256>(const GemmArgs* problems, int count, cudaStream_t stream);

}  // namespace tessel::gemm_launch::k13

namespace tessel::gemm_launch::k14 {

/// k14 with tile 128 x BN on A and B whose rows TMA can read.
template <int BN>
Status launch_tiles(const GemmArgs& g, cudaStream_t stream);
TESSEL_WIDTH_LAUNCHER(launch_tiles, 64)
TESSEL_WIDTH_LAUNCHER(launch_tiles, 128)
TESSEL_WIDTH_LAUNCHER(launch_tiles, 192)
TESSEL_WIDTH_LAUNCHER(launch_tiles, 256)
/// k14 with the one-warpgroup tile 64 x 128 (GemmTuning::tile_m = 64): clusters of M-neighbours sharing B.
Status launch_tiles_m64_n128(const GemmArgs& g, cudaStream_t stream);
/// k14 splitting K g.tuning.splits ways (2..64) on pairs sharing B: tile 64 x 128 (tuning.tile_m = 64) or 128 x 128.
Status launch_tiles_split(const GemmArgs& g, cudaStream_t stream);
/// k14 with k13's 128-row swapped-only tile 128 x BN (swapped_wide_width) on
/// the swapped problem g (k13_swapped; A:k, else a status saying so): pairs
/// of neighbours along N sharing the caller's A; no split.
template <int BN>
Status launch_tiles_wide(const GemmArgs& g, cudaStream_t stream);
TESSEL_WIDE_WIDTHS(TESSEL_WIDTH_LAUNCHER, launch_tiles_wide)
/// k14 on clusters of 2 x 2 CTAs (GemmTuning::cluster = 4): A's tile shared along N, B's along M, on tiles 64 x 128
/// (tile_m 64) or 128 x 128.
Status launch_tiles_2x2(const GemmArgs& g, cudaStream_t stream);

}  // namespace tessel::gemm_launch::k14

namespace tessel::gemm_launch::k15 {

/// k15 on A and B whose rows TMA can read, beta = 0 (check_k15); Fused: the
/// instance that computes g.epilogue (no aux) in the kernel's epilogue.
template <bool Fused>
Status launch_tiles(const GemmArgs& g, cudaStream_t stream);
template <>
Status launch_tiles<false>(const GemmArgs& g, cudaStream_t stream);
template <>
Status launch_tiles<true>(const GemmArgs& g, cudaStream_t stream);
/// k15 on clusters of two M-neighbour CTAs sharing B (GemmTuning::cluster = 2): the plain kernel only (no fused
/// epilogue).
Status launch_tiles_cluster(const GemmArgs& g, cudaStream_t stream);

/// Every batch of checked `g` (batch > 1, beta = 0, no epilogue, A and B
/// TMA-readable as k13's batched kernel wants them) in one launch of k15's
/// batched kernel (k15_grouped.cuh).
Status launch_batched_tiles(const GemmArgs& g, cudaStream_t stream);

}  // namespace tessel::gemm_launch::k15
