// tessel/core/pack.hpp — two 16-bit values in one 32-bit word, the order PTX
// uses for register fragments of 16-bit elements (docs/hardware.md): value 2j
// in bits 0..15, value 2j+1 in bits 16..31.  One implementation for the MMA
// atoms' operand registers and the epilogues' paired stores.
#pragma once

#include <cstdint>
#include <cstring>

#include "tessel/core/config.hpp"

namespace tessel {

/// The bits of `lo` in the low half and of `hi` in the high half (T is a
/// 16-bit type: bf16, f16, uint16).
/// C++ example: pack_pair(std::uint16_t{0x1234}, std::uint16_t{0xABCD}) == 0xABCD1234.
template <class T>
TESSEL_HD inline std::uint32_t pack_pair(const T& lo, const T& hi) {
  static_assert(sizeof(T) == 2, "pack_pair packs 16-bit values");
  std::uint16_t l, h;
  std::memcpy(&l, &lo, 2);
  std::memcpy(&h, &hi, 2);
  return std::uint32_t{l} | (std::uint32_t{h} << 16);
}

/// The inverse: the low half into `lo`, the high half into `hi`.
template <class T>
TESSEL_HD inline void unpack_pair(std::uint32_t w, T& lo, T& hi) {
  static_assert(sizeof(T) == 2, "unpack_pair unpacks 16-bit values");
  const std::uint16_t l = static_cast<std::uint16_t>(w & 0xFFFFu), h = static_cast<std::uint16_t>(w >> 16);
  std::memcpy(&lo, &l, 2);
  std::memcpy(&hi, &h, 2);
}

}  // namespace tessel
