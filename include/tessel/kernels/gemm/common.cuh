// tessel/kernels/gemm/common.cuh — what every step of the GEMM ladder
// shares: the problem as the kernels see it, A and B as global tensors, and
// the epilogue D = alpha * acc + beta * C for one element.
//
// Conventions (spec/hardware-atoms.md §1.2, atom/mma_atom.hpp): A is an
// (M,K) tensor and B an (N,K) tensor, whatever their memory order; the
// layout (A:k / A:m, B:n / B:k) is only their strides.  C and D are row-major.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "tessel/host/gemm.hpp"
#include "tessel/tensor/tensor.hpp"

namespace tessel::gemm_kernels {

/// The problem as kernels see it.  T is the input type (bf16 or f16); the
/// output type is a run-time field: the epilogue is a small part of the
/// work, and one kernel per output type would triple the instantiations.
template <class T>
struct Params {
  const T* a;
  const T* b;
  const void* c;  // null iff beta == 0
  void* d;
  index_t m, n, k;
  index_t lda, ldb, ldc, ldd;
  float alpha, beta;
  DType cd_type;
};

template <class T>
Params<T> make_params(const GemmArgs& g) {
  return Params<T>{static_cast<const T*>(g.a), static_cast<const T*>(g.b), g.c, g.d, g.m, g.n, g.k,
                   g.lda, g.ldb, g.ldc, g.ldd, g.alpha, g.beta, g.cd_type};
}

/// A as an (M,K) global tensor: (M,K):(lda,1) for A:k, (M,K):(1,lda) for A:m.
template <MajorA MA, class T>
TESSEL_HD constexpr GlobalTensor<const T, 2> tensor_a(const Params<T>& p) {
  if constexpr (MA == MajorA::k) return make_global_tensor(p.a, {p.m, p.k}, {p.lda, index_t{1}});
  else return make_global_tensor(p.a, {p.m, p.k}, {index_t{1}, p.lda});
}
/// B as an (N,K) global tensor: (N,K):(1,ldb) for B:n, (N,K):(ldb,1) for B:k.
template <MajorB MB, class T>
TESSEL_HD constexpr GlobalTensor<const T, 2> tensor_b(const Params<T>& p) {
  if constexpr (MB == MajorB::n) return make_global_tensor(p.b, {p.n, p.k}, {index_t{1}, p.ldb});
  else return make_global_tensor(p.b, {p.n, p.k}, {p.ldb, index_t{1}});
}

namespace detail {
template <class U>
__device__ inline float to_float(U x) {
  if constexpr (std::is_same_v<U, float>) return x;
  else if constexpr (std::is_same_v<U, __nv_bfloat16>) return __bfloat162float(x);
  else return __half2float(x);
}
template <class U>
__device__ inline U from_float(float x) {
  if constexpr (std::is_same_v<U, float>) return x;
  else if constexpr (std::is_same_v<U, __nv_bfloat16>) return __float2bfloat16_rn(x);
  else return __float2half_rn(x);
}
template <class U, class T>
__device__ inline void store_as(const Params<T>& p, index_t i, index_t j, float acc) {
  float v = p.alpha * acc;
  if (p.beta != 0.0f) v += p.beta * to_float(static_cast<const U*>(p.c)[i * p.ldc + j]);
  static_cast<U*>(p.d)[i * p.ldd + j] = from_float<U>(v);
}
}  // namespace detail

/// D(i,j) = alpha * acc + beta * C(i,j), rounded to the output type (C is
/// not read when beta == 0).  The caller checks that (i,j) is inside.
template <class T>
__device__ inline void epilogue_element(const Params<T>& p, index_t i, index_t j, float acc) {
  switch (p.cd_type) {
    case DType::bf16: detail::store_as<__nv_bfloat16>(p, i, j, acc); break;
    case DType::f16: detail::store_as<__half>(p, i, j, acc); break;
    case DType::f32: detail::store_as<float>(p, i, j, acc); break;
  }
}

/// A static tile shape as a provider type (kernels are templated on types).
template <int M, int N>
struct TileShape {
  static constexpr IntTuple value = make_shape(M, N);
};

}  // namespace tessel::gemm_kernels
