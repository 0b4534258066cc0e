// k08 — the epilogue through shared memory.  An mma.sync accumulator
// fragment holds pairs of neighbouring columns on 8 rows, so k07's threads
// store 2 or 4 bytes at a time, 8 rows apart.  Here the CTA first writes
// alpha * acc to a padded fp32 tile in shared memory (the pipeline's, free
// by then), then reads it back in row order: each thread converts a run of
// 16 bytes' worth of output elements, adds beta * C read the same way, and
// stores them with one 128-bit store.  The seeds measured this slower on an
// A100 (the extra shared-memory round trip); docs/ladder.md has Hopper's answer.
#pragma once

#include <cstring>

#include "tessel/core/pack.hpp"
#include "tessel/kernels/gemm/k07_three_stages.cuh"

namespace tessel::gemm_kernels {

/// Vectors of 16 bytes of U for the store plan (only the partitions use it).
template <class U>
struct Store16 {
  using value_type = U;
  static constexpr int kElems = 16 / static_cast<int>(sizeof(U));
};

/// 16 bytes of U as four 32-bit words, built from / taken apart into floats
/// in registers (no array whose address escapes, so nothing goes to local memory).
template <class U>
__device__ inline uint4 pack16(const float (&x)[16 / sizeof(U)]) {
  std::uint32_t w[4];
  TESSEL_UNROLL
  for (int q = 0; q < 4; ++q) {
    if constexpr (sizeof(U) == 4) {
      w[q] = __float_as_uint(x[q]);
    } else {
      w[q] = pack_pair(detail::from_float<U>(x[2 * q]), detail::from_float<U>(x[2 * q + 1]));
    }
  }
  return make_uint4(w[0], w[1], w[2], w[3]);
}
template <class U>
__device__ inline void unpack16(const uint4 v, float (&x)[16 / sizeof(U)]) {
  const std::uint32_t w[4] = {v.x, v.y, v.z, v.w};
  TESSEL_UNROLL
  for (int q = 0; q < 4; ++q) {
    if constexpr (sizeof(U) == 4) {
      x[q] = __uint_as_float(w[q]);
    } else {
      U lo, hi;
      unpack_pair(w[q], lo, hi);
      x[2 * q] = detail::to_float(lo);
      x[2 * q + 1] = detail::to_float(hi);
    }
  }
}

template <int Threads>
struct SmemEpilogue {
  static constexpr int kPad = 8;  // floats: 64-bit stores of a fragment row pair hit every bank once per 2 wavefronts
  template <int BM, int BN>
  static constexpr Layout kSmemD = make_layout(make_shape(BM, BN), make_stride(BN + kPad, 1));
  template <int BM, int BN>
  static constexpr int smem_bytes() {
    return BM * (BN + kPad) * 4;
  }

  template <class TM, class CTile, class T, class Frag>
  __device__ static void apply(const Params<T>& p, index_t m0, index_t n0, const Frag& acc, void* smem, int t) {
    constexpr int BM = static_cast<int>(CTile::value.val[0]), BN = static_cast<int>(CTile::value.val[1]);
    const auto sD = make_smem_tensor<kSmemD<BM, BN>>(static_cast<float*>(smem));  // (BM,BN) f32
    const auto tCcD = TM{}.get_slice(t).partition_C(coord_tile<CTile>(BM, BN));   // (4,(RM,RN)) coordinates
    const float s_alpha = alpha_of(p);
    TESSEL_UNROLL
    for (int v = 0; v < Frag::kValues; ++v) {
      const index_t at = tCcD.coord(v);
      sD(coord_field(at, 0), coord_field(at, 1)) = s_alpha * *acc.addr(v);
    }
    __syncthreads();
    with_out_type(p.cd_type, [&]<class U>() { store<U, CTile>(p, m0, n0, sD, t); });
  }

  template <class U, class CTile, class T, class SD>
  __device__ static void store(const Params<T>& p, index_t m0, index_t n0, const SD& sD, int t) {
    constexpr int BN = static_cast<int>(CTile::value.val[1]);
    constexpr int Vec = Store16<U>::kElems;
    // Threads in rows of BN/Vec, each moving Vec consecutive elements of a row.
    using Plan = MakeTiledCopy<Store16<U>, make_layout(make_shape(Threads / (BN / Vec), BN / Vec), LayoutRight{}),
                               make_layout(make_shape(1, Vec))>;
    const auto gD = make_global_tensor(static_cast<U*>(p.d), {p.m, p.n}, {p.ldd, index_t{1}});
    const auto gC = make_global_tensor(static_cast<const U*>(p.c), {p.m, p.n}, {p.ldc, index_t{1}});
    const index_t tm = m0 / static_cast<int>(CTile::value.val[0]), tn = n0 / BN;
    const float s_beta = beta_of(p);
    const auto thr = Plan{}.get_slice(t);
    const auto tDsD = thr.partition_S(sD);                             // (Vec,REST) f32
    const auto tDgD = thr.partition_D(local_tile<CTile>(gD, tm, tn));  // (Vec,REST)
    const auto tDgC = thr.partition_S(local_tile<CTile>(gC, tm, tn));  // (Vec,REST)
    const bool vec_d = rows_aligned16(static_cast<U*>(p.d), p.ldd);
    const bool vec_c = p.beta == 0.0f || rows_aligned16(static_cast<const U*>(p.c), p.ldc);
    constexpr int V = decltype(tDsD)::kValues;
    TESSEL_UNROLL
    for (int i = 0; i < V; i += Vec) {
      if (vec_d && vec_c && tDgD.inside(i + Vec - 1)) {
        float x[Vec];
        TESSEL_UNROLL
        for (int j = 0; j < Vec; ++j) x[j] = *tDsD.addr(i + j);
        if (p.beta != 0.0f) {
          float c[Vec];
          unpack16<U>(arch::sm80::ld_global_128(tDgC.addr(i)), c);
          TESSEL_UNROLL
          for (int j = 0; j < Vec; ++j) x[j] += s_beta * c[j];
        }
        arch::sm80::st_global_128(tDgD.addr(i), pack16<U>(x));
      } else {
        TESSEL_UNROLL
        for (int j = 0; j < Vec; ++j) {
          if (!tDgD.inside(i + j)) continue;
          float x = *tDsD.addr(i + j);
          if (p.beta != 0.0f) x += s_beta * detail::to_float(*tDgC.addr(i + j));
          *tDgD.addr(i + j) = detail::from_float<U>(x);
        }
      }
    }
  }
};

namespace k08 {
using Config = MultistageConfig<128, 128, 2, 2, 3, GroupedRaster<8>, SmemEpilogue<128>>;
}  // namespace k08

}  // namespace tessel::gemm_kernels
