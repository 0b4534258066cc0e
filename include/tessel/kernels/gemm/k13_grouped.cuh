// k13 grouped — many GEMMs in one persistent launch: a strided batch (one
// shape, `batch` copies) or a group of problems with their own M, N, K,
// pointers and leading dimensions (mixture-of-experts layers).
//
// Why: a batch of 32 GEMMs of 512 x 512 x 128 is 16 tiles of 128 x 128 each;
// launched one by one they fill an eighth of the SMs for ~3 us each, plus a
// launch each.  Together they are 512 tiles: four waves on 132 SMs, one
// launch.  A MoE layer's experts see from 64 to 2048 rows each: the small
// ones alone cannot fill the GPU, the large ones leave a ragged last wave;
// in one launch every CTA streams tiles of whichever problem comes next.
//
// What changes against k13 (k13_wgmma_in_flight.cuh), whose Tiles,
// TileEpilogue and main loop (consume) this kernel uses as they are:
// - The work units: a linear unit id over every problem's tiles (prefix sums
//   of units per problem, computed on the host) maps to (problem, batch,
//   tile); inside a (problem, batch) the tiles follow k13's grouped raster
//   (its group of tile rows the caller's tuning.raster_group, else 8).
//   CTAs take units first, first + count, ... as k13's do, so a CTA's units
//   run in increasing order and finding a unit's problem is a walk forward
//   from the previous one.  No split of K and no swap of A and B: every
//   unit is one whole tile (grouped launches have enough tiles to fill the
//   SMs, which is what split K and the swap are for).
// - Each problem has its own TMA maps of A, B and D.  A and B are rank-3
//   maps whose third dimension is the batch (a box one matrix deep;
//   a broadcast operand, batch stride 0, is a batch of one read at batch 0).
// - D leaves through k13's TMA-store epilogue with the problem's 2-D map.
//   For a batch the map is of one tall matrix: D of batch b starts b x R
//   tile rows below D of batch 0, where the batch stride is R whole tiles of
//   rows (stride_d a multiple of 128 x ldd) and M is whole tiles (else a
//   tile's rows below M would land between two batches' D).  Other batches
//   leave through the same epilogue's row stores (no map), the pointers
//   moved to the batch.  So k13's epilogue (tma_store_epilogue.cuh) is used
//   unchanged: only Params and the tile coordinate it is given differ.
// - Where the maps live: a batch's one problem is a kernel parameter
//   (__grid_constant__, no copy before the launch: a batched call is often
//   ~10 us); a group's problems are in device memory, written by a copy on
//   the launch's stream (the launcher), and each CTA acquires a problem's
//   maps (fence.proxy.tensormap acquire) before its first TMA with them:
//   the memory comes from a pool and may hold an earlier call's maps, which
//   the tensormap cache may still have.
#pragma once

#include "tessel/kernels/gemm/k13_wgmma_in_flight.cuh"

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
};

/// The kernel's parameter: the one problem of a batch in place, or the
/// problems of a group in device memory.
template <class T>
struct GroupSet {
  GroupProblem<T> first;                  // used when `list` is null
  const GroupProblem<T>* list = nullptr;  // `count` problems, unit_begin ascending
  int count = 1;
  int units = 0;  // over every problem
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

  /// The next unit of this CTA, or false when there is none.
  __device__ bool next(GroupUnit& u) {
    if (next_ >= set_.units) return false;
    while (next_ >= problem(g_).unit_begin + problem(g_).units) ++g_;
    const GroupProblem<T>& p = problem(g_);
    unsigned batch = 0, tm = 0, tn = 0;
    blocks::batched_tile_of(static_cast<unsigned>(next_ - p.unit_begin), static_cast<unsigned>(p.tiles_m),
                            static_cast<unsigned>(p.tiles_n), p.raster_group, batch, tm, tn);
    u = unit_at(g_, batch, tm, tn);
    next_ += count_;
    return true;
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

/// The producer thread's loop of the grouped kernels (k13's below, k15's in
/// k15_grouped.cuh): this CTA's units in order; a problem's maps, where it
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

/// Launch with min(SMs, units) CTAs of kThreads and Tiles<...>::kSmemBytes;
/// Cfg::kTmaStore (BN >= 64).
template <class T, MajorA MA, MajorB MB, class Cfg>
__global__ void __launch_bounds__(kThreads, 1) gemm_grouped(const __grid_constant__ GroupSet<T> set) {
  using X = Tiles<T, MA, MB, Cfg>;
  using TM = typename X::TM;
  using Pipeline = typename X::Pipeline;
  using Schedule = k10::ProducerWarpgroupPersistent;  // setmaxnreg 40 / 232
  static_assert(Cfg::kTmaStore, "tessel: the grouped kernel writes D through k13's TMA-store epilogue");
  extern __shared__ __align__(1024) unsigned char smem[];
  auto& shared = *reinterpret_cast<typename X::SharedStorage*>(smem);
  const Pipeline pipe(shared.pipe);
  const int warp = static_cast<int>(threadIdx.x) / 32, lane = static_cast<int>(threadIdx.x) % 32;
  const bool maps_in_memory = set.list != nullptr;

  if (threadIdx.x == 0) pipe.init(kConsumerWarps);  // one release per consumer warp
  __syncthreads();

  GroupScheduler<T> scheduler(set, static_cast<int>(blockIdx.x), static_cast<int>(gridDim.x));

  if (warp >= kConsumerWarps) {  // the producer warpgroup: one thread issues every load
    Schedule::producer_start();
    if (warp == kConsumerWarps && arch::sm90::elect_one_sync()) {
      produce_units<X>(scheduler, pipe, shared, maps_in_memory);
    }
    return;
  }
  Schedule::consumer_start();

  const int t = static_cast<int>(threadIdx.x);  // thread t of 256 in the TiledMMA
  // The operands' descriptors from lane 0's slice, warp-uniform (as k13's kernel).
  const auto thr_desc = TM{}.get_slice(__shfl_sync(0xffffffffu, t, 0));
  typename Pipeline::State read;
  int seen = -1;
  for (GroupUnit u; scheduler.next(u);) {
    const GroupProblem<T>& gp = scheduler.problem(u.g);
    typename X::FragC acc;  // (BN/2,1,1) f32: 64 x BN per warpgroup
    consume<X>(pipe, read, shared, thr_desc, 0, gp.k_tiles, acc, lane);

    // The epilogue's problem: batch u.batch of problem u.g.
    Params<T> p = gp.p;
    blocks::TileCoord tile = u.tile;
    if (u.batch > 0) {
      const index_t cd_bytes = p.cd_type == DType::f32 ? 4 : 2;
      const index_t c_shift = u.batch * gp.stride_c * cd_bytes;
      if (gp.tma_store) {
        // D of every batch is one tall matrix: batch b's tile rows are b x
        // d_tile_rows further down, M and C's pointer move with them so that
        // the epilogue's row of C (tile.m x 128 + r) is batch b's row.
        const index_t rows = index_t{u.batch} * gp.d_tile_rows * kBM;
        tile.m += index_t{u.batch} * gp.d_tile_rows;
        p.m += rows;
        if (p.c != nullptr)
          p.c =
              reinterpret_cast<const void*>(reinterpret_cast<std::uintptr_t>(p.c) + c_shift - rows * p.ldc * cd_bytes);
      } else {
        if (p.c != nullptr) p.c = static_cast<const char*>(p.c) + c_shift;
        p.d = static_cast<char*>(p.d) + u.batch * gp.stride_d * cd_bytes;
      }
    }
    if (gp.tma_store && maps_in_memory && u.g != seen && t == 0) {
      arch::sm90::fence_tensormap_acquire(&gp.map_d);  // thread 0 issues the epilogue's TMA stores
      seen = u.g;
    }
    const TileEpilogue<X, T> epilogue{gp.tma_store ? &gp.map_d : nullptr, p, shared.d, false};
    epilogue.store(tile, acc, t);
  }
  X::template Epilogue<float>::finish(t);  // thread 0: every TMA store has read its staging
}

}  // namespace tessel::gemm_kernels::k13
