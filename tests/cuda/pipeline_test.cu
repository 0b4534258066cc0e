// GPU test of kernels/blocks/pipeline_sm90.cuh: a TMA producer and four
// consumer warps pass 96 boxes through a ring of S stages.  Each consumer
// sums every box, with a different delay per warp and box, so the producer
// must wait on `empty` for the slowest warp: a stage overwritten before every
// consumer released it, or read before its bytes landed, gives a wrong sum.
// Also the round parity after the ring wraps many times (96 boxes over 1..4
// stages), and the producer's first round (a wait on fresh barriers).
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "gpu_test.hpp"
#include "tessel/arch/sm90_tensor_map.hpp"
#include "tessel/kernels/blocks/pipeline_sm90.cuh"

using namespace tessel;

namespace {

constexpr int kBox = 256;  // uint32 elements per box: 1 KB
constexpr int kBoxes = 96;
constexpr int kConsumers = 4;  // warps 0..3; warp 4 produces

template <int S>
struct Shared {
  alignas(128) std::uint32_t data[S][kBox];
  blocks::PipelineStorage<S> pipe;
};

template <int S>
__global__ void pipeline_kernel(const __grid_constant__ CUtensorMap map, std::uint32_t* sums) {
  __shared__ Shared<S> shared;
  const blocks::TmaPipeline<S> pipe(shared.pipe);
  const int warp = static_cast<int>(threadIdx.x) / 32, lane = static_cast<int>(threadIdx.x) % 32;
  if (threadIdx.x == 0) pipe.init(kConsumers);
  __syncthreads();
  if (warp == kConsumers) {
    if (lane == 0) {
      typename blocks::TmaPipeline<S>::State write;
      for (int b = 0; b < kBoxes; ++b, ++write) {
        pipe.producer_acquire(write, kBox * 4);
        arch::sm90::tma_load(arch::smem_addr(shared.data[write.index()]), &map, pipe.full(write.index()), b * kBox);
      }
    }
    return;
  }
  typename blocks::TmaPipeline<S>::State read;
  for (int b = 0; b < kBoxes; ++b, ++read) {
    pipe.consumer_wait(read);
    std::uint32_t sum = 0;
    for (int i = lane; i < kBox; i += 32) sum += shared.data[read.index()][i] * static_cast<std::uint32_t>(i + 1);
    // Delay some warps on some boxes: the producer must wait for the slowest.
    const long long until = clock64() + 2000 * ((b * 7 + warp * 3) % 5);
    while (clock64() < until) {
    }
    for (int off = 16; off > 0; off /= 2) sum += __shfl_xor_sync(0xffffffffu, sum, off);
    // Read once more after the delay: a stage refilled too early shows here.
    std::uint32_t again = 0;
    for (int i = lane; i < kBox; i += 32) again += shared.data[read.index()][i] * static_cast<std::uint32_t>(i + 1);
    for (int off = 16; off > 0; off /= 2) again += __shfl_xor_sync(0xffffffffu, again, off);
    if (lane == 0) sums[b * kConsumers + warp] = sum == again ? sum : 0xDEADBEEFu;
    __syncwarp();
    if (lane == 0) pipe.consumer_release(read);
  }
}

template <int S>
void run_pipeline() {
  REQUIRE_GPU();
  std::vector<std::uint32_t> host(kBoxes * kBox);
  for (std::size_t i = 0; i < host.size(); ++i) host[i] = static_cast<std::uint32_t>(i * 2654435761u + 12345u);
  std::uint32_t *src = nullptr, *sums = nullptr;
  CUDA_CHECK(cudaMalloc(&src, host.size() * 4));
  CUDA_CHECK(cudaMalloc(&sums, kBoxes * kConsumers * 4));
  CUDA_CHECK(cudaMemcpy(src, host.data(), host.size() * 4, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemset(sums, 0x5A, kBoxes * kConsumers * 4));  // poison
  arch::sm90::TensorMapSpec spec;
  spec.dtype = CU_TENSOR_MAP_DATA_TYPE_UINT32;
  spec.rank = 1;
  spec.global_address = src;
  spec.global_dim = {static_cast<std::uint64_t>(kBoxes * kBox)};
  spec.box_dim = {kBox};
  CUtensorMap map;
  const arch::sm90::TensorMapStatus st = arch::sm90::encode_tiled(map, spec);
  ASSERT_TRUE(st.ok()) << st.message;
  pipeline_kernel<S><<<1, 32 * (kConsumers + 1)>>>(map, sums);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<std::uint32_t> got(kBoxes * kConsumers);
  CUDA_CHECK(cudaMemcpy(got.data(), sums, got.size() * 4, cudaMemcpyDeviceToHost));
  for (int b = 0; b < kBoxes; ++b) {
    std::uint32_t want = 0;
    for (int i = 0; i < kBox; ++i)
      want += host[static_cast<std::size_t>(b * kBox + i)] * static_cast<std::uint32_t>(i + 1);
    for (int w = 0; w < kConsumers; ++w)
      ASSERT_EQ(got[static_cast<std::size_t>(b * kConsumers + w)], want) << "S=" << S << " box " << b << " warp " << w;
  }
  CUDA_CHECK(cudaFree(src));
  CUDA_CHECK(cudaFree(sums));
}

}  // namespace

TEST(Pipeline, OneStage) { run_pipeline<1>(); }
TEST(Pipeline, TwoStages) { run_pipeline<2>(); }
TEST(Pipeline, ThreeStages) { run_pipeline<3>(); }
TEST(Pipeline, FourStages) { run_pipeline<4>(); }
