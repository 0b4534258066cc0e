// tessel/arch/sm90.hpp — thin wrappers around the Hopper (sm_90 / sm_90a) PTX
// instructions that tessel's TMA copies and wgmma GEMMs are built from:
// mbarrier, the async-proxy fences, elect.sync, TMA (cp.async.bulk.tensor),
// the bulk-group completion mechanism, wgmma, setmaxnreg and griddepcontrol.  Nothing else
// lives here: no layouts, no tensors.  The shared-memory matrix descriptor is
// data and lives in tessel/arch/sm90_desc.hpp (host and device); stmatrix is
// in tessel/arch/sm90_stmatrix.hpp.  Facts and rules: docs/hardware.md §7–§14.
//
// Conventions (as tessel/arch/sm80.hpp):
//  * Every function is one PTX instruction (or one instruction plus the
//    conversion of its predicate result), `__device__ __forceinline__`.
//  * Shared-memory operands are 32-bit shared-window addresses
//    (tessel::arch::smem_addr from arch/common.hpp, also visible here as sm90::smem_addr):
//    that is what the `.shared::cta` / `.shared::cluster` state spaces take.
//  * Tensor maps are passed as `const CUtensorMap*`, the generic address of a
//    `const __grid_constant__ CUtensorMap` kernel parameter (or of a map in
//    global/constant memory); build them with tessel/arch/sm90_tensor_map.hpp.
//  * Outside a CUDA compile the header declares only the descriptor helpers
//    (sm90_desc.hpp).  Instruction bodies exist only in the device pass, so
//    nvcc's host pass parses no PTX.  In a device pass for a target that lacks
//    the instruction (sm_90 features below sm_90; wgmma and setmaxnreg on
//    anything but sm_90a) a call compiles to a trap: the header can then be
//    included, and a kernel compiled, for every target of a multi-target
//    build, and only executing such a path on the wrong GPU fails.
//
// This header is not included by tessel/tessel.hpp: generic code includes no
// architecture headers (docs/design.md §5).
#pragma once

#include <cstdint>

#include "tessel/arch/sm90_desc.hpp"
#include "tessel/arch/sm90_stmatrix.hpp"

#if defined(__CUDACC__)

#include <cuda.h>  // CUtensorMap: the type only; nothing here calls the driver

#include "tessel/arch/common.hpp"

// The instruction sets available in this compilation pass.  sm_90a-only
// instructions (wgmma, setmaxnreg) need the architecture-specific target
// (`-gencode arch=compute_90a,code=sm_90a`), which defines
// __CUDA_ARCH_FEAT_SM90_ALL; the rest needs sm_90 or later.
#if defined(__CUDA_ARCH__) && (__CUDA_ARCH__ >= 900)
#define TESSEL_SM90_PTX 1
#else
#define TESSEL_SM90_PTX 0
#endif
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define TESSEL_SM90A_PTX 1
#else
#define TESSEL_SM90A_PTX 0
#endif

namespace tessel::arch::sm90 {

using arch::smem_addr;

namespace detail {
/// The body of a wrapper compiled for a target without the instruction:
/// traps when executed (see the header comment).  Takes the wrapper's
/// arguments so that they count as used.
template <class... Ts>
__device__ __forceinline__ void unsupported(const Ts&...) {
#if defined(__CUDA_ARCH__)
  __trap();
#endif
}
}  // namespace detail

// ================================================================ mbarrier (§11)
//
// An mbarrier is an 8-byte-aligned 64-bit object in shared memory with a
// phase parity, a pending-arrival count and a transaction (tx) count.  A phase
// completes when the pending arrivals reach 0 *and* the tx-count is 0; the
// parity then flips and the arrival count is reset.  Every asm statement here
// clobbers "memory": arrive (release) and wait (acquire) order the caller's
// ordinary memory accesses, so the compiler must not move those across them.

/// mbarrier.init: phase 0, `count` expected arrivals (1 .. 2^20-1), tx 0.
/// One thread initializes; make it visible with fence_mbarrier_init() and a
/// barrier (__syncthreads, or the cluster barrier) before any use.
__device__ __forceinline__ void mbarrier_init(std::uint32_t bar, std::uint32_t count) {
#if TESSEL_SM90_PTX
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(bar), "r"(count) : "memory");
#else
  detail::unsupported(bar, count);
#endif
}

/// fence.mbarrier_init.release.cluster: makes prior mbarrier.init visible to
/// the async proxy and to other CTAs of the cluster (TMA complete-tx,
/// multicast, remote arrives).
__device__ __forceinline__ void fence_mbarrier_init() {
#if TESSEL_SM90_PTX
  asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
#endif
}

/// One arrival (release at CTA scope).  The state token is discarded (`_`):
/// tessel waits by parity, never by token.
__device__ __forceinline__ void mbarrier_arrive(std::uint32_t bar) {
#if TESSEL_SM90_PTX
  asm volatile("mbarrier.arrive.release.cta.shared::cta.b64 _, [%0];\n" ::"r"(bar) : "memory");
#else
  detail::unsupported(bar);
#endif
}

/// tx-count += bytes, then one arrival: the producer's half of a TMA stage.
/// Issue it before (or together with) the copies it accounts for, so that the
/// arrival cannot complete the phase before the bytes are expected.
__device__ __forceinline__ void mbarrier_arrive_expect_tx(std::uint32_t bar, std::uint32_t bytes) {
#if TESSEL_SM90_PTX
  asm volatile("mbarrier.arrive.expect_tx.release.cta.shared::cta.b64 _, [%0], %1;\n" ::"r"(bar), "r"(bytes)
               : "memory");
#else
  detail::unsupported(bar, bytes);
#endif
}

/// tx-count += bytes without arriving (e.g. a CTA that receives a multicast
/// box but whose arrival is made elsewhere).
__device__ __forceinline__ void mbarrier_expect_tx(std::uint32_t bar, std::uint32_t bytes) {
#if TESSEL_SM90_PTX
  asm volatile("mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%0], %1;\n" ::"r"(bar), "r"(bytes) : "memory");
#else
  detail::unsupported(bar, bytes);
#endif
}

/// One try: true iff the phase with the given parity (0 or 1) has completed.
/// `parity` must name the current phase or the one just before it.  The
/// hardware may suspend the thread for a bounded time before answering false.
__device__ __forceinline__ bool mbarrier_try_wait_parity(std::uint32_t bar, std::uint32_t parity) {
#if TESSEL_SM90_PTX
  std::uint32_t done;
  asm volatile(
      "{\n"
      ".reg .pred p;\n"
      "mbarrier.try_wait.parity.acquire.cta.shared::cta.b64 p, [%1], %2;\n"
      "selp.u32 %0, 1, 0, p;\n"
      "}\n"
      : "=r"(done)
      : "r"(bar), "r"(parity)
      : "memory");
  return done != 0;
#else
  detail::unsupported(bar, parity);
  return false;
#endif
}

/// Waits until the phase with the given parity has completed (acquire).  The
/// usual consumer loop starts with parity 0 and flips it after each wait on
/// the same barrier.
__device__ __forceinline__ void mbarrier_wait_parity(std::uint32_t bar, std::uint32_t parity) {
  while (!mbarrier_try_wait_parity(bar, parity)) {
  }
}

// ================================================================ proxy fences (§12)
//
// Generic-proxy accesses (ld/st, ldmatrix, stmatrix) and async-proxy accesses
// (TMA, cp.async.bulk, wgmma's descriptor reads) are not ordered by ordinary
// barriers alone.  Needed after generic writes of shared memory that a TMA
// store or a wgmma will read, and before a TMA load overwrites shared memory
// that generic code used without an mbarrier handshake in between.  Not needed
// after waiting on the mbarrier of a TMA load.

/// fence.proxy.async.shared::cta: orders the CTA's shared-memory accesses
/// across the generic and async proxies.
__device__ __forceinline__ void fence_proxy_async_shared_cta() {
#if TESSEL_SM90_PTX
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
#endif
}

/// fence.proxy.async.global: the same for global memory (e.g. generic writes
/// of a tensor that a TMA load issued later in the same kernel reads).
__device__ __forceinline__ void fence_proxy_async_global() {
#if TESSEL_SM90_PTX
  asm volatile("fence.proxy.async.global;\n" ::: "memory");
#endif
}

/// fence.proxy.async with no state space: every state space.
__device__ __forceinline__ void fence_proxy_async() {
#if TESSEL_SM90_PTX
  asm volatile("fence.proxy.async;\n" ::: "memory");
#endif
}

// ================================================================ elect.sync (§14)

/// elect.sync: among the lanes of `member_mask` (all of which must execute
/// this call) exactly one gets true.  Which one is deterministic but not
/// promised by the ISA; never depend on the winner's lane id.  Used to pick
/// the thread that issues TMA.
__device__ __forceinline__ bool elect_one_sync(std::uint32_t member_mask = 0xFFFFFFFFu) {
#if TESSEL_SM90_PTX
  std::uint32_t elected;
  asm volatile(
      "{\n"
      ".reg .pred p;\n"
      "elect.sync _|p, %1;\n"
      "selp.u32 %0, 1, 0, p;\n"
      "}\n"
      : "=r"(elected)
      : "r"(member_mask));
  return elected != 0;
#else
  detail::unsupported(member_mask);
  return false;
#endif
}

// ================================================================ TMA (§10.2)
//
// tma_load(dst, map, bar, c0, ..., c{r-1}): one thread copies the box of a
// rank-r tensor map whose first element has coordinates (c0, ...) — dimension
// 0 first, in elements — into shared memory at `dst`, and signals complete-tx
// on the mbarrier `bar` of the same CTA.  Box elements outside the tensor are
// filled with zero (or the map's OOB NaN), and the transaction always counts
// the whole box (prod(boxDim) * element size bytes): expect exactly that.
// `dst` must be 128-byte aligned, 1024-byte aligned for 128B swizzle (so that
// the image is the element-unit swizzle of §9).
//
// Coordinates, as observed on an H200 (docs/hardware.md §10.2; the PTX ISA
// does not state these; "illegal instruction" is the fault):
//  * c0 * element size must be a multiple of 16 bytes, for loads and stores
//    (faults at c0 = 4 and 196 bf16, never at multiples of 8);
//  * loads may start before the origin (negative coordinates) or run past the
//    end, even lie wholly outside; stores may run past the end but must not
//    start at a negative coordinate in any dimension (faults at (0,-1), (-8,0));
//  * a store clips dimension 0 at 16-byte granularity: when dim0 * element
//    size is not a multiple of 16, the row's elements up to the next 16-byte
//    boundary past dim0 are written too (row padding, if the stride leaves
//    room; with dim0 = 196 bf16 elements 196..199 were written).  Loads
//    zero-fill exactly from dim0 on.
// The wrappers do not check (it would cost instructions on every copy).
//
// The destination state space is `.shared::cluster` with a CTA-local address,
// which every sm_90 toolchain accepts (`.shared::cta` needs PTX 8.6).
//
// tma_store(map, src, c0, ...): one thread copies the box at `src` to the
// tensor; box elements outside the tensor are not written.  Completion is by
// bulk group: bulk_commit_group(), then bulk_wait_group_read<N>() before
// `src` may be overwritten, or bulk_wait_group<N>() before the global writes
// are complete.  Generic writes of `src` need fence_proxy_async_shared_cta()
// and a barrier among the writers before the store is issued.
//
// The map operand is the generic address of the map: converted with a
// reinterpret_cast because the instruction takes a 64-bit integer register.

__device__ __forceinline__ std::uint64_t tensor_map_addr(const CUtensorMap* map) {
  return reinterpret_cast<std::uint64_t>(map);
}

__device__ __forceinline__ void tma_load(std::uint32_t dst, const CUtensorMap* map, std::uint32_t bar, int c0) {
#if TESSEL_SM90_PTX
  asm volatile(
      "cp.async.bulk.tensor.1d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
      " [%0], [%1, {%3}], [%2];\n"
      :
      : "r"(dst), "l"(tensor_map_addr(map)), "r"(bar), "r"(c0)
      : "memory");
#else
  detail::unsupported(dst, map, bar, c0);
#endif
}

__device__ __forceinline__ void tma_load(std::uint32_t dst, const CUtensorMap* map, std::uint32_t bar, int c0, int c1) {
#if TESSEL_SM90_PTX
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
      " [%0], [%1, {%3, %4}], [%2];\n"
      :
      : "r"(dst), "l"(tensor_map_addr(map)), "r"(bar), "r"(c0), "r"(c1)
      : "memory");
#else
  detail::unsupported(dst, map, bar, c0, c1);
#endif
}

__device__ __forceinline__ void tma_load(std::uint32_t dst, const CUtensorMap* map, std::uint32_t bar, int c0, int c1,
                                         int c2) {
#if TESSEL_SM90_PTX
  asm volatile(
      "cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
      " [%0], [%1, {%3, %4, %5}], [%2];\n"
      :
      : "r"(dst), "l"(tensor_map_addr(map)), "r"(bar), "r"(c0), "r"(c1), "r"(c2)
      : "memory");
#else
  detail::unsupported(dst, map, bar, c0, c1, c2);
#endif
}

__device__ __forceinline__ void tma_load(std::uint32_t dst, const CUtensorMap* map, std::uint32_t bar, int c0, int c1,
                                         int c2, int c3) {
#if TESSEL_SM90_PTX
  asm volatile(
      "cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
      " [%0], [%1, {%3, %4, %5, %6}], [%2];\n"
      :
      : "r"(dst), "l"(tensor_map_addr(map)), "r"(bar), "r"(c0), "r"(c1), "r"(c2), "r"(c3)
      : "memory");
#else
  detail::unsupported(dst, map, bar, c0, c1, c2, c3);
#endif
}

__device__ __forceinline__ void tma_load(std::uint32_t dst, const CUtensorMap* map, std::uint32_t bar, int c0, int c1,
                                         int c2, int c3, int c4) {
#if TESSEL_SM90_PTX
  asm volatile(
      "cp.async.bulk.tensor.5d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
      " [%0], [%1, {%3, %4, %5, %6, %7}], [%2];\n"
      :
      : "r"(dst), "l"(tensor_map_addr(map)), "r"(bar), "r"(c0), "r"(c1), "r"(c2), "r"(c3), "r"(c4)
      : "memory");
#else
  detail::unsupported(dst, map, bar, c0, c1, c2, c3, c4);
#endif
}

__device__ __forceinline__ void tma_store(const CUtensorMap* map, std::uint32_t src, int c0) {
#if TESSEL_SM90_PTX
  asm volatile(
      "cp.async.bulk.tensor.1d.global.shared::cta.tile.bulk_group"
      " [%0, {%2}], [%1];\n"
      :
      : "l"(tensor_map_addr(map)), "r"(src), "r"(c0)
      : "memory");
#else
  detail::unsupported(map, src, c0);
#endif
}

__device__ __forceinline__ void tma_store(const CUtensorMap* map, std::uint32_t src, int c0, int c1) {
#if TESSEL_SM90_PTX
  asm volatile(
      "cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group"
      " [%0, {%2, %3}], [%1];\n"
      :
      : "l"(tensor_map_addr(map)), "r"(src), "r"(c0), "r"(c1)
      : "memory");
#else
  detail::unsupported(map, src, c0, c1);
#endif
}

__device__ __forceinline__ void tma_store(const CUtensorMap* map, std::uint32_t src, int c0, int c1, int c2) {
#if TESSEL_SM90_PTX
  asm volatile(
      "cp.async.bulk.tensor.3d.global.shared::cta.tile.bulk_group"
      " [%0, {%2, %3, %4}], [%1];\n"
      :
      : "l"(tensor_map_addr(map)), "r"(src), "r"(c0), "r"(c1), "r"(c2)
      : "memory");
#else
  detail::unsupported(map, src, c0, c1, c2);
#endif
}

__device__ __forceinline__ void tma_store(const CUtensorMap* map, std::uint32_t src, int c0, int c1, int c2, int c3) {
#if TESSEL_SM90_PTX
  asm volatile(
      "cp.async.bulk.tensor.4d.global.shared::cta.tile.bulk_group"
      " [%0, {%2, %3, %4, %5}], [%1];\n"
      :
      : "l"(tensor_map_addr(map)), "r"(src), "r"(c0), "r"(c1), "r"(c2), "r"(c3)
      : "memory");
#else
  detail::unsupported(map, src, c0, c1, c2, c3);
#endif
}

__device__ __forceinline__ void tma_store(const CUtensorMap* map, std::uint32_t src, int c0, int c1, int c2, int c3,
                                          int c4) {
#if TESSEL_SM90_PTX
  asm volatile(
      "cp.async.bulk.tensor.5d.global.shared::cta.tile.bulk_group"
      " [%0, {%2, %3, %4, %5, %6}], [%1];\n"
      :
      : "l"(tensor_map_addr(map)), "r"(src), "r"(c0), "r"(c1), "r"(c2), "r"(c3), "r"(c4)
      : "memory");
#else
  detail::unsupported(map, src, c0, c1, c2, c3, c4);
#endif
}

/// fence.proxy.tensormap::generic.acquire.gpu on the 128 bytes of `map` (a
/// generic address of a map in global memory): the tensormap proxy, which
/// TMA reads maps through and which may keep a map in its cache, sees what
/// ordinary (generic-proxy) writes put there.  Needed before the first use of
/// a map that was written by anything but a kernel parameter: device memory
/// a pool may hand back at the address of an earlier call's map.
__device__ __forceinline__ void fence_tensormap_acquire(const CUtensorMap* map) {
#if TESSEL_SM90_PTX
  asm volatile("fence.proxy.tensormap::generic.acquire.gpu [%0], 128;\n" ::"l"(tensor_map_addr(map)) : "memory");
#else
  detail::unsupported(map);
#endif
}

/// prefetch.tensormap: brings the map into the cache ahead of its first use.
__device__ __forceinline__ void prefetch_tensormap(const CUtensorMap* map) {
#if TESSEL_SM90_PTX
  asm volatile("prefetch.tensormap [%0];\n" ::"l"(tensor_map_addr(map)) : "memory");
#else
  detail::unsupported(map);
#endif
}

// ---------------------------------------------------------------- bulk groups
//
// Per-thread groups of bulk async operations (TMA stores and other
// cp.async.bulk that complete by bulk_group), as cp.async groups are on sm_80:
// commit closes a group of everything issued since the last commit; the waits
// block until at most N of the thread's most recent groups are pending.
// "memory": after a wait the compiler must not reuse values of memory that
// the completed operations read or wrote.

__device__ __forceinline__ void bulk_commit_group() {
#if TESSEL_SM90_PTX
  asm volatile("cp.async.bulk.commit_group;\n" ::: "memory");
#endif
}

/// Waits until the sources of all but the N most recent groups have been
/// read: their shared memory may be overwritten (the global writes may still
/// be in flight).
template <int N>
__device__ __forceinline__ void bulk_wait_group_read() {
  static_assert(N >= 0 && N <= 63, "cp.async.bulk.wait_group takes a group count in 0..63");
#if TESSEL_SM90_PTX
  asm volatile("cp.async.bulk.wait_group.read %0;\n" ::"n"(N) : "memory");
#endif
}

/// Waits until all but the N most recent groups have completed entirely,
/// global writes included.
template <int N>
__device__ __forceinline__ void bulk_wait_group() {
  static_assert(N >= 0 && N <= 63, "cp.async.bulk.wait_group takes a group count in 0..63");
#if TESSEL_SM90_PTX
  asm volatile("cp.async.bulk.wait_group %0;\n" ::"n"(N) : "memory");
#endif
}

// ================================================================ clusters (§14)
//
// A cluster's CTAs run at once on one GPC and can address each other's
// shared memory: mapa turns a CTA-local shared address into the address of
// the same variable in CTA `rank` of the cluster; remote arrives and the
// multicast TMA loads take such addresses.  cluster_sync is the cluster-wide
// barrier (every thread of every CTA of the cluster, `.aligned`): once after
// the barriers are initialized, so that no peer signals an uninitialized one,
// and once before exit, so that no CTA leaves while a peer may still write
// its shared memory or arrive on its barriers.

__device__ __forceinline__ std::uint32_t cluster_ctarank() {
  std::uint32_t r = 0;
#if TESSEL_SM90_PTX
  asm volatile("mov.u32 %0, %%cluster_ctarank;\n" : "=r"(r));
#endif
  return r;
}

__device__ __forceinline__ void cluster_sync() {
#if TESSEL_SM90_PTX
  asm volatile(
      "barrier.cluster.arrive.release.aligned;\n"
      "barrier.cluster.wait.acquire.aligned;\n" ::
          : "memory");
#else
  detail::unsupported(0);
#endif
}

/// cluster_sync in two halves, so that a CTA's own setup runs between them.
/// cluster_arrive_relaxed orders nothing: it follows fence_mbarrier_init,
/// whose release already publishes the barriers' initialization to the
/// cluster; the `.release` arrive would add a fence over all of this
/// thread's earlier memory accesses at GPU scope (a MEMBAR.ALL.GPU in the
/// SASS, about a thousand cycles at a kernel's start; docs/ladder.md, k14's
/// section).  cluster_wait acquires: after it, the peers' initialized barriers
/// may be signalled.  Every thread of the cluster arrives, then waits, once
/// per phase; `.aligned`: a warp executes each converged.
__device__ __forceinline__ void cluster_arrive_relaxed() {
#if TESSEL_SM90_PTX
  asm volatile("barrier.cluster.arrive.relaxed.aligned;\n" ::: "memory");
#else
  detail::unsupported(0);
#endif
}

__device__ __forceinline__ void cluster_wait() {
#if TESSEL_SM90_PTX
  asm volatile("barrier.cluster.wait.acquire.aligned;\n" ::: "memory");
#else
  detail::unsupported(0);
#endif
}

/// The shared::cluster address of `addr` (a CTA-local shared address) in CTA `rank` of the cluster.
__device__ __forceinline__ std::uint32_t mapa_shared(std::uint32_t addr, std::uint32_t rank) {
  std::uint32_t r = 0;
#if TESSEL_SM90_PTX
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;\n" : "=r"(r) : "r"(addr), "r"(rank));
#else
  detail::unsupported(addr, rank);
#endif
  return r;
}

/// Arrives on the mbarrier at `remote_bar`, an address from mapa_shared, with
/// the default semantics (release at CTA scope: this thread's earlier
/// accesses are ordered before the arrival, which is what a consumer
/// releasing a stage to a peer's producer needs).  `.release.cluster` also
/// works but stalls the arriving warp on every arrive: a 2-CTA multicast
/// variant of k11 ran 282 TFLOP/s, not 476 (docs/ladder.md, "Tried and not
/// kept"; docs/hardware.md §14).
__device__ __forceinline__ void mbarrier_arrive_cluster(std::uint32_t remote_bar) {
#if TESSEL_SM90_PTX
  asm volatile("mbarrier.arrive.shared::cluster.b64 _, [%0];\n" ::"r"(remote_bar) : "memory");
#else
  detail::unsupported(remote_bar);
#endif
}

/// Arrives on the mbarrier at `remote_bar` (mapa_shared) with release at
/// cluster scope: this thread's earlier writes, shared::cluster ones
/// included, are visible to a peer whose wait on the barrier acquires at
/// cluster scope (mbarrier_wait_parity_cluster).  It stalls the warp until
/// they are: for a handoff of data, not for releasing pipeline stages.
__device__ __forceinline__ void mbarrier_arrive_release_cluster(std::uint32_t remote_bar) {
#if TESSEL_SM90_PTX
  asm volatile("mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%0];\n" ::"r"(remote_bar) : "memory");
#else
  detail::unsupported(remote_bar);
#endif
}

/// mbarrier_wait_parity with acquire at cluster scope: after it, what peers
/// wrote before their release.cluster arrivals is visible.
__device__ __forceinline__ void mbarrier_wait_parity_cluster(std::uint32_t bar, std::uint32_t parity) {
#if TESSEL_SM90_PTX
  std::uint32_t done = 0;
  do {
    asm volatile(
        "{\n"
        ".reg .pred p;\n"
        "mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 p, [%1], %2;\n"
        "selp.u32 %0, 1, 0, p;\n"
        "}\n"
        : "=r"(done)
        : "r"(bar), "r"(parity)
        : "memory");
  } while (done == 0);
#else
  detail::unsupported(bar, parity);
#endif
}

/// Copies `bytes` (a multiple of 16) of this CTA's shared memory at `src`
/// into a peer's at `dst` (mapa_shared), both 16-byte aligned, completing
/// the bytes on the peer's mbarrier at `remote_bar` (mapa_shared) as TMA loads
/// do.  The async proxy reads `src`: generic writes of it need
/// fence_proxy_async_shared_cta first.  One thread issues it.
__device__ __forceinline__ void bulk_copy_to_cluster(std::uint32_t dst, std::uint32_t src, std::uint32_t bytes,
                                                     std::uint32_t remote_bar) {
#if TESSEL_SM90_PTX
  asm volatile(
      "cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];\n" ::"r"(dst),
      "r"(src), "r"(bytes), "r"(remote_bar)
      : "memory");
#else
  detail::unsupported(dst, src, bytes, remote_bar);
#endif
}

/// tma_load of a 2-D box into `dst` of every CTA of the cluster whose bit is
/// set in `mask` (bit i: %cluster_ctarank i), completing bytes on the
/// barrier at the same offset `bar` in each of them; each receiver expects
/// the box's bytes on its own barrier.
__device__ __forceinline__ void tma_load_multicast(std::uint32_t dst, const CUtensorMap* map, std::uint32_t bar,
                                                   std::uint16_t mask, int c0, int c1) {
#if TESSEL_SM90_PTX
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster"
      " [%0], [%1, {%4, %5}], [%2], %3;\n"
      :
      : "r"(dst), "l"(tensor_map_addr(map)), "r"(bar), "h"(mask), "r"(c0), "r"(c1)
      : "memory");
#else
  detail::unsupported(dst, map, bar, mask, c0, c1);
#endif
}

// ================================================================ wgmma (§7, §8)
//
// One warpgroup (4 consecutive warps, the first a multiple of 4) computes
// D(64xN) = A(64x16) * B(16xN) + D, or A * B when scale_d is false.  All 128
// threads execute every call below with the same arguments where the PTX
// requires it (descriptors, scale_d, the immediates): `.sync.aligned`.
//
// Ownership (§7.2, §7.3; t = thread in the warpgroup, w = t/32, g = (t%32)/4,
// q = t%4):
//   accumulator value i (0 .. N/2-1):  row 16w + g + 8((i>>1)&1),  col 8(i>>2) + 2q + (i&1)
//   RS A value i (0..7, register i/2, half i%2): row 16w + g + 8((i>>1)&1), col 2q + (i&1) + 8(i>>2)
// A and B read through descriptors: sm90_desc.hpp.
//
// The sequence and the register rule (§7.4):
//   wgmma_fence();                       // before the first wgmma, and whenever the
//                                        // accumulators / A registers were touched since
//   wgmma_ss<...>(d, da, db, scale_d);   // any number of wgmma ...
//   wgmma_commit_group();                // ... bundled into a group
//   wgmma_wait_group<0>();               // before reading d (or before reusing the smem)
// Between a wgmma and the wait that covers it, neither the accumulators nor
// (RS) the A registers may be read or written, and the compiler must not move
// accesses there either: wrap the sequence in register_fence(d) (and
// register_fence(a)) before the first wgmma and after the wait.  These are
// empty asm statements that pretend to read and write each register, so the
// compiler can neither sink earlier accesses below them nor hoist later ones
// above them.

__device__ __forceinline__ void wgmma_fence() {
#if TESSEL_SM90A_PTX
  asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
#else
  detail::unsupported();
#endif
}

__device__ __forceinline__ void wgmma_commit_group() {
#if TESSEL_SM90A_PTX
  asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
#else
  detail::unsupported();
#endif
}

/// Waits until at most N of the warpgroup's most recent wgmma groups are
/// pending.  "memory": shared memory read by the completed wgmma may be
/// overwritten after this point, and not before.
template <int N>
__device__ __forceinline__ void wgmma_wait_group() {
  static_assert(N >= 0 && N <= 7, "wgmma.wait_group takes a group count in 0..7");
#if TESSEL_SM90A_PTX
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory");
#else
  detail::unsupported();
#endif
}

/// Register fences (§7.4): no instruction is emitted.
__device__ __forceinline__ void register_fence(float& r) { asm volatile("" : "+f"(r)::"memory"); }
__device__ __forceinline__ void register_fence(std::uint32_t& r) { asm volatile("" : "+r"(r)::"memory"); }
template <int K>
__device__ __forceinline__ void register_fence(float (&r)[K]) {
#pragma unroll
  for (int i = 0; i < K; ++i) register_fence(r[i]);
}
template <int K>
__device__ __forceinline__ void register_fence(std::uint32_t (&r)[K]) {
#pragma unroll
  for (int i = 0; i < K; ++i) register_fence(r[i]);
}

/// Element type of A and B (accumulators are f32).
enum class WgmmaType : std::uint8_t { bf16, f16 };

namespace detail {
/// One specialization per (type, N), generated: see sm90_wgmma.inc.
template <WgmmaType T, int N>
struct Wgmma;
#include "tessel/arch/sm90_wgmma.inc"
}  // namespace detail

/// wgmma.mma_async m64nNk16 .f32.{bf16,f16} with A and B in shared memory
/// (SS form), read through the descriptors desc_a / desc_b (sm90_desc.hpp).
/// MajorA / MajorB are the tA / tB immediates (K-major = 0, MN-major = 1);
/// ScaleA / ScaleB (1 or -1) negate A or B.  `d` holds the thread's N/2
/// accumulators (§7.2); with scale_d false their input values are ignored.
template <WgmmaType T, int N, GmmaMajor MajorA = GmmaMajor::k, GmmaMajor MajorB = GmmaMajor::k, int ScaleA = 1,
          int ScaleB = 1>
__device__ __forceinline__ void wgmma_ss(float (&d)[N / 2], std::uint64_t desc_a, std::uint64_t desc_b, bool scale_d) {
  static_assert(N >= 8 && N <= 256 && N % 8 == 0, "wgmma m64nNk16: N is a multiple of 8 in 8..256");
  static_assert((ScaleA == 1 || ScaleA == -1) && (ScaleB == 1 || ScaleB == -1), "wgmma scales are 1 or -1");
  detail::Wgmma<T, N>::template ss<ScaleA, ScaleB, static_cast<int>(MajorA), static_cast<int>(MajorB)>(
      d, desc_a, desc_b, scale_d ? 1u : 0u);
}

/// The RS form: A from registers (`a`: 4 registers of 2 elements, §7.3; A is
/// always the logical (m,k) fragment, so there is no MajorA), B through
/// desc_b.  The A registers fall under the register rule like `d`.
template <WgmmaType T, int N, GmmaMajor MajorB = GmmaMajor::k, int ScaleA = 1, int ScaleB = 1>
__device__ __forceinline__ void wgmma_rs(float (&d)[N / 2], const std::uint32_t (&a)[4], std::uint64_t desc_b,
                                         bool scale_d) {
  static_assert(N >= 8 && N <= 256 && N % 8 == 0, "wgmma m64nNk16: N is a multiple of 8 in 8..256");
  static_assert((ScaleA == 1 || ScaleA == -1) && (ScaleB == 1 || ScaleB == -1), "wgmma scales are 1 or -1");
  detail::Wgmma<T, N>::template rs<ScaleA, ScaleB, static_cast<int>(MajorB)>(d, a, desc_b, scale_d ? 1u : 0u);
}

// ================================================================ setmaxnreg (§13)
//
// Changes the calling warpgroup's per-thread register limit to N (24..256, a
// multiple of 8).  Warpgroup-uniform (`.sync.aligned`): all four warps execute
// the same call, and synchronize before another one.  The kernel must be
// compiled with a known register count (__launch_bounds__(threads, 1) or
// -maxrregcount), or ptxas may ignore the request.

/// Returns registers to the CTA's pool: the current limit must be >= N.
template <int N>
__device__ __forceinline__ void setmaxnreg_dec() {
  static_assert(N >= 24 && N <= 256 && N % 8 == 0, "setmaxnreg: N is a multiple of 8 in 24..256");
#if TESSEL_SM90A_PTX
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(N));
#else
  detail::unsupported();
#endif
}

/// Takes registers from the CTA's pool (blocks until enough are free): the
/// current limit must be <= N.  The new registers hold garbage.
template <int N>
__device__ __forceinline__ void setmaxnreg_inc() {
  static_assert(N >= 24 && N <= 256 && N % 8 == 0, "setmaxnreg: N is a multiple of 8 in 24..256");
#if TESSEL_SM90A_PTX
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(N));
#else
  detail::unsupported();
#endif
}

// ================================================================ grid dependency control (PDL)
//
// A kernel launched with programmatic stream serialization (the launch
// attribute cudaLaunchAttributeProgrammaticStreamSerialization) may start
// before the kernel ahead of it in the stream has finished.  The earlier
// kernel's CTAs say when by launch_dependents (the dependent grid is
// scheduled once every CTA has issued it or exited; one thread a CTA is
// enough); the dependent's griddep_wait blocks until the earlier grid has
// completed and its memory operations are visible.  Both are harmless
// without such a launch: the wait returns at once, the signal does nothing.
// Unlike the wrappers above they do nothing (rather than trap) below sm_90:
// there a dependent never starts early.

__device__ __forceinline__ void launch_dependents() {
#if TESSEL_SM90_PTX
  asm volatile("griddepcontrol.launch_dependents;\n" ::: "memory");
#endif
}

__device__ __forceinline__ void griddep_wait() {
#if TESSEL_SM90_PTX
  asm volatile("griddepcontrol.wait;\n" ::: "memory");
#endif
}

}  // namespace tessel::arch::sm90

#endif  // __CUDACC__
