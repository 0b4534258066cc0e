// What the launchers of the TMA steps (k09, k10, k11) share: the TMA maps of
// A, B and D (encoded once and cached), the padded copy of an A or B whose
// rows TMA cannot describe (pad_copy.cu's kernel), the fallback to k08's kernel when that copy
// cannot be made, and the persistent grid.
//
// The fallback instantiates k08's kernels in each step's translation unit,
// as k09.cu did before the split.  Calling launch_k08 instead would compile
// them once, but nvcc's inlining depends on what else the unit holds, and
// without them k11's kernel is scheduled differently from the one measured.
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>

#include "src/kernels/gemm/multistage_launch.hpp"
#include "src/kernels/gemm/pad_copy.hpp"
#include "src/kernels/gemm/pads.hpp"
#include "src/kernels/gemm/workspace.hpp"
#include "tessel/gemm_launch_model.hpp"
#include "tessel/kernels/gemm/k08_smem_epilogue.cuh"
#include "tessel/kernels/gemm/tma_warp_specialized_common.cuh"

namespace tessel::gemm_launch::tma {

namespace ws = gemm_kernels::warp_specialized;

/// The most work units (or tiles, or tile pairs) a persistent kernel's
/// 32-bit scheduler counts: 31 bits, with room for a grid's stride past the
/// last (blocks::SplitKScheduler, k14's PersistentScheduler<..., unsigned>,
/// the grouped schedulers).  The launchers refuse larger grids by name.
inline constexpr index_t kMaxScheduledUnits = 0x7FFFFFFF - (index_t{1} << 20);

using gemm_launch::tma_ready;

/// A launch of `ctas` CTAs in clusters of `size` along x; `attr`
/// is the cluster attribute the config points to (the caller keeps it alive).
inline cudaLaunchConfig_t cluster_config(unsigned ctas, int threads, int smem_bytes, cudaStream_t stream,
                                         cudaLaunchAttribute& attr, int size) {
  cudaLaunchConfig_t cfg{};
  cfg.gridDim = dim3(ctas);
  cfg.blockDim = dim3(static_cast<unsigned>(threads));
  cfg.dynamicSmemBytes = static_cast<std::size_t>(smem_bytes);
  cfg.stream = stream;
  attr = cudaLaunchAttribute{};
  attr.id = cudaLaunchAttributeClusterDimension;
  attr.val.clusterDim.x = static_cast<unsigned>(size);
  attr.val.clusterDim.y = 1;
  attr.val.clusterDim.z = 1;
  cfg.attrs = &attr;
  cfg.numAttrs = 1;
  return cfg;
}

/// How many clusters of `size` CTAs of `kernel` fit on the device at once (one
/// CTA per SM: `size` SMs of one GPC; a GPC whose SM count `size` does not
/// divide leaves the rest idle), read once per device, kernel (`Tag`: the
/// kernel's tiles) and cluster size 1..16: the query costs microseconds on
/// every call otherwise.  Errors name `step`.
template <class Tag, class K>
Status max_clusters(K* kernel, int threads, int smem_bytes, int sms, int& out, int size, const char* step) {
  static std::atomic<int> cache[64][17] = {};  // per device and size; 0: not read yet
  int device = 0;
  if (cudaGetDevice(&device) != cudaSuccess)
    return Status::failure(Status::cuda_error, std::string(step) + ": cannot read the current device");
  const bool cached = device >= 0 && device < 64 && size >= 1 && size <= 16;
  if (cached && (out = cache[device][size].load(std::memory_order_relaxed)) > 0) return Status::success();
  cudaLaunchAttribute attr;
  const cudaLaunchConfig_t cfg =
      cluster_config(static_cast<unsigned>(sms / size * size), threads, smem_bytes, nullptr, attr, size);
  const cudaError_t e = cudaOccupancyMaxActiveClusters(&out, kernel, &cfg);
  if (e != cudaSuccess || out < 1)
    return Status::failure(Status::cuda_error, std::string(step) + ": no cluster of " + std::to_string(size) +
                                                   " CTAs fits on this device: " +
                                                   (e != cudaSuccess ? cudaGetErrorString(e) : "0 active clusters"));
  if (cached) cache[device][size].store(out, std::memory_order_relaxed);
  return Status::success();
}

/// Encoding a tensor map costs host time between the caller's events; the
/// same matrices come back call after call (benchmarks, training loops), so
/// the last few maps are kept, one cache for the three steps.  The key holds
/// everything the map depends on except the swizzle, which is the 128-byte
/// one for every map these steps make.
struct MapKey {
  const void* ptr;
  index_t shape[2], stride[2];
  int elem_bytes, box[2];
  TmaUse use;
  bool operator==(const MapKey&) const = default;
};
struct MapCache {
  std::mutex mu;
  MapKey keys[16]{};
  CUtensorMap maps[16]{};
  int next = 0, used = 0;
};
inline MapCache& map_cache() {
  static MapCache c;
  return c;
}

/// The map of global tensor (ptr, shape, stride) for the tiles of TmaTile
/// `Tma` (which knows the box and the swizzle from the kernel's shared layout).
template <class Tma, class T>
Status map_of(CUtensorMap& out, const T* ptr, const index_t (&shape)[2], const index_t (&stride)[2], const char* what,
              const char* step, TmaUse use = TmaUse::load) {
  const MapKey key{ptr,
                   {shape[0], shape[1]},
                   {stride[0], stride[1]},
                   static_cast<int>(sizeof(T)),
                   {static_cast<int>(Tma::kPlan.box[0]), static_cast<int>(Tma::kPlan.box[1])},
                   use};
  MapCache& c = map_cache();
  std::lock_guard<std::mutex> lock(c.mu);
  for (int i = 0; i < c.used; ++i)
    if (c.keys[i] == key) {
      out = c.maps[i];
      return Status::success();
    }
  const arch::sm90::TensorMapStatus s = Tma::make_map(out, make_global_tensor(ptr, shape, stride), use);
  if (!s.ok())
    return Status::failure(Status::unsupported, std::string(step) + ": TMA map of " + what + ": " + s.message);
  c.keys[c.next] = key;
  c.maps[c.next] = out;
  c.next = (c.next + 1) % 16;
  if (c.used < 16) ++c.used;
  return Status::success();
}

/// The maps of A and B for the tiles of X (by default ws::Tiles<T, MA, MB>).  A is (M,K) and
/// B (N,K) whatever their memory order: (M,K):(lda,1) for A:k, (M,K):(1,lda)
/// for A:m; the tiles' shared layouts say which mode TMA reads contiguously.
template <class T, MajorA MA, MajorB MB, class X = ws::Tiles<T, MA, MB>>
Status operand_maps(const GemmArgs& a, CUtensorMap& map_a, CUtensorMap& map_b, const char* step) {
  const T* pa = static_cast<const T*>(a.a);
  const T* pb = static_cast<const T*>(a.b);
  const index_t one = 1;
  Status s = MA == MajorA::k ? map_of<typename X::OpA::Tma>(map_a, pa, {a.m, a.k}, {a.lda, one}, "A", step)
                             : map_of<typename X::OpA::Tma>(map_a, pa, {a.m, a.k}, {one, a.lda}, "A", step);
  if (!s) return s;
  return MB == MajorB::k ? map_of<typename X::OpB::Tma>(map_b, pb, {a.n, a.k}, {a.ldb, one}, "B", step)
                         : map_of<typename X::OpB::Tma>(map_b, pb, {a.n, a.k}, {one, a.ldb}, "B", step);
}

/// The TMA-store map of D for epilogue Epi<U> (U: D's element type): true
/// when it is made; false when TMA cannot describe D (a row not made of whole
/// 16-byte granules, a misaligned base, docs/hardware.md §10.2) and the
/// register epilogue must write D.  `transposed`: g is a swapped problem
/// (g.m = N, g.n = M of D), whose D is (g.n, g.m) with rows of ldd.
template <template <class> class Epi>
bool d_store_map(const GemmArgs& g, CUtensorMap& map_d, const char* step, bool transposed = false) {
  if (!tma_ready(g.d, g.ldd, size_bytes(g.cd_type))) return false;
  const index_t rows = transposed ? g.n : g.m, cols = transposed ? g.m : g.n;
  const auto one = [&]<class U>() {
    return map_of<typename Epi<U>::Tma>(map_d, static_cast<const U*>(g.d), {rows, cols}, {g.ldd, index_t{1}}, "D", step,
                                        TmaUse::store);
  };
  const Status s = gemm_kernels::with_out_type(g.cd_type, one);
  return s.is_ok();
}

/// May a swapped tile stage D^T as D's rows and TMA-store it?  At beta = 0
/// only (with C the register epilogue reads C transposed), and on the
/// 128-row swapped tiles (`wide`) a 16-bit D only: their staging holds 16-bit
/// rows (Config::staging_bytes), so an fp32 D leaves from registers.
inline bool stores_transposed_d(const GemmArgs& g, bool wide) {
  return g.beta == 0.0f && !(wide && g.cd_type == DType::f32);
}

/// The current device's SM count (cached per device: device_sm_count).
inline Status sm_count(const char* step, int& sms) {
  sms = device_sm_count();
  if (sms <= 0) return Status::failure(Status::cuda_error, std::string(step) + ": cannot read the device's SM count");
  return Status::success();
}

/// One CTA per SM (the steps' shared memory allows one), at most one per
/// work unit (a tile, by default of ws::kBM x ws::kBN).
inline Status persistent_grid(const GemmArgs& a, const char* step, dim3& grid, index_t units = 0) {
  int sms = 0;
  if (Status s = sm_count(step, sms); !s) return s;
  if (units == 0) units = ceil_div(a.m, index_t{ws::kBM}) * ceil_div(a.n, index_t{ws::kBN});
  grid = dim3(static_cast<unsigned>(units < sms ? units : sms));
  return Status::success();
}

/// True on this thread only while tma::launch enqueues the GEMM that reads
/// the padded copies it has just enqueued: k13 and k14 then launch as the
/// copy's programmatic dependent (their CTAs start beside the copy, and the
/// thread that issues the loads waits for it first: produce_first, k14's
/// producer); the other steps, which do not wait, launch plainly.
inline thread_local bool after_padded_copy = false;

/// The kernel that runs when the padded copies cannot be made: k08's.
using Fallback = gemm_kernels::k08::Config;

/// The padded copy of a row-major (rows x cols) matrix of 16-bit elements,
/// its rows padded to 128 bytes: at `at` (the stream's kept pad_scratch)
/// where the caller has it, else a stream-ordered temporary from tessel's
/// pool.  `make` describes the copy (`job`); tma::launch enqueues the
/// copies of A and B together, one pad_copy launch (pad_copy.cu).  The pad
/// columns [cols, ld) are written as zeros, though their values never reach
/// a kernel: the TMA maps of the copy (operand_maps) have the operand's
/// extents ({M or N, K}, not ld), and TMA puts zeros, not memory's contents,
/// in every box element outside a map's extents (docs/hardware.md §10.2,
/// "Out of bounds").  Zeros keep the temporary fully defined all the same.
struct PaddedCopy {
  void* ptr = nullptr;    // the copy
  void* owned = nullptr;  // what release gives back to the pool (nothing where the copy is kept scratch)
  index_t ld = 0;
  PadCopy job{};
  /// Places the copy at `at`, or allocates it where `at` is null; false (and
  /// nothing allocated) when the allocation cannot be enqueued.
  bool make(const void* src, index_t rows, index_t cols, index_t src_ld, void* at, cudaStream_t stream) {
    // Rows of whole 128-byte lines, not only 16-byte granules: a TMA box row
    // (128 bytes) that straddles two L2 lines costs two requests, and at
    // 4097^3 k13 took 439-450 us with rows of 4104 elements against 254 at
    // 4095^3 with rows of 4096 (H100).
    ld = padded_ld(cols);
    if (at == nullptr) {
      // tessel's pool (workspace.hpp): the default pool would unmap the copy at
      // every synchronization and map it again on the next call.
      at = owned = workspace_alloc(padded_bytes(rows, cols), stream);
      if (at == nullptr) return false;
    }
    ptr = at;
    job = PadCopy{src, ptr, rows, cols, src_ld, ld};
    return true;
  }
  /// Frees a temporary behind the work enqueued on `stream`.
  cudaError_t release(cudaStream_t stream) {
    const cudaError_t e = workspace_free(owned, stream);
    owned = ptr = nullptr;
    return e;
  }
};

/// The rules of the three steps: the tile count of their grids, and those of
/// the fallback kernel (which may run instead).
inline Status check(const GemmArgs& a, const char* step) {
  if (Status s = check_tiles_linear(a, ws::kBM, ws::kBN, step); !s) return s;
  return check_multistage<Fallback>(a, step);
}

/// Runs `launch_tma(args)`, the step's own launch for A and B with 16-byte
/// aligned rows, on `a` or on a copy of it whose unaligned operands were
/// first copied into padded temporaries.
/// `InlineFallback`: k08's kernels are instantiated in the caller's
/// translation unit (k09..k12, whose measured machine code depends on it, see
/// the top of this file); false (k13, k14) calls launch_k08 instead, which
/// saves a minute of nvcc per launcher (k13.cu: 61 s of which ~55 were k08's
/// eight kernels, on the 2-core CI machine).
template <bool InlineFallback = true, class LaunchTma>
Status launch(const GemmArgs& a, cudaStream_t stream, const char* step, LaunchTma&& launch_tma) {
  // The teaching steps (k09-k12, InlineFallback) copy only what TMA cannot read, as measured.
  const Pads pads = pads_of(a, !InlineFallback);
  const bool a_ready = pads.a_ready, b_ready = pads.b_ready, pad_a = pads.a, pad_b = pads.b;
  const bool ak = a.layout.a == MajorA::k, bk = a.layout.b == MajorB::k;
  if (!pad_a && !pad_b) return launch_tma(a);
  // Unaligned rows: a padded copy costs one read and one write of the
  // operand and lets the TMA kernel run; k08's kernel would load such rows
  // element by element, 7x slower at 4095^3.  Aligned rows that straddle
  // lines are copied only when pads_of says the copy costs less than the
  // kernel's extra reads.  The copies are made by pad_copy.cu's kernel, A
  // and B in one launch, into the stream's kept scratch (else from tessel's
  // pool, freed behind the kernel); if an unaligned operand's copy cannot be
  // allocated, k08's kernel runs, and a straddled one is read as it is.
  GemmArgs p = a;
  PaddedCopy ca, cb;
  PadCopy jobs[kMaxPadCopies];
  int n = 0;
  // Both copies in the stream's kept scratch where it has one (nothing allocated a call), A's first, B's at
  // the next 256 bytes; else each from the pool.
  const std::size_t a_bytes = pad_a ? (pads.a_bytes + 255) / 256 * 256 : 0, b_bytes = pad_b ? pads.b_bytes : 0;
  int device = 0;
  unsigned long long id = 0;
  std::unique_lock<std::mutex> hold;  // the kept scratch's, until the GEMM that reads the copies is enqueued
  char* kept = ordered_stream_key(stream, device, id)
                   ? static_cast<char*>(pad_scratch(a_bytes + b_bytes, stream, device, id, hold))
                   : nullptr;
  // Copies one operand where `want`; false only where an unaligned one cannot be copied.
  const auto copy = [&](bool want, bool ready, PaddedCopy& c, const void* src, index_t rows, index_t cols, index_t ld,
                        char* at, const void*& to, index_t& to_ld) {
    if (!want) return true;
    if (!c.make(src, rows, cols, ld, at, stream)) return ready;
    to = c.ptr;
    to_ld = c.ld;
    jobs[n++] = c.job;
    return true;
  };
  const bool ok =
      copy(pad_a, a_ready, ca, a.a, ak ? a.m : a.k, ak ? a.k : a.m, a.lda, kept, p.a, p.lda) &&
      copy(pad_b, b_ready, cb, a.b, bk ? a.n : a.k, bk ? a.k : a.n, a.ldb, kept ? kept + a_bytes : nullptr, p.b, p.ldb);
  Status s = Status::success();
  if (ok) {
    s = n > 0 ? pad_copy(jobs, n, stream) : Status::success();
    if (!s) {
      const char* what = n == 2 ? "A and B" : p.a != a.a ? "A" : "B";
      s = Status::failure(s.code, std::string(step) + ": padded copy of " + what + ": " + s.message);
    } else {
      after_padded_copy = n > 0;
      s = launch_tma(p);
      after_padded_copy = false;
    }
  }
  const cudaError_t fa = ca.release(stream), fb = cb.release(stream);
  if (!ok) {
    if constexpr (InlineFallback) {
      return launch_multistage<Fallback>(a, stream, (std::string(step) + " (k08 kernel)").c_str());
    } else {
      // k08 computes the plain GEMM; a fused epilogue the caller asked of
      // k13 then runs unfused (tessel::gemm strips it before any other step).
      GemmArgs plain = a;
      plain.epilogue = GemmEpilogue{};
      if (Status s2 = launch_k08(plain, stream); !s2) return s2;
      return launch_epilogue(a, stream);
    }
  }
  if (s && (fa != cudaSuccess || fb != cudaSuccess))
    return Status::failure(Status::cuda_error, std::string(step) + ": freeing a padded copy: " +
                                                   cudaGetErrorString(fa != cudaSuccess ? fa : fb));
  return s;
}

}  // namespace tessel::gemm_launch::tma
