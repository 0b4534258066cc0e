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

GemmArgs k13_fp8_tuned(const GemmArgs& a) {
  GemmArgs g = a;
  const GemmTuning plan = plan_k13_fp8(a, device_sm_count());
  if (g.tuning.tile_m == 0) g.tuning.tile_m = plan.tile_m == 64 && a.tuning.tile_n != 256 ? 64 : 128;
  if (g.tuning.tile_n == 0) g.tuning.tile_n = g.tuning.tile_m == 64 ? 128 : plan.tile_n;
  if (g.tuning.splits == 0) g.tuning.splits = plan.splits;
  if (g.tuning.raster_group == 0) g.tuning.raster_group = plan.raster_group;
  g.tuning.swap_ab = SwapAB::off;
  return g;
}

Status check_k13_fp8(const GemmArgs& a) {
  if (!is_fp8(a.ab_type)) return fp8_invalid("A and B must be e4m3 or e5m2");
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
  if (a.batch != 1)
    return fp8_unsupported("a single problem (batch = 1; got " + std::to_string(a.batch) + "): call once per problem");
  if (a.epilogue.active())
    return fp8_unsupported("no fused epilogue (bias, activation, aux) yet: run the GEMM, then gemm_epilogue_apply");
  const GemmTuning& t = a.tuning;
  if (t.swap_ab == SwapAB::on)
    return fp8_unsupported("no swap of A and B (tuning.swap_ab on): FP8 tiles are 128 x 128, 128 x 256 and 64 x 128");
  if (t.tile_n != 0 && t.tile_n != 128 && t.tile_n != 256)
    return fp8_unsupported("tuning.tile_n must be 0 (the plan's), 128 or 256 (got " + std::to_string(t.tile_n) + ")");
  // The work units count in 31 bits (blocks::SplitKScheduler), as for 16 bits.
  const index_t tiles = ceil_div(a.m, index_t{64}) * ceil_div(a.n, index_t{128});
  if (tiles * (t.splits == 0 ? 16 : t.splits) > tma::kMaxScheduledUnits)
    return fp8_unsupported("more than 2^31 - 2^20 work units (tiles of 64 x 128 times splits)");
  return Status::success();
}

GemmTuning plan_k13_fp8(const GemmArgs& a, int sms) {
  // An FP8 k-tile holds 128 bytes of K as a 16-bit one does, and wgmma does
  // twice the FP8 products per cycle: (M, N, K) in FP8 moves the bytes and
  // takes the tensor-core cycles of (M, N, K/2) in bf16, so the 16-bit plan
  // of that problem chooses (its splits count the same k-tiles), kept to the
  // FP8 tiles: no swap, 128 x 128, 128 x 256 and 64 x 128.
  if (sms < 1) return GemmTuning{128, 1, SwapAB::off, 8};  // no device to plan for: the launch will say why
  const auto whole_lines = [](index_t ld) { return ld % 128 == 0; };
  GemmTuning t = plan_k13(a.m, a.n, ceil_div(a.k, index_t{2}), sms, a.tuning.tile_n == 256 ? 256 : 0, SwapAB::off,
                          whole_lines(a.lda), false, whole_lines(a.ldb));
  t.tile_n = t.tile_m == 64 || t.tile_n < 192 ? 128 : 256;
  return t;
}

Status launch_k13_fp8(const GemmArgs& a, cudaStream_t stream) {
  const GemmArgs g = k13_fp8_tuned(a);
  if (g.tuning.tile_m == 64) return k13::launch_fp8_tiles_m64(g, stream);
  return g.tuning.tile_n == 256 ? k13::launch_fp8_tiles<256>(g, stream) : k13::launch_fp8_tiles<128>(g, stream);
}

}  // namespace tessel::gemm_launch
