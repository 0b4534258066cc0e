// tessel/atom/copy_ldsm.hpp — ldmatrix as a copy atom: shared memory to the
// register fragments of a TiledMMA of m16n8k16 atoms.
//
// ldmatrix is the one copy whose two sides have different owners: on the
// source side lane t supplies the address of one 16-byte row (the SRC layout
// of docs/hardware.md §4.3), on the destination side lane t receives the
// fragment values of the m16n8k16 A (x4) or B (x2) operand (the DST layout,
// equal to the MMA's).  So a TiledLdsm partitions the shared tile with the
// SRC layout tiled like the MMA operand, and the fragment with the MMA's own
// layout; instance r of the atom reads the row at value 8r of the source
// partition and writes values [8r, 8r+8) of the fragment.
#pragma once

#include <cstdlib>

#include "tessel/arch/sm80.hpp"
#include "tessel/atom/layouts_sm80.hpp"
#include "tessel/atom/mma_atom.hpp"
#include "tessel/atom/tiled_copy.hpp"
#include "tessel/core/major.hpp"

namespace tessel {

/// One ldmatrix .x4 (A of m16n8k16, a (16,16) tile) or .x2 (B, an (8,16) tile
/// stored as N rows of K): 8 16-bit values per lane, from one row address.
template <class T, int Num, bool Trans = false>
struct SM75_Ldsm {
  static_assert(sizeof(T) == 2, "tessel: ldmatrix moves 16-bit elements");
  static_assert(Num == 2 || Num == 4, "tessel: ldmatrix atoms for MMA fragments are .x2 (B) and .x4 (A)");
  using value_type = T;
  static constexpr int kElems = 2 * Num;  // values per lane per instruction
  static constexpr bool kZeroFills = false;

  // Host-and-device so that the generic copy() can name it; only device code
  // can execute it (a host call aborts: there is no shared memory there).
  TESSEL_HD static void copy(const T* src_row, T* dst) {
#if defined(__CUDA_ARCH__)
    std::uint32_t* r = reinterpret_cast<std::uint32_t*>(dst);
    if constexpr (Num == 4 && Trans) {
      arch::sm80::ldmatrix_x4_trans(arch::sm80::smem_addr(src_row), r[0], r[1], r[2], r[3]);
    } else if constexpr (Num == 4) {
      arch::sm80::ldmatrix_x4(arch::sm80::smem_addr(src_row), r[0], r[1], r[2], r[3]);
    } else if constexpr (Trans) {
      arch::sm80::ldmatrix_x2_trans(arch::sm80::smem_addr(src_row), r[0], r[1]);
    } else {
      arch::sm80::ldmatrix_x2(arch::sm80::smem_addr(src_row), r[0], r[1]);
    }
#else
    (void)src_row;
    (void)dst;
    std::abort();
#endif
  }
};

namespace atom_layouts {
/// ldmatrix .x2 source rows for a B operand stored as (N,K) = (8,16), K
/// contiguous: lane t < 16 addresses row t%8 at column 8*(t/8) (matrix i = K
/// block i, docs/hardware.md §4.3 recipe); lanes 16..31 alias lanes 0..15.
/// The value mode lists the first 4 elements of the row only: a lane
/// receives 4 values from .x2, and instance r of the atom must start at value
/// 4r of the partition.
inline constexpr Layout ldmatrix_x2_src_b =
    make_layout(make_shape(make_shape(8, 2, 2), 4), make_stride(make_stride(1, 64, 0), 8));

/// The same for operands stored M- or N-major (stored rows run along K, the
/// 8 elements of a row along M or N), read with .trans so that each lane
/// still receives the m16n8k16 fragment.
/// A, (M,K) = (16,16): lane t addresses the row k = t%8 + 8(t/16) at
/// m = 8((t/8)%2): matrix i holds (m block i%2, k block i/2), which is
/// register i of the A fragment.  The 8 row elements run along M.
inline constexpr Layout ldmatrix_x4_trans_src_a =
    make_layout(make_shape(make_shape(8, 2, 2), 8), make_stride(make_stride(16, 8, 128), 1));
/// B, (N,K) = (8,16): lane t < 16 addresses the row k = t at n = 0 (matrix i =
/// K block i, register i of the B fragment); lanes 16..31 alias 0..15.  As
/// for the K-major B, the value mode lists the first 4 elements of the row.
inline constexpr Layout ldmatrix_x2_trans_src_b =
    make_layout(make_shape(make_shape(8, 2, 2), 4), make_stride(make_stride(8, 64, 0), 1));
}  // namespace atom_layouts

/// ldmatrix copies of the A and B fragments of TiledMma TM (m16n8k16 atoms),
/// from K-major shared tiles (Trans = false) or M/N-major ones (Trans = true).
template <class T, class TM, bool IsA, OperandMajor Major = OperandMajor::k>
struct TiledLdsm {
  static constexpr bool Trans = Major == OperandMajor::mn;  // an MN-major tile is read with .trans
  using atom = SM75_Ldsm<T, IsA ? 4 : 2, Trans>;
  static constexpr TiledMmaLayouts kL = TM::kL;
  static constexpr int kAM = kL.m / 16, kAN = kL.n / 8, kAK = kL.k / 16;
  /// The SRC layout tiled exactly like the MMA operand (see make_tiled_mma_layouts).
  static constexpr Layout kSrcTV =
      IsA ? detail::tile_tv(Trans ? atom_layouts::ldmatrix_x4_trans_src_a : atom_layouts::ldmatrix_x4_src, 16, 16, kAM,
                            detail::rep(kAM, 16), detail::rep(kAN, 0), detail::rep(kAK, index_t{16} * kL.m))
          : detail::tile_tv(Trans ? atom_layouts::ldmatrix_x2_trans_src_b : atom_layouts::ldmatrix_x2_src_b, 8, 16, kAN,
                            detail::rep(kAM, 0), detail::rep(kAN, 8), detail::rep(kAK, index_t{16} * kL.n));
  static constexpr IntTuple kTile = IsA ? make_shape(kL.m, kL.k) : make_shape(kL.n, kL.k);

  struct ThrCopy {
    int thread;
    /// The rows this thread addresses, one per atom instance (value 8r is
    /// the row start), shaped (V, REST_MN, REST_K) like the fragment.
    template <Space S, class L>
    TESSEL_HDI constexpr auto partition_S(const Tensor<ViewEngine<T, S>, L>& s) const {
      constexpr Layout P = detail::partition_layout(detail::partition_domain<L>(), kTile, kSrcTV);
      static_assert(detail::values_contiguous(P, atom::kElems, 1), "tessel: ldmatrix rows must be contiguous");
      if constexpr (requires { L::value.swizzle; })
        static_assert(L::value.swizzle.b == 0 || L::value.swizzle.m >= 3,
                      "tessel: the swizzle moves units smaller than a 16-byte row");
      return detail::partition_thread<kTile, kSrcTV>(s, thread);
    }
  };
  TESSEL_HDI constexpr ThrCopy get_slice(int thread) const { return ThrCopy{thread}; }
};

template <class T, class TM, OperandMajor Major = OperandMajor::k>
using TiledLdsmA = TiledLdsm<T, TM, true, Major>;
template <class T, class TM, OperandMajor Major = OperandMajor::k>
using TiledLdsmB = TiledLdsm<T, TM, false, Major>;

}  // namespace tessel
