// tessel/arch/sm90_stmatrix.hpp — thin wrappers around stmatrix (sm_90), the
// register-to-shared mirror of ldmatrix.  Included by tessel/arch/sm90.hpp;
// kept in its own file because its ownership layouts are the ldmatrix ones
// with source and destination swapped (docs/hardware.md §5) and are tested with
// them.
//
// stmatrix.sync.aligned.m8n8.xN{.trans}.shared.b16: the warp stores N 8x8
// matrices of 16-bit elements.  Register i of a lane holds its fragment of
// matrix i (value 2i in bits 0..15, value 2i+1 in bits 16..31); lane t supplies
// the address of one 16-byte row (lanes 8i..8i+7 the rows of matrix i; the
// other lanes' addresses are ignored).  Without .trans lane l's register holds
// row l/4, columns 2(l%4), 2(l%4)+1; with .trans rows 2(l%4), 2(l%4)+1 of
// column l/4.  Every lane of the warp must execute the same call
// (`.sync.aligned`); row addresses must be 16-byte aligned.  Shared operands
// are shared-window addresses (tessel::arch::smem_addr, arch/common.hpp).
//
// As for sm80.hpp: outside a CUDA compile the header declares nothing, and the
// instruction bodies exist only in the device pass.  stmatrix needs sm_90: in
// a pass for an older target a call compiles to a trap, as sm90.hpp's
// wrappers do, so that a kernel that uses it where it runs on sm_90 still
// compiles for the others (gemm_sm80_check builds the GEMM kernels for sm_80).
#pragma once

#include <cstdint>

#if defined(__CUDACC__)

namespace tessel::arch::sm90 {

// `asm volatile` with a "memory" clobber: the instruction writes shared memory
// through an address the compiler cannot see, so later loads of that memory
// must not be moved above it, and it must not be moved into divergent code.

__device__ __forceinline__ void stmatrix_x1(std::uint32_t smem_row, std::uint32_t r0) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("stmatrix.sync.aligned.m8n8.x1.shared.b16 [%0], {%1};\n" ::"r"(smem_row), "r"(r0) : "memory");
#elif defined(__CUDA_ARCH__)
  __trap();
#endif
}

__device__ __forceinline__ void stmatrix_x2(std::uint32_t smem_row, std::uint32_t r0, std::uint32_t r1) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("stmatrix.sync.aligned.m8n8.x2.shared.b16 [%0], {%1, %2};\n" ::"r"(smem_row), "r"(r0), "r"(r1)
               : "memory");
#elif defined(__CUDA_ARCH__)
  __trap();
#endif
}

__device__ __forceinline__ void stmatrix_x4(std::uint32_t smem_row, std::uint32_t r0, std::uint32_t r1,
                                            std::uint32_t r2, std::uint32_t r3) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};\n" ::"r"(smem_row), "r"(r0), "r"(r1),
               "r"(r2), "r"(r3)
               : "memory");
#elif defined(__CUDA_ARCH__)
  __trap();
#endif
}

__device__ __forceinline__ void stmatrix_x1_trans(std::uint32_t smem_row, std::uint32_t r0) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("stmatrix.sync.aligned.m8n8.x1.trans.shared.b16 [%0], {%1};\n" ::"r"(smem_row), "r"(r0) : "memory");
#elif defined(__CUDA_ARCH__)
  __trap();
#endif
}

__device__ __forceinline__ void stmatrix_x2_trans(std::uint32_t smem_row, std::uint32_t r0, std::uint32_t r1) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("stmatrix.sync.aligned.m8n8.x2.trans.shared.b16 [%0], {%1, %2};\n" ::"r"(smem_row), "r"(r0), "r"(r1)
               : "memory");
#elif defined(__CUDA_ARCH__)
  __trap();
#endif
}

__device__ __forceinline__ void stmatrix_x4_trans(std::uint32_t smem_row, std::uint32_t r0, std::uint32_t r1,
                                                  std::uint32_t r2, std::uint32_t r3) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 [%0], {%1, %2, %3, %4};\n" ::"r"(smem_row), "r"(r0),
               "r"(r1), "r"(r2), "r"(r3)
               : "memory");
#elif defined(__CUDA_ARCH__)
  __trap();
#endif
}

}  // namespace tessel::arch::sm90

#endif  // __CUDACC__
