// What the launchers of f10 and f11 share (f10.cu, f11.cu): whether their
// TMA kernel takes a problem (else f08's kernel runs it), and the TMA maps of
// A and B that the kernel reads.
#pragma once

#include <cstdint>
#include <string>

#include "src/kernels/gemm/fp32_launch.hpp"
#include "tessel/arch/sm90_tensor_map.hpp"
#include "tessel/kernels/gemm/f10_tma_loads.cuh"

namespace tessel::gemm_launch::f10_maps {

namespace k10 = gemm_kernels::f10;

/// TMA needs a 16-byte aligned base and rows of whole 16-byte granules.
inline bool tma_rows(const void* p, index_t ld) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0 && ld % 4 == 0; }

/// Does f10's kernel (and f11's) take `a`?  B:n with A:k or A:m, rows TMA can read.
inline bool kernel_applies(const GemmArgs& a) {
  return a.layout.b == MajorB::n && tma_rows(a.a, a.lda) && tma_rows(a.b, a.ldb);
}

/// Does f10's (f11's) kernel run `a`, with `out` its epilogue's tensors?  It
/// takes `a` and every offset of D's and C's tiles fits in int (k10::make_out);
/// else f08's kernel runs the problem.
inline bool kernel_runs(const GemmArgs& a, k10::Out& out) {
  return kernel_applies(a) && k10::make_out(make_params<float>(a), out);
}

/// The map of a row-major (outer x inner) fp32 matrix with leading dimension
/// ld, read in boxes {box[0] inner, box[1] outer}.
inline arch::sm90::TensorMapStatus map_2d(CUtensorMap& map, const void* p, index_t inner, index_t outer, index_t ld,
                                          const int (&box)[2], CUtensorMapSwizzle swizzle) {
  arch::sm90::TensorMapSpec s;
  s.dtype = CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
  s.rank = 2;
  s.global_address = p;
  s.global_dim = {static_cast<std::uint64_t>(inner), static_cast<std::uint64_t>(outer), 1, 1, 1};
  s.global_stride_bytes = {0, static_cast<std::uint64_t>(ld) * 4, 0, 0, 0};
  s.box_dim = {static_cast<std::uint32_t>(box[0]), static_cast<std::uint32_t>(box[1]), 1, 1, 1};
  s.swizzle = swizzle;
  return arch::sm90::encode_tiled(map, s);
}

/// The maps of A (A:k {K, M} in 64-byte swizzled boxes, A:m {M, K}) and of
/// B:n {N, K}, as the kernel reads them; `step` names the kernel in errors.
inline Status make_maps(const GemmArgs& a, CUtensorMap& map_a, CUtensorMap& map_b, const char* step) {
  const arch::sm90::TensorMapStatus sa =
      a.layout.a == MajorA::k ? map_2d(map_a, a.a, a.k, a.m, a.lda, k10::kBoxAk, CU_TENSOR_MAP_SWIZZLE_64B)
                              : map_2d(map_a, a.a, a.m, a.k, a.lda, k10::kBoxAm, CU_TENSOR_MAP_SWIZZLE_NONE);
  if (!sa.ok()) return Status::failure(Status::unsupported, std::string(step) + ": TMA map of A: " + sa.message);
  const arch::sm90::TensorMapStatus sb = map_2d(map_b, a.b, a.n, a.k, a.ldb, k10::kBoxBn, CU_TENSOR_MAP_SWIZZLE_NONE);
  if (!sb.ok()) return Status::failure(Status::unsupported, std::string(step) + ": TMA map of B: " + sb.message);
  return Status::success();
}

}  // namespace tessel::gemm_launch::f10_maps
