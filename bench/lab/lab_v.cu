// One lab variant (LABV = the OR of lab_kernel.cuh's switches), A:k, B:n, bf16.
#include "lab_kernel.cuh"
#include "src/kernels/gemm/params.hpp"  // GemmArgs -> the kernel's Params
#include "tessel/host/tensor_map.hpp"
#include <cstdio>
using namespace tessel;
namespace {
template <class Box, class T>
bool map_of(CUtensorMap& out, const T* ptr, index_t rows, index_t cols, index_t ld) {
  const auto g = make_global_tensor(ptr, {rows, cols}, {ld, index_t{1}});
  const host::TensorMapStatus s = make_tma_map<Box>(out, g, Swizzle{3, 3, 3});
  if (!s.ok()) { std::printf("map: %s\n", s.message.c_str()); return false; }
  return true;
}
}
#define CAT2(a, b) a##b
#define CAT(a, b) CAT2(a, b)
// A:k, B:n, bf16.
bool CAT(run_v, LABV)(const GemmArgs& a, cudaStream_t stream, int sms) {
  using T = __nv_bfloat16;
  constexpr MajorA MA = MajorA::k;
  constexpr MajorB MB = MajorB::n;
  namespace kk = tessel::gemm_kernels::k09;
  using X = kk::Tiles<T, MA, MB>;
  static CUtensorMap map_a, map_b, map_d;
  using Epi = gemm_kernels::TmaStoreEpilogue<T, typename X::TM, kk::kBM, kk::kBN>;
  static const void* last_a = nullptr;
  static const void* last_d = nullptr;
  if (last_a != a.a || last_d != a.d) {
    last_d = a.d;
    if (!map_of<typename X::OpA::Box>(map_a, static_cast<const T*>(a.a), a.m, a.k, a.lda)) return false;
    if (!map_of<typename X::OpB::Box>(map_b, static_cast<const T*>(a.b), a.k, a.n, a.ldb)) return false;
    {
      const auto g = make_global_tensor(static_cast<T*>(a.d), {a.m, a.n}, {a.ldd, index_t{1}});
      const host::TensorMapStatus s = make_tma_map<typename Epi::Box>(map_d, g, Epi::kSwizzle);
      if (!s.ok()) { std::printf("map d: %s\n", s.message.c_str()); return false; }
    }
    last_a = a.a;
  }
  constexpr int smem = X::kSmemBytes;
  const index_t tiles = ((a.m + kk::kBM - 1) / kk::kBM) * ((a.n + kk::kBN - 1) / kk::kBN);
  if constexpr ((LABV & lab::kCluster) != 0) {
    auto* ck = &lab::lab_cluster_kernel<LABV, T, MA, MB>;
    cudaFuncSetAttribute(ck, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
    static int max_clusters = -1;
    cudaLaunchConfig_t cfg{};
    cudaLaunchAttribute attr[1];
    attr[0].id = cudaLaunchAttributeClusterDimension;
    attr[0].val.clusterDim.x = 2;
    attr[0].val.clusterDim.y = 1;
    attr[0].val.clusterDim.z = 1;
    cfg.attrs = attr;
    cfg.numAttrs = 1;
    cfg.blockDim = dim3(kk::kThreads);
    cfg.dynamicSmemBytes = smem;
    cfg.stream = stream;
    if (max_clusters < 0) {
      cfg.gridDim = dim3(2 * 66);
      if (cudaOccupancyMaxActiveClusters(&max_clusters, ck, &cfg) != cudaSuccess) return false;
      std::printf("  (max active 2-CTA clusters: %d)\n", max_clusters);
    }
    const index_t pairs = ((a.m + 2 * kk::kBM - 1) / (2 * kk::kBM)) * ((a.n + kk::kBN - 1) / kk::kBN);
    const index_t clusters = pairs < max_clusters ? pairs : max_clusters;
    cfg.gridDim = dim3(static_cast<unsigned>(2 * clusters));
    if (cudaLaunchKernelEx(&cfg, ck, map_a, map_b, map_d, gemm_launch::make_params<T>(a)) != cudaSuccess) return false;
    return cudaGetLastError() == cudaSuccess;
  }
  auto* kernel = &lab::lab_kernel<LABV, T, MA, MB>;
  cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
  kernel<<<dim3(static_cast<unsigned>(tiles < sms ? tiles : sms)), kk::kThreads, smem, stream>>>(
      map_a, map_b, map_d, gemm_launch::make_params<T>(a));
  return cudaGetLastError() == cudaSuccess;
}
