// tessel/atom/mma_traits_sm90.hpp — the sm_90 MMA atoms (wgmma) as data:
// their tiles, types and thread-value layouts, and what a wgmma descriptor
// says about a shared-memory operand tile.  Pure data and compile-time
// checks; the atoms that execute them are in atom/mma_sm90.hpp.
//
// SS form: A and B are read from shared memory by the whole warpgroup, so
// every thread "holds" the whole (64,16) A tile and (N,16) B tile (thread
// stride 0).  A TiledMMA partition of a shared tile then gives each thread
// the origin of every atom it issues, which is what a descriptor needs.
// RS form: A comes from registers, in the m16n8k16 A fragment of each warp
// (atom_layouts::wgmma_a); C is atom_layouts::wgmma_c(N) in both forms.
#pragma once

#include "tessel/atom/layouts_sm90.hpp"
#include "tessel/atom/mma_atom.hpp"

namespace tessel {

namespace detail {
/// The whole (rows, k) operand tile for every one of 128 threads.
constexpr Layout warpgroup_shares_tile(int rows, int k = 16) {
  return make_layout(make_layout(make_shape(128), make_stride(0)),
                     make_layout(make_shape(rows, k), make_stride(1, rows)));
}
}  // namespace detail

/// wgmma m64nNk16 with f32 accumulators: SS (A from shared memory) or RS (A
/// from registers); B always from shared memory.
/// C++ example: wgmma_info(64, true).c is ((4,8,4),(2,2,8)):((128,1,16),(64,8,512)).
constexpr MmaAtomInfo wgmma_info(int n, bool a_in_smem) {
  return MmaAtomInfo{a_in_smem ? "SM90_64xNx16_F32_SS" : "SM90_64xNx16_F32_RS",
                     "wgmma.mma_async.sync.aligned.m64nNk16.f32",
                     64,
                     n,
                     16,
                     128,
                     a_in_smem ? detail::warpgroup_shares_tile(64) : atom_layouts::wgmma_a,
                     detail::warpgroup_shares_tile(n),
                     atom_layouts::wgmma_c(n)};
}

/// wgmma m64nNk32 with FP8 A and B (e4m3/e5m2), f32 accumulators, SS only:
/// the 16-bit atom's accumulator layout over a k32 step of 1-byte elements.
/// C++ example: wgmma_fp8_info(128).k == 32.
constexpr MmaAtomInfo wgmma_fp8_info(int n) {
  return MmaAtomInfo{"SM90_64xNx32_F32_SS_FP8",
                     "wgmma.mma_async.sync.aligned.m64nNk32.f32",
                     64,
                     n,
                     32,
                     128,
                     detail::warpgroup_shares_tile(64, 32),
                     detail::warpgroup_shares_tile(n, 32),
                     atom_layouts::wgmma_c(n)};
}

/// What a wgmma descriptor needs to know about an operand tile in shared
/// memory, derived from its layout (MN, K) -> element offset: which index is
/// contiguous, the swizzle span, and the leading/stride byte offsets.
struct GmmaOperandPlan {
  bool ok = false;
  const char* why = "";
  bool k_major = true;    // K contiguous (tA/tB = 0) or MN contiguous (1)
  int swizzle_bytes = 0;  // 0 (none), 32, 64 or 128
  std::uint32_t lbo = 0;  // bytes
  std::uint32_t sbo = 0;  // bytes
};

namespace detail {
/// Byte offset, relative to the atom origin, at which a wgmma descriptor
/// with plan p reads element (i, j) (i along MN, j along K, j < 16) before
/// the hardware's swizzle: the address function of the PTX ISA's matrix
/// descriptor (docs/hardware.md §8).  It is a sum of a part in i and a part
/// in j, like a layout's two modes, so it is checked mode by mode.
constexpr index_t gmma_desc_offset_mn(const GmmaOperandPlan& p, index_t i, index_t elem) {
  const index_t S = p.swizzle_bytes, W = S / elem;
  if (p.k_major) return S == 0 ? (i / 8) * p.sbo + (i % 8) * 16 : (i / 8) * p.sbo + (i % 8) * S;
  return S == 0 ? (i / 8) * p.sbo + (i % 8) * elem : (i / W) * p.lbo + (i % W) * elem;
}
constexpr index_t gmma_desc_offset_k(const GmmaOperandPlan& p, index_t j, index_t elem) {
  const index_t S = p.swizzle_bytes, row = 16 / elem;  // elements in a core matrix's 16-byte row
  if (p.k_major) return S == 0 ? (j / row) * p.lbo + (j % row) * elem : j * elem;
  return S == 0 ? (j / 8) * p.lbo + (j % 8) * 16 : (j / 8) * p.sbo + (j % 8) * S;
}
constexpr index_t gmma_desc_offset(const GmmaOperandPlan& p, index_t i, index_t j, index_t elem) {
  return gmma_desc_offset_mn(p, i, elem) + gmma_desc_offset_k(p, j, elem);
}
}  // namespace detail

/// The descriptor plan of a shared operand tile `L` (MN, K) of `elem`-byte
/// elements read by wgmma atoms of (atom_mn, atom_k): 16-bit atoms are k16,
/// FP8 atoms k32 (the same 32 bytes) and K-major only.  The swizzle must be
/// one wgmma reads (Sw<1..3, 4-log2(elem), 3> or none), and every atom's
/// elements must sit where a descriptor at the atom's origin reads them
/// (checked element by element).  ok == false says why not.
constexpr GmmaOperandPlan make_gmma_operand_plan(const SwizzledLayout& L, int elem, int atom_mn, int atom_k = 16) {
  GmmaOperandPlan p;
  const Layout& l = L.layout;
  if (rank(l) != 2) {
    p.why = "a wgmma operand tile is rank 2, (MN, K)";
    return p;
  }
  const index_t mn = size(mode(l, 0)), kk = size(mode(l, 1));
  if (mn % atom_mn != 0 || kk % atom_k != 0) {
    p.why = atom_k == 16 ? "the tile is not a whole number of wgmma atoms (MN a multiple of the atom's, K of 16)"
                         : "the tile is not a whole number of wgmma atoms (MN a multiple of the atom's, K of 32)";
    return p;
  }
  const int mlog = elem == 1 ? 4 : elem == 2 ? 3 : elem == 4 ? 2 : -1;
  if (L.swizzle.b != 0 && (L.swizzle.m != mlog || L.swizzle.s != 3 || L.swizzle.b > 3)) {
    p.why = "the swizzle is not one wgmma reads (Sw<1..3, 4-log2(element bytes), 3>)";
    return p;
  }
  p.swizzle_bytes = L.swizzle.b == 0 ? 0 : 16 << L.swizzle.b;
  const auto at = [&](index_t i, index_t j) { return mode(l, 0)(i) + mode(l, 1)(j); };
  p.k_major = at(0, 1) - at(0, 0) == 1;
  if (!p.k_major && at(1, 0) - at(0, 0) != 1) {
    p.why = "neither K nor MN is contiguous";
    return p;
  }
  if (!p.k_major && elem == 1) {
    p.why = "FP8 operands are K-major (wgmma has no transpose for 8-bit types)";
    return p;
  }
  const index_t W = p.swizzle_bytes / elem, row = 16 / elem;
  if (p.k_major) {
    p.sbo = static_cast<std::uint32_t>((at(8 % mn, 0) - at(0, 0)) * elem);
    p.lbo = p.swizzle_bytes == 0 ? static_cast<std::uint32_t>((at(0, row) - at(0, 0)) * elem) : 16;
  } else {
    p.sbo = static_cast<std::uint32_t>((at(0, 8) - at(0, 0)) * elem);
    p.lbo = p.swizzle_bytes == 0 ? static_cast<std::uint32_t>((at(0, 8) - at(0, 0)) * elem)
            : mn > W             ? static_cast<std::uint32_t>((at(W, 0) - at(0, 0)) * elem)
                                 : 8 * static_cast<std::uint32_t>(p.swizzle_bytes);
    if (p.swizzle_bytes == 0) p.sbo = static_cast<std::uint32_t>((at(8 % mn, 0) - at(0, 0)) * elem);
  }
  // Both the layout and the descriptor's address are a function of MN plus a
  // function of K, so each atom is checked one mode at a time.
  const Layout m0l = mode(l, 0), m1l = mode(l, 1);
  for (index_t m0 = 0; m0 < mn; m0 += atom_mn)
    for (index_t i = 0; i < atom_mn; ++i)
      if ((m0l(m0 + i) - m0l(m0)) * elem != detail::gmma_desc_offset_mn(p, i, elem)) {
        p.why = "an element is not where a wgmma descriptor at its atom's origin reads it";
        return p;
      }
  for (index_t k0 = 0; k0 < kk; k0 += atom_k) {
    if ((m1l(k0) + m0l(0)) * elem % 16 != 0) {
      p.why = "an atom's origin is not 16-byte aligned";
      return p;
    }
    for (index_t j = 0; j < atom_k; ++j)
      if ((m1l(k0 + j) - m1l(k0)) * elem != detail::gmma_desc_offset_k(p, j, elem)) {
        p.why = "an element is not where a wgmma descriptor at its atom's origin reads it";
        return p;
      }
  }
  p.ok = true;
  return p;
}

}  // namespace tessel
