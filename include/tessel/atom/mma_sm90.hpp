// tessel/atom/mma_sm90.hpp — wgmma as MMA atoms inside TiledMma.
//
// One atom is one wgmma.mma_async m64nNk16 of a warpgroup (128 threads):
//   SM90_64xNx16_F32_SS<T, N>: A and B from shared memory, through matrix
//     descriptors; a TiledMMA's partition_fragment_A/B of a shared tile is a
//     tensor of descriptors, one per atom, made from the tile's layout
//     (TiledMma checks it is one wgmma can read: make_gmma_operand_plan);
//   SM90_64xNx16_F32_RS<T, N>: A from registers (a fragment filled by any
//     copy), B through a descriptor.
// The atoms issue the instruction and nothing else.  The warpgroup protocol
// stays outside, so that a kernel can keep several k-tiles of wgmmas in
// flight:
//   warpgroup_fence_operand(acc);  warpgroup_arrive();
//   gemm(tiled_mma, tCdA(_, _, k), tCdB(_, _, k), acc);   // any number of these
//   warpgroup_commit_batch();
//   warpgroup_wait<N>();           warpgroup_fence_operand(acc);
// (docs/hardware.md §7.4: accumulators and RS A registers must not be touched
// between the first wgmma and the wait that covers it; the operand fences
// stop the compiler from moving accesses there.)
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <type_traits>

#include "tessel/arch/common.hpp"
#include "tessel/arch/sm90.hpp"
#include "tessel/atom/mma_traits_sm90.hpp"
#include "tessel/atom/tiled_mma.hpp"
#include "tessel/core/pack.hpp"

namespace tessel {

/// An engine whose "elements" are wgmma descriptors: element at offset o (in
/// elements of the shared tile, unswizzled) is the descriptor of the operand
/// starting there.  Tensor<GmmaDescEngine, ...> with a partition's layout is
/// how a TiledMMA hands descriptors to its atoms.
template <int ElemBytes>
struct GmmaDescIterator {
  std::uint64_t desc;  // the descriptor of the tile's element 0
  TESSEL_HD constexpr std::uint64_t operator[](index_t off) const {
    // Offsets inside one shared tile: the advanced address stays in the window.
    return arch::sm90::desc_add(desc, static_cast<std::uint32_t>(off * ElemBytes));
  }
  TESSEL_HD constexpr GmmaDescIterator operator+(index_t off) const { return {(*this)[off]}; }
};
template <int ElemBytes>
struct GmmaDescEngine {
  using value_type = const std::uint64_t;
  static constexpr Space space = Space::reg;
  static constexpr bool kDescriptors = true;
  GmmaDescIterator<ElemBytes> it;
  TESSEL_HD constexpr GmmaDescIterator<ElemBytes> data() const { return it; }
};

namespace detail {
template <class T>
constexpr arch::sm90::WgmmaType wgmma_type() {
  static_assert(std::is_same_v<T, __nv_bfloat16> || std::is_same_v<T, __half>, "tessel: wgmma takes bf16 or f16");
  return std::is_same_v<T, __half> ? arch::sm90::WgmmaType::f16 : arch::sm90::WgmmaType::bf16;
}
constexpr arch::sm90::GmmaSwizzle gmma_swizzle(int bytes) {
  return bytes == 128  ? arch::sm90::GmmaSwizzle::sw128
         : bytes == 64 ? arch::sm90::GmmaSwizzle::sw64
         : bytes == 32 ? arch::sm90::GmmaSwizzle::sw32
                       : arch::sm90::GmmaSwizzle::none;
}
}  // namespace detail

/// wgmma m64nNk16, f32 += T * T, A and B from shared memory.  MajorA/MajorB:
/// which index of the A (M,K) and B (N,K) tiles is contiguous (the TiledMMA
/// checks that the shared layouts agree).
template <class T, int N, arch::sm90::GmmaMajor MajorA = arch::sm90::GmmaMajor::k,
          arch::sm90::GmmaMajor MajorB = arch::sm90::GmmaMajor::k>
struct SM90_64xNx16_F32_SS {
  static_assert(N >= 8 && N <= 256 && N % 8 == 0, "tessel: wgmma N is a multiple of 8 in 8..256");
  using a_type = T;
  using b_type = T;
  using c_type = float;
  static constexpr bool kDescA = true, kDescB = true, kScaleD = true;
  static constexpr arch::sm90::GmmaMajor kMajorA = MajorA, kMajorB = MajorB;
  static constexpr MmaAtomInfo info = wgmma_info(N, true);
  /// d (+)= A * B^T for the atom's N/2 accumulators of this thread; all 128
  /// threads of the warpgroup issue it.  scale_d false: d's input is ignored.
  __device__ static void fma(float* d, std::uint64_t desc_a, std::uint64_t desc_b, bool scale_d = true) {
    arch::sm90::wgmma_ss<detail::wgmma_type<T>(), N, MajorA, MajorB>(*reinterpret_cast<float(*)[N / 2]>(d), desc_a,
                                                                     desc_b, scale_d);
  }
  /// The operands a TiledMMA hands to fma: descriptors of a shared tile's atoms.
  template <IntTuple Tile, Layout TV, class S>
  __device__ static auto make_operand_A(const S& s, int thread);
  template <IntTuple Tile, Layout TV, class S>
  __device__ static auto make_operand_B(const S& s, int thread);
};

/// wgmma m64nNk16, f32 += T * T, A from registers (8 values per thread in the
/// order of atom_layouts::wgmma_a), B from shared memory.
template <class T, int N, arch::sm90::GmmaMajor MajorB = arch::sm90::GmmaMajor::k>
struct SM90_64xNx16_F32_RS {
  static_assert(N >= 8 && N <= 256 && N % 8 == 0, "tessel: wgmma N is a multiple of 8 in 8..256");
  using a_type = T;
  using b_type = T;
  using c_type = float;
  static constexpr bool kDescA = false, kDescB = true, kScaleD = true;
  static constexpr arch::sm90::GmmaMajor kMajorB = MajorB;
  static constexpr MmaAtomInfo info = wgmma_info(N, false);
  __device__ static void fma(float* d, const a_type* a, std::uint64_t desc_b, bool scale_d = true) {
    const std::uint32_t ra[4] = {pack_pair(a[0], a[1]), pack_pair(a[2], a[3]), pack_pair(a[4], a[5]),
                                 pack_pair(a[6], a[7])};
    arch::sm90::wgmma_rs<detail::wgmma_type<T>(), N, MajorB>(*reinterpret_cast<float(*)[N / 2]>(d), ra, desc_b,
                                                             scale_d);
  }
  template <IntTuple Tile, Layout TV, class S>
  __device__ static auto make_operand_B(const S& s, int thread);
};

// ---------------------------------------------------------------- descriptors from shared tensors

namespace detail {
/// The descriptors of thread `thread`'s atoms over shared tile `s` (layout
/// (MN, K)), partitioned by tile `Tile` and TV layout `TV` of a TiledMMA
/// whose atoms are (AtomMN, AtomK):
/// shape (1, REST_MN, REST_K), element (0, m, k) the descriptor of atom
/// (m, k).  The plan (major, swizzle, LBO, SBO) is derived from the layout
/// and checked at compile time.
template <IntTuple Tile, Layout TV, int AtomMN, arch::sm90::GmmaMajor Major, int AtomK = 16, class T, SwizzledLayout L>
__device__ auto make_gmma_descriptors(const Tensor<ViewEngine<T, Space::shared>, StaticSwizzledLayout<L>>& s,
                                      int thread) {
  constexpr GmmaOperandPlan plan = make_gmma_operand_plan(L, sizeof(T), AtomMN, AtomK);
  static_assert(plan.ok, "tessel: the shared tile is not one wgmma reads (see make_gmma_operand_plan)");
  static_assert(plan.k_major == (Major == arch::sm90::GmmaMajor::k),
                "tessel: the atom's major (tA/tB) does not match the shared layout's contiguous index");
  constexpr Layout P = partition_layout(L.layout, Tile, TV);  // unswizzled offsets: descriptors want them
  constexpr Layout V = thread_values(P);
  // Keep the atom origins only: (1, REST...) with the rest modes' strides.
  constexpr Layout origins = [] {
    ModeBuilder b;
    b.add(Layout{make_int(1), make_int(0)});
    for (int k = 1; k < rank(V); ++k) b.add(mode(V, k));
    return b.finish();
  }();
  const std::uint64_t desc =
      arch::sm90::make_smem_desc(arch::smem_addr(s.engine.ptr), plan.lbo, plan.sbo, gmma_swizzle(plan.swizzle_bytes));
  return Tensor<GmmaDescEngine<static_cast<int>(sizeof(T))>, ThrOffsets<origins>>{{{desc}},
                                                                                  {StaticLayout<P>{}(thread, 0)}};
}
}  // namespace detail

template <class T, int N, arch::sm90::GmmaMajor MajorA, arch::sm90::GmmaMajor MajorB>
template <IntTuple Tile, Layout TV, class S>
__device__ auto SM90_64xNx16_F32_SS<T, N, MajorA, MajorB>::make_operand_A(const S& s, int thread) {
  return detail::make_gmma_descriptors<Tile, TV, 64, MajorA>(s, thread);
}
template <class T, int N, arch::sm90::GmmaMajor MajorA, arch::sm90::GmmaMajor MajorB>
template <IntTuple Tile, Layout TV, class S>
__device__ auto SM90_64xNx16_F32_SS<T, N, MajorA, MajorB>::make_operand_B(const S& s, int thread) {
  return detail::make_gmma_descriptors<Tile, TV, N, MajorB>(s, thread);
}
template <class T, int N, arch::sm90::GmmaMajor MajorB>
template <IntTuple Tile, Layout TV, class S>
__device__ auto SM90_64xNx16_F32_RS<T, N, MajorB>::make_operand_B(const S& s, int thread) {
  return detail::make_gmma_descriptors<Tile, TV, N, MajorB>(s, thread);
}

/// The warpgroup protocol around wgmma atoms (docs/hardware.md §7.4).
__device__ inline void warpgroup_arrive() { arch::sm90::wgmma_fence(); }
__device__ inline void warpgroup_commit_batch() { arch::sm90::wgmma_commit_group(); }
template <int Pending>
__device__ inline void warpgroup_wait() {
  arch::sm90::wgmma_wait_group<Pending>();
}
/// Keeps the compiler from moving accesses of a fragment across the
/// protocol's points (no instruction is emitted).
template <class Frag>
__device__ inline void warpgroup_fence_operand(Frag& f) {
  using V = std::remove_cvref_t<decltype(*f.addr(0))>;
  if constexpr (std::is_same_v<V, float>) {
    TESSEL_UNROLL
    for (int v = 0; v < Frag::kValues; ++v) arch::sm90::register_fence(*f.addr(v));
  } else {
    // 16-bit values: fence the 32-bit registers that hold them in pairs.
    static_assert(sizeof(V) == 2 && Frag::kValues % 2 == 0, "tessel: fence fragments of f32 or pairs of 16-bit values");
    auto* w = reinterpret_cast<std::uint32_t*>(f.addr(0));
    TESSEL_UNROLL
    for (int v = 0; v < Frag::kValues / 2; ++v) arch::sm90::register_fence(w[v]);
  }
}

}  // namespace tessel
