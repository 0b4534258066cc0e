// Launcher of ladder step k13 (include/tessel/kernels/gemm/k13_wgmma_in_flight.cuh):
// the checks, the tuning (the caller's, else the plan's), the padded copies
// of operands TMA cannot read (k11's launcher), then the kernels of the
// chosen tile width (k13_n{128,192,256}.cu).
#include <string>

#include "src/kernels/gemm/k13_launch.hpp"
#include "src/kernels/gemm/tma_warp_specialized_launch.hpp"

namespace tessel::gemm_launch {

Status check_k13_tuning(const GemmArgs& a) {
  const GemmTuning& t = a.tuning;
  if (t.tile_n != 0 && t.tile_n != 64 && t.tile_n != 128 && t.tile_n != 192 && t.tile_n != 256)
    return Status::failure(
        Status::invalid_argument,
        "k13: tuning.tile_n must be 0 (the plan's), 64, 128, 192 or 256 (got " + std::to_string(t.tile_n) + ")");
  const index_t k_tiles = ceil_div(a.k, index_t{64});
  if (t.splits < 0 || t.splits > 64)
    return Status::failure(Status::invalid_argument, "k13: tuning.splits must be in 0..64, 0 for the plan's (got " +
                                                         std::to_string(t.splits) + ")");
  if (t.splits > k_tiles)
    return Status::failure(Status::invalid_argument, "k13: tuning.splits = " + std::to_string(t.splits) +
                                                         " exceeds K's " + std::to_string(k_tiles) +
                                                         " k-tiles of 64 (K = " + std::to_string(a.k) +
                                                         "): a split would be empty");
  return Status::success();
}

Status check_k13(const GemmArgs& a) {
  if (Status s = check_k13_tuning(a); !s) return s;
  // The narrowest tile has the most tiles; times the splits (the plan's at
  // most 16), the work units must count in 31 bits, with room for a grid's
  // stride past the last (blocks::SplitKScheduler counts in int).
  const index_t units =
      ceil_div(a.m, index_t{128}) * ceil_div(a.n, index_t{64}) * (a.tuning.splits == 0 ? 16 : a.tuning.splits);
  if (units > 0x7FFFFFFF - (index_t{1} << 20) || ceil_div(a.k, index_t{64}) > 0x7FFFFFFF)
    return Status::failure(Status::unsupported,
                           "k13: more than 2^31 - 2^20 work units (tiles of 128 x 64 times splits) or 2^31 k-tiles");
  return tma::check(a, "k13");
}

Status launch_k13(const GemmArgs& a, cudaStream_t stream) {
  GemmArgs g = a;
  if (g.tuning.tile_n == 0 || g.tuning.splits == 0) {
    int sms = 0;
    if (Status s = tma::sm_count("k13", sms); !s) return s;
    const GemmTuning plan = plan_k13(g.m, g.n, g.k, sms, g.tuning.tile_n);
    if (g.tuning.tile_n == 0) g.tuning.tile_n = plan.tile_n;
    if (g.tuning.splits == 0) g.tuning.splits = plan.splits;
  }
  return tma::launch(g, stream, "k13", [stream](const GemmArgs& t) {
    switch (t.tuning.tile_n) {
      case 64:
        return k13::launch_tiles<64>(t, stream);
      case 128:
        return k13::launch_tiles<128>(t, stream);
      case 192:
        return k13::launch_tiles<192>(t, stream);
      default:
        return k13::launch_tiles<256>(t, stream);
    }
  });
}

}  // namespace tessel::gemm_launch
