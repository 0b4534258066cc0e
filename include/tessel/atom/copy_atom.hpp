// tessel/atom/copy_atom.hpp — copy atoms that need no special instruction
// (generic: plain loads and stores of 1 to 16 bytes).  Architecture-specific
// atoms (cp.async, ldmatrix, stmatrix, TMA) live in atom/copy_sm80.hpp and
// atom/copy_sm90.hpp.
//
// A copy atom is data plus one function:
//   value_type      element type
//   kElems          elements moved by one call (contiguous in source and destination)
//   copy(src, dst)  moves kElems elements (pointers aligned to kElems*sizeof(T))
// and, for atoms that can predicate a partial vector, copy_n(src, dst, n)
// which moves the first n elements (n <= kElems) and leaves the rest of dst
// untouched or zero as the atom documents.
#pragma once

#include <cstdint>

#include "tessel/core/config.hpp"

namespace tessel {

namespace detail {
template <int Bytes>
struct Word;
template <>
struct Word<1> {
  using type = std::uint8_t;
};
template <>
struct Word<2> {
  using type = std::uint16_t;
};
template <>
struct Word<4> {
  using type = std::uint32_t;
};
template <>
struct Word<8> {
  using type = std::uint64_t;
};
#if defined(__CUDACC__)
// uint4: nvcc emits one 128-bit access (v4.u32) for it even when the value
// comes from registers; a plain struct of four words is split into four.
template <>
struct Word<16> {
  using type = uint4;
};
#else
struct alignas(16) Word16 {
  std::uint32_t x, y, z, w;
};
template <>
struct Word<16> {
  using type = Word16;
};
#endif
}  // namespace detail

/// Copies `Bits` bits with one load and one store: 16..128 bits.
/// UniversalCopy<bf16, 128> moves 8 bf16 as one 128-bit word.
template <class T, int Bits>
struct UniversalCopy {
  static_assert(Bits % (8 * sizeof(T)) == 0, "tessel: copy width must be a whole number of elements");
  static_assert(Bits == 8 || Bits == 16 || Bits == 32 || Bits == 64 || Bits == 128,
                "tessel: UniversalCopy moves 8, 16, 32, 64 or 128 bits");
  using value_type = T;
  using word = typename detail::Word<Bits / 8>::type;
  static constexpr int kElems = Bits / (8 * static_cast<int>(sizeof(T)));
  static constexpr int kBytes = Bits / 8;

  TESSEL_HDI static void copy(const T* src, T* dst) {
    // The alignment is stated, not only implied by `word`: when the source is
    // a register fragment the compiler rebuilds the store from its pieces and
    // would otherwise split it by the alignment it can prove (4 bytes).
    *static_cast<word*>(__builtin_assume_aligned(dst, kBytes)) =
        *static_cast<const word*>(__builtin_assume_aligned(src, kBytes));
  }
  /// The first n elements, one at a time (a partial vector at a tile's edge).
  TESSEL_HDI static void copy_n(const T* src, T* dst, int n) {
    for (int i = 0; i < n; ++i) dst[i] = src[i];
  }
  /// What the destination gets where the source is outside the tensor: nothing
  /// (the destination keeps its contents).
  static constexpr bool kZeroFills = false;
};

/// UniversalCopy whose partial vectors are completed with zeros: copy_n(src,
/// dst, n) moves the first n elements and sets the other kElems - n to
/// all-zero bits (0 of integers, +0.0 of IEEE and bf16 types).  copy_if with
/// it zero-fills what lies outside the source tensor (n = 0 writes a whole
/// vector of zeros and reads nothing), so a shared-memory tile at the edge of
/// a matrix holds zeros there: what a GEMM needs at its K tail, where the
/// padding is multiplied and summed.
template <class T, int Bits>
struct UniversalCopyZfill : UniversalCopy<T, Bits> {
  using Base = UniversalCopy<T, Bits>;
  using value_type = T;
  static constexpr int kElems = Base::kElems;

  TESSEL_HDI static void copy_n(const T* src, T* dst, int n) {
    using elem_word = typename detail::Word<sizeof(T)>::type;
    for (int i = 0; i < kElems; ++i) {
      if (i < n)
        dst[i] = src[i];
      else
        *reinterpret_cast<elem_word*>(dst + i) = elem_word{};
    }
  }
  static constexpr bool kZeroFills = true;
};

}  // namespace tessel
