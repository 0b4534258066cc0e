// GPU tests of the Hopper synchronization and warp-specialization wrappers
// (tessel/arch/sm90.hpp; docs/hardware.md §11, §13, §14), skipped with a message
// where no sm_90 device is present: mbarrier phases, elect.sync with a full
// and a partial mask, the setmaxnreg register split of a producer and two
// consumer warpgroups, and a 2-CTA cluster's multicast TMA load and remote
// mbarrier arrives.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <vector>

#include "sm90_test_util.hpp"

// ================================================================ mbarrier, elect.sync, setmaxnreg

namespace {

/// 128 threads write a slot, arrive, wait for the phase, and check every slot
/// (release/acquire through the barrier), for several phases of one barrier.
__global__ void __launch_bounds__(128) mbarrier_phases(int* ok, int phases) {
  __shared__ alignas(8) std::uint64_t bar_storage;
  __shared__ int slots[128];
  const std::uint32_t bar = sm90::smem_addr(&bar_storage);
  const int t = static_cast<int>(threadIdx.x);
  if (t == 0) {
    sm90::mbarrier_init(bar, 128);
    sm90::fence_mbarrier_init();
  }
  __syncthreads();
  for (int p = 0; p < phases; ++p) {
    slots[t] = 1000 * p + t;
    sm90::mbarrier_arrive(bar);
    sm90::mbarrier_wait_parity(bar, static_cast<std::uint32_t>(p & 1));
    int good = 1;
    for (int j = 0; j < 128; ++j) good &= slots[j] == 1000 * p + j ? 1 : 0;
    ok[p * 128 + t] = good;
    __syncthreads();  // every check of phase p is done before phase p+1 writes
  }
}

/// Per lane: elected with the full mask; elected with lanes 5..31 only (-1:
/// lane not in the mask).
__global__ void elect_lanes(int* full, int* partial) {
  const int t = static_cast<int>(threadIdx.x);
  full[t] = sm90::elect_one_sync() ? 1 : 0;
  int p = -1;
  if (t % 32 >= 5) p = sm90::elect_one_sync(0xFFFFFFE0u) ? 1 : 0;
  partial[t] = p;
}

/// The §13 budget: 384 threads launched at 168 registers; the producer
/// warpgroup gives registers back (40), the two consumers take them (232).
__global__ void __launch_bounds__(384, 1) setmaxnreg_split(int* out) {
  const int wg = static_cast<int>(threadIdx.x) / 128;
  if (wg == 0)
    sm90::setmaxnreg_dec<40>();
  else
    sm90::setmaxnreg_inc<232>();
  out[threadIdx.x] = wg + 1;
}

}  // namespace

TEST(Mbarrier, ArriveAndWaitOverPhases) {
  REQUIRE_SM90();
  constexpr int kPhases = 5;
  DeviceArray<int> ok(kPhases * 128);
  ASSERT_NE(ok.ptr, nullptr);
  CUDA_CHECK(ok.fill_bytes(0xFF));
  mbarrier_phases<<<1, 128>>>(ok.ptr, kPhases);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<int> h;
  CUDA_CHECK(ok.download(h));
  for (int i = 0; i < kPhases * 128; ++i)
    ASSERT_EQ(h[static_cast<std::size_t>(i)], 1) << "phase " << i / 128 << " thread " << i % 128;
}

TEST(ElectSync, ExactlyOneLanePerWarp) {
  REQUIRE_SM90();
  DeviceArray<int> full(128), partial(128);
  ASSERT_TRUE(full.ptr && partial.ptr);
  CUDA_CHECK(full.fill_bytes(0x7F));
  CUDA_CHECK(partial.fill_bytes(0x7F));
  elect_lanes<<<1, 128>>>(full.ptr, partial.ptr);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<int> f, p;
  CUDA_CHECK(full.download(f));
  CUDA_CHECK(partial.download(p));
  for (int w = 0; w < 4; ++w) {
    int nf = 0, np = 0, lf = -1, lp = -1;
    for (int l = 0; l < 32; ++l) {
      const std::size_t i = static_cast<std::size_t>(32 * w + l);
      ASSERT_TRUE(f[i] == 0 || f[i] == 1) << "lane " << l << " not written";
      if (f[i] == 1) {
        ++nf;
        lf = l;
      }
      if (l < 5) {
        ASSERT_EQ(p[i], -1) << "lane " << l << " is outside the mask";
      } else {
        ASSERT_TRUE(p[i] == 0 || p[i] == 1) << "lane " << l << " not written";
        if (p[i] == 1) {
          ++np;
          lp = l;
        }
      }
    }
    EXPECT_EQ(nf, 1) << "warp " << w << ", full mask";
    EXPECT_EQ(np, 1) << "warp " << w << ", mask 0xffffffe0";
    if (w == 0)
      std::printf("elect.sync winners (not promised by the ISA): full mask lane %d, mask 0xffffffe0 lane %d\n", lf, lp);
  }
}

TEST(Setmaxnreg, ProducerGivesConsumersTake) {
  REQUIRE_SM90();
  cudaFuncAttributes attr{};
  CUDA_CHECK(cudaFuncGetAttributes(&attr, setmaxnreg_split));
  // The budget needs the kernel launched at >= 168 registers per thread
  // (128*40 + 256*232 <= 384 * launch count); ptxas decides that count.
  if (attr.numRegs * 384 < 128 * 40 + 256 * 232)
    GTEST_SKIP() << "setmaxnreg_split was compiled for " << attr.numRegs
                 << " registers per thread, too few for the 40/232/232 split";
  DeviceArray<int> out(384);
  ASSERT_NE(out.ptr, nullptr);
  CUDA_CHECK(out.fill_bytes(0));
  setmaxnreg_split<<<1, 384>>>(out.ptr);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<int> h;
  CUDA_CHECK(out.download(h));
  for (int i = 0; i < 384; ++i) ASSERT_EQ(h[static_cast<std::size_t>(i)], i / 128 + 1) << "thread " << i;
  std::printf("setmaxnreg_split: launched at %d registers per thread\n", attr.numRegs);
}

// ================================================================ clusters (§14)

/// Two clusters of 2 CTAs.  CTA r of cluster c loads rows [32r, 32r+32) of
/// the cluster's 64-row block with one multicast TMA load into both CTAs, so
/// each CTA must end up with the whole block; then each CTA arrives on its
/// own and on its peer's `empty` barrier (count 2), which completes only when
/// the peer's remote arrival came.
__global__ void __cluster_dims__(2, 1, 1) __launch_bounds__(32)
    cluster_multicast(const __grid_constant__ CUtensorMap in, std::uint16_t* out, int* info) {
  __shared__ alignas(8) std::uint64_t bars[2];
  extern __shared__ std::uint8_t smem_raw[];
  const std::uint32_t raw = sm90::smem_addr(smem_raw);
  auto* buf = reinterpret_cast<std::uint16_t*>(smem_raw + (((raw + 1023u) & ~1023u) - raw));  // (64, 64)
  const std::uint32_t full = sm90::smem_addr(&bars[0]), empty = sm90::smem_addr(&bars[1]);
  const int t = static_cast<int>(threadIdx.x);
  const std::uint32_t rank = sm90::cluster_ctarank(), peer = rank ^ 1u;
  const int cluster = static_cast<int>(blockIdx.x) / 2;
  for (int i = t; i < 64 * 64; i += 32) buf[i] = 0xFFFF;
  sm90::fence_proxy_async_shared_cta();
  if (t == 0) {
    sm90::mbarrier_init(full, 1);
    sm90::mbarrier_init(empty, 2);
    sm90::fence_mbarrier_init();
  }
  sm90::cluster_sync();  // the peer's multicast and arrive find initialized barriers
  if (sm90::elect_one_sync()) {
    sm90::mbarrier_arrive_expect_tx(full, 64 * 64 * 2);  // both halves land here
    sm90::tma_load_multicast(sm90::smem_addr(buf + 32 * 64 * rank), &in, full, 0x3, 0,
                             cluster * 64 + 32 * static_cast<int>(rank));
  }
  const bool loaded = wait_bounded(full, 0);
  for (int i = t; i < 64 * 64; i += 32) out[blockIdx.x * 64 * 64 + i] = buf[i];
  __syncwarp();
  if (t == 0) {
    sm90::mbarrier_arrive(empty);
    sm90::mbarrier_arrive_cluster(sm90::mapa_shared(empty, peer));
  }
  const bool released = wait_bounded(empty, 0);
  if (t == 0) {
    info[3 * blockIdx.x + 0] = static_cast<int>(rank);
    info[3 * blockIdx.x + 1] = loaded ? 1 : 0;
    info[3 * blockIdx.x + 2] = released ? 1 : 0;
  }
  sm90::cluster_sync();  // no CTA leaves while its peer may still arrive on its barrier
}

TEST(Cluster, MulticastLoadAndRemoteArrive) {
  REQUIRE_SM90();
  constexpr int kRows = 128, kCols = 64;
  std::vector<std::uint16_t> h(kRows * kCols);
  for (int i = 0; i < kRows * kCols; ++i) h[static_cast<std::size_t>(i)] = static_cast<std::uint16_t>(i * 7 + 1);
  DeviceArray<std::uint16_t> in(h.size()), out(4 * 64 * 64);
  DeviceArray<int> info(12);
  ASSERT_NE(in.ptr, nullptr);
  ASSERT_NE(out.ptr, nullptr);
  ASSERT_NE(info.ptr, nullptr);
  CUDA_CHECK(in.upload(h));
  CUDA_CHECK(out.fill_bytes(0));
  CUDA_CHECK(info.fill_bytes(0xFF));
  TensorMapSpec spec;
  spec.dtype = CU_TENSOR_MAP_DATA_TYPE_UINT16;
  spec.rank = 2;
  spec.global_address = in.ptr;
  spec.global_dim = {kCols, kRows, 1, 1, 1};
  spec.global_stride_bytes = {0, kCols * 2, 0, 0, 0};
  spec.box_dim = {64, 32, 1, 1, 1};
  CUtensorMap map;
  const TensorMapStatus st = arch::sm90::encode_tiled(map, spec);
  ASSERT_TRUE(st.ok()) << st.message;
  const int smem = 64 * 64 * 2 + 1024;
  CUDA_CHECK(cudaFuncSetAttribute(cluster_multicast, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  cluster_multicast<<<4, 32, smem>>>(map, out.ptr, info.ptr);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<std::uint16_t> got;
  std::vector<int> inf;
  CUDA_CHECK(out.download(got));
  CUDA_CHECK(info.download(inf));
  for (int b = 0; b < 4; ++b) {
    EXPECT_EQ(inf[static_cast<std::size_t>(3 * b)], b % 2) << "CTA " << b << ": %cluster_ctarank";
    EXPECT_EQ(inf[static_cast<std::size_t>(3 * b + 1)], 1) << "CTA " << b << ": the multicast halves did not complete";
    EXPECT_EQ(inf[static_cast<std::size_t>(3 * b + 2)], 1) << "CTA " << b << ": the peer's remote arrive never came";
    int bad = 0;
    for (int i = 0; i < 64 * 64; ++i) {
      const std::uint16_t want = h[static_cast<std::size_t>((b / 2) * 64 * 64 + i)];
      const std::uint16_t g = got[static_cast<std::size_t>(b * 64 * 64 + i)];
      if (g != want && bad++ < 5)
        ADD_FAILURE() << "CTA " << b << " element (" << i / 64 << "," << i % 64 << "): " << g << ", want " << want;
    }
  }
}
