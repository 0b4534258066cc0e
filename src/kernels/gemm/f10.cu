// Launcher of fp32 ladder step f10 (include/tessel/kernels/gemm/f10_tma_loads.cuh):
// TMA loads of A and B, a 128 x 256 tile, one CTA per SM.  f10's kernel
// takes B:n with A:k or A:m whose rows TMA can describe; every other
// problem runs f08's kernel (the same results, f08's speed), so that f10,
// like every step, serves any M, N, K >= 1 and all four layouts.
#include <cstdint>
#include <string>

#include "src/kernels/gemm/fp32_launch.hpp"
#include "tessel/arch/sm90_tensor_map.hpp"
#include "tessel/kernels/gemm/f10_tma_loads.cuh"

namespace tessel::gemm_launch {

namespace {

namespace k10 = gemm_kernels::f10;

/// TMA needs a 16-byte aligned base and rows of whole 16-byte granules.
bool tma_rows(const void* p, index_t ld) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0 && ld % 4 == 0; }

/// Does f10's kernel take `a` (else f08's runs)?
bool f10_kernel_applies(const GemmArgs& a) {
  return a.layout.b == MajorB::n && tma_rows(a.a, a.lda) && tma_rows(a.b, a.ldb);
}

/// The map of a row-major (outer x inner) fp32 matrix with leading dimension
/// ld, read in boxes {box[0] inner, box[1] outer}.
arch::sm90::TensorMapStatus map_2d(CUtensorMap& map, const void* p, index_t inner, index_t outer, index_t ld,
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

}  // namespace

Status check_f10(const GemmArgs& a) {
  if (!f10_kernel_applies(a)) return check_f08(a);
  return check_tile_grid(a, k10::kBM, k10::kBN, "f10");
}

Status launch_f10(const GemmArgs& a, cudaStream_t stream) {
  if (!f10_kernel_applies(a)) return launch_f08(a, stream);
  const bool ak = a.layout.a == MajorA::k;
  CUtensorMap map_a, map_b;
  const arch::sm90::TensorMapStatus sa =
      ak ? map_2d(map_a, a.a, a.k, a.m, a.lda, k10::kBoxAk, CU_TENSOR_MAP_SWIZZLE_64B)
         : map_2d(map_a, a.a, a.m, a.k, a.lda, k10::kBoxAm, CU_TENSOR_MAP_SWIZZLE_NONE);
  if (!sa.ok()) return Status::failure(Status::unsupported, "f10: TMA map of A: " + sa.message);
  const arch::sm90::TensorMapStatus sb = map_2d(map_b, a.b, a.n, a.k, a.ldb, k10::kBoxBn, CU_TENSOR_MAP_SWIZZLE_NONE);
  if (!sb.ok()) return Status::failure(Status::unsupported, "f10: TMA map of B: " + sb.message);
  const auto run = [&]<MajorA MA>() {
    auto* kernel = &k10::gemm_tma_loads<MA>;
    if (Status s = allow_smem(kernel, k10::kSmemBytes, "f10"); !s) return s;
    kernel<<<tile_grid(a, k10::kBM, k10::kBN).dim(), k10::kThreads, k10::kSmemBytes, stream>>>(map_a, map_b,
                                                                                               make_params<float>(a));
    return launch_status("f10");
  };
  return ak ? run.template operator()<MajorA::k>() : run.template operator()<MajorA::m>();
}

}  // namespace tessel::gemm_launch
