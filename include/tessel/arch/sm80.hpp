// tessel/arch/sm80.hpp — thin wrappers around the sm_80 warp-level PTX
// instructions that tessel's copy and MMA atoms are built from: cp.async,
// ldmatrix and mma.sync.  Nothing else lives here (no layouts, no tensors):
// the ownership layouts of these instructions are data, kept with the atoms
// and checked against tests/data/atom_layouts.tsv by the tests.
//
// Every function is one PTX instruction.  Register fragments follow PTX
// order: for 16-bit elements, register j holds value 2j in bits 0..15 and
// value 2j+1 in bits 16..31 (docs/hardware.md §1.1).
//
// Shared-memory operands are 32-bit shared-window addresses (see smem_addr):
// that is what the `.shared` state space takes, and address arithmetic in a
// hot loop is then 32-bit.
//
// The header is device code.  Outside a CUDA compile it declares nothing (a
// host compiler can include it, and a host-side call fails to compile rather
// than doing nothing); the instruction bodies exist only in the device pass
// (`__CUDA_ARCH__`), so nvcc's host pass parses no PTX.  The instructions need
// sm_80; a use compiled for an older target is rejected by ptxas.
#pragma once

#include <cstdint>

#include "tessel/arch/common.hpp"

#if defined(__CUDACC__)

namespace tessel::arch::sm80 {

// The helpers every architecture shares (smem_addr, 128-bit global access,
// named barriers) are in arch/common.hpp; they are re-exported here so that
// sm_80 code can keep naming them arch::sm80::...
using arch::ld_global_128;
using arch::named_barrier_sync;
using arch::smem_addr;
using arch::st_global_128;

// ---------------------------------------------------------------- cp.async
//
// Asynchronous copy of 4, 8 or 16 bytes from global to shared memory by one
// thread (docs/hardware.md §6).  Both addresses must be aligned to the copy size.
// The copy completes only through cp_async_commit / cp_async_wait<N> /
// cp_async_wait_all, and then only for the issuing thread: other threads must
// synchronize (for example __syncthreads()) before reading the data.
//
// The `_zfill` forms read only the first `src_bytes` bytes (0 <= src_bytes <=
// Bytes) and write zeros to the rest; src_bytes = 0 writes only zeros, which is
// how a predicated-off (out of bounds) element of a tile is loaded.  The source
// address must still be a valid one.
//
// The global operand is converted with __cvta_generic_to_global because the
// instruction names the `.global` state space.  Every asm statement clobbers
// "memory": it writes memory through an address the compiler cannot see.

/// cp.async.ca (cached in L1 and L2) of Bytes = 4, 8 or 16 bytes.
template <int Bytes>
__device__ __forceinline__ void cp_async_ca(std::uint32_t smem_dst, const void* gmem_src) {
  static_assert(Bytes == 4 || Bytes == 8 || Bytes == 16, "cp.async.ca copies 4, 8 or 16 bytes");
#if defined(__CUDA_ARCH__)
  asm volatile("cp.async.ca.shared.global [%0], [%1], %2;\n" ::"r"(smem_dst), "l"(__cvta_generic_to_global(gmem_src)),
               "n"(Bytes)
               : "memory");
#endif
}

/// cp.async.ca of Bytes bytes, reading only the first src_bytes of them and
/// filling the rest of the destination with zeros.
template <int Bytes>
__device__ __forceinline__ void cp_async_ca_zfill(std::uint32_t smem_dst, const void* gmem_src,
                                                  std::uint32_t src_bytes) {
  static_assert(Bytes == 4 || Bytes == 8 || Bytes == 16, "cp.async.ca copies 4, 8 or 16 bytes");
#if defined(__CUDA_ARCH__)
  asm volatile("cp.async.ca.shared.global [%0], [%1], %2, %3;\n" ::"r"(smem_dst),
               "l"(__cvta_generic_to_global(gmem_src)), "n"(Bytes), "r"(src_bytes)
               : "memory");
#endif
}

/// cp.async.cg (cached in L2 only) of 16 bytes, the only size `.cg` allows.
__device__ __forceinline__ void cp_async_cg16(std::uint32_t smem_dst, const void* gmem_src) {
#if defined(__CUDA_ARCH__)
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(smem_dst), "l"(__cvta_generic_to_global(gmem_src))
               : "memory");
#endif
}

/// cp.async.cg of 16 bytes, reading only the first src_bytes of them and
/// filling the rest of the destination with zeros.
__device__ __forceinline__ void cp_async_cg16_zfill(std::uint32_t smem_dst, const void* gmem_src,
                                                    std::uint32_t src_bytes) {
#if defined(__CUDA_ARCH__)
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(smem_dst),
               "l"(__cvta_generic_to_global(gmem_src)), "r"(src_bytes)
               : "memory");
#endif
}

/// Closes the calling thread's group of all cp.async issued since the last
/// commit.  Groups complete in commit order.
__device__ __forceinline__ void cp_async_commit() {
#if defined(__CUDA_ARCH__)
  asm volatile("cp.async.commit_group;\n" ::: "memory");
#endif
}

/// Waits until at most N of the calling thread's most recently committed
/// groups are still pending (every older group is complete).  A pipeline of S
/// stages waits with N = S - 2 (or S - 1) before consuming a stage.
template <int N>
__device__ __forceinline__ void cp_async_wait() {
  static_assert(N >= 0, "cp.async.wait_group takes a non-negative group count");
#if defined(__CUDA_ARCH__)
  // "memory": the shared data written by the completed copies must be re-read
  // after this point, not taken from values loaded before it.
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
#endif
}

/// Commits the pending cp.async of the calling thread and waits for all of them.
__device__ __forceinline__ void cp_async_wait_all() {
#if defined(__CUDA_ARCH__)
  asm volatile("cp.async.wait_all;\n" ::: "memory");
#endif
}

// ---------------------------------------------------------------- ldmatrix
//
// ldmatrix.sync.aligned.m8n8.xN{.trans}.shared.b16 (docs/hardware.md §4): the
// warp loads N 8x8 matrices of 16-bit elements; lane t supplies the address of
// one 16-byte row (lanes 8i..8i+7 the rows of matrix i; the other lanes'
// addresses are ignored on sm_80 and later) and register i receives the
// lane's fragment of matrix i.  Without .trans lane l gets row l/4, columns
// 2(l%4) and 2(l%4)+1; with .trans it gets rows 2(l%4), 2(l%4)+1 of column l/4.
// Every lane of the warp must execute the same call (`.sync.aligned`).  Row
// addresses must be 16-byte aligned.
//
// `asm volatile` with a "memory" clobber: the instruction reads shared memory
// through an address, so it must stay after the stores (and barriers) that
// produced the data, and it must not be moved into divergent code.

__device__ __forceinline__ void ldmatrix_x1(std::uint32_t smem_row, std::uint32_t& r0) {
#if defined(__CUDA_ARCH__)
  asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];\n" : "=r"(r0) : "r"(smem_row) : "memory");
#endif
}

__device__ __forceinline__ void ldmatrix_x2(std::uint32_t smem_row, std::uint32_t& r0, std::uint32_t& r1) {
#if defined(__CUDA_ARCH__)
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [%2];\n"
               : "=r"(r0), "=r"(r1)
               : "r"(smem_row)
               : "memory");
#endif
}

__device__ __forceinline__ void ldmatrix_x4(std::uint32_t smem_row, std::uint32_t& r0, std::uint32_t& r1,
                                            std::uint32_t& r2, std::uint32_t& r3) {
#if defined(__CUDA_ARCH__)
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3)
               : "r"(smem_row)
               : "memory");
#endif
}

__device__ __forceinline__ void ldmatrix_x1_trans(std::uint32_t smem_row, std::uint32_t& r0) {
#if defined(__CUDA_ARCH__)
  asm volatile("ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16 {%0}, [%1];\n" : "=r"(r0) : "r"(smem_row) : "memory");
#endif
}

__device__ __forceinline__ void ldmatrix_x2_trans(std::uint32_t smem_row, std::uint32_t& r0, std::uint32_t& r1) {
#if defined(__CUDA_ARCH__)
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0, %1}, [%2];\n"
               : "=r"(r0), "=r"(r1)
               : "r"(smem_row)
               : "memory");
#endif
}

__device__ __forceinline__ void ldmatrix_x4_trans(std::uint32_t smem_row, std::uint32_t& r0, std::uint32_t& r1,
                                                  std::uint32_t& r2, std::uint32_t& r3) {
#if defined(__CUDA_ARCH__)
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3)
               : "r"(smem_row)
               : "memory");
#endif
}

// ---------------------------------------------------------------- mma.sync
//
// D = A * B + C for one warp (docs/hardware.md §2, §3), f32 accumulators.  The
// fragments a, b, c, d are in PTX register order; which tile element each
// (lane, value) holds is given by the TV layouts of the TSV.  Every lane of the
// warp must execute the same call (`.sync.aligned`).
//
// `asm volatile` keeps the instruction where the caller wrote it: a warp-wide
// instruction must not be speculated into, or merged across, divergent code.

/// mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32: A 16x16 (4 registers of
/// 2 bf16), B 16x8 (2 registers of 2 bf16), C and D 16x8 (4 f32).  d may alias c.
__device__ __forceinline__ void mma_m16n8k16_f32_bf16(float (&d)[4], const std::uint32_t (&a)[4],
                                                      const std::uint32_t (&b)[2], const float (&c)[4]) {
#if defined(__CUDA_ARCH__)
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
      "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%10, %11, %12, %13};\n"
      : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "f"(c[0]), "f"(c[1]), "f"(c[2]), "f"(c[3]));
#endif
}

/// mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32: as the bf16 form, with
/// f16 inputs (same element ownership).
__device__ __forceinline__ void mma_m16n8k16_f32_f16(float (&d)[4], const std::uint32_t (&a)[4],
                                                     const std::uint32_t (&b)[2], const float (&c)[4]) {
#if defined(__CUDA_ARCH__)
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
      "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%10, %11, %12, %13};\n"
      : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "f"(c[0]), "f"(c[1]), "f"(c[2]), "f"(c[3]));
#endif
}

/// mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32: A 16x8 (4 registers),
/// B 8x8 (2 registers), each register an f32 bit pattern of which the hardware
/// uses the tf32 part (round beforehand with cvt.rna.tf32.f32 if rounding to
/// nearest matters); C and D 16x8 (4 f32).  The A value order differs from the
/// 16-bit forms: a1 is the element 8 rows below a0 (docs/hardware.md §3).
__device__ __forceinline__ void mma_m16n8k8_f32_tf32(float (&d)[4], const std::uint32_t (&a)[4],
                                                     const std::uint32_t (&b)[2], const float (&c)[4]) {
#if defined(__CUDA_ARCH__)
  asm volatile(
      "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 "
      "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%10, %11, %12, %13};\n"
      : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "f"(c[0]), "f"(c[1]), "f"(c[2]), "f"(c[3]));
#endif
}

}  // namespace tessel::arch::sm80

#endif  // __CUDACC__
