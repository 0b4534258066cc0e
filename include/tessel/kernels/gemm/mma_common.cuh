// tessel/kernels/gemm/mma_common.cuh — the pieces the tensor-core steps of
// the ladder (k04..k11) share: shared-memory layouts of A and B tiles,
// their loaders (cp.async, or element copies for unaligned matrices), the
// ldmatrix copies into MMA fragments, and the register epilogue.  Each step's own file shows its main loop whole.
//
// A tile of A is (BM, 64) and a tile of B (BN, 64), both with K as the
// second mode (tessel's (M,K) / (N,K) convention).  64 elements of 16 bits
// are 128 bytes: the unit of the 128-byte swizzle, so one k-tile row (K-major
// operands) or one 64-element column (M/N-major operands) is one swizzle row.
#pragma once

#include "tessel/algorithm/copy.hpp"
#include "tessel/atom/copy_ldsm.hpp"
#include "tessel/atom/copy_sm80.hpp"
#include "tessel/atom/mma_sm80.hpp"
#include "tessel/kernels/gemm/common.cuh"

namespace tessel::gemm_kernels {

inline constexpr int kBK = 64;

/// The Hopper kernels' k-tile: 128 bytes of K in every operand row, one
/// 128-byte swizzle row: 64 16-bit elements (kBK) or 128 FP8 ones.
template <class T>
inline constexpr int kBKOf = 128 / static_cast<int>(sizeof(T));

/// kSmemKMajor for elements of any size: rows of kBKOf<T> elements, the
/// 16-byte chunk index XOR the row index mod 8 (Sw<3, 4 - log2(bytes), 3>).
/// Example: a 1-byte T and Rows = 64 give Sw<3,4,3> o ((8,8),(128)):((128,1024),(1)) up to coalescing.
template <class T, int Rows>
inline constexpr SwizzledLayout kSmemKMajorOf =
    compose(Swizzle{3,
                    sizeof(T) == 1   ? 4
                    : sizeof(T) == 2 ? 3
                                     : 2,
                    3},
            tile_to_shape(make_layout(make_shape(8, kBKOf<T>), LayoutRight{}), make_shape(Rows, kBKOf<T>)).value());

/// K-major (Rows, 64) tile of 16-bit elements: rows of 64 elements, the
/// 16-byte chunk index XOR the row index mod 8 (Sw<3,3,3>), so the 8 rows an
/// ldmatrix reads at one chunk position fall in 8 different bank groups.
/// Example: Rows = 128 gives Sw<3,3,3> o ((8,16),(64)):((64,512),(1)) up to coalescing.
template <int Rows>
inline constexpr SwizzledLayout kSmemKMajor = kSmemKMajorOf<std::uint16_t, Rows>;

/// M/N-major (Rows, 64) tile: atoms of 64 (M or N) x 8 (K), each k a
/// 128-byte row, swizzled the same way (Sw<3,3,3> on (64,8):(1,64)).
template <int Rows>
inline constexpr SwizzledLayout kSmemMNMajor =
    compose(Swizzle{3, 3, 3}, tile_to_shape(make_layout(make_shape(64, 8)), make_shape(Rows, kBK)).value());

/// Everything about one operand (A: IsA, B otherwise) of a (Rows, 64) tile
/// loaded by `Threads` threads, K-major or not.
template <class T, OperandMajor Major, int Rows, int Threads>
struct Operand {
  static_assert(Rows % 64 == 0, "tessel: operand tiles are whole 64-row swizzle atoms");
  static constexpr bool KMajor = Major == OperandMajor::k;
  static constexpr SwizzledLayout kSmem = KMajor ? kSmemKMajor<Rows> : kSmemMNMajor<Rows>;
  static constexpr int kElems = Rows * kBK;
  /// 16-byte vectors along the contiguous index: K-major, 8 threads per
  /// 128-byte row; M/N-major, Rows/8 threads down each column.  Consecutive
  /// threads read consecutive 16 bytes of global memory.
  static constexpr CopyPlan kPlan =
      KMajor ? make_copy_plan(make_layout(make_shape(Threads / 8, 8), LayoutRight{}), make_layout(make_shape(1, 8)))
             : make_copy_plan(make_layout(make_shape(Rows / 8, Threads * 8 / Rows)), make_layout(make_shape(8, 1)));
  using VectorLoad = TiledCopy<SM80_CpAsync<T, 16>, kPlan.tv, kPlan.tile>;
  // Rows that are not 16-byte aligned: one element at a time, zeros outside.
  using ElementLoad = TiledCopy<UniversalCopyZfill<T, 8 * sizeof(T)>, kPlan.tv, kPlan.tile>;
  using Tile = TileShape<Rows, kBK>;

  /// Tile (i, kt) of the global operand into shared memory at `s`: cp.async
  /// when rows are 16-byte aligned (`vec`), element copies otherwise.  Parts
  /// outside the matrix become zeros, so the k-tail needs no special case.
  template <class G>
  __device__ static void load(const G& g, index_t i, index_t kt, T* s, int thread, bool vec) {
    const auto gX = local_tile<Tile>(g, i, kt);  // (Rows,64)
    const auto sX = make_smem_tensor<kSmem>(s);  // (Rows,64)
    if (vec) {
      const VectorLoad c;
      const auto tXgX = c.get_slice(thread).partition_S(gX);  // (8,REST) per thread
      const auto tXsX = c.get_slice(thread).partition_D(sX);  // (8,REST)
      if (gX.full())
        copy(c, tXgX, tXsX);
      else
        copy_if(c, tXgX, tXsX);
    } else {
      const ElementLoad c;
      copy_if(c, c.get_slice(thread).partition_S(gX), c.get_slice(thread).partition_D(sX));
    }
  }
};

/// 16-byte rows: the base pointer and the leading dimension a multiple of 8 elements.
template <class T>
__device__ inline bool rows_aligned16(const T* p, index_t ld) {
  return reinterpret_cast<std::uintptr_t>(p) % 16 == 0 && ld % 8 == 0;
}

/// The fragments and ldmatrix copies of a (BM,BN,64) CTA tile computed by TiledMma TM.
template <class T, class TM, OperandMajor MajA, OperandMajor MajB, int BM, int BN, int Threads>
struct MmaTile {
  using OpA = Operand<T, MajA, BM, Threads>;
  using OpB = Operand<T, MajB, BN, Threads>;
  using LdsmA = TiledLdsmA<T, TM, MajA>;
  using LdsmB = TiledLdsmB<T, TM, MajB>;
  using FragA = typename TM::template FragmentA<OpA::kSmem.layout>;  // (8,RM,4) bf16
  using FragB = typename TM::template FragmentB<OpB::kSmem.layout>;  // (4,RN,4)
  using CTile = TileShape<BM, BN>;
  using FragC = typename TM::template FragmentC<coord_layout(CTile::value)>;  // (4,RM,RN) f32
  static constexpr int kRK = kBK / TM::kL.k;                                  // k-slices per k-tile

  /// ldmatrix of k-slice k of the shared tiles into the fragments.
  template <class SA, class SB>
  __device__ static void load_slice(int k, const SA& tCsA, const SB& tCsB, FragA& a, FragB& b) {
    copy(LdsmA{}, tCsA(_, _, k), a(_, _, k));
    copy(LdsmB{}, tCsB(_, _, k), b(_, _, k));
  }
  /// This thread's ldmatrix partitions of the shared tiles at sa, sb.
  __device__ static auto partition_a(const T* sa, int thread) {
    return LdsmA{}.get_slice(thread).partition_S(make_smem_tensor<OpA::kSmem>(const_cast<T*>(sa)));
  }
  __device__ static auto partition_b(const T* sb, int thread) {
    return LdsmB{}.get_slice(thread).partition_S(make_smem_tensor<OpB::kSmem>(const_cast<T*>(sb)));
  }
};

}  // namespace tessel::gemm_kernels

namespace tessel::gemm_kernels {

/// Which tile of D a CTA computes.  RowBand: blockIdx.y is the tile row,
/// blockIdx.x the tile column, so the CTAs resident at one time share a row
/// band of A and read all of B.
struct RowBand {
  static dim3 grid(index_t tiles_m, index_t tiles_n) {
    return dim3(static_cast<unsigned>(tiles_n), static_cast<unsigned>(tiles_m));
  }
  __device__ static void tile(index_t /*tiles_m*/, index_t /*tiles_n*/, index_t& tm, index_t& tn) {
    tm = blockIdx.y;
    tn = blockIdx.x;
  }
};

}  // namespace tessel::gemm_kernels

namespace tessel::gemm_kernels {

/// The epilogue of k04..k07: each thread writes its accumulators straight
/// from registers.
struct RegisterEpilogue {
  template <int BM, int BN>
  static constexpr int smem_bytes() {
    return 0;
  }
  template <class TM, class CTile, class T, class Frag>
  __device__ static void apply(const Params<T>& p, index_t m0, index_t n0, const Frag& acc, void* /*smem*/, int t) {
    const auto tCcD = TM{}.get_slice(t).partition_C(coord_tile<CTile>(p.m - m0, p.n - n0));  // coordinates
    epilogue_registers(p, m0, n0, tCcD, acc);
  }
};

}  // namespace tessel::gemm_kernels
