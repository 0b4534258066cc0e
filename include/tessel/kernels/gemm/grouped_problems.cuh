// tessel/kernels/gemm/grouped_problems.cuh — the grouped kernels' collective:
// many GEMMs in one persistent launch.  Here: a problem as the kernels read
// it (its TMA maps, Params, batch strides, units) and the launch's set of
// them; the schedulers that map a CTA's linear unit ids to (problem, batch,
// tile); and the producer thread's loads of the units.  Taken by k13's
// grouped kernel and k15's batched kernel (k13_grouped.cuh, k15_grouped.cuh).
// In k13's namespace: the kernels' names carry GroupSet, as they were built.
//
// - The work units: a linear unit id over every problem's tiles (prefix sums
//   of units per problem, computed on the host) maps to (problem, batch,
//   tile); inside a (problem, batch) the tiles follow k13's grouped raster
//   (its group of tile rows the caller's tuning.raster_group, else 8).
//   CTAs take units first, first + count, ... as k13's do, so a CTA's units
//   run in increasing order and finding a unit's problem is a walk forward
//   from the previous one.  Every unit is one whole tile.
// - Each problem has its own TMA maps of A, B and D.  A and B are rank-3
//   maps whose third dimension is the batch (a box one matrix deep;
//   a broadcast operand, batch stride 0, is a batch of one read at batch 0).
// - Where the maps live: a batch's one problem is a kernel parameter
//   (__grid_constant__, no copy before the launch: a batched call is often
//   ~10 us); a group's problems are in device memory, written by a copy on
//   the launch's stream (the launcher), and each CTA acquires a problem's
//   maps (fence.proxy.tensormap acquire) before its first TMA with them:
//   the memory comes from a pool and may hold an earlier call's maps, which
//   the tensormap cache may still have.
#pragma once

#include "tessel/arch/sm90.hpp"
#include "tessel/kernels/blocks/tile_scheduler.hpp"
#include "tessel/kernels/gemm/common.cuh"
#include "tessel/kernels/gemm/split_k.cuh"

namespace tessel::gemm_kernels::k13 {

/// One problem of a grouped or batched launch as the kernel reads it; the
/// maps first (CUtensorMap is 64-byte aligned, 128 bytes).
template <class T>
struct GroupProblem {
  CUtensorMap map_a;                   // rank 3: A's (M,K) tiles by batch
  CUtensorMap map_b;                   // rank 3: B's (N,K) tiles by batch
  CUtensorMap map_d;                   // rank 2: D, or D of every batch as one tall matrix; unused without tma_store
  Params<T> p;                         // batch 0's problem
  index_t stride_c = 0, stride_d = 0;  // elements between batches of C and D
  int tiles_m = 0, tiles_n = 0, k_tiles = 0;
  int batch = 1;
  int unit_begin = 0, units = 0;     // this problem's work units: [unit_begin, unit_begin + units)
  int a_batched = 0, b_batched = 0;  // 1: the operand has a matrix per batch; 0: one for all (stride 0)
  int d_tile_rows = 0;               // stacked D (tma_store with batch > 1): tile rows between batches
  int raster_group = 8;              // tile rows per group of the raster (GemmTuning::raster_group)
  blocks::BatchRaster raster;        // tiles_m, tiles_n and raster_group's divisors (BatchScheduler)
  bool tma_store = false;            // D leaves by TMA (map_d), else by the epilogue's row stores
  Fp8Scales scales;                  // FP8: the problem's scales in memory (the instance's mode)
  const int* m_device = nullptr;     // masked: the rows read on the device (p.m is the capacity); D by row stores
  int tile_rows = 128;               // the kernel's tile height (a masked problem's tiles past its rows are skipped)
};

/// A problem's rows when the kernel runs: p.m, or for a masked problem the
/// count in device memory, clamped to [0, p.m].
template <class T>
__device__ __forceinline__ index_t rows_of(const GroupProblem<T>& p) {
  if (p.m_device == nullptr) return p.p.m;
  const index_t r = __ldg(p.m_device);
  return r < 0 ? 0 : r < p.p.m ? r : p.p.m;
}

/// The kernel's parameter: the one problem of a batch in place, or the
/// problems of a group in device memory.
template <class T>
struct GroupSet {
  GroupProblem<T> first;                  // used when `list` is null
  const GroupProblem<T>* list = nullptr;  // `count` problems, unit_begin ascending
  int count = 1;
  int units = 0;    // over every problem
  int promote = 0;  // FP8: k-tiles per promotion of the sums into fp32 (0: at a unit's end)
};

/// Where a work unit lies.
struct GroupUnit {
  int g = 0, batch = 0;
  blocks::TileCoord tile;
};

/// The unit of problem `g` at batch `batch`, tile (tm, tn).
__device__ __forceinline__ GroupUnit unit_at(int g, unsigned batch, unsigned tm, unsigned tn) {
  return GroupUnit{g, static_cast<int>(batch), blocks::TileCoord{static_cast<index_t>(tm), static_cast<index_t>(tn)}};
}

/// Persistent CTAs over every problem's units: CTA `first` of `count` takes
/// units first, first + count, ...; each is found in its problem by walking
/// forward from the previous unit's problem (units ascend).  The producer and
/// the consumers each walk their own copy, as k13's schedulers do.
template <class T>
class GroupScheduler {
 public:
  __device__ GroupScheduler(const GroupSet<T>& set, int first, int count) : set_(set), next_(first), count_(count) {}

  __device__ const GroupProblem<T>& problem(int g) const { return set_.list != nullptr ? set_.list[g] : set_.first; }

  /// The next unit of this CTA, or false when there is none.  A masked
  /// problem's tiles at and past its rows are skipped: the producer and the
  /// consumers read the same count, so they skip the same units.
  __device__ bool next(GroupUnit& u) {
    for (;;) {
      if (next_ >= set_.units) return false;
      while (next_ >= problem(g_).unit_begin + problem(g_).units) ++g_;
      const GroupProblem<T>& p = problem(g_);
      unsigned batch = 0, tm = 0, tn = 0;
      blocks::batched_tile_of(static_cast<unsigned>(next_ - p.unit_begin), static_cast<unsigned>(p.tiles_m),
                              static_cast<unsigned>(p.tiles_n), p.raster_group, batch, tm, tn);
      next_ += count_;
      if (p.m_device != nullptr && index_t{tm} * p.tile_rows >= rows_of(p)) continue;
      u = unit_at(g_, batch, tm, tn);
      return true;
    }
  }

 private:
  const GroupSet<T>& set_;
  int g_ = 0, next_, count_;
};

/// The units of a strided batch, one problem: GroupScheduler's walk with the
/// problem read where it is, in the kernel's parameter.  GroupScheduler reads
/// a problem through a reference that is either the parameter or device
/// memory (`list`), so each field it reads is a generic load (LD.E, a round
/// trip to L1 or L2) on the way to every unit; through this one the compiler
/// sees the parameter and reads the constant bank (LDC).  Measured on k15's
/// batched kernel (in-kernel clock stamps, 32 x 512^2 x 128): from
/// one unit's stores to the same warpgroup's next unit 1450 SM cycles with
/// GroupScheduler, 1000 with the parameter's fields, 423 with the raster's
/// divisions as multiplies too (blocks::BatchRaster); the batch from 0.96 to
/// 1.05 of cuBLASLt (docs/history/batched.md).
template <class T>
class BatchScheduler {
 public:
  __device__ BatchScheduler(const GroupProblem<T>& p, int first, int count) : p_(p), next_(first), count_(count) {}

  __device__ const GroupProblem<T>& problem(int) const { return p_; }

  /// The next unit of this CTA, or false when there is none.
  __device__ bool next(GroupUnit& u) {
    if (next_ >= p_.units) return false;
    unsigned batch = 0, tm = 0, tn = 0;
    p_.raster.unit(static_cast<unsigned>(next_), batch, tm, tn);  // the divisions as multiplies (host-made divisors)
    u = unit_at(0, batch, tm, tn);
    next_ += count_;
    return true;
  }

 private:
  const GroupProblem<T>& p_;
  int next_, count_;
};

/// The producer thread's loop of the grouped kernels (k13_grouped.cuh's,
/// k15_grouped.cuh's): this CTA's units in order; a problem's maps, where it
/// is first met, acquired (maps in device memory) and prefetched; then the
/// unit's k-tiles of A and B (rank-3 boxes, the batch the third coordinate,
/// a broadcast operand at batch 0) into the pipeline's stages.
template <class X, class Scheduler, class Shared>
__device__ __forceinline__ void produce_units(Scheduler& scheduler, const typename X::Pipeline& pipe, Shared& shared,
                                              bool maps_in_memory) {
  using OpA = typename X::OpA;
  using OpB = typename X::OpB;
  typename X::Pipeline::State write;
  int seen = -1;
  for (GroupUnit u; scheduler.next(u);) {
    const auto& p = scheduler.problem(u.g);
    if (u.g != seen) {  // a problem's maps, first met
      if (maps_in_memory) {
        arch::sm90::fence_tensormap_acquire(&p.map_a);
        arch::sm90::fence_tensormap_acquire(&p.map_b);
      }
      arch::sm90::prefetch_tensormap(&p.map_a);
      arch::sm90::prefetch_tensormap(&p.map_b);
      seen = u.g;
    }
    const int ba = u.batch * p.a_batched, bb = u.batch * p.b_batched;
    for (int kt = 0; kt < p.k_tiles; ++kt, ++write) {
      pipe.producer_acquire(write, X::kStageBytes);
      OpA::Tma::load_batch(&p.map_a, shared.a[write.index()], pipe.full(write.index()), u.tile.m, kt, ba);
      OpB::Tma::load_batch(&p.map_b, shared.b[write.index()], pipe.full(write.index()), u.tile.n, kt, bb);
    }
  }
}

}  // namespace tessel::gemm_kernels::k13
