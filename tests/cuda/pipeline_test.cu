// GPU test of kernels/blocks/pipeline_sm90.cuh: a TMA producer and four
// consumer warps pass 96 boxes through a ring of S stages.  Each consumer
// sums every box, with a different delay per warp and box, so the producer
// must wait on `empty` for the slowest warp: a stage overwritten before every
// consumer released it, or read before its bytes landed, gives a wrong sum.
// Also the round parity after the ring wraps many times (96 boxes over 1..4
// stages), the producer's first round (a wait on fresh barriers), and a
// cluster of two CTAs that multicast into each other's stages.
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

// ---------------------------------------------------------------- clusters
//
// Two CTAs of a cluster share every stage: CTA r loads rows [32r, 32r+32) of
// each 64x64 box with one multicast TMA load into both CTAs, so each CTA's
// stage is filled half by itself and half by its peer.  A stage may be
// refilled only when the consumers of *both* CTAs are done with it: each
// consumer warp releases it locally and in the peer (consumer_release_cluster),
// and each empty barrier counts the four warps of the cluster.
constexpr int kClusterBoxes = 48;
constexpr int kClusterStages = 2;
constexpr int kClusterConsumers = 2;  // warps 0, 1 of each CTA; warp 2 produces

struct ClusterShared {
  alignas(128) std::uint16_t data[kClusterStages][64 * 64];
  blocks::PipelineStorage<kClusterStages> pipe;
};

__global__ void __cluster_dims__(2, 1, 1)
    cluster_pipeline_kernel(const __grid_constant__ CUtensorMap map, std::uint32_t* sums) {
  __shared__ ClusterShared shared;
  const blocks::TmaPipeline<kClusterStages> pipe(shared.pipe);
  const int warp = static_cast<int>(threadIdx.x) / 32, lane = static_cast<int>(threadIdx.x) % 32;
  const std::uint32_t rank = arch::sm90::cluster_ctarank(), peer = rank ^ 1u;
  const int cluster = static_cast<int>(blockIdx.x) / 2;
  if (threadIdx.x == 0) pipe.init(2 * kClusterConsumers);  // the consumer warps of both CTAs
  arch::sm90::cluster_sync();  // the peer's multicasts and releases find initialized barriers
  if (warp == kClusterConsumers) {
    if (lane == 0) {
      typename blocks::TmaPipeline<kClusterStages>::State write;
      for (int b = 0; b < kClusterBoxes; ++b, ++write) {
        pipe.producer_acquire(write, 64 * 64 * 2);  // both halves land on this CTA's full barrier
        const int row = (cluster * kClusterBoxes + b) * 64 + 32 * static_cast<int>(rank);
        arch::sm90::tma_load_multicast(arch::smem_addr(shared.data[write.index()] + 32 * 64 * rank), &map,
                                       pipe.full(write.index()), 0x3, 0, row);
      }
    }
  } else {
    typename blocks::TmaPipeline<kClusterStages>::State read;
    for (int b = 0; b < kClusterBoxes; ++b, ++read) {
      pipe.consumer_wait(read);
      std::uint32_t sum = 0;
      for (int i = lane; i < 64 * 64; i += 32) sum += shared.data[read.index()][i] * static_cast<std::uint32_t>(i + 1);
      const long long until = clock64() + 3000 * ((b * 5 + warp + 3 * static_cast<int>(rank)) % 4);
      while (clock64() < until) {
      }
      std::uint32_t again = 0;
      for (int i = lane; i < 64 * 64; i += 32)
        again += shared.data[read.index()][i] * static_cast<std::uint32_t>(i + 1);
      for (int off = 16; off > 0; off /= 2) {
        sum += __shfl_xor_sync(0xffffffffu, sum, off);
        again += __shfl_xor_sync(0xffffffffu, again, off);
      }
      if (lane == 0)
        sums[(static_cast<int>(blockIdx.x) * kClusterBoxes + b) * kClusterConsumers + warp] =
            sum == again ? sum : 0xDEADBEEFu;
      __syncwarp();
      if (lane == 0) {
        pipe.consumer_release(read);
        pipe.consumer_release_cluster(read, peer);
      }
    }
  }
  arch::sm90::cluster_sync();  // no CTA leaves while its peer may still write into it or arrive on its barriers
}

}  // namespace

TEST(Pipeline, ClusterOfTwoSharesEveryStage) {
  REQUIRE_GPU();
  constexpr int kClusters = 2, kCtas = 2 * kClusters;
  const std::size_t elems = static_cast<std::size_t>(kClusters) * kClusterBoxes * 64 * 64;
  std::vector<std::uint16_t> host(elems);
  for (std::size_t i = 0; i < elems; ++i) host[i] = static_cast<std::uint16_t>(i * 40503u + 7u);
  std::uint16_t* src = nullptr;
  std::uint32_t* sums = nullptr;
  const std::size_t nsums = static_cast<std::size_t>(kCtas) * kClusterBoxes * kClusterConsumers;
  CUDA_CHECK(cudaMalloc(&src, elems * 2));
  CUDA_CHECK(cudaMalloc(&sums, nsums * 4));
  CUDA_CHECK(cudaMemcpy(src, host.data(), elems * 2, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemset(sums, 0x5A, nsums * 4));  // poison
  arch::sm90::TensorMapSpec spec;
  spec.dtype = CU_TENSOR_MAP_DATA_TYPE_UINT16;
  spec.rank = 2;
  spec.global_address = src;
  spec.global_dim = {64, static_cast<std::uint64_t>(kClusters) * kClusterBoxes * 64};
  spec.global_stride_bytes = {0, 64 * 2};
  spec.box_dim = {64, 32};
  CUtensorMap map;
  const arch::sm90::TensorMapStatus st = arch::sm90::encode_tiled(map, spec);
  ASSERT_TRUE(st.ok()) << st.message;
  cluster_pipeline_kernel<<<kCtas, 32 * (kClusterConsumers + 1)>>>(map, sums);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<std::uint32_t> got(nsums);
  CUDA_CHECK(cudaMemcpy(got.data(), sums, nsums * 4, cudaMemcpyDeviceToHost));
  for (int cta = 0; cta < kCtas; ++cta)
    for (int b = 0; b < kClusterBoxes; ++b) {
      std::uint32_t want = 0;
      const std::size_t base = (static_cast<std::size_t>(cta / 2) * kClusterBoxes + b) * 64 * 64;
      for (int i = 0; i < 64 * 64; ++i) want += host[base + i] * static_cast<std::uint32_t>(i + 1);
      for (int w = 0; w < kClusterConsumers; ++w)
        ASSERT_EQ(got[(static_cast<std::size_t>(cta) * kClusterBoxes + b) * kClusterConsumers + w], want)
            << "CTA " << cta << " box " << b << " warp " << w;
    }
  CUDA_CHECK(cudaFree(src));
  CUDA_CHECK(cudaFree(sums));
}

TEST(Pipeline, OneStage) { run_pipeline<1>(); }
TEST(Pipeline, TwoStages) { run_pipeline<2>(); }
TEST(Pipeline, ThreeStages) { run_pipeline<3>(); }
TEST(Pipeline, FourStages) { run_pipeline<4>(); }
