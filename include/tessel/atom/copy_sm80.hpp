// tessel/atom/copy_sm80.hpp — copy atoms built on sm_80 instructions.
#pragma once

#include "tessel/arch/sm80.hpp"
#include "tessel/atom/copy_atom.hpp"

namespace tessel {

/// cp.async of Bytes (4, 8 or 16) from global to shared memory.  16-byte
/// copies use `.cg` (L2 only: a tile is read once), smaller ones `.ca`.
/// A partial vector reads only its valid bytes and zero-fills the rest; a
/// vector entirely outside the tensor is zero-filled (src-size 0).
/// Completion: cp_async_commit / cp_async_wait, then a barrier.
template <class T, int Bytes = 16>
struct SM80_CpAsync {
  static_assert(Bytes == 4 || Bytes == 8 || Bytes == 16, "tessel: cp.async copies 4, 8 or 16 bytes");
  static_assert(Bytes % sizeof(T) == 0, "tessel: cp.async width must be a whole number of elements");
  using value_type = T;
  static constexpr int kElems = Bytes / static_cast<int>(sizeof(T));
  static constexpr int kBytes = Bytes;
  static constexpr bool kZeroFills = true;

  __device__ static void copy(const T* src, T* dst) {
    if constexpr (Bytes == 16) {
      arch::sm80::cp_async_cg16(arch::sm80::smem_addr(dst), src);
    } else {
      arch::sm80::cp_async_ca<Bytes>(arch::sm80::smem_addr(dst), src);
    }
  }
  __device__ static void copy_n(const T* src, T* dst, int n) {
    const auto bytes = static_cast<std::uint32_t>(n * static_cast<int>(sizeof(T)));
    if constexpr (Bytes == 16) {
      arch::sm80::cp_async_cg16_zfill(arch::sm80::smem_addr(dst), src, bytes);
    } else {
      arch::sm80::cp_async_ca_zfill<Bytes>(arch::sm80::smem_addr(dst), src, bytes);
    }
  }
};

}  // namespace tessel
