// Launcher of k13's batched and grouped kernel (include/tessel/kernels/gemm/
// k13_grouped.cuh): whether it can serve a call, and the width's launch
// (instances.cu).  What it cannot serve, tessel::gemm and
// tessel::gemm_grouped run as single launches (src/kernels/gemm.cu).
#include "src/kernels/gemm/instances.hpp"
#include "src/kernels/gemm/launch.hpp"
#include "src/kernels/gemm/tma_warp_specialized_launch.hpp"
#include "tessel/gemm_model.hpp"

namespace tessel::gemm_launch {

namespace {

/// Can TMA read A's and B's rows as they are (no padded copies: a batch or
/// a group is not copied) and step between their batches?
bool operands_ready(const GemmArgs& a) {
  if (a.ab_type == DType::f32) return false;
  const int bytes = static_cast<int>(size_bytes(a.ab_type));
  if (!tma::tma_ready(a.a, a.lda, bytes) || !tma::tma_ready(a.b, a.ldb, bytes)) return false;
  return a.batch == 1 || ((a.stride_a * bytes) % 16 == 0 && (a.stride_b * bytes) % 16 == 0);
}

/// Work units: tiles of 128 x 128 (the narrower width; 64 x 128 on FP8) times batches.
index_t units_of(const GemmArgs& a) {
  return ceil_div(a.m, index_t{is_fp8(a.ab_type) ? 64 : 128}) * ceil_div(a.n, index_t{128}) * a.batch;
}

/// A batch (batch > 1) that one launch of a batched kernel (k13's or k15's)
/// can take: its operands TMA-ready, its units and k-tiles in 31 bits.
bool batch_fits_one_launch(const GemmArgs& a) {
  return a.batch > 1 && operands_ready(a) && units_of(a) <= tma::kMaxScheduledUnits &&
         ceil_div(a.k, index_t{64}) <= 0x7FFFFFFF;
}

}  // namespace

bool k13_batched_tuning(const GemmTuning& t) {
  return (t.tile_n == 0 || t.tile_n == 128 || t.tile_n == 256) && t.splits <= 1 && t.swap_ab != SwapAB::on &&
         t.tile_m != 64;
}

bool k13_batched_applies(const GemmArgs& a) {
  if (is_fp8(a.ab_type)) {  // the grouped FP8 kernel: 128 or 64 x 128 tiles, no scales in memory, no epilogue
    const GemmTuning& t = a.tuning;
    return (t.tile_n == 0 || t.tile_n == 128) && t.splits <= 1 && t.swap_ab != SwapAB::on &&
           a.fp8_scale == Fp8Scale::none && !a.epilogue.active() && batch_fits_one_launch(a);
  }
  return k13_batched_tuning(a.tuning) && batch_fits_one_launch(a);
}

int k13_fp8_group_rows(const GemmArgs* problems, int count, int sms) {
  index_t tiles128 = 0, tiles64 = 0;
  int forced = 0;
  for (int g = 0; g < count; ++g) {
    const GemmArgs& x = problems[g];
    const index_t cols = ceil_div(x.n, index_t{128}) * x.batch;
    tiles128 += ceil_div(x.m, index_t{128}) * cols;
    tiles64 += ceil_div(x.m, index_t{64}) * cols;
    if (x.tuning.tile_m != 0) forced = x.tuning.tile_m;
  }
  return forced != 0 ? forced : fp8_group_tile_rows(tiles128, tiles64, sms);
}

Status launch_k13_batched(const GemmArgs& a, cudaStream_t stream) {
  if (is_fp8(a.ab_type)) {
    int sms = 0;
    if (Status s = tma::sm_count("k13 batched FP8", sms); !s) return s;
    GemmTuning tiles{128, 1, SwapAB::off};
    tiles.tile_m = k13_fp8_group_rows(&a, 1, sms);
    return launch_k13_grouped(&a, 1, tiles, stream);
  }
  int tile_n = a.tuning.tile_n;
  if (tile_n == 0) {
    int sms = 0;
    if (Status s = tma::sm_count("k13 batched", sms); !s) return s;
    tile_n = plan_batched_tile(a.m, a.n, a.k, a.batch, sms);
  }
  return tile_n == 128 ? k13::launch_grouped_tiles<128>(&a, 1, stream) : k13::launch_grouped_tiles<256>(&a, 1, stream);
}

bool k15_batched_applies(const GemmArgs& a) {
  const GemmTuning& t = a.tuning;
  return a.beta == 0.0f && !a.epilogue.active() && (t.tile_n == 0 || t.tile_n == 128) && t.splits <= 1 &&
         t.swap_ab != SwapAB::on && batch_fits_one_launch(a);
}

Status launch_k15_batched(const GemmArgs& a, cudaStream_t stream) { return k15::launch_batched_tiles(a, stream); }

bool k13_grouped_applies(const GemmArgs* problems, int count) {
  index_t units = 0;
  for (int g = 0; g < count; ++g) {
    if (!operands_ready(problems[g])) return false;
    units += units_of(problems[g]);
  }
  return units <= tma::kMaxScheduledUnits;
}

Status launch_k13_grouped(const GemmArgs* problems, int count, const GemmTuning& tiles, cudaStream_t stream) {
  const int tile_n = tiles.tile_n;
  if (is_fp8(problems[0].ab_type))  // the group shares its formats (gemm_grouped_check)
    return b_type_of(problems[0]) != problems[0].ab_type
               ? k13::launch_grouped_fp8_tiles<true>(problems, count, tiles.tile_m, stream)
               : k13::launch_grouped_fp8_tiles<false>(problems, count, tiles.tile_m, stream);
  return tile_n == 128 ? k13::launch_grouped_tiles<128>(problems, count, stream)
                       : k13::launch_grouped_tiles<256>(problems, count, stream);
}

}  // namespace tessel::gemm_launch
