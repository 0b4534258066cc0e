// Every ahead-of-time instance of the Hopper steps and of the fallbacks `auto` reaches, one translation unit each:
// CMake writes a unit per name in TESSEL_GEMM_UNITS (CMakeLists.txt) that defines TESSEL_UNIT_<NAME> and includes
// this file, so that nvcc compiles the instances in parallel while their table is one file.  A unit's kernels are the
// template instances its launch functions name; instances.hpp declares them.
#if defined(TESSEL_UNIT_K13_N16) || defined(TESSEL_UNIT_K13_N32) || defined(TESSEL_UNIT_K13_N64) ||               \
    defined(TESSEL_UNIT_K13_N128) || defined(TESSEL_UNIT_K13_N192) || defined(TESSEL_UNIT_K13_N256) ||            \
    defined(TESSEL_UNIT_K13_M64_WIDE) || defined(TESSEL_UNIT_K13_EPI_N64) || defined(TESSEL_UNIT_K13_EPI_N128) || \
    defined(TESSEL_UNIT_K13_EPI_N256) || defined(TESSEL_UNIT_K13_WIDE) || defined(TESSEL_UNIT_K13_FITTED)
// ---- k13 (k13_wgmma_in_flight.cuh): 128 x BN tiles; the one-warpgroup 64 x BN, swapped (D^T) below 128.
#include "src/kernels/gemm/k13_tiles.hpp"
#define TESSEL_UNIT_BUILT
namespace tessel::gemm_launch::k13 {
// 128 x BN, and up to 64 the swapped 64 x BN (the x 16 and x 32 tiles serve small M, swapped).
#define TESSEL_K13_TILES(BN)                                                         \
  template <>                                                                        \
  Status launch_tiles<BN>(const GemmArgs& g, cudaStream_t stream, bool transposed) { \
    return launch_tiles_of<BN>(g, stream, transposed);                               \
  }
#define TESSEL_K13_SWAPPED_M64(BN)                                      \
  template <>                                                           \
  Status launch_tiles_m64<BN>(const GemmArgs& g, cudaStream_t stream) { \
    return launch_tiles_of<BN, false, 64>(g, stream, true);             \
  }
#if defined(TESSEL_UNIT_K13_WIDE)
// A 128-row swapped-only tile: 128 of N by TESSEL_UNIT_WIDTH of M, A read K-major.
template <>
Status launch_tiles_wide<TESSEL_UNIT_WIDTH>(const GemmArgs& g, cudaStream_t stream) {
  return launch_tiles_of<TESSEL_UNIT_WIDTH, false, 128, true>(g, stream, true);
}
#elif defined(TESSEL_UNIT_K13_FITTED)
// An unswapped 128-row tile of TESSEL_UNIT_WIDTH columns of N (a width between the powers of two), either B layout.
template <>
Status launch_tiles_fitted<TESSEL_UNIT_WIDTH>(const GemmArgs& g, cudaStream_t stream) {
  return launch_tiles_of<TESSEL_UNIT_WIDTH>(g, stream, false);
}
#elif defined(TESSEL_UNIT_K13_M64_WIDE)
// The swapped-only 64 x 48, 80, 96: 64 rows of N by that much of M, A read K-major (measured tuning's tiles).
TESSEL_K13_SWAPPED_M64(48)
TESSEL_K13_SWAPPED_M64(80)
TESSEL_K13_SWAPPED_M64(96)
#elif defined(TESSEL_UNIT_K13_EPI_N64) || defined(TESSEL_UNIT_K13_EPI_N128) || defined(TESSEL_UNIT_K13_EPI_N256)
// The fused-epilogue instances (docs/epilogues.md), units of their own beside the plain ones of their width.
template <>
Status launch_fused_tiles<TESSEL_UNIT_WIDTH>(const GemmArgs& g, cudaStream_t stream) {
  return launch_tiles_of<TESSEL_UNIT_WIDTH, true>(g, stream, false);
}
#else
TESSEL_K13_TILES(TESSEL_UNIT_WIDTH)
#if TESSEL_UNIT_WIDTH <= 64
TESSEL_K13_SWAPPED_M64(TESSEL_UNIT_WIDTH)
#elif TESSEL_UNIT_WIDTH == 128
// The unswapped one-warpgroup 64 x 128 (rule 1b).
Status launch_tiles_m64_n128(const GemmArgs& g, cudaStream_t stream) {
  return launch_tiles_of<128, false, 64>(g, stream, false);
}
#endif
#endif
#undef TESSEL_K13_TILES
#undef TESSEL_K13_SWAPPED_M64
}  // namespace tessel::gemm_launch::k13
#endif

#if defined(TESSEL_UNIT_K13_FP8_N128) || defined(TESSEL_UNIT_K13_FP8_N192) || defined(TESSEL_UNIT_K13_FP8_N256) || \
    defined(TESSEL_UNIT_K13_FP8_MIXED_N128) || defined(TESSEL_UNIT_K13_FP8_MIXED_N192) ||                          \
    defined(TESSEL_UNIT_K13_FP8_MIXED_N256) || defined(TESSEL_UNIT_K13_GROUPED_FP8) ||                             \
    defined(TESSEL_UNIT_K13_GROUPED_FP8_MIXED)
// ---- k13 on FP8 A and B (wgmma_fp8.cuh): A:k and B:k only.  Built in every build, also one of one instance per
// step: FP8 has no other layout, and nvcc takes 15 s for a unit.  The _mixed units hold the instances whose A and B
// differ in format (Fp8Mixed), so that a call of one format compiles no more than before.
#include <cuda_fp8.h>

#include "src/kernels/gemm/instances.hpp"
#include "tessel/kernels/gemm/wgmma_fp8.cuh"
#if defined(TESSEL_UNIT_K13_FP8_MIXED_N128) || defined(TESSEL_UNIT_K13_FP8_MIXED_N192) || \
    defined(TESSEL_UNIT_K13_FP8_MIXED_N256) || defined(TESSEL_UNIT_K13_GROUPED_FP8_MIXED)
#define TESSEL_UNIT_FP8_MIXED true
#else
#define TESSEL_UNIT_FP8_MIXED false
#endif
namespace tessel::gemm_launch::k13 {
namespace {
/// f.template operator()<T>() with T the kernel's element type for g's A and
/// B: __nv_fp8_e4m3 or __nv_fp8_e5m2 where they share a format, else
/// Fp8Mixed<A's, B's> (Mixed; a swapped problem's A is the caller's B).
template <bool Mixed, class F>
Status with_fp8_types(const GemmArgs& g, F&& f) {
  const bool a5 = g.ab_type == DType::e5m2;
  if constexpr (Mixed) {
    using gemm_kernels::wgmma::Fp8Mixed;
    return a5 ? f.template operator()<Fp8Mixed<__nv_fp8_e5m2, __nv_fp8_e4m3>>()
              : f.template operator()<Fp8Mixed<__nv_fp8_e4m3, __nv_fp8_e5m2>>();
  } else {
    return a5 ? f.template operator()<__nv_fp8_e5m2>() : f.template operator()<__nv_fp8_e4m3>();
  }
}
}  // namespace
}  // namespace tessel::gemm_launch::k13
#endif

#if defined(TESSEL_UNIT_K13_FP8_N128) || defined(TESSEL_UNIT_K13_FP8_N192) || defined(TESSEL_UNIT_K13_FP8_N256) || \
    defined(TESSEL_UNIT_K13_FP8_MIXED_N128) || defined(TESSEL_UNIT_K13_FP8_MIXED_N192) ||                          \
    defined(TESSEL_UNIT_K13_FP8_MIXED_N256)
// ---- k13's FP8 tiles: 128 x BN, the 64 x 128 and the swapped 64 x {16, 32, 64}.
#include "src/kernels/gemm/k13_tiles.hpp"
#define TESSEL_UNIT_BUILT
namespace tessel::gemm_launch::k13 {
namespace {
template <class Cfg>
Status launch_fp8_cfg(const GemmArgs& g, cudaStream_t stream, bool transposed) {
  return with_fp8_types<TESSEL_UNIT_FP8_MIXED>(g, [&]<class T>() {
    return launch_kernel<Cfg, T, MajorA::k, MajorB::k>(g, stream, transposed, CfgKernel<Cfg>{});
  });
}
/// Tile BM x BN's instance for the call's scales: none or per tensor (with alpha), per channel, or (128 wide) per
/// block.
template <int BN, int BM = 128>
Status launch_fp8_of(const GemmArgs& g, cudaStream_t stream, bool transposed = false) {
  using Cfg = gk::Config<BN, false, BM>;
  if (g.fp8_scale == Fp8Scale::none || g.fp8_scale == Fp8Scale::tensor)
    return launch_fp8_cfg<Cfg>(g, stream, transposed);
  if constexpr (BN == 128)
    if (g.fp8_scale == Fp8Scale::block)
      return launch_fp8_cfg<gk::Scaled<Cfg, gemm_kernels::Fp8Scales::block>>(g, stream, transposed);
  return launch_fp8_cfg<gk::Scaled<Cfg, gemm_kernels::Fp8Scales::channel>>(g, stream, transposed);
}
}  // namespace
template <>
Status launch_fp8_tiles<TESSEL_UNIT_WIDTH, TESSEL_UNIT_FP8_MIXED>(const GemmArgs& g, cudaStream_t stream) {
  return launch_fp8_of<TESSEL_UNIT_WIDTH>(g, stream);
}
#if TESSEL_UNIT_WIDTH == 128
template <>
Status launch_fp8_tiles_m64<TESSEL_UNIT_FP8_MIXED>(const GemmArgs& g, cudaStream_t stream) {
  return launch_fp8_of<128, 64>(g, stream);
}
#elif TESSEL_UNIT_WIDTH == 192
// The swapped 64 x 16, 32 and 64 (small M), in the unit with the fewest kernels.
template <>
Status launch_fp8_swapped<16, TESSEL_UNIT_FP8_MIXED>(const GemmArgs& g, cudaStream_t stream) {
  return launch_fp8_of<16, 64>(g, stream, true);
}
template <>
Status launch_fp8_swapped<32, TESSEL_UNIT_FP8_MIXED>(const GemmArgs& g, cudaStream_t stream) {
  return launch_fp8_of<32, 64>(g, stream, true);
}
template <>
Status launch_fp8_swapped<64, TESSEL_UNIT_FP8_MIXED>(const GemmArgs& g, cudaStream_t stream) {
  return launch_fp8_of<64, 64>(g, stream, true);
}
#endif
}  // namespace tessel::gemm_launch::k13
#endif

#if defined(TESSEL_UNIT_K13_GROUPED_N128) || defined(TESSEL_UNIT_K13_GROUPED_N256)
// ---- k13's batched and grouped kernel (k13_grouped.cuh), 128 x 128 and 128 x 256.
#include "src/kernels/gemm/k13_grouped_tiles.hpp"
#define TESSEL_UNIT_BUILT
namespace tessel::gemm_launch::k13 {
template <>
Status launch_grouped_tiles<TESSEL_UNIT_WIDTH>(const GemmArgs* problems, int count, cudaStream_t stream) {
  return launch_grouped_with<GroupedFamily<TESSEL_UNIT_WIDTH>>(problems, count, stream);
}
}  // namespace tessel::gemm_launch::k13
#endif

#if defined(TESSEL_UNIT_K13_GROUPED_FP8) || defined(TESSEL_UNIT_K13_GROUPED_FP8_MIXED)
// ---- k13's grouped kernel on FP8 A and B: 128 x 128 and 64 x 128 tiles, their sums promoted (wgmma_fp8.cuh's atom).
#include "src/kernels/gemm/k13_grouped_tiles.hpp"
#define TESSEL_UNIT_BUILT
namespace tessel::gemm_launch::k13 {
namespace {
template <int BM, int Scales>
Status launch_grouped_fp8_as(const GemmArgs* problems, int count, cudaStream_t stream) {
  return with_fp8_types<TESSEL_UNIT_FP8_MIXED>(problems[0], [&]<class T>() {  // the group shares its formats
    return launch_grouped_as<GroupedFamily<128, BM, Scales>, T, MajorA::k, MajorB::k>(problems, count, stream);
  });
}
/// The instance for the group's scales (it shares the mode): none, per tensor or channel, or per block.
template <int BM>
Status launch_grouped_fp8_of(const GemmArgs* problems, int count, cudaStream_t stream) {
  using S = gemm_kernels::Fp8Scales;
  switch (problems[0].fp8_scale) {
    case Fp8Scale::none:
      return launch_grouped_fp8_as<BM, S::none>(problems, count, stream);
    case Fp8Scale::block:
      return launch_grouped_fp8_as<BM, S::block>(problems, count, stream);
    default:
      return launch_grouped_fp8_as<BM, S::channel>(problems, count, stream);  // per tensor: a stride of 0
  }
}
}  // namespace
template <>
Status launch_grouped_fp8_tiles<TESSEL_UNIT_FP8_MIXED>(const GemmArgs* problems, int count, int tile_m,
                                                       cudaStream_t stream) {
  return tile_m == 64 ? launch_grouped_fp8_of<64>(problems, count, stream)
                      : launch_grouped_fp8_of<128>(problems, count, stream);
}
}  // namespace tessel::gemm_launch::k13
#endif

#if defined(TESSEL_UNIT_K14_N64) || defined(TESSEL_UNIT_K14_N128) || defined(TESSEL_UNIT_K14_N192) || \
    defined(TESSEL_UNIT_K14_N256)
// ---- k14 (k14_cluster_multicast.cuh): 128 x BN tiles on pairs of CTAs; at 128 also the 64 x 128 pairs.
#include "src/kernels/gemm/k14_tiles.hpp"
#define TESSEL_UNIT_BUILT
namespace tessel::gemm_launch::k14 {
template <>
Status launch_tiles<TESSEL_UNIT_WIDTH>(const GemmArgs& g, cudaStream_t stream) {
  // 128 x 64 pairs share A already; the wider ones share B unless asked for A (check_k14).
  if constexpr (TESSEL_UNIT_WIDTH >= 128)
    if (g.tuning.cluster_share == ClusterShare::a) return launch_tiles_of<TESSEL_UNIT_WIDTH, 128, 1, 2>(g, stream);
  return launch_tiles_of<TESSEL_UNIT_WIDTH>(g, stream);
}
#if defined(TESSEL_UNIT_K14_N128)
Status launch_tiles_m64_n128(const GemmArgs& g, cudaStream_t stream) { return launch_tiles_of<128, 64>(g, stream); }
#endif
}  // namespace tessel::gemm_launch::k14
#endif

#if defined(TESSEL_UNIT_K14_WIDE)
// ---- k14 on k13's 128-row swapped-only tile of width TESSEL_UNIT_WIDTH: pairs sharing the caller's A.
#include "src/kernels/gemm/k14_tiles.hpp"
#define TESSEL_UNIT_BUILT
namespace tessel::gemm_launch::k14 {
template <>
Status launch_tiles_wide<TESSEL_UNIT_WIDTH>(const GemmArgs& g, cudaStream_t stream) {
  return launch_wide_of<TESSEL_UNIT_WIDTH>(g, stream);
}
}  // namespace tessel::gemm_launch::k14
#endif

#if defined(TESSEL_UNIT_K14_SPLIT)
// ---- k14 splitting K (gemm_cluster_split): pairs of M-neighbours sharing B on tiles 64 x 128 and 128 x 128.
#include "src/kernels/gemm/k14_tiles.hpp"
#define TESSEL_UNIT_BUILT
namespace tessel::gemm_launch::k14 {
Status launch_tiles_split(const GemmArgs& g, cudaStream_t stream) {
  using gemm_kernels::cluster::kPairM;
  using gemm_kernels::cluster::kPairN;
  using C64 = gemm_kernels::wgmma::Config<128, false, 64>;
  using C128 = gemm_kernels::wgmma::Config<128, false, 128>;
  return g.tuning.tile_m == 64 ? launch_tiles_of<128, 64, kPairM<C64>, kPairN<C64>, true>(g, stream)
                               : launch_tiles_of<128, 128, kPairM<C128>, kPairN<C128>, true>(g, stream);
}
}  // namespace tessel::gemm_launch::k14
#endif

#if defined(TESSEL_UNIT_K14_2X2)
// ---- k14 on clusters of 2 x 2 CTAs: tiles 64 x 128 and 128 x 128, each CTA requesting half of A's and half of B's
// lines of a k-tile from L2.
#include "src/kernels/gemm/k14_tiles.hpp"
#define TESSEL_UNIT_BUILT
namespace tessel::gemm_launch::k14 {

namespace {
// The 2 x 2 cluster's bookkeeping: CTA r at (r % 2, r / 2); A's shares go along the cluster row (ranks r % 2,
// r % 2 + 2), B's along the column (ranks 2 (r / 2), +1); each stage hears from 3 CTAs; cluster tile (1, 1)'s CTA 3 is
// tile (3, 3).
using X22 = gemm_kernels::cluster::ClusterTiles<__nv_bfloat16, MajorA::k, MajorB::n,
                                                gemm_kernels::wgmma::Config<128, false, 128>, 2, 2>;
static_assert(X22::kSize == 4 && X22::kSenders == 3);
static_assert(X22::mask_a(0) == 0b0101 && X22::mask_a(3) == 0b1010 && X22::mask_b(1) == 0b0011 &&
              X22::mask_b(2) == 0b1100);
static_assert(X22::share_a(2) == 1 && X22::share_b(2) == 0 && X22::share_a(1) == 0 && X22::share_b(1) == 1);
static_assert(X22::tile_of({1, 1}, 3).m == 3 && X22::tile_of({1, 1}, 3).n == 3 && X22::tile_of({1, 1}, 1).m == 3 &&
              X22::tile_of({1, 1}, 1).n == 2);
static_assert(X22::pair_rows(5) == 3 && X22::pair_cols(4) == 2);
}  // namespace

Status launch_tiles_2x2(const GemmArgs& g, cudaStream_t stream) {
  return g.tuning.tile_m == 64 ? launch_tiles_of<128, 64, 2, 2>(g, stream) : launch_tiles_of<128, 128, 2, 2>(g, stream);
}

}  // namespace tessel::gemm_launch::k14
#endif

#if defined(TESSEL_UNIT_K15_CLUSTER)
// ---- k15 on clusters of two CTAs sharing B (k15_cluster.cuh): the maps (B's in the halves the pair's CTAs load),
// the pairs that fit, the cluster launch.
#include <string>

#include "src/kernels/gemm/k14_tiles.hpp"
#include "src/kernels/gemm/k15_tiles.hpp"
#include "tessel/kernels/gemm/k15_cluster.cuh"
#define TESSEL_UNIT_BUILT
namespace tessel::gemm_launch::k15 {

Status launch_tiles_cluster(const GemmArgs& g, cudaStream_t stream) {
  using Cfg = gk::Config<false>;
  return with_types(g, [&]<class T, MajorA MA, MajorB MB>() {
    return k14::launch_on_clusters<gk::ClusterTiles<T, MA, MB, Cfg>, gk::kBM, gk::kBN, T, MA, MB>(
        g, &gk::gemm_pingpong_cluster<T, MA, MB, Cfg>, gk::kThreads, stream, "k15");
  });
}

}  // namespace tessel::gemm_launch::k15
#endif

#if defined(TESSEL_UNIT_CLUSTERS_ABSENT)
// ---- Without the ladder: the cluster compositions' launchers, refusing.
#include <string>

#include "src/kernels/gemm/instances.hpp"
#define TESSEL_UNIT_BUILT
namespace tessel::gemm_launch {
namespace {
Status clusters_absent(const char* what) {
  return Status::failure(Status::unsupported, std::string(what) + " is built with the ladder (TESSEL_BUILD_LADDER=ON)");
}
}  // namespace
Status k14::launch_tiles_2x2(const GemmArgs&, cudaStream_t) { return clusters_absent("k14 on 2 x 2 clusters"); }
Status k15::launch_tiles_cluster(const GemmArgs&, cudaStream_t) { return clusters_absent("k15 on clusters"); }
#define TESSEL_K14_WIDE_ABSENT(NAME, BN)                        \
  template <>                                                   \
  Status k14::NAME<BN>(const GemmArgs&, cudaStream_t) {         \
    return clusters_absent("k14 on the swapped 128-row tiles"); \
  }
TESSEL_WIDE_WIDTHS(TESSEL_K14_WIDE_ABSENT, launch_tiles_wide)
#undef TESSEL_K14_WIDE_ABSENT
}  // namespace tessel::gemm_launch
#endif

#if defined(TESSEL_UNIT_K15_EPI)
// ---- k15's fused-epilogue kernels (k15_pingpong.cuh), beside its plain ones (k15.cu).
#include "src/kernels/gemm/k15_tiles.hpp"
#define TESSEL_UNIT_BUILT
namespace tessel::gemm_launch::k15 {
template <>
Status launch_tiles<true>(const GemmArgs& g, cudaStream_t stream) {
  return launch_tiles_of<true>(g, stream);
}
}  // namespace tessel::gemm_launch::k15
#endif

#if defined(TESSEL_UNIT_K15_BATCHED)
// ---- k15's batched kernel (k15_grouped.cuh): k13 grouped's descriptors and launch with k15's tiles and kernel;
// whether it serves a call is decided in k13_grouped.cu.
#include "src/kernels/gemm/k13_grouped_tiles.hpp"
#include "tessel/gemm_plan.hpp"
#include "tessel/kernels/gemm/k15_grouped.cuh"
#define TESSEL_UNIT_BUILT
namespace tessel::gemm_launch::k15 {
namespace {

/// k15's pingpong kernel over a k13::GroupSet, as launch_grouped_with takes it.
template <int Stages>
struct BatchedFamily {
  template <class T, MajorA MA, MajorB MB>
  using Tiles = gemm_kernels::k15::Tiles<T, MA, MB, gemm_kernels::k15::BatchedConfig<Stages>>;
  template <class T, MajorA MA, MajorB MB>
  static constexpr auto kernel() {
    return &gemm_kernels::k15::gemm_pingpong_grouped<T, MA, MB, Stages>;
  }
  static constexpr int kThreads = gemm_kernels::k15::kThreads;
  static constexpr const char* kName = "k15 batched";
};

}  // namespace

Status launch_batched_tiles(const GemmArgs& g, cudaStream_t stream) {
  int sms = 0;
  if (Status s = tma::sm_count("k15 batched", sms); !s) return s;
  // Rule 11c (gemm_plan.hpp): the pipeline's depth.
  return batched_stages_for(g.m, g.n, g.k, sms) == 3 ? k13::launch_grouped_with<BatchedFamily<3>>(&g, 1, stream)
                                                     : k13::launch_grouped_with<BatchedFamily<4>>(&g, 1, stream);
}

}  // namespace tessel::gemm_launch::k15
#endif

#if defined(TESSEL_UNIT_K08)
// ---- k08 (k08_smem_epilogue.cuh): mma.sync, what the TMA steps fall back to without a padded copy.
#include "src/kernels/gemm/multistage_launch.hpp"
#include "tessel/kernels/gemm/k08_smem_epilogue.cuh"
#define TESSEL_UNIT_BUILT
namespace tessel::gemm_launch {
Status check_k08(const GemmArgs& a) { return check_multistage<gemm_kernels::k08::Config>(a, "k08"); }
Status launch_k08(const GemmArgs& a, cudaStream_t stream) {
  return launch_multistage<gemm_kernels::k08::Config>(a, stream, "k08");
}
}  // namespace tessel::gemm_launch
#endif

#if defined(TESSEL_UNIT_F07)
// ---- f07 (f07_two_ctas_per_sm.cuh): fp32, f06's tiles under 128 registers, two CTAs per SM, four cp.async stages.
#include "src/kernels/gemm/fp32_launch.hpp"
#include "tessel/kernels/gemm/f07_two_ctas_per_sm.cuh"
#define TESSEL_UNIT_BUILT
namespace tessel::gemm_launch {

// The same grid as f04..f06 (one CTA per 128x128 tile, x along N), so the same limits.
static_assert(gemm_kernels::f07::kBM == gemm_kernels::f04::kBM && gemm_kernels::f07::kBN == gemm_kernels::f04::kBN);

Status check_f07(const GemmArgs& a) { return check_fp32_pipelined(a, "f07"); }

Status launch_f07(const GemmArgs& a, cudaStream_t stream) {
  namespace k = gemm_kernels::f07;
  return with_fp32_layouts(a, [&]<MajorA MA, MajorB MB>() {
    auto* kernel = &k::gemm_two_ctas<MA, MB>;
    // 66 KB of stages: above the 48 KB that needs no opt-in.
    if (Status s = allow_smem(kernel, k::kSmemBytes, "f07"); !s) return s;
    kernel<<<tile_grid(a, k::kBM, k::kBN).dim(), k::kThreads, k::kSmemBytes, stream>>>(make_params<float>(a));
    return launch_status("f07");
  });
}

}  // namespace tessel::gemm_launch
#endif

#if defined(TESSEL_UNIT_F08)
// ---- f08 (f08_thread_tile_16x8.cuh): fp32, 16 x 8 accumulators a thread on a 128 x 256 tile, one CTA per SM; f10's
// and f11's kernel where TMA cannot take the call.
#include "src/kernels/gemm/fp32_launch.hpp"
#include "tessel/kernels/gemm/f08_thread_tile_16x8.cuh"
#define TESSEL_UNIT_BUILT
namespace tessel::gemm_launch {

Status check_f08(const GemmArgs& a) {
  using Cfg = gemm_kernels::f08::Tile;
  return check_tile_grid(a, Cfg::kBM, Cfg::kBN, "f08");
}

Status launch_f08(const GemmArgs& a, cudaStream_t stream) {
  namespace k = gemm_kernels::f08;
  using Cfg = gemm_kernels::f08::Tile;
  return with_fp32_layouts(a, [&]<MajorA MA, MajorB MB>() {
    auto* kernel = &k::gemm_thread_tile_16x8<MA, MB, Cfg>;
    // 49 KB of stages: above the 48 KB that needs no opt-in.
    if (Status s = allow_smem(kernel, Cfg::kSmemBytes, "f08"); !s) return s;
    kernel<<<tile_grid(a, Cfg::kBM, Cfg::kBN).dim(), k::kThreads, Cfg::kSmemBytes, stream>>>(make_params<float>(a));
    return launch_status("f08");
  });
}

}  // namespace tessel::gemm_launch
#endif

#ifndef TESSEL_UNIT_BUILT
#error "instances.cu: compiled without a TESSEL_UNIT_<NAME> it knows (CMake's TESSEL_GEMM_UNITS writes the units)"
#endif
