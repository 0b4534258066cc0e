// tessel/kernels/gemm/wgmma_tiles.cuh — the wgmma kernels' tile
// configuration: a tile's shape (BM x BN, one or two consumer warpgroups),
// its fused-epilogue form, the stages that fit beside the epilogue's
// staging and how many of them are in flight, and from a configuration and
// an input type and layout (Tiles) the TMA operands, the TiledMMA, the
// fragments, the pipeline and the shared-memory layout.  k13's kernel, its
// batched and grouped kernel and k14 are built on it; their launchers size
// and launch from it.
#pragma once

#include <type_traits>

#include "tessel/atom/mma_sm90.hpp"
#include "tessel/kernels/blocks/pipeline_sm90.cuh"
#include "tessel/kernels/gemm/fused_epilogue.cuh"
#include "tessel/kernels/gemm/tma_store_epilogue.cuh"
#include "tessel/kernels/gemm/tma_warp_specialized_common.cuh"

namespace tessel::gemm_kernels::wgmma {

inline constexpr int kBM = 128;                // a tile's rows by default: two consumer warpgroups
inline constexpr int kSmemLimit = 227 * 1024;  // the opt-in maximum of dynamic shared memory per CTA (sm_90)

/// The tile (128 x BN) and what follows from it: the TiledMMA, the epilogue's
/// staging, and the stages that fit beside it.  BN = 16 and 32 serve the
/// swapped problem only (D^T = B^T A^T, M <= 32 as the tile's width): D then
/// leaves transposed from registers, so they have no staging for TMA stores
/// (whose chunks are 128 bytes of a row: 64 16-bit columns).
/// `Fused`: the fused-epilogue instance (FusedParams, bias slice in shared
/// memory, unswapped problems only).
/// `Swapped`: a swapped-only tile of 128 rows of N by BN of M (BN a multiple
/// of 16 from 80 to 256, A K-major): the widths between and beside the
/// unswapped tiles' powers of two, so that a problem's tiles come near to a
/// whole number of waves (cuBLASLt runs 128 x 80, 192 x 96, 192 x 208 and
/// 128 x 272 tiles in these roles).  Their M side is the wgmma's B operand,
/// read K-major, whose tiles take any multiple of 8 rows.
/// Unswapped, the same widths (fitted_width) are 128 rows of M by BN of N,
/// for a thin N: B is read in either layout (B:n in 32- or 64-byte
/// swizzled atoms, TmaOperand) and D leaves in chunks of 64 or 32 bytes
/// where BN is no multiple of 128 bytes (TmaStoreEpilogue).
template <int BN, bool Fused = false, int BM = kBM, bool Swapped = false>
struct Config {
  /// The swapped-only widths 48, 80 and 96 (64 rows of N by that much of M,
  /// one consumer warpgroup): between the power-of-two widths, so that a
  /// problem's tiles come nearer to filling the SMs (cuBLASLt runs 64 x 48
  /// and 64 x 80 tiles on such problems).  Their M side is the wgmma's B
  /// operand and must be K-major (A:k), whose tiles take any multiple of 8 rows.
  static constexpr bool kSwappedOnly = Swapped || (BM == 64 && (BN == 48 || BN == 80 || BN == 96));
  /// The 128-row swapped-only tiles (Swapped above).
  static constexpr bool kWide = Swapped;
  static_assert(!Swapped || (BM == 128 && BN % 16 == 0 && BN >= 80 && BN <= 256 && !Fused),
                "tessel: k13's 128-row swapped-only tiles are 128 x {80, 96, ..., 256} (multiples of 16), unfused");
  /// An unswapped 128-row tile of a width between the powers of two.
  static constexpr bool kFitted = !kSwappedOnly && BM == 128 && !Fused && BN % 16 == 0 && BN >= 80 && BN <= 240;
  static_assert(BN == 16 || BN == 32 || BN == 64 || BN == 128 || BN == 192 || BN == 256 || kSwappedOnly || kFitted,
                "tessel: k13 tiles are 128 x {16, 32, 64, 128, 192, 256}, 128 x {80, 96, ..., 240} unfused, and "
                "swapped 64 x {48, 80, 96}");
  static_assert(!Fused || BN >= 64, "tessel: k13's fused epilogue is the TMA-store epilogue's (BN >= 64)");
  static_assert(BM == 128 || (BM == 64 && (BN <= 64 || BN == 128 || kSwappedOnly) && !Fused),
                "tessel: k13's 64-row tiles (one consumer warpgroup) are the swapped 64 x {16, 32, 48, 64, 80, 96} "
                "and the unswapped 64 x 128 only");
  static_assert(!kSwappedOnly || BM == 64 || Swapped, "tessel: the widths 48, 80 and 96 are 64-row swapped tiles");
  /// The tile's rows: 128 (two consumer warpgroups, 64 rows each), or 64 (one
  /// consumer warpgroup: the swapped small-M tiles, twice the CTAs of 128
  /// rows of N without splitting K; and the unswapped 64 x 128 of small
  /// problems, one m64n128 atom where 128 x 64 runs two m64n64 ones).
  static constexpr int kBM = BM;
  static constexpr int kConsumerWarps = BM / 16;
  static constexpr int kConsumerThreads = 32 * kConsumerWarps;
  static constexpr int kThreads = kConsumerThreads + 128;  // + the producer warpgroup
  static constexpr int kBN = BN;
  static constexpr bool kFused = Fused;
  /// A fused instance's epilogue: run-time values (SpecializedConfig below
  /// has compile-time ones).
  using Epi = RuntimeEpilogue;
  /// D through the TMA-store epilogue (unswapped problems; BN >= 64).
  static constexpr bool kTmaStore = BN >= 64 && !kSwappedOnly;
  /// D^T (swapped problems; BN <= 64, the widths the plan swaps with:
  /// wider tiles keep the program they were measured with): staged as D's
  /// rows and TMA-stored (TmaStoreEpilogueTransposed) at beta = 0 where TMA
  /// can describe D, else from registers (epilogue_registers_transposed).
  /// Not in a fused instance: the plan does not swap with an epilogue.
  static constexpr bool kTransposed = (BN <= 64 || kSwappedOnly) && !Fused;
  /// The warpgroup epilogue (plain 128 x 256 tiles; TmaStoreEpilogue's
  /// warpgroup form): with 16-bit D, beta = 0, TMA stores and no split K
  /// (run-time conditions, the kernel's `by_warpgroup`), each consumer
  /// warpgroup stores its own 64 rows by stmatrix and its own TMA boxes,
  /// the tile's first two chunks right after its last wgmma and the last two
  /// while the next tile's first k-tiles run.  Why: the plain epilogue
  /// kept the tensor cores idle through ~370 instructions a warp and tile,
  /// 256-thread barriers around every chunk and a wait for TMA to read the
  /// first chunk's buffer; cuBLASLt's tile end runs ~230 (stmatrix, a box
  /// per warpgroup).  Measured (ncu, 4096^3): k13's non-tensor cycles per
  /// tile 2.8k -> 1.3k, its cycles -1.7 % (docs/history/ladder.md; docs/ladder.md's
  /// k13 table has the cycles per GEMM).
  /// Narrower tiles leave in as many chunks as they have buffers.
  static constexpr bool kWarpgroupEpilogue = kTmaStore && !Fused && BN == 256 && BM == 128;
  /// FP8 scales (Fp8Scales::Mode, fp8_mainloop.cuh): none here; Scaled<Cfg, Mode> has them.
  static constexpr int kScales = 0;
  /// The kernel's parameters.
  template <class T>
  using ParamsOf = std::conditional_t<Fused, FusedParams<T>, Params<T>>;
  /// The fused instance's bias slice: kBM + BN floats of shared memory.
  static constexpr int kBiasBytes = Fused ? (kBM + BN) * 4 : 0;
  template <class T>
  using Mma = TiledMma<SM90_64xNx16_F32_SS<T, BN, OperandMajor::k, OperandMajor::k>, BM / 64, 1, 1>;  // layout-free
  template <class U>
  using Epilogue = TmaStoreEpilogue<U, Mma<__nv_bfloat16>, kBM, BN>;
  template <class U>
  using EpilogueT = TmaStoreEpilogueTransposed<U, Mma<__nv_bfloat16>, kBM, BN>;
  /// The staging buffers: the larger of the two epilogues' needs, in the
  /// widest output type.
  static constexpr int staging_bytes() {
    int bytes = 0;
    if constexpr (kTmaStore) {
      bytes = Epilogue<__nv_bfloat16>::kSmemBytes > Epilogue<float>::kSmemBytes ? Epilogue<__nv_bfloat16>::kSmemBytes
                                                                                : Epilogue<float>::kSmemBytes;
    }
    if constexpr (kTransposed) {
      // The wide swapped tiles stage 16-bit D only (fp32 D leaves from registers): a 128 x 256 fp32 tile's
      // 128 KB would leave one stage.
      using U = std::conditional_t<kWide, __nv_bfloat16, float>;
      if (EpilogueT<U>::kSmemBytes > bytes) bytes = EpilogueT<U>::kSmemBytes;
    }
    return bytes;
  }
  static constexpr int kStagingBytes = staging_bytes();
  static constexpr int kStageBytes = (kBM + BN) * 128;  // 128 bytes of K a row (kBKOf), whatever the type
  /// The swapped 16- and 32-wide tiles (small M: every SM streams the
  /// weights) hold every stage that fits but keep a run-time number of them in
  /// flight (kRuntimeDepth, blocks::RingState; the launcher's choice,
  /// stages_in_flight in tessel/gemm_launch_model.hpp): with the grid's full 128
  /// CTAs, 4 stages (8 at 64 rows: the same 9 MB over the grid), where
  /// filling all 12 of 18 KB measured 1.2-2.1 % slower at 16 and 32 x 8192 x
  /// 8192 (H100); with few CTAs as many as one SM's loads need to reach their
  /// rate, where 8 stages of the 64 x 16 tile held a CTA to 85 GB/s (120 ns a
  /// k-tile from 1 to 39 CTAs, H200).  Other widths fill shared memory, but
  /// the swapped 64 x 64 tile (M from 33 to 64), which keeps 8, not the 13
  /// that fit: with 13, a k-tile took 616 SM cycles at 64 x 8192 x 8192
  /// against 598 for the 8-stage tiles at M = 16 and at M = 128 (128 x 64,
  /// unswapped), which keep 8.4 MB in flight over 128 CTAs (in-kernel clock
  /// stamps, docs/heuristics.md, rule 4b).
  static constexpr bool kRuntimeDepth = BN <= 32;
  /// The stages in flight with the grid's full CTAs (and a launch that does not say).
  static constexpr int kDepthCap = BN <= 32 ? 4 * 128 / BM : BM == 64 && (BN == 64 || kSwappedOnly) ? 8 : 1 << 20;
  static constexpr int kStagesThatFit = (kSmemLimit - kStagingBytes - kBiasBytes - 1024) / kStageBytes;
  static constexpr int kStages = kRuntimeDepth || kStagesThatFit < kDepthCap ? kStagesThatFit : kDepthCap;
  static_assert(kStages >= 2, "tessel: at least two stages");
};

/// A fused instance whose epilogue is compile-time constants E (a
/// StaticEpilogue: activation, bias kind, with C, with aux): what k13's
/// run-time compiled instances are (src/kernels/gemm/k13_jit.cu,
/// docs/design.md §6).  Everything else, shared memory included, is
/// Config<BN, true>'s, so the launcher sizes and launches it as that one.
template <int BN, class E>
struct SpecializedConfig : Config<BN, true> {
  static_assert(E::kStatic, "tessel: SpecializedConfig takes a StaticEpilogue");
  using Epi = E;
};

/// The wgmma atom of Tiles<T, ...>: the 16-bit one here; wgmma_fp8.cuh
/// specializes it for FP8 elements (K-major only), so that 16-bit kernels do
/// not parse the FP8 wrappers.
template <class T, int BN, OperandMajor MA, OperandMajor MB>
struct WgmmaAtomFor {
  using type = SM90_64xNx16_F32_SS<T, BN, MA, MB>;
};

/// The operands, the TiledMMA, the fragments and the shared memory of one
/// input type, layout and tile width.
/// `Warpgroups`: D's map has one box per consumer warpgroup (k13's kernel
/// with Cfg::kWarpgroupEpilogue; TmaStoreEpilogue's Parts).
template <class T, MajorA MA, MajorB MB, class Cfg, bool Warpgroups = false>
struct Tiles {
  static constexpr int kBM = Cfg::kBM, kBN = Cfg::kBN, kStages = Cfg::kStages;
  static constexpr int kConsumerThreads = Cfg::kConsumerThreads;
  static constexpr bool kTmaStore = Cfg::kTmaStore, kTransposed = Cfg::kTransposed, kFused = Cfg::kFused;
  static constexpr int kStagingBytes = Cfg::kStagingBytes;  // D's staging (the wide swapped tiles: 16-bit D only)
  using Epi = typename Cfg::Epi;
  using OpA = TmaOperand<T, major_of(MA), kBM>;
  using OpB = TmaOperand<T, major_of(MB), kBN>;
  static constexpr int kBK = kBKOf<T>;  // a k-tile: 128 bytes of K
  using TM = TiledMma<typename WgmmaAtomFor<T, kBN, major_of(MA), major_of(MB)>::type, kBM / 64, 1, 1>;
  using FragC = typename TM::template FragmentC<coord_layout(make_shape(kBM, kBN))>;  // (BN/2,1,1) f32
  /// FP8 tiles up to 192 wide promote their sums into fp32 registers
  /// (consume_promoted, a second FragC); at 256 two would not fit in registers.
  static constexpr bool kPromotes = sizeof(T) == 1 && kBN <= 192;
  /// The walk over the stages: all kStages, or (Cfg::kRuntimeDepth) the first `depth` of them.
  using State = std::conditional_t<Cfg::kRuntimeDepth, blocks::RingState<kStages>, blocks::PipelineState<kStages>>;
  using Pipeline = blocks::TmaPipeline<kStages, State>;
  /// A walk for the launch's `depth` stages in flight (0: Cfg::kDepthCap).
  __device__ static State state(int depth) {
    if constexpr (Cfg::kRuntimeDepth)
      return State(depth > 0 ? depth : Cfg::kDepthCap);
    else
      return State{};
  }
  template <class U>
  using Epilogue = TmaStoreEpilogue<U, TM, kBM, kBN, Warpgroups ? kBM / 64 : 1>;
  template <class U>
  using EpilogueT = TmaStoreEpilogueTransposed<U, TM, kBM, kBN>;
  static_assert(TM::kThreads == kConsumerThreads, "one TiledMMA thread per consumer thread");
  static constexpr int kStageBytes = (OpA::kElems + OpB::kElems) * static_cast<int>(sizeof(T));
  static_assert(kStageBytes == Cfg::kStageBytes, "the stage count assumed 128 bytes of K a row");

  struct SharedStorage {
    alignas(1024) T a[kStages][OpA::kElems];         // kStages x (BM,kBK)
    alignas(1024) T b[kStages][OpB::kElems];         // kStages x (BN,kBK)
    using Staging = OutStaging<Cfg::kStagingBytes>;  // D's staging buffers, in the output type
    alignas(1024) Staging d;
    blocks::PipelineStorage<kStages> pipe;
    int ticket;  // split K: the counter value the last unit's thread 0 saw
  };
  /// A fused instance's shared memory: the plain one (same offsets), then the
  /// unit's bias slice (BiasShare, fused_epilogue.cuh).
  struct FusedStorage : SharedStorage {
    alignas(16) float bias[kBN + kBM];  // the column slice (kBN), then the row slice (kBM)
  };
  using Storage = std::conditional_t<Cfg::kFused, FusedStorage, SharedStorage>;
  static constexpr int kSmemBytes = static_cast<int>(sizeof(Storage));
  static_assert(kSmemBytes <= kSmemLimit, "tessel: k13's shared memory exceeds 227 KB");
};

/// Configuration Cfg for FP8 with scales `Mode` (Fp8Scales::channel, which
/// also serves per-tensor scales, or block): instances of their own, so
/// that each kernel has one path through a unit's registers.
template <class Cfg, int Mode>
struct Scaled : Cfg {
  static constexpr int kScales = Mode;
};

/// The Tiles of k13's kernel for configuration Cfg (D's map with a box per
/// warpgroup where Cfg has the warpgroup epilogue): the kernel and its
/// launcher name the same type.
template <class T, MajorA MA, MajorB MB, class Cfg>
using KernelTiles = Tiles<T, MA, MB, Cfg, Cfg::kWarpgroupEpilogue>;

}  // namespace tessel::gemm_kernels::wgmma
