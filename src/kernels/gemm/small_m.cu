// Launcher of the small-M streaming kernel (include/tessel/kernels/gemm/
// small_m_stream.cuh): its rules, the split of K (the caller's, else
// small_m_splits, gemm_model.hpp), split K's workspace, and the launch of the
// instance for A's rows rounded up to 8, 16, 32 or 64, aligned or not.
#include <string>

#include "src/kernels/gemm/dispatch.hpp"
#include "src/kernels/gemm/launch.hpp"
#include "src/kernels/gemm/mma_launch.hpp"
#include "src/kernels/gemm/params.hpp"
#include "src/kernels/gemm/workspace.hpp"
#include "tessel/gemm_model.hpp"
#include "tessel/kernels/gemm/small_m_stream.cuh"

namespace tessel::gemm_launch {

namespace sm = gemm_kernels::small_m;

namespace {

constexpr int kStages = 4;  // 2 CTAs of 8 warps an SM up to 32 rows (shared memory and registers)

int rows_of(index_t m) { return m <= 8 ? 8 : m <= 16 ? 16 : m <= 32 ? 32 : 64; }

/// The splits of K a launch of `a` runs (the caller's, else the model's) and
/// the k-tiles of each, made so that no split is empty: 3 splits of 4
/// k-tiles run as 2 of 2.  The workspace query and the launch both take it.
struct Splits {
  int count = 1, per_split = 0;
};
Splits splits_of(const GemmArgs& a) {
  const index_t k_tiles = ceil_div(a.k, index_t{sm::kBK});
  int s = a.tuning.splits > 0 ? a.tuning.splits : small_m_splits(a.m, a.n, a.k, device_sm_count());
  if (s > k_tiles) s = static_cast<int>(k_tiles < 1 ? 1 : k_tiles);
  Splits r;
  r.per_split = static_cast<int>(ceil_div(k_tiles, index_t{s}));
  r.count = r.per_split > 0 ? static_cast<int>(ceil_div(k_tiles, index_t{r.per_split})) : 1;
  return r;
}

/// Split K's partial tiles: one MT x 128 fp32 tile per column tile and split.
std::size_t partial_bytes(const GemmArgs& a, int splits) {
  return static_cast<std::size_t>(ceil_div(a.n, index_t{sm::kBN})) * static_cast<std::size_t>(splits) *
         static_cast<std::size_t>(rows_of(a.m)) * sm::kBN * 4;
}

/// Rows whose every element sits in whole 16-byte chunks: ldmatrix reads them.
bool whole_chunks(const GemmArgs& a) {
  const auto base = reinterpret_cast<std::uintptr_t>(a.a) | reinterpret_cast<std::uintptr_t>(a.b);
  return a.lda % 8 == 0 && a.ldb % 8 == 0 && base % 16 == 0;
}

}  // namespace

Status check_small_m(const GemmArgs& a) {
  if (a.ab_type != DType::bf16 && a.ab_type != DType::f16)
    return Status::failure(Status::unsupported, "small_m: A and B must be bf16 or fp16");
  if (a.layout.a != MajorA::k || a.layout.b != MajorB::n)
    return Status::failure(Status::unsupported, "small_m: A:k with B:n only (got " + std::string(name(a.layout)) + ")");
  if (a.m > 64)
    return Status::failure(Status::unsupported, "small_m: at most 64 rows of A (got M = " + std::to_string(a.m) + ")");
  const GemmTuning& t = a.tuning;
  if (t.tile_n != 0 || t.tile_m != 0 || t.swap_ab == SwapAB::on || t.split_tail || t.stages != 0)
    return Status::failure(Status::invalid_argument,
                           "small_m: its tile is fixed (tuning.tile_n, tile_m, stages must be 0, swap_ab not on, "
                           "split_tail off); tuning.splits chooses the split of K");
  const index_t k_tiles = ceil_div(a.k, index_t{sm::kBK});
  if (t.splits < 0 || t.splits > 64 || (t.splits > 1 && t.splits > k_tiles))
    return Status::failure(Status::invalid_argument,
                           "small_m: tuning.splits must be 0 (the model's) up to 64 and at "
                           "most K's k-tiles of 64 (got " +
                               std::to_string(t.splits) + " with K = " + std::to_string(a.k) + ")");
  if (ceil_div(a.n, index_t{sm::kBN}) > 0x7FFFFFFF)
    return Status::failure(Status::unsupported, "small_m: more than 2^31 - 1 column tiles of 128");
  return Status::success();
}

int small_m_launch_splits(const GemmArgs& a) { return splits_of(a).count; }

std::size_t small_m_workspace_bytes(const GemmArgs& a) {
  const int splits = splits_of(a).count;
  if (splits <= 1) return 0;
  return partial_bytes(a, splits) + static_cast<std::size_t>(ceil_div(a.n, index_t{sm::kBN})) * sizeof(int);
}

Status launch_small_m(const GemmArgs& a, cudaStream_t stream) {
  const Splits sp = splits_of(a);
  const int splits = sp.count, per_split = sp.per_split;
  const index_t tiles = ceil_div(a.n, index_t{sm::kBN});
  if (splits > 65535) return Status::failure(Status::unsupported, "small_m: more than 65535 splits");
  return with_types(a, [&]<class T, MajorA MA, MajorB MB>() -> Status {
    if constexpr (MA != MajorA::k || MB != MajorB::n) {
      return Status::failure(Status::unsupported, "small_m: A:k with B:n only");
    } else {
      PartialsAndCounters mem;
      sm::SplitK sk;
      sk.splits = splits;
      sk.tiles_per_split = per_split;
      if (splits > 1) {
        const std::size_t bytes = partial_bytes(a, splits);
        if (Status s = mem.make(bytes, static_cast<std::size_t>(tiles), stream, "small_m", "split K's workspace",
                                "split K's counters");
            !s)
          return s;
        sk.partials = mem.partials;
        sk.counters = mem.counters;
      }
      const auto params = make_params<T>(a);
      const dim3 grid(static_cast<unsigned>(tiles), static_cast<unsigned>(splits));
      const auto go = [&]<int MT>() -> Status {
        constexpr int bytes = sm::smem_bytes(MT, kStages);
        const bool whole = whole_chunks(a);
        auto* kernel = whole ? sm::gemm_small_m<T, MT, kStages, true> : sm::gemm_small_m<T, MT, kStages, false>;
        if (Status s = allow_smem(kernel, bytes, "small_m"); !s) return s;
        kernel<<<grid, sm::kThreads, bytes, stream>>>(params, sk);
        return launch_status("small_m");
      };
      const int mt = rows_of(a.m);
      const Status s = mt == 8    ? go.template operator()<8>()
                       : mt == 16 ? go.template operator()<16>()
                       : mt == 32 ? go.template operator()<32>()
                                  : go.template operator()<64>();
      mem.release(stream);
      return s;
    }
  });
}

}  // namespace tessel::gemm_launch
