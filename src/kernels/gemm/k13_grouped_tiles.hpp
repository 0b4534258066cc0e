// The body of the launchers of k13's batched and grouped kernel
// (include/tessel/kernels/gemm/k13_grouped.cuh), one translation unit per
// tile width (instances.cu): the problems' descriptors (three
// TMA maps each), where they go (a kernel parameter for a batch, device
// memory for a group), and the launch.  k13_grouped.cu decides whether the
// kernel can serve a call at all.
#pragma once

#include <cstring>
#include <mutex>
#include <string>
#include <type_traits>
#include <vector>

#include "src/kernels/gemm/instances.hpp"
#include "src/kernels/gemm/tma_warp_specialized_launch.hpp"
#include "src/kernels/gemm/workspace.hpp"
#include "tessel/kernels/gemm/k13_grouped.cuh"

namespace tessel::gemm_launch::k13 {

namespace gk = gemm_kernels::k13;

/// Do two calls describe the same problem (every field a descriptor depends on)?
inline bool same_problem(const GemmArgs& x, const GemmArgs& y) {
  return x.m == y.m && x.n == y.n && x.k == y.k && x.ab_type == y.ab_type && x.cd_type == y.cd_type &&
         x.layout.a == y.layout.a && x.layout.b == y.layout.b && x.a == y.a && x.lda == y.lda && x.b == y.b &&
         x.ldb == y.ldb && x.c == y.c && x.ldc == y.ldc && x.d == y.d && x.ldd == y.ldd && x.alpha == y.alpha &&
         x.beta == y.beta && x.batch == y.batch && x.stride_a == y.stride_a && x.stride_b == y.stride_b &&
         x.stride_c == y.stride_c && x.stride_d == y.stride_d && x.tuning.raster_group == y.tuning.raster_group &&
         b_type_of(x) == b_type_of(y) && x.fp8_scale == y.fp8_scale && x.fp8_scale_a == y.fp8_scale_a &&
         x.fp8_scale_b == y.fp8_scale_b && x.m_device == y.m_device;
}

/// Problem `x`'s descriptor for the tiles of X, its units from `unit_begin`;
/// `who` (the kernel family's name) begins the messages.
template <class T, MajorA MA, MajorB MB, class X>
Status describe(const GemmArgs& x, int unit_begin, gk::GroupProblem<T>& out, const char* who) {
  const T* pa = static_cast<const T*>(x.a);
  const T* pb = static_cast<const T*>(x.b);
  const index_t one = 1;
  const bool a_batched = x.batch > 1 && x.stride_a != 0, b_batched = x.batch > 1 && x.stride_b != 0;
  const auto a = MA == MajorA::k ? make_global_tensor(pa, {x.m, x.k}, {x.lda, one})
                                 : make_global_tensor(pa, {x.m, x.k}, {one, x.lda});
  const auto b = MB == MajorB::k ? make_global_tensor(pb, {x.n, x.k}, {x.ldb, one})
                                 : make_global_tensor(pb, {x.n, x.k}, {one, x.ldb});
  arch::sm90::TensorMapStatus e =
      X::OpA::Tma::make_batched_map(out.map_a, a, a_batched ? x.batch : 1, x.stride_a, TmaUse::load);
  if (!e.ok()) return Status::failure(Status::unsupported, std::string(who) + ": TMA map of A: " + e.message);
  e = X::OpB::Tma::make_batched_map(out.map_b, b, b_batched ? x.batch : 1, x.stride_b, TmaUse::load);
  if (!e.ok()) return Status::failure(Status::unsupported, std::string(who) + ": TMA map of B: " + e.message);
  // D by TMA stores: a batch's D as one tall matrix when the batches lie
  // whole tiles of rows apart and M is whole tiles (k13_grouped.cuh).
  const index_t tile_rows = x.ldd > 0 ? x.stride_d / (index_t{X::kBM} * x.ldd) : 0;
  const bool stacks = x.batch == 1 || (x.m % X::kBM == 0 && x.stride_d % (index_t{X::kBM} * x.ldd) == 0 &&
                                       tile_rows * X::kBM * (x.batch - 1) + x.m < (index_t{1} << 31));
  out.tma_store = false;
  // A masked problem's D leaves by row stores: a map's rows are the capacity, not the count.
  if (stacks && x.m_device == nullptr && tma::tma_ready(x.d, x.ldd, size_bytes(x.cd_type))) {
    const index_t rows = x.batch == 1 ? x.m : tile_rows * X::kBM * (x.batch - 1) + x.m;
    const auto map_d = [&]<class U>() {
      return X::template Epilogue<U>::Tma::make_map(
          out.map_d, make_global_tensor(static_cast<const U*>(x.d), {rows, x.n}, {x.ldd, one}), TmaUse::store);
    };
    e = gemm_kernels::with_out_type(x.cd_type, map_d);
    out.tma_store = e.ok();  // else the epilogue's row stores write D
  }
  out.p = make_params<T>(x);
  out.scales = {static_cast<int>(x.fp8_scale), x.fp8_scale_a, x.fp8_scale_b, ceil_div(x.k, index_t{128})};
  out.m_device = x.m_device;
  out.tile_rows = X::kBM;
  out.stride_c = x.stride_c;
  out.stride_d = x.stride_d;
  out.tiles_m = static_cast<int>(ceil_div(x.m, index_t{X::kBM}));
  out.tiles_n = static_cast<int>(ceil_div(x.n, index_t{X::kBN}));
  out.k_tiles = static_cast<int>(ceil_div(x.k, index_t{X::kBK}));
  out.batch = static_cast<int>(x.batch);
  out.unit_begin = unit_begin;
  out.units = out.tiles_m * out.tiles_n * out.batch;
  out.a_batched = a_batched ? 1 : 0;
  out.b_batched = b_batched ? 1 : 0;
  out.d_tile_rows = static_cast<int>(tile_rows);
  // 8: rule 6 (gemm_plan.hpp) gives the 128 x 256 tile 16 on single problems, where it was measured;
  // the batched and grouped launches keep 8 on every width.
  out.raster_group = x.tuning.raster_group > 0 ? x.tuning.raster_group : 8;
  out.raster =
      blocks::BatchRaster(static_cast<unsigned>(out.tiles_m), static_cast<unsigned>(out.tiles_n), out.raster_group);
  return Status::success();
}

/// The last descriptors built, per instantiation: a call repeated with the
/// same problems (a training loop, a benchmark) skips the encodes.
/// cuTensorMapEncodeTiled's host cost is then paid once.
template <class T>
struct DescriptorCache {
  std::mutex mu;
  std::vector<GemmArgs> args;
  std::vector<gk::GroupProblem<T>> problems;
};

/// Pinned host buffers for the group's descriptors, in turn: the copy to the
/// device reads them after the call returns, so a buffer is reused only once
/// the event recorded behind its copy has completed.
struct StagingRing {
  static constexpr int kSlots = 4;
  std::mutex mu;
  void* host[kSlots]{};
  std::size_t bytes[kSlots]{};
  cudaEvent_t done[kSlots]{};
  int next = 0;
};
/// The current device's ring (its events belong to that device).
inline StagingRing* staging_ring() {
  constexpr int kDevices = 64;
  static StagingRing rings[kDevices];
  int device = 0;
  if (cudaGetDevice(&device) != cudaSuccess || device < 0 || device >= kDevices) return nullptr;
  return &rings[device];
}

/// k13's grouped kernel with tile BM x BN, as launch_grouped_with takes a
/// kernel family: its Tiles, its kernel, its threads per CTA and its name;
/// Scales: FP8 scales in memory (gemm_kernels::Fp8Scales, an instance each).
template <int BN, int BM = 128, int Scales = gemm_kernels::Fp8Scales::none>
struct GroupedFamily {
  using Cfg = std::conditional_t<Scales == gemm_kernels::Fp8Scales::none, gk::Config<BN, false, BM>,
                                 gk::Scaled<gk::Config<BN, false, BM>, Scales>>;
  template <class T, MajorA MA, MajorB MB>
  using Tiles = gk::Tiles<T, MA, MB, Cfg>;
  template <class T, MajorA MA, MajorB MB>
  static constexpr auto kernel() {
    return &gk::gemm_grouped<T, MA, MB, Cfg>;
  }
  static constexpr int kThreads = Cfg::kThreads;
  static constexpr const char* kName = "k13 grouped";
};

/// `count` problems of T in one launch of Family's kernel over a
/// k13::GroupSet: the descriptors (cached), then the batch's as the kernel's
/// parameter or the group's in device memory.
template <class Family, class T, MajorA MA, MajorB MB>
Status launch_grouped_as(const GemmArgs* problems, int count, cudaStream_t stream) {
  using X = typename Family::template Tiles<T, MA, MB>;
  auto* kernel = Family::template kernel<T, MA, MB>();
  if (Status s = allow_smem(kernel, X::kSmemBytes, Family::kName); !s) return s;
  gk::GroupSet<T> set{};
  set.count = count;
  if constexpr (sizeof(T) == 1) set.promote = fp8_promote_interval(problems[0]);  // the group shares it
  // The descriptors: the last call's when the problems are the same.
  static DescriptorCache<T> cache;
  std::vector<gk::GroupProblem<T>> built;
  {
    std::lock_guard<std::mutex> lock(cache.mu);
    bool hit = static_cast<int>(cache.args.size()) == count;
    for (int g = 0; hit && g < count; ++g) hit = same_problem(cache.args[static_cast<std::size_t>(g)], problems[g]);
    if (hit) {
      built = cache.problems;
    } else {
      built.resize(static_cast<std::size_t>(count));
      int units = 0;
      for (int g = 0; g < count; ++g) {
        if (Status s = describe<T, MA, MB, X>(problems[g], units, built[static_cast<std::size_t>(g)], Family::kName);
            !s)
          return s;
        units += built[static_cast<std::size_t>(g)].units;
      }
      cache.args.assign(problems, problems + count);
      cache.problems = built;
    }
  }
  set.units = built.back().unit_begin + built.back().units;
  int sms = 0;
  if (Status s = tma::sm_count(Family::kName, sms); !s) return s;
  const dim3 grid(static_cast<unsigned>(set.units < sms ? set.units : sms));
  if (count == 1) {  // a batch: its descriptor is the kernel's parameter
    set.first = built[0];
    kernel<<<grid, Family::kThreads, X::kSmemBytes, stream>>>(set);
    return launch_status(Family::kName);
  }
  // A group: the descriptors in device memory, copied on the stream from
  // a pinned buffer (so that the copy is asynchronous).
  const std::size_t bytes = built.size() * sizeof(gk::GroupProblem<T>);
  // A failed CUDA call of the staging, named after the kernel family and the step.
  const auto failed = [](const char* step) { return launch_status((std::string(Family::kName) + step).c_str()); };
  StagingRing* ring_of_device = staging_ring();
  if (ring_of_device == nullptr)
    return Status::failure(Status::cuda_error,
                           std::string(Family::kName) + ": no current device below index 64 to stage for");
  StagingRing& ring = *ring_of_device;
  std::unique_lock<std::mutex> lock(ring.mu);
  const int slot = ring.next;
  ring.next = (ring.next + 1) % StagingRing::kSlots;
  if (ring.done[slot] == nullptr && cudaEventCreateWithFlags(&ring.done[slot], cudaEventDisableTiming) != cudaSuccess)
    return failed(" (staging event)");
  if (cudaEventSynchronize(ring.done[slot]) != cudaSuccess) return failed(" (staging)");
  if (ring.bytes[slot] < bytes) {
    if (ring.host[slot] != nullptr) (void)cudaFreeHost(ring.host[slot]);
    ring.host[slot] = nullptr;
    ring.bytes[slot] = 0;
    if (cudaMallocHost(&ring.host[slot], bytes) != cudaSuccess) return failed(" (pinned staging)");
    ring.bytes[slot] = bytes;
  }
  std::memcpy(ring.host[slot], built.data(), bytes);
  void* dev = workspace_alloc(bytes, stream);
  if (dev == nullptr)
    return Status::failure(Status::cuda_error, std::string(Family::kName) + ": cannot allocate " +
                                                   std::to_string(bytes) +
                                                   " bytes of descriptors from tessel's memory pool");
  if (cudaMemcpyAsync(dev, ring.host[slot], bytes, cudaMemcpyHostToDevice, stream) != cudaSuccess ||
      cudaEventRecord(ring.done[slot], stream) != cudaSuccess) {
    (void)workspace_free(dev, stream);
    return failed(" (descriptor copy)");
  }
  lock.unlock();
  set.first = built[0];  // unused (list is set); keeps the parameter defined
  set.list = static_cast<const gk::GroupProblem<T>*>(dev);
  kernel<<<grid, Family::kThreads, X::kSmemBytes, stream>>>(set);
  const Status s = launch_status(Family::kName);
  (void)workspace_free(dev, stream);
  return s;
}

/// launch_grouped_as for the group's types and layout (problem 0's: they share them).
template <class Family>
Status launch_grouped_with(const GemmArgs* problems, int count, cudaStream_t stream) {
  return with_types(problems[0], [&]<class T, MajorA MA, MajorB MB>() {
    return launch_grouped_as<Family, T, MA, MB>(problems, count, stream);
  });
}

}  // namespace tessel::gemm_launch::k13
