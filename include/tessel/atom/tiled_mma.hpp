// tessel/atom/tiled_mma.hpp — an MMA atom tiled over a grid of atoms
// (TiledMma: partitions of A, B and C tiles, register fragments), the
// TiledCopies that share its thread-value layouts, and gemm() over
// fragments.  Generic: it needs only the atom's data (Atom::info, an
// MmaAtomInfo) and its fma(); the atoms themselves live in mma_fma.hpp
// (CUDA cores), mma_sm80.hpp (mma.sync) and mma_sm90.hpp (wgmma).
#pragma once

#include "tessel/atom/mma_atom.hpp"
#include "tessel/atom/tiled_copy.hpp"

namespace tessel {

namespace detail {
/// Does the atom read A (B) itself from shared memory, through operands it
/// makes from the shared tile (kDescA / kDescB: wgmma's SS descriptors)?
template <class Atom>
inline constexpr bool atom_makes_operand_a = [] {
  if constexpr (requires { Atom::kDescA; })
    return Atom::kDescA;
  else
    return false;
}();
template <class Atom>
inline constexpr bool atom_makes_operand_b = [] {
  if constexpr (requires { Atom::kDescB; })
    return Atom::kDescB;
  else
    return false;
}();
}  // namespace detail

/// An MMA atom tiled over (AM, AN, AK) atoms.  Partitions work like
/// TiledCopy's: a tile of A (BM,BK), B (BN,BK) or C (BM,BN) is divided into
/// tiled-MMA tiles and composed with the operand's TV layout, giving each
/// thread (V, (REST...)) values.
template <class Atom, int AM, int AN, int AK = 1>
struct TiledMma {
  using atom = Atom;
  static constexpr TiledMmaLayouts kL = make_tiled_mma_layouts(Atom::info, AM, AN, AK);
  static constexpr int kThreads = kL.threads;
  static constexpr int kVa = static_cast<int>(size(mode(Atom::info.a, 1)));
  static constexpr int kVb = static_cast<int>(size(mode(Atom::info.b, 1)));
  static constexpr int kVc = static_cast<int>(size(mode(Atom::info.c, 1)));

  template <Layout X>
  static constexpr Layout kPartA = detail::partition_layout(X, make_shape(kL.m, kL.k), kL.a);
  template <Layout X>
  static constexpr Layout kPartB = detail::partition_layout(X, make_shape(kL.n, kL.k), kL.b);
  template <Layout X>
  static constexpr Layout kPartC = detail::partition_layout(X, make_shape(kL.m, kL.n), kL.c);

  struct ThrMma {
    int thread;
    /// This thread's share of an A (M,K), B (N,K) or C (M,N) tile: a static
    /// tensor (shared memory, registers) or a tile of a global tensor (or
    /// its coordinates), shaped (V, REST_M|N, REST_K|N).
    template <class E, class L>
    TESSEL_HDI constexpr auto partition_A(const Tensor<E, L>& t) const {
      return detail::partition_thread<make_shape(kL.m, kL.k), kL.a>(t, thread);
    }
    template <class E, class L>
    TESSEL_HDI constexpr auto partition_B(const Tensor<E, L>& t) const {
      return detail::partition_thread<make_shape(kL.n, kL.k), kL.b>(t, thread);
    }
    template <class E, class L>
    TESSEL_HDI constexpr auto partition_C(const Tensor<E, L>& t) const {
      return detail::partition_thread<make_shape(kL.m, kL.n), kL.c>(t, thread);
    }
    /// What this thread's atoms read A (B) from, for the shared tile s:
    /// registers shaped like partition_A (to be filled by a copy), or, for
    /// atoms that read shared memory themselves, the operands the atom makes
    /// from the tile (wgmma: descriptors, shaped (1, REST_MN, REST_K)).
    template <class E, class L>
    TESSEL_HDI constexpr auto partition_fragment_A(const Tensor<E, L>& s) const {
      if constexpr (detail::atom_makes_operand_a<Atom>)
        return Atom::template make_operand_A<make_shape(kL.m, kL.k), kL.a>(s, thread);
      else
        return make_fragment_like(partition_A(s));
    }
    template <class E, class L>
    TESSEL_HDI constexpr auto partition_fragment_B(const Tensor<E, L>& s) const {
      if constexpr (detail::atom_makes_operand_b<Atom>)
        return Atom::template make_operand_B<make_shape(kL.n, kL.k), kL.b>(s, thread);
      else
        return make_fragment_like(partition_B(s));
    }
  };
  TESSEL_HDI constexpr ThrMma get_slice(int thread) const { return ThrMma{thread}; }

  /// The register fragment of a thread's share of an A/B/C tile with layout
  /// X (the static tensor's layout for A/B, the coordinate layout for a
  /// global C tile): (V, RM, RK) for A, (V, RN, RK) for B, (V, RM, RN) for C.
  template <Layout X>
  static constexpr Layout kValsA = detail::thread_values(kPartA<X>);
  template <Layout X>
  static constexpr Layout kValsB = detail::thread_values(kPartB<X>);
  template <Layout X>
  static constexpr Layout kValsC = detail::thread_values(kPartC<X>);
  template <Layout X>
  using FragmentA = Fragment<typename Atom::a_type, kValsA<X>>;
  template <Layout X>
  using FragmentB = Fragment<typename Atom::b_type, kValsB<X>>;
  template <Layout X>
  using FragmentC = Fragment<typename Atom::c_type, kValsC<X>>;
  template <Layout X>
  static constexpr auto partition_fragment_A() {
    return FragmentA<X>{};
  }
  template <Layout X>
  static constexpr auto partition_fragment_B() {
    return FragmentB<X>{};
  }
  template <Layout X>
  static constexpr auto partition_fragment_C() {
    return FragmentC<X>{};
  }
};

/// TiledCopies whose thread-value layout is the TiledMMA's A, B or C layout
/// (CuTe's make_tiled_copy_A/B/C): partition_S/partition_D of them give each
/// thread exactly the values that partition_A/B/C and the fragments hold, in
/// the same order, so copies into a fragment need no retiling.  `Atom` moves
/// as many elements as the layout keeps contiguous (1, or 2 along K for the
/// m16n8k16 A and B fragments of a K-major tile).
template <class Atom, class TM>
using TiledCopyA = TiledCopy<Atom, TM::kL.a, make_shape(TM::kL.m, TM::kL.k)>;
template <class Atom, class TM>
using TiledCopyB = TiledCopy<Atom, TM::kL.b, make_shape(TM::kL.n, TM::kL.k)>;
template <class Atom, class TM>
using TiledCopyC = TiledCopy<Atom, TM::kL.c, make_shape(TM::kL.m, TM::kL.n)>;

namespace detail {
/// Extent of mode k of a fragment's static layout (1 past its rank).
template <class Tn>
constexpr int frag_extent(int k) {
  constexpr Layout L = [] {
    if constexpr (requires { Tn::layout_type::kVals; })
      return Tn::layout_type::kVals;
    else
      return Tn::layout_type::value;
  }();
  return k < rank(L) ? static_cast<int>(size(mode(L, k))) : 1;
}
/// What atom (i, j) of a fragment (V, I[, J]) hands to the atom: the
/// address of its first value, or the value itself for fragments of
/// operands (wgmma descriptors).
template <class Tn>
TESSEL_HDI constexpr auto atom_addr(Tn& t, int i, int j) {
  constexpr Layout L = [] {
    if constexpr (requires { Tn::layout_type::kVals; })
      return Tn::layout_type::kVals;
    else
      return Tn::layout_type::value;
  }();
  if constexpr (requires { Tn::engine_type::kDescriptors; }) {
    if constexpr (rank(L) == 3)
      return t(0, i, j);
    else
      return t(0, i);
  } else if constexpr (rank(L) == 3) {
    return &t(0, i, j);
  } else {
    return &t(0, i);
  }
}
}  // namespace detail

/// C += A * B over register fragments partitioned by `tm`: A (V, RM[, RK]),
/// B (V, RN[, RK]) and C (V, RM, RN), one atom per (m, n, k); a k-slice
/// a(_, _, k) is an (V, RM) fragment with RK = 1.  Order: k outermost, then a
/// serpentine over (m, n), so that consecutive MMAs share their A registers
/// along a row of atoms and their B registers at the turn, which the
/// register reuse cache can serve without bank conflicts.  With
/// `accumulate` false, C's input is ignored (C = A * B): atoms that can scale
/// C by zero (wgmma) do it in the first k, the others start from zeros.
/// Operand fragments (wgmma descriptors) hold one value per atom.
template <class TM, class FA, class FB, class FC>
TESSEL_DEVICE_INLINE void gemm(const TM&, const FA& a, const FB& b, FC& c, bool accumulate = true) {
  using Atom = typename TM::atom;
  constexpr int RM = detail::frag_extent<FA>(1), RK = detail::frag_extent<FA>(2);
  constexpr int RN = detail::frag_extent<FB>(1);
  constexpr bool kDescA = requires { FA::engine_type::kDescriptors; };
  constexpr bool kDescB = requires { FB::engine_type::kDescriptors; };
  static_assert((kDescA ? 1 : TM::kVa) == detail::frag_extent<FA>(0) &&
                    (kDescB ? 1 : TM::kVb) == detail::frag_extent<FB>(0) && detail::frag_extent<FC>(0) == TM::kVc,
                "tessel: fragments are not whole atoms");
  constexpr bool kScaleD = requires { Atom::kScaleD; };
  if constexpr (!kScaleD) {
    if (!accumulate) {
      TESSEL_UNROLL
      for (int v = 0; v < FC::kValues; ++v) *c.addr(v) = typename FC::value_type{};
    }
  }
  static_assert(
      detail::frag_extent<FB>(2) == RK && detail::frag_extent<FC>(1) == RM && detail::frag_extent<FC>(2) == RN,
      "tessel: the A, B and C fragments do not tile one GEMM");
  TESSEL_UNROLL
  for (int k = 0; k < RK; ++k) {
    TESSEL_UNROLL
    for (int m = 0; m < RM; ++m) {
      TESSEL_UNROLL
      for (int j = 0; j < RN; ++j) {
        const int n = m % 2 == 0 ? j : RN - 1 - j;
        if constexpr (kScaleD)
          Atom::fma(detail::atom_addr(c, m, n), detail::atom_addr(a, m, k), detail::atom_addr(b, n, k),
                    accumulate || k > 0);
        else
          Atom::fma(detail::atom_addr(c, m, n), detail::atom_addr(a, m, k), detail::atom_addr(b, n, k));
      }
    }
  }
}

}  // namespace tessel
