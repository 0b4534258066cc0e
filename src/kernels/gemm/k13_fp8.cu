// k13 on FP8 A and B (e4m3 or e5m2, kernels/gemm/wgmma_fp8.cuh): the rules
// an FP8 call must meet, the tile its plan takes and the launch of its
// instances (instances.cu's k13_fp8 units).  The kernel is k13's own (main loop, scheduler, split K,
// epilogue); only the atom and the k-tile's element count differ.  wgmma
// reads FP8 operands K-major only, and TMA reads rows of 16-byte multiples:
// there is no padded copy and no fallback kernel, so what they would serve
// gets a status instead.
#include <cstdint>
#include <string>

#include "src/kernels/gemm/instances.hpp"
#include "src/kernels/gemm/launch.hpp"
#include "src/kernels/gemm/tma_warp_specialized_launch.hpp"

namespace tessel::gemm_launch {

namespace {

Status fp8_invalid(const std::string& rule) { return Status::failure(Status::invalid_argument, "k13 FP8: " + rule); }
Status fp8_unsupported(const std::string& rule) { return Status::failure(Status::unsupported, "k13 FP8: " + rule); }

}  // namespace

GemmArgs k13_fp8_tuned(const GemmArgs& args) {
  GemmArgs blocks = args;
  if (args.fp8_scale == Fp8Scale::block) {  // the unswapped 128-wide tiles (check_k13_fp8)
    blocks.tuning.swap_ab = SwapAB::off;
    blocks.tuning.tile_n = 128;
  }
  const GemmArgs& a = blocks;
  GemmArgs g = a;
  const GemmTuning plan = plan_k13_fp8(a, device_sm_count());
  GemmTuning& t = g.tuning;
  const bool swap =
      t.swap_ab == SwapAB::on || (t.swap_ab == SwapAB::plan &&
                                  (t.tile_n == 16 || t.tile_n == 32 || (t.tile_n == 0 && plan.swap_ab == SwapAB::on)));
  t.swap_ab = swap ? SwapAB::on : SwapAB::off;
  if (swap) {  // the swapped tiles have 64 rows (of N) by 16, 32 or 64 of M
    t.tile_m = 64;
    if (t.tile_n == 0) t.tile_n = plan.swap_ab == SwapAB::on ? plan.tile_n : 64;
  } else {
    if (t.tile_m == 0)
      t.tile_m = plan.swap_ab == SwapAB::off && plan.tile_m == 64 && t.tile_n != 192 && t.tile_n != 256 ? 64 : 128;
    if (t.tile_n == 0) t.tile_n = t.tile_m == 64 || plan.swap_ab == SwapAB::on ? 128 : plan.tile_n;
  }
  if (t.splits == 0) t.splits = plan.splits;
  if (t.raster_group == 0) t.raster_group = plan.raster_group;
  return g;
}

Status check_k13_fp8(const GemmArgs& a) {
  if (!is_fp8(a.ab_type) || !is_fp8(b_type_of(a))) return fp8_invalid("A and B must be e4m3 or e5m2");
  if (a.layout.a != MajorA::k || a.layout.b != MajorB::k)
    return fp8_unsupported("A and B must be K-major (A:k, B:k; got " + name(a.layout) +
                           "): wgmma reads 8-bit operands K-major only; transpose the operand first");
  const auto unaligned = [](const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 != 0; };
  if (a.lda % 16 != 0 || a.ldb % 16 != 0)
    return fp8_unsupported(
        "lda and ldb must be multiples of 16 elements (TMA reads rows of 16-byte multiples; got "
        "lda=" +
        std::to_string(a.lda) + ", ldb=" + std::to_string(a.ldb) + ")");
  if (unaligned(a.a) || unaligned(a.b)) return fp8_unsupported("A and B must be 16-byte aligned (TMA's rule)");
  if (a.batch > 1 && a.fp8_scale != Fp8Scale::none)
    return fp8_unsupported(std::string("scales per ") + name(a.fp8_scale) +
                           " with a strided batch (batch = " + std::to_string(a.batch) +
                           "): give per-tensor scales as alpha, or call per problem (or gemm_grouped) with its scales");
  const GemmTuning& t = a.tuning;
  if (t.swap_ab == SwapAB::on &&
      ((t.tile_n != 0 && t.tile_n != 16 && t.tile_n != 32 && t.tile_n != 64) || t.tile_m == 128))
    return fp8_unsupported("with the swap of A and B the FP8 tiles are 64 x 16, 32 and 64 (tile_m 64; got " +
                           std::to_string(t.tile_m) + " x " + std::to_string(t.tile_n) + ")");
  if (t.swap_ab != SwapAB::on && t.tile_n != 0 && t.tile_n != 16 && t.tile_n != 32 && t.tile_n != 128 &&
      t.tile_n != 192 && t.tile_n != 256)
    return fp8_unsupported("tuning.tile_n must be 0 (the plan's), 128, 192 or 256, or 16, 32, 64 swapped (got " +
                           std::to_string(t.tile_n) + ")");
  if (a.fp8_promote_every < 0 || a.fp8_promote_every > 64)
    return fp8_invalid("fp8_promote_every must be in 0..64, 0 for the default (got " +
                       std::to_string(a.fp8_promote_every) + ")");
  if (a.fp8_scale == Fp8Scale::block) {
    // Block scales change with every 128 elements of K (one k-tile), so every
    // k-tile's sum is promoted and scaled, on tiles one block of B wide.
    if (a.fp8_fast_accum || a.fp8_promote_every > 1)
      return fp8_unsupported(
          "block scales promote every k-tile: fp8_fast_accum must be false and fp8_promote_every 0 or 1");
    if (t.swap_ab == SwapAB::on || (t.tile_n != 0 && t.tile_n != 128))
      return fp8_unsupported("block scales run on the unswapped 128-wide tiles (tile_n 0 or 128, no swap; got " +
                             std::to_string(t.tile_n) + (t.swap_ab == SwapAB::on ? ", swapped)" : ")"));
  }
  if (t.tile_n == 256 && !a.fp8_fast_accum)
    return fp8_unsupported(
        "the 128 x 256 tile sums in the tensor core only (two of its accumulators do not fit in "
        "registers): set fp8_fast_accum, or tile_n 128 or 192 to promote the sums");
  // The work units count in 31 bits (blocks::SplitKScheduler), as for 16 bits: the narrowest tile
  // the call may run (64 x 128, or swapped 64 of N x 16 of M where the swap is not off) times the splits.
  const index_t tiles = t.swap_ab == SwapAB::off ? ceil_div(a.m, index_t{64}) * ceil_div(a.n, index_t{128})
                                                 : ceil_div(a.n, index_t{64}) * ceil_div(a.m, index_t{16});
  if (tiles * (t.splits == 0 ? 16 : t.splits) > tma::kMaxScheduledUnits)
    return fp8_unsupported("more than 2^31 - 2^20 work units (tiles of 64 x 128, or 64 x 16 swapped, times splits)");
  return Status::success();
}

GemmTuning plan_k13_fp8(const GemmArgs& a, int sms) {
  // An FP8 k-tile holds 128 bytes of K as a 16-bit one does, and wgmma does
  // twice the FP8 products per cycle: (M, N, K) in FP8 moves the bytes and
  // takes the tensor-core cycles of (M, N, K/2) in bf16, so the 16-bit plan
  // of that problem chooses (its splits count the same k-tiles), kept to the
  // FP8 tiles: unswapped 128 x {128, 192, 256} and 64 x 128, swapped 64 x
  // {16, 32, 64}.
  if (sms < 1) return GemmTuning{128, 1, SwapAB::off, 8};  // no device to plan for: the launch will say why
  const auto whole_lines = [](index_t ld) { return ld % 128 == 0; };
  const int asked = a.tuning.tile_n, forced = asked == 16 || asked == 32 || asked >= 192 ? asked : 0;
  const SwapAB swap = asked >= 128 ? SwapAB::off : a.tuning.swap_ab;
  GemmTuning t =
      plan_k13(a.m, a.n, ceil_div(a.k, index_t{2}), sms, forced, swap, whole_lines(a.lda), false, whole_lines(a.ldb));
  if (t.swap_ab == SwapAB::on) {
    // Swapped 128-row tiles (rule 4) run as 64-row ones, twice the CTAs: half the splits.
    if (t.tile_m != 64) t.splits = (t.splits + 1) / 2;
    t.tile_m = 64;
    return t;
  }
  if (t.tile_m == 64 || forced != 0) return t;
  if (a.fp8_fast_accum) {
    t.tile_n = t.tile_n < 192 || a.fp8_scale == Fp8Scale::channel ? 128 : t.tile_n;  // channel 128 x 256: 200 B spilled
    return t;
  }
  // Promoted sums need two accumulators, and 192 is the widest tile that holds
  // them: 128 or 192 by waves times a tile's time, which grows with its width
  // over its efficiency (192 reads 17 % fewer bytes a product: measured 1.075x
  // 128's speed where both fill their last wave, 8192 x 28672 x 8192, H200).
  const auto cost = [&](index_t w, double efficiency) {
    const index_t tiles = ceil_div(a.m, index_t{128}) * ceil_div(a.n, w) * t.splits;
    return static_cast<double>(ceil_div(tiles, index_t{sms}) * w) / efficiency;
  };
  t.tile_n = cost(192, 1.075) < cost(128, 1.0) ? 192 : 128;
  // With channel scales the 192-wide instance spills in its main loop (144
  // bytes; 440 when measured at 0.68-0.82 of cuBLASLt where the 128-wide one
  // ran 0.95-0.97, H200, docs/fp8.md).  Per-tensor scales ride with alpha on
  // the unscaled instances, which keep every width.
  if (a.fp8_scale == Fp8Scale::channel) t.tile_n = 128;
  return t;
}

namespace {

/// The launch of g's tile: the instances of one format, or (Mixed) of A and B in different formats.
template <bool Mixed>
Status launch_fp8_tile(const GemmArgs& g, cudaStream_t stream) {
  if (g.tuning.swap_ab == SwapAB::on) {
    const GemmArgs s = k13_swapped(g);  // A:k, B:k stays A:k, B:k; the formats swap with the operands
    switch (g.tuning.tile_n) {
      case 16:
        return k13::launch_fp8_swapped<16, Mixed>(s, stream);
      case 32:
        return k13::launch_fp8_swapped<32, Mixed>(s, stream);
      default:
        return k13::launch_fp8_swapped<64, Mixed>(s, stream);
    }
  }
  if (g.tuning.tile_m == 64) return k13::launch_fp8_tiles_m64<Mixed>(g, stream);
  switch (g.tuning.tile_n) {
    case 256:
      return k13::launch_fp8_tiles<256, Mixed>(g, stream);
    case 192:
      return k13::launch_fp8_tiles<192, Mixed>(g, stream);
    default:
      return k13::launch_fp8_tiles<128, Mixed>(g, stream);
  }
}

}  // namespace

Status launch_k13_fp8(const GemmArgs& a, cudaStream_t stream) {
  const GemmArgs g = k13_fp8_tuned(a);
  return b_type_of(g) != g.ab_type ? launch_fp8_tile<true>(g, stream) : launch_fp8_tile<false>(g, stream);
}

}  // namespace tessel::gemm_launch
