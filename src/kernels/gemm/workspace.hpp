// Stream-ordered scratch memory for the GEMM launchers (split K's partial
// tiles and counters, padded copies), from a memory pool of tessel's own per
// device or from the caller's workspace (Arena); split K's counters kept
// zeroed per stream (split_counters).
//
// Why a pool of our own: the device's default pool has a release threshold of
// 0, so every synchronization hands freed memory back to the driver and the
// next cudaMallocAsync maps it again, on the stream, inside the launch's
// time: on an H100, k13 with two splits measured 0.39 of cuBLASLt (geometric
// mean of bench/k13_tuning.sh's small shapes) from the default pool and 0.67
// from this one.  tessel's pool keeps up to kKeepBytes of freed memory
// mapped for reuse; the user's default pool is left as it is.
#pragma once

#include <cuda_runtime.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <utility>

#include "src/kernels/gemm/launch.hpp"

namespace tessel::gemm_launch {

inline constexpr std::uint64_t kKeepBytes = std::uint64_t{512} << 20;  // kept mapped after a sync

/// tessel's pool on `device`, created on first use (nullptr if it cannot be).
inline cudaMemPool_t workspace_pool(int device) {
  constexpr int kDevices = 64;
  static std::mutex mutex;
  static cudaMemPool_t pools[kDevices] = {};
  if (device < 0 || device >= kDevices) return nullptr;
  const std::lock_guard<std::mutex> lock(mutex);
  if (pools[device] == nullptr) {
    cudaMemPoolProps props{};
    props.allocType = cudaMemAllocationTypePinned;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = device;
    cudaMemPool_t pool = nullptr;
    if (cudaMemPoolCreate(&pool, &props) != cudaSuccess) {
      (void)cudaGetLastError();  // not sticky: the caller reports the allocation failure
      return nullptr;
    }
    std::uint64_t keep = kKeepBytes;
    (void)cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep);
    pools[device] = pool;
  }
  return pools[device];
}

/// The caller's workspace (GemmArgs::workspace) while a call runs on this
/// thread: allocations are carved from it in order, 256-byte aligned, and
/// never freed one by one.  Every use is ordered on the call's stream, so
/// the next problem of a batch may carve the same bytes again (rewind).
struct Arena {
  char* base = nullptr;
  std::size_t size = 0, used = 0;
  void* take(std::size_t bytes) {
    const std::size_t at = (used + 255) / 256 * 256;
    if (at > size || bytes > size - at) return nullptr;
    used = at + bytes;
    return base + at;
  }
  bool owns(const void* p) const {
    const char* c = static_cast<const char*>(p);
    return c >= base && c < base + size;
  }
  void rewind() { used = 0; }
};

/// The calling thread's active arena (nullptr: allocate from tessel's pool).
inline Arena*& active_arena() {
  static thread_local Arena* arena = nullptr;
  return arena;
}

/// Makes `workspace` the thread's arena for the scope's life, unless one is
/// active already (a call made inside a call carves from the outer one).
class ArenaScope {
 public:
  ArenaScope(void* workspace, std::size_t bytes) {
    if (workspace == nullptr || active_arena() != nullptr) return;
    arena_ = Arena{static_cast<char*>(workspace), bytes, 0};
    active_arena() = &arena_;
    installed_ = true;
  }
  ~ArenaScope() {
    if (installed_) active_arena() = nullptr;
  }
  ArenaScope(const ArenaScope&) = delete;
  ArenaScope& operator=(const ArenaScope&) = delete;

 private:
  Arena arena_{};
  bool installed_ = false;
};

/// Allocations taken from tessel's pool so far (gemm_pool_allocations).
inline std::atomic<std::uint64_t>& pool_allocations() {
  static std::atomic<std::uint64_t> count{0};
  return count;
}

/// `bytes` from the caller's workspace where one is active, else from
/// tessel's pool on the current device, ordered on `stream`; nullptr (error
/// cleared) when it cannot be had.  Free with workspace_free.
inline void* workspace_alloc(std::size_t bytes, cudaStream_t stream) {
  if (Arena* arena = active_arena(); arena != nullptr) return arena->take(bytes);
  int device = 0;
  void* p = nullptr;
  cudaMemPool_t pool = nullptr;
  if (cudaGetDevice(&device) != cudaSuccess || (pool = workspace_pool(device)) == nullptr ||
      cudaMallocFromPoolAsync(&p, bytes, pool, stream) != cudaSuccess) {
    (void)cudaGetLastError();
    return nullptr;
  }
  pool_allocations().fetch_add(1, std::memory_order_relaxed);
  return p;
}

/// Where workspace_alloc takes memory from now, for error messages.
inline const char* workspace_source() {
  return active_arena() != nullptr ? "the caller's workspace" : "tessel's memory pool";
}

/// Frees what workspace_alloc gave, behind the work enqueued on `stream`
/// (nothing to do for the caller's workspace).
inline cudaError_t workspace_free(void* p, cudaStream_t stream) {
  if (p == nullptr) return cudaSuccess;
  if (const Arena* arena = active_arena(); arena != nullptr && arena->owns(p)) return cudaSuccess;
  return cudaFreeAsync(p, stream);
}

/// The (device, stream id) key of a stream whose launches run one after
/// another; false where that cannot be promised (split_counters' list).
inline bool ordered_stream_key(cudaStream_t stream, int& device, unsigned long long& id) {
  if (stream == cudaStreamPerThread || active_arena() != nullptr) return false;
  cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
  if (cudaStreamIsCapturing(stream, &capture) != cudaSuccess || capture != cudaStreamCaptureStatusNone ||
      cudaStreamGetId(stream, &id) != cudaSuccess || cudaGetDevice(&device) != cudaSuccess) {
    (void)cudaGetLastError();
    return false;
  }
  return true;
}

/// Split K's arrival counters for launches on `stream`: at least `count` ints,
/// zero whenever no launch on `stream` is running, because the last unit of
/// every tile sets its counter back to zero (k13's SplitKReduce).  So a launch
/// needs no memset of its own: on an H100 that second operation sat inside
/// each split-K call's time (docs/heuristics.md, rule 3).  One array per
/// (device, stream), allocated and zeroed on the stream the first time and
/// when a launch needs more, kept for the life of the process.  Launches on
/// one stream run one after another, so they never share a counter at the
/// same time; other streams get other arrays.  nullptr where that cannot be
/// promised or had: a stream under graph capture (a graph may be replayed on
/// any stream), the per-thread default stream handle (one handle, many
/// streams), past kMaxCounterStreams streams, or an allocation that fails;
/// the caller then zeroes counters of its own on the stream.
inline constexpr int kMaxCounterStreams = 64;

/// A buffer kept for one (device, stream): split_counters' and
/// split_partials' tables hold kMaxCounterStreams of them.
struct KeptSlot {
  int device = -1;
  unsigned long long stream_id = 0;
  void* p = nullptr;
  std::size_t size = 0;  // elements (counters) or bytes (partials)
};

/// The stream's slot in `slots`, else the first unused one; nullptr where
/// every slot holds another stream's buffer.  The caller holds its table's lock.
inline KeptSlot* kept_slot(KeptSlot (&slots)[kMaxCounterStreams], int device, unsigned long long id) {
  KeptSlot* free_slot = nullptr;
  for (KeptSlot& s : slots) {
    if (s.p != nullptr && s.device == device && s.stream_id == id) return &s;
    if (s.p == nullptr && free_slot == nullptr) free_slot = &s;
  }
  return free_slot;
}

/// `device` and `id`: the stream's ordered_stream_key, which the caller has
/// found (where there is none, the caller has counters of its own).
inline int* split_counters(std::size_t count, cudaStream_t stream, int device, unsigned long long id) {
  static std::mutex mutex;
  static KeptSlot slots[kMaxCounterStreams];
  const std::lock_guard<std::mutex> lock(mutex);
  KeptSlot* slot = kept_slot(slots, device, id);
  if (slot == nullptr) return nullptr;  // kMaxCounterStreams streams hold arrays already
  if (slot->p != nullptr && slot->size >= count) return static_cast<int*>(slot->p);
  std::size_t n = 1024;
  while (n < count) n *= 2;
  auto* fresh = static_cast<int*>(workspace_alloc(n * sizeof(int), stream));
  if (fresh == nullptr) return nullptr;
  if (cudaMemsetAsync(fresh, 0, n * sizeof(int), stream) != cudaSuccess) {
    (void)cudaGetLastError();
    (void)cudaFreeAsync(fresh, stream);
    return nullptr;
  }
  if (slot->p != nullptr) (void)cudaFreeAsync(slot->p, stream);  // after the launches that used it
  *slot = KeptSlot{device, id, fresh, n};
  return fresh;
}

/// At least `bytes` of `slots`' buffer for launches on `stream` (a device
/// and stream id from ordered_stream_key), kept from call to call: a
/// launch's scratch is dead once it ends and launches on one stream run in
/// turn, so they share one buffer.  A call whose scratch lives across two
/// launches (a copy, then the GEMM that reads it) passes `hold`: the
/// table's lock stays in it until the caller has enqueued both, so that
/// another thread's call on the same stream cannot enqueue its own launches
/// between them.  Up to kKeptScratchBytes a stream; a
/// buffer outgrown is kept, not freed, so that a launch another thread
/// enqueued with it never runs on freed memory.  nullptr where `bytes` is
/// larger or nothing can be had.  Why: an allocation and a free from the
/// pool per call (cudaMallocFromPoolAsync, cudaFreeAsync) cost a split call
/// 0.62 µs at the median (H200, 51 split problems of the any-shape
/// distribution, none slower kept; docs/heuristics.md, "Split K's scratch").
inline constexpr std::size_t kKeptScratchBytes = std::size_t{40} << 20;

inline void* kept_scratch(std::mutex& mutex, KeptSlot (&slots)[kMaxCounterStreams], std::size_t bytes,
                          cudaStream_t stream, int device, unsigned long long id,
                          std::unique_lock<std::mutex>* hold = nullptr) {
  if (bytes > kKeptScratchBytes) return nullptr;
  std::unique_lock<std::mutex> lock(mutex);
  KeptSlot* slot = kept_slot(slots, device, id);
  if (slot == nullptr) return nullptr;
  if (slot->p == nullptr || slot->size < bytes) {
    std::size_t n = std::size_t{1} << 20;
    while (n < bytes) n *= 2;
    if (n > kKeptScratchBytes) n = kKeptScratchBytes;
    void* fresh = workspace_alloc(n, stream);
    if (fresh == nullptr) return nullptr;
    *slot = KeptSlot{device, id, fresh, n};  // the outgrown buffer stays allocated (above)
  }
  if (hold != nullptr) *hold = std::move(lock);
  return slot->p;
}

/// Split K's partial tiles for launches on `stream` (kept_scratch): every
/// split the plan makes of k13's widest tile on one wave fits.
inline float* split_partials(std::size_t bytes, cudaStream_t stream, int device, unsigned long long id,
                             std::unique_lock<std::mutex>* hold = nullptr) {
  static std::mutex mutex;
  static KeptSlot slots[kMaxCounterStreams];
  return static_cast<float*>(kept_scratch(mutex, slots, bytes, stream, device, id, hold));
}

/// The padded copies of A and B for launches on `stream` (kept_scratch, a
/// table of its own: one call holds both these and split K's partials).
inline void* pad_scratch(std::size_t bytes, cudaStream_t stream, int device, unsigned long long id,
                         std::unique_lock<std::mutex>& hold) {
  static std::mutex mutex;
  static KeptSlot slots[kMaxCounterStreams];
  return kept_scratch(mutex, slots, bytes, stream, device, id, &hold);
}

/// One launch's partial tiles and their counters (k13's split K, f11's
/// stream-K): the stream's kept partials and kept-zero counters
/// (split_partials, split_counters) where it has them, else `partial_bytes`
/// from tessel's pool, then `counters` ints, the stream's kept-zero array or,
/// where there is none, ints after the partials, zeroed on the stream.
/// release() after the launch, in stream order.  Errors name `step` and what failed: `partials_name`
/// (the allocation) or `counters_name` (the zeroing).
/// What split K takes from a caller's workspace: a bm x bn fp32 partial tile
/// per split of each of `tiles` CTA tiles, then a counter a tile (one
/// allocation, PartialsAndCounters::make), plus the Arena's 256-byte alignment.
inline std::size_t split_k_bytes(std::size_t tiles, int splits, int bm, int bn) {
  return tiles * static_cast<std::size_t>(splits) * static_cast<std::size_t>(bm) * static_cast<std::size_t>(bn) *
             sizeof(float) +
         tiles * sizeof(int) + 256;
}

/// The CTA tiles of a grid of tiles_m x tiles_n tiles padded to whole clusters
/// of cm x cn (a slot each for split K, padding tiles included): 3 x 5 tiles
/// on pairs along M (2 x 1) take 4 x 5 = 20 slots.
inline constexpr index_t cluster_tile_slots(index_t tiles_m, index_t tiles_n, int cm, int cn) {
  return (tiles_m + cm - 1) / cm * cm * ((tiles_n + cn - 1) / cn * cn);
}
static_assert(cluster_tile_slots(3, 5, 2, 1) == 20 && cluster_tile_slots(3, 5, 2, 2) == 24);

/// `two_launches`: the partials are read by a second launch (split K summed
/// apart), so kept ones stay held (kept_scratch's `hold`) until release().
/// `count` 0 (summed apart: the units count nothing): no counters, none cleared.
struct PartialsAndCounters {
  void* ptr = nullptr;
  float* partials = nullptr;
  int* counters = nullptr;
  std::unique_lock<std::mutex> hold;
  Status make(std::size_t partial_bytes, std::size_t count, cudaStream_t stream, const char* step,
              const char* partials_name, const char* counters_name, bool two_launches = false) {
    // With the caller's workspace, under capture or on the per-thread stream nothing is kept (ordered_stream_key).
    int device = 0;
    unsigned long long id = 0;
    const bool ordered = ordered_stream_key(stream, device, id);
    int* kept = ordered && count > 0 ? split_counters(count, stream, device, id) : nullptr;
    if (ordered && (kept != nullptr || count == 0)) {  // the stream's kept partials too, where it has them
      if (float* p = split_partials(partial_bytes, stream, device, id, two_launches ? &hold : nullptr); p != nullptr) {
        partials = p;
        counters = kept;
        return Status::success();
      }
    }
    const std::size_t bytes = partial_bytes + (kept != nullptr ? 0 : count * sizeof(int));
    ptr = workspace_alloc(bytes, stream);
    if (ptr == nullptr)
      return Status::failure(Status::cuda_error, std::string(step) + ": cannot allocate " + partials_name + " of " +
                                                     std::to_string(bytes >> 20) + " MiB from " + workspace_source());
    partials = static_cast<float*>(ptr);
    counters = count == 0        ? nullptr
               : kept != nullptr ? kept
                                 : reinterpret_cast<int*>(static_cast<char*>(ptr) + partial_bytes);
    if (kept == nullptr && count > 0 && cudaMemsetAsync(counters, 0, count * sizeof(int), stream) != cudaSuccess) {
      release(stream);
      return launch_status((std::string(step) + " (" + counters_name + ")").c_str());
    }
    return Status::success();
  }
  void release(cudaStream_t stream) {
    (void)workspace_free(ptr, stream);
    ptr = nullptr;
    if (hold.owns_lock()) hold.unlock();
  }
};

}  // namespace tessel::gemm_launch
