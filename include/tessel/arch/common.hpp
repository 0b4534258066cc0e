// tessel/arch/common.hpp — the PTX helpers that every GPU architecture tessel
// targets shares (sm_80 and sm_90 alike): shared-window addresses, 128-bit
// global loads and stores, the L2 prefetch, named barriers, and approximate math (tanh, rcp).  One instruction per
// function, like the per-architecture files (arch/sm80.hpp, arch/sm90.hpp), which build on this one.
//
// Device code: outside a CUDA compile the header declares nothing, and the
// instruction bodies exist only in the device pass (`__CUDA_ARCH__`).
#pragma once

#include <cstdint>

#if defined(__CUDACC__)

namespace tessel::arch {

// ---------------------------------------------------------------- addresses

/// The shared-window address of a generic pointer into shared memory (the
/// operand form of every `.shared` instruction below).
__device__ __forceinline__ std::uint32_t smem_addr(const void* smem_ptr) {
#if defined(__CUDA_ARCH__)
  // A shared-window address is an offset inside the CTA's shared memory (at
  // most 228 KiB), so the conversion's 64-bit result fits in 32 bits.
  return static_cast<std::uint32_t>(__cvta_generic_to_shared(smem_ptr));
#endif
}

// ---------------------------------------------------------------- 128-bit global access
//
// One 16-byte load or store (the address must be 16-byte aligned).  Written
// out because nvcc splits a uint4 access into four 32-bit ones when it cannot
// prove the alignment of a computed address, even with
// __builtin_assume_aligned (seen in k08's epilogue).

__device__ __forceinline__ uint4 ld_global_128(const void* p) {
  uint4 v;
#if defined(__CUDA_ARCH__)
  asm volatile("ld.global.v4.b32 {%0, %1, %2, %3}, [%4];\n" : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(p));
#else
  (void)p;
  v = uint4{};
#endif
  return v;
}
__device__ __forceinline__ void st_global_128(void* p, uint4 v) {
#if defined(__CUDA_ARCH__)
  asm volatile("st.global.v4.b32 [%0], {%1, %2, %3, %4};\n" ::"l"(p), "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w)
               : "memory");
#else
  (void)p;
  (void)v;
#endif
}

// ---------------------------------------------------------------- L2 prefetch
//
// prefetch.global.L2: asks for the 128-byte line holding `p` in L2, and
// returns at once (nothing is loaded into registers, nothing waits).  An
// epilogue that reads C after a tile's main loop asks for C's lines before
// it, so that its loads find them in L2.

__device__ __forceinline__ void prefetch_l2(const void* p) {
#if defined(__CUDA_ARCH__)
  asm volatile("prefetch.global.L2 [%0];\n" ::"l"(p));
#else
  (void)p;
#endif
}

// ---------------------------------------------------------------- named barriers
//
// bar.sync id, threads: the calling warps wait until `threads` threads (a
// multiple of 32) have arrived at barrier `id` (0..15; __syncthreads is
// barrier 0 with every thread).  Lets a subset of a CTA's warps (the consumer
// warps of a warp-specialized kernel) synchronize without the others.

__device__ __forceinline__ void named_barrier_sync(int id, int threads) {
#if defined(__CUDA_ARCH__)
  asm volatile("bar.sync %0, %1;\n" ::"r"(id), "r"(threads) : "memory");
#else
  (void)id;
  (void)threads;
#endif
}

/// bar.arrive id, threads: the calling warps count towards barrier `id`'s
/// `threads` and go on without waiting (a producer's signal to warps that
/// bar.sync on it).
__device__ __forceinline__ void named_barrier_arrive(int id, int threads) {
#if defined(__CUDA_ARCH__)
  asm volatile("bar.arrive %0, %1;\n" ::"r"(id), "r"(threads) : "memory");
#else
  (void)id;
  (void)threads;
#endif
}

// ---------------------------------------------------------------- approximate math
//
// The MUFU (special function unit) forms, one instruction each, for the
// activations of fused epilogues (kernels/gemm/fused_epilogue.cuh), where an
// approximation well inside the output type's rounding (a 16-bit D) is worth
// the instructions that the accurate library forms (tanhf: ~20) cost per value.

/// tanh.approx.f32 (sm_75+): maximum relative error about 2^-10.99 (PTX ISA,
/// "tanh"); subnormal inputs and results are flushed to sign-preserving zero.
__device__ __forceinline__ float tanh_approx(float x) {
  float y;
#if defined(__CUDA_ARCH__)
  asm("tanh.approx.f32 %0, %1;\n" : "=f"(y) : "f"(x));
#else
  y = x;
#endif
  return y;
}

/// rcp.approx.ftz.f32: 1/x within 1 ulp (PTX ISA, "rcp"); 1/inf = 0, 1/0 = inf.
__device__ __forceinline__ float rcp_approx(float x) {
  float y;
#if defined(__CUDA_ARCH__)
  asm("rcp.approx.ftz.f32 %0, %1;\n" : "=f"(y) : "f"(x));
#else
  y = x;
#endif
  return y;
}

}  // namespace tessel::arch

#endif  // __CUDACC__
