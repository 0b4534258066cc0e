// tessel/kernels/gemm/common.cuh — what every step of the GEMM ladder
// shares: the problem as the kernels see it, A and B as global tensors, and
// the epilogue D = alpha * acc + beta * C for one element.
//
// Conventions (docs/hardware.md §1.2, atom/mma_atom.hpp): A is an
// (M,K) tensor and B an (N,K) tensor, whatever their memory order; the
// layout (A:k / A:m, B:n / B:k) is only their strides.  C and D are row-major.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "tessel/atom/tiled_copy.hpp"
#include "tessel/core/pack.hpp"
#include "tessel/gemm_types.hpp"
#include "tessel/tensor/tensor.hpp"

namespace tessel::gemm_kernels {

/// Calls `f.template operator()<U>()` with U the element type of output type
/// `t` (__nv_bfloat16, __half or float) and returns what it returns: the one
/// place where the run-time output type becomes a compile-time one, for the
/// kernels' epilogues and the launchers alike.
template <class F>
__host__ __device__ __forceinline__ auto with_out_type(DType t, F&& f) {
  using R = decltype(f.template operator()<float>());
  if constexpr (std::is_void_v<R>) {
    switch (t) {
      case DType::bf16:
        f.template operator()<__nv_bfloat16>();
        return;
      case DType::f16:
        f.template operator()<__half>();
        return;
      case DType::f32:
        f.template operator()<float>();
        return;
      default:  // FP8 is not an output type (gemm_check)
        return;
    }
  } else {
    switch (t) {
      case DType::bf16:
        return f.template operator()<__nv_bfloat16>();
      case DType::f16:
        return f.template operator()<__half>();
      default:  // fp32; FP8 is not an output type (gemm_check)
        break;
    }
    return f.template operator()<float>();
  }
}

/// Shared memory where an epilogue stages D in the output type: Bytes bytes
/// seen as bf16, fp16 or fp32 elements, as<U>() for with_out_type's U.
template <int Bytes>
union OutStaging {
  __nv_bfloat16 bf16[Bytes / 2];
  __half f16[Bytes / 2];
  float f32[Bytes / 4];
  template <class U>
  __device__ __forceinline__ U* as() {
    if constexpr (std::is_same_v<U, __nv_bfloat16>)
      return bf16;
    else if constexpr (std::is_same_v<U, __half>)
      return f16;
    else
      return f32;
  }
};

/// FP8's per-tensor scales in device memory, folded into alpha (alpha_of).
/// Params' base, empty for other inputs, so that their kernels' parameters
/// stay as they were: 16 more bytes of parameters grew f07's code by a quarter.
template <bool Fp8>
struct TensorScales {};
template <>
struct TensorScales<true> {
  const float* scale_a = nullptr;
  const float* scale_b = nullptr;
};

/// The problem as kernels see it.  T is the input type (bf16 or f16); the
/// output type is a run-time field: the epilogue is a small part of the
/// work, and one kernel per output type would triple the instantiations.
/// Kernels know nothing of the host API: the launchers fill this from a
/// tessel::GemmArgs (src/kernels/gemm/params.hpp).
template <class T>
struct Params : TensorScales<sizeof(T) == 1> {
  const T* a;
  const T* b;
  const void* c;  // null iff beta == 0
  void* d;
  index_t m, n, k;
  index_t lda, ldb, ldc, ldd;
  float alpha, beta;
  DType cd_type;
  // Where set, the scalars are read from device memory when the kernel runs
  // (alpha_of, beta_of); beta is then nonzero, so C is read.
  const float* alpha_ptr;
  const float* beta_ptr;
  using Element = T;
};

/// The kernel's alpha and beta: the value behind the pointer where there is
/// one, read through the read-only path (no kernel writes it while it runs).
/// On FP8 inputs alpha carries per-tensor scales where the launch gave them:
/// a scalar on the whole product, applied once with alpha rather than in the
/// main loop, so that the unscaled instances (and their widest tiles) serve.
template <class P>
__device__ __forceinline__ float alpha_of(const P& p) {
  const float alpha = p.alpha_ptr != nullptr ? __ldg(p.alpha_ptr) : p.alpha;
  if constexpr (sizeof(typename P::Element) == 1)
    if (p.scale_a != nullptr) return alpha * __ldg(p.scale_a) * __ldg(p.scale_b);
  return alpha;
}
template <class P>
__device__ __forceinline__ float beta_of(const P& p) {
  return p.beta_ptr != nullptr ? __ldg(p.beta_ptr) : p.beta;
}

/// The fused epilogue's arguments (docs/epilogues.md), for the kernels that
/// compute D = act(alpha * acc + beta * C + bias) in their own epilogue
/// (k13's fused instances).  bias and aux have D's type (cd_type); aux(i, j)
/// at aux[i * ldaux + j] holds the value before the activation.
struct EpilogueParams {
  const void* bias;  // null iff bias_kind == none; M (row) or N (col) elements
  void* aux;         // null: no auxiliary output
  index_t ldaux;
  Activation act;
  BiasKind bias_kind;
};

/// The parameters of a fused instance: the problem, then the epilogue's.  A
/// type of its own, so that the plain kernels keep Params<T> and their code
/// (a fused instance is a separate compile-time configuration).
template <class T>
struct FusedParams : Params<T> {
  EpilogueParams epi;
};

/// A as an (M,K) global tensor: (M,K):(lda,1) for A:k, (M,K):(1,lda) for A:m.
template <MajorA MA, class T>
TESSEL_HD constexpr auto tensor_a(const Params<T>& p) {
  if constexpr (MA == MajorA::k)
    return make_global_tensor(p.a, {p.m, p.k}, {p.lda, index_t{1}});
  else
    return make_global_tensor(p.a, {p.m, p.k}, {index_t{1}, p.lda});
}
/// B as an (N,K) global tensor: (N,K):(1,ldb) for B:n, (N,K):(ldb,1) for B:k.
template <MajorB MB, class T>
TESSEL_HD constexpr auto tensor_b(const Params<T>& p) {
  if constexpr (MB == MajorB::n)
    return make_global_tensor(p.b, {p.n, p.k}, {index_t{1}, p.ldb});
  else
    return make_global_tensor(p.b, {p.n, p.k}, {p.ldb, index_t{1}});
}

namespace detail {
template <class U>
__device__ inline float to_float(U x) {
  if constexpr (std::is_same_v<U, float>)
    return x;
  else if constexpr (std::is_same_v<U, __nv_bfloat16>)
    return __bfloat162float(x);
  else
    return __half2float(x);
}
template <class U>
__device__ inline U from_float(float x) {
  if constexpr (std::is_same_v<U, float>)
    return x;
  else if constexpr (std::is_same_v<U, __nv_bfloat16>)
    return __float2bfloat16_rn(x);
  else
    return __float2half_rn(x);
}
template <class U, class T>
__device__ inline void store_as(const Params<T>& p, index_t i, index_t j, float acc) {
  float v = alpha_of(p) * acc;
  if (p.beta != 0.0f) v += beta_of(p) * to_float(static_cast<const U*>(p.c)[i * p.ldc + j]);
  static_cast<U*>(p.d)[i * p.ldd + j] = from_float<U>(v);
}
}  // namespace detail

/// D(i,j) = alpha * acc + beta * C(i,j), rounded to the output type (C is
/// not read when beta == 0).  The caller checks that (i,j) is inside.
template <class T>
__device__ inline void epilogue_element(const Params<T>& p, index_t i, index_t j, float acc) {
  with_out_type(p.cd_type, [&]<class U>() { detail::store_as<U>(p, i, j, acc); });
}

/// A static tile shape as a provider type (kernels are templated on types).
template <int M, int N>
struct TileShape {
  static constexpr IntTuple value = make_shape(M, N);
};

/// The coordinates (not the memory) of a (BM,BN) tile of D: partitioning it
/// gives each accumulator its (row, column) in the tile, and inside() says
/// whether that element exists.
template <class CTile>
__device__ inline auto coord_tile(index_t residue_m, index_t residue_n) {
  return make_coord_tile<CTile>(residue_m, residue_n);
}

namespace detail {
/// Do values 2i and 2i+1 of every thread sit in neighbouring columns (the
/// mma.sync C layout's pairs)?  Checked on the static partition.
template <Layout Vals>
constexpr bool column_pairs() {
  const index_t n = size(Vals);
  for (index_t v = 0; v + 1 < n; v += 2)
    if (Vals(v + 1) != Vals(v) + (index_t{1} << kCoordBits)) return false;
  return n % 2 == 0;
}
}  // namespace detail

/// D = alpha * acc + beta * C for this thread's accumulators (tile origin
/// (m0, n0)), from registers.
template <class U, class T, class View, class Frag>
__device__ void epilogue_registers_as(const Params<T>& p, index_t m0, index_t n0, const View& tCcD, const Frag& acc) {
  // Pairs of neighbouring columns as one 4-byte (8-byte for fp32) store when
  // D's rows keep them aligned and C is not read.
  constexpr bool kPairs = detail::column_pairs<View::layout_type::kVals>();
  const bool pairs =
      kPairs && p.beta == 0.0f && p.ldd % 2 == 0 && reinterpret_cast<std::uintptr_t>(p.d) % (2 * sizeof(U)) == 0;
  const float s_alpha = alpha_of(p);
  TESSEL_UNROLL
  for (int v = 0; v < Frag::kValues; v += 2) {
    const index_t at = tCcD.coord(v);
    const index_t i = m0 + coord_field(at, 0), j = n0 + coord_field(at, 1);
    if (pairs && tCcD.inside(v + 1)) {
      U* d = static_cast<U*>(p.d) + i * p.ldd + j;
      if constexpr (sizeof(U) == 4) {
        *reinterpret_cast<float2*>(d) = make_float2(s_alpha * *acc.addr(v), s_alpha * *acc.addr(v + 1));
      } else {
        *reinterpret_cast<std::uint32_t*>(d) =
            pack_pair(detail::from_float<U>(s_alpha * *acc.addr(v)), detail::from_float<U>(s_alpha * *acc.addr(v + 1)));
      }
      continue;
    }
    if (tCcD.inside(v)) detail::store_as<U>(p, i, j, *acc.addr(v));
    if (v + 1 < Frag::kValues && tCcD.inside(v + 1)) {
      const index_t at1 = tCcD.coord(v + 1);
      detail::store_as<U>(p, m0 + coord_field(at1, 0), n0 + coord_field(at1, 1), *acc.addr(v + 1));
    }
  }
}
/// The same, dispatching once on the run-time output type.
template <class T, class View, class Frag>
__device__ void epilogue_registers(const Params<T>& p, index_t m0, index_t n0, const View& tCcD, const Frag& acc) {
  with_out_type(p.cd_type, [&]<class U>() { epilogue_registers_as<U>(p, m0, n0, tCcD, acc); });
}

/// D = alpha * acc + beta * C for a kernel that computed the transposed
/// problem D^T = B^T A^T (A and B swapped by the launcher; p.m, p.n are N and
/// M): the kernel's element (i, j) is D(j, i), at d[j * ldd + i], and reads
/// C(j, i).  Every element is bounds-checked and stored alone: a thread's
/// value pairs are neighbouring columns of the kernel's tile, so rows of D.
template <class T, class View, class Frag>
__device__ void epilogue_registers_transposed(const Params<T>& p, index_t m0, index_t n0, const View& tCcD,
                                              const Frag& acc) {
  const auto each = [&]<class U>() {
    TESSEL_UNROLL
    for (int v = 0; v < Frag::kValues; ++v) {
      if (!tCcD.inside(v)) continue;
      const index_t at = tCcD.coord(v);
      detail::store_as<U>(p, n0 + coord_field(at, 1), m0 + coord_field(at, 0), *acc.addr(v));
    }
  };
  with_out_type(p.cd_type, each);
}

}  // namespace tessel::gemm_kernels
