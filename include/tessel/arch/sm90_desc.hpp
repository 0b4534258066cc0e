// tessel/arch/sm90_desc.hpp — the 64-bit shared-memory matrix descriptor that
// wgmma reads its shared-memory operands through (docs/hardware.md §8).
//
// A descriptor is data, not an instruction: it is built with plain integer
// arithmetic, so everything here is `TESSEL_HD constexpr` and usable on the
// host (tests, static_asserts) as well as in kernels.  The PTX wrappers that
// consume descriptors are in tessel/arch/sm90.hpp.
//
// Bit layout (§8.1):
//
//   bits  0..13  start address  (shared-window byte address & 0x3FFFF) >> 4
//   bits 16..29  LBO            (leading-dimension byte offset & 0x3FFFF) >> 4
//   bits 32..45  SBO            (stride-dimension byte offset & 0x3FFFF) >> 4
//   bits 49..51  base offset    0 when the operand starts on its swizzle-pattern boundary
//   bits 62..63  swizzle        0 none, 1 128B, 2 64B, 3 32B
//
// Every other bit is 0.  The fields hold 16-byte units; an address or offset
// that is not a multiple of 16 bytes cannot be described.
#pragma once

#include <cstdint>

#include "tessel/core/config.hpp"
#include "tessel/core/major.hpp"

namespace tessel::arch::sm90 {

/// The swizzle field of a wgmma descriptor.  The numbering is the
/// descriptor's own and differs from the TMA enum CUtensorMapSwizzle
/// (32B = 1, 64B = 2, 128B = 3 there): docs/hardware.md §16 item 13.
enum class GmmaSwizzle : std::uint8_t { none = 0, sw128 = 1, sw64 = 2, sw32 = 3 };

/// Which dimension of an operand tile is contiguous in shared memory, as the
/// wgmma `tA`/`tB` immediates name it: K-major (0) stores each row (one m or n)
/// with K contiguous, MN-major (1) stores M or N contiguous (§8.2).
using GmmaMajor = OperandMajor;  // core/major.hpp: K-major = 0, MN-major = 1

/// Bytes of one swizzled row (the span that the XOR permutes): 0 for none.
TESSEL_HD constexpr std::uint32_t swizzle_span_bytes(GmmaSwizzle s) {
  switch (s) {
    case GmmaSwizzle::sw32:
      return 32;
    case GmmaSwizzle::sw64:
      return 64;
    case GmmaSwizzle::sw128:
      return 128;
    case GmmaSwizzle::none:
      break;
  }
  return 0;
}

/// Bytes after which the swizzle pattern repeats (8 rows of the span): an
/// operand that starts on a multiple of this has base offset 0 (§8.1).
TESSEL_HD constexpr std::uint32_t swizzle_repeat_bytes(GmmaSwizzle s) { return 8 * swizzle_span_bytes(s); }

/// The descriptor of an operand at shared-window byte address `smem_addr`.
/// C++ example: make_smem_desc(0x400, 16, 1024, GmmaSwizzle::sw128) ==
/// 0x4000'0040'0001'0040 (start 0x40, LBO 1, SBO 64, swizzle 1).
TESSEL_HD constexpr std::uint64_t make_smem_desc(std::uint32_t smem_addr, std::uint32_t lbo_bytes,
                                                 std::uint32_t sbo_bytes, GmmaSwizzle swizzle,
                                                 std::uint32_t base_offset = 0) {
  const std::uint64_t start = (smem_addr & 0x3FFFFu) >> 4;
  const std::uint64_t lbo = (lbo_bytes & 0x3FFFFu) >> 4;
  const std::uint64_t sbo = (sbo_bytes & 0x3FFFFu) >> 4;
  return start | (lbo << 16) | (sbo << 32) | (std::uint64_t{base_offset & 7u} << 49) |
         (std::uint64_t{static_cast<std::uint8_t>(swizzle)} << 62);
}

/// The descriptor of the same operand `bytes` further on (a multiple of 16):
/// how a K-loop steps through a tile.  Only the start-address field changes;
/// it is recomputed modulo its 14 bits so that a carry can never reach LBO.
/// The offset is the *unswizzled* one (the hardware applies the XOR to the
/// final address): +32 B per k16 step inside a 128B-swizzled K-major row,
/// (k/8) * LBO or SBO across core-matrix groups (§8.1).
TESSEL_HD constexpr std::uint64_t desc_advance(std::uint64_t desc, std::uint32_t bytes) {
  const std::uint64_t start = ((desc & 0x3FFFu) + (bytes >> 4)) & 0x3FFFu;
  return (desc & ~std::uint64_t{0x3FFF}) | start;
}

/// desc_advance without the wrap: the start-address field plus bytes / 16,
/// for an advanced operand that stays inside the shared window (below 256 KB,
/// so the field, the address's bits 4..17, cannot carry into LBO).  One add,
/// which the compiler folds into the constant offsets of a k-loop's
/// descriptors (desc_advance's masks cost a mask and a merge per wgmma).
/// C++ example: desc_add(make_smem_desc(0x400, 16, 1024, GmmaSwizzle::sw128), 32) ==
/// desc_advance(make_smem_desc(0x400, 16, 1024, GmmaSwizzle::sw128), 32).
TESSEL_HD constexpr std::uint64_t desc_add(std::uint64_t desc, std::uint32_t bytes) { return desc + (bytes >> 4); }

/// The fields of a descriptor, decoded (in bytes), for tests and diagnostics.
struct SmemDescFields {
  std::uint32_t start_addr = 0, lbo_bytes = 0, sbo_bytes = 0, base_offset = 0;
  GmmaSwizzle swizzle = GmmaSwizzle::none;
};
TESSEL_HD constexpr SmemDescFields decode_smem_desc(std::uint64_t desc) {
  SmemDescFields f;
  f.start_addr = static_cast<std::uint32_t>(desc & 0x3FFFu) << 4;
  f.lbo_bytes = static_cast<std::uint32_t>((desc >> 16) & 0x3FFFu) << 4;
  f.sbo_bytes = static_cast<std::uint32_t>((desc >> 32) & 0x3FFFu) << 4;
  f.base_offset = static_cast<std::uint32_t>((desc >> 49) & 7u);
  f.swizzle = static_cast<GmmaSwizzle>((desc >> 62) & 3u);
  return f;
}

/// LBO and SBO (bytes) of a dense operand tile whose layout is
/// tile_to_shape(atom, (MN, K)) of the §8.4 atom for (major, swizzle), i.e.
/// atoms placed MN-first, as tessel's shared-memory tiles are built.
/// `mn_extent` is the tile's M or N extent in elements, `elem_bytes` the
/// element size (2 for bf16/f16).
///
/// Derivation (§8.2): a core matrix is 8 rows of 16 bytes (128 B).
///  * K-major, no swizzle: atom (8,8) = one core matrix; MN-adjacent cores are
///    128 B apart (SBO), K-adjacent cores one MN column of cores apart,
///    (MN/8) * 128 = 16 * MN bytes (LBO).
///  * K-major, swizzled with span S: 8 rows of S bytes per atom, so 8-row
///    groups are 8 * S apart (SBO); one k16 step never leaves a swizzled row,
///    so LBO is unused and encoded as 1 (16 bytes).
///  * MN-major, no swizzle: MN-adjacent cores 128 B apart (SBO), 8-K groups
///    (MN * elem_bytes / 16) cores apart = 8 * elem_bytes * MN bytes (LBO) —
///    the roles are swapped relative to the swizzled MN-major case (§16.6).
///  * MN-major, swizzled with span S: MN blocks of S bytes are one atom
///    (8 * S bytes) apart (LBO); 8-K groups a whole MN column of atoms apart,
///    8 * elem_bytes * MN bytes (SBO).
/// For bf16 and MN = 64 this reproduces the table of §8.3.
struct DescStrides {
  std::uint32_t lbo_bytes = 0, sbo_bytes = 0;
};
TESSEL_HD constexpr DescStrides dense_tile_strides(GmmaMajor major, GmmaSwizzle swizzle, std::uint32_t mn_extent,
                                                   std::uint32_t elem_bytes) {
  const std::uint32_t span = swizzle_span_bytes(swizzle);
  if (major == GmmaMajor::k) {
    if (swizzle == GmmaSwizzle::none) return {16 * mn_extent, 128};
    return {16, 8 * span};
  }
  if (swizzle == GmmaSwizzle::none) return {8 * elem_bytes * mn_extent, 128};
  return {8 * span, 8 * elem_bytes * mn_extent};
}

}  // namespace tessel::arch::sm90
