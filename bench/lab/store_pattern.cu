// bench/lab/store_pattern.cu — how fast can TMA stores alone write a strided
// batch's D?  Issue 13's batch 32 x 2048 x 2048 x 128 writes 268 MB of bf16 D
// and reads 34 MB; cuBLASLt takes ~113 us for all of it (72-74 % of the DRAM
// peak under ncu), k15's batched kernel ~116-120 us.  This program takes the
// matrix products away and times the stores only, in k15's pattern and in
// others, and then the stores with the loads of A and B (move_units below),
// so that the data movement's own ceiling is known before the kernel is
// changed (docs/batched.md).
//
// D is one tall row-major bf16 matrix (32 x 2048 rows, 2048 columns), cut
// into 128 x 128 tiles (8192 units); 132 persistent CTAs take units
// blockIdx.x, +132, ... as k15's GroupScheduler does.  Per unit an issuing
// thread waits until one of its `nb` staging buffers has been read
// (cp.async.bulk.wait_group.read), optionally spins `spin` cycles (a stand-in
// for the tile's MMAs), then stores the tile as chunks of `box` columns:
//   box 64  : 2 chunks of 128 rows x 128 bytes, 128-byte swizzle (k15's epilogue)
//   box 128 : 1 chunk of 128 rows x 256 bytes, no swizzle
// with `issuers` threads per CTA (k15: 2, one per consumer warpgroup, units
// alternating) and an optional L2 evict_first policy on the stores.
// References: cudaMemsetAsync of D, and a kernel of 16-byte st.global.
// Each variant: D poisoned, 3 warm-up launches, then 15 timed launches, each
// after a 160 MB read that leaves no dirty line of D in L2; median reported;
// afterwards every element of D is checked to hold the stored value.
//   nvcc -std=c++20 -O2 -gencode=arch=compute_90a,code=sm_90a -I include -o /tmp/store_pattern \
//     bench/lab/store_pattern.cu && /tmp/store_pattern [move|pairs [launches]]
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "tessel/arch/sm90.hpp"
#include "tessel/arch/sm90_tensor_map.hpp"

namespace sm90 = tessel::arch::sm90;

#define CHECK(x)                                                                              \
  do {                                                                                        \
    cudaError_t e_ = (x);                                                                     \
    if (e_ != cudaSuccess) {                                                                  \
      std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
      std::exit(1);                                                                           \
    }                                                                                         \
  } while (0)

constexpr int kRows = 32 * 2048, kCols = 2048, kTile = 128;
constexpr int kTilesN = kCols / kTile, kUnits = (kRows / kTile) * kTilesN;
constexpr unsigned short kValue = 0x3F80;  // bf16 1.0

struct Variant {
  int box;      // chunk columns: 64 (swizzled) or 128 (unswizzled)
  int nb;       // staging buffers per issuer
  int issuers;  // issuing threads per CTA (warps 0 and 4)
  int hint;     // 1: L2 evict_first on the stores
  int spin;     // cycles per unit before its stores
  int order;    // 0: units along N first (k15), 1: along M first within a batch
};

__device__ __forceinline__ void store_hint(const CUtensorMap* map, std::uint32_t src, int c0, int c1,
                                           std::uint64_t policy) {
  asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group.L2::cache_hint [%0, {%2, %3}], [%1], %4;\n" ::"l"(
                   reinterpret_cast<std::uint64_t>(map)),
               "r"(src), "r"(c0), "r"(c1), "l"(policy)
               : "memory");
}

template <int NB>
__device__ void wait_buffers() {
  sm90::bulk_wait_group_read<NB - 1>();
}

template <int NB>
__global__ void __launch_bounds__(256, 1) store_units(const __grid_constant__ CUtensorMap map, Variant v) {
  extern __shared__ __align__(1024) unsigned char smem[];
  const int chunk_bytes = kTile * v.box * 2, chunks = kTile / v.box;
  const int issuer = threadIdx.x == 0 ? 0 : (threadIdx.x == 128 && v.issuers == 2 ? 1 : -1);
  // Every staging byte holds the value (the content is uniform, so the swizzle does not matter).
  auto* s = reinterpret_cast<unsigned short*>(smem);
  for (int i = threadIdx.x; i < v.issuers * NB * chunk_bytes / 2; i += blockDim.x) s[i] = kValue;
  sm90::fence_proxy_async_shared_cta();
  __syncthreads();
  if (issuer < 0) return;
  std::uint64_t policy = 0;
  asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;\n" : "=l"(policy));
  const std::uint32_t base = sm90::smem_addr(smem) + static_cast<std::uint32_t>(issuer * NB * chunk_bytes);
  int slot = 0;
  int i = 0;
  for (int u = static_cast<int>(blockIdx.x); u < kUnits; u += static_cast<int>(gridDim.x), ++i) {
    if (i % v.issuers != issuer) continue;
    int tm, tn;
    if (v.order == 0) {
      tm = u / kTilesN, tn = u % kTilesN;
    } else {
      const int per_batch = kTilesN * kTilesN, b = u / per_batch, l = u % per_batch;
      tm = b * kTilesN + l % kTilesN, tn = l / kTilesN;
    }
    if (v.spin > 0) {
      const long long t0 = clock64();
      while (clock64() - t0 < v.spin) {
      }
    }
    for (int q = 0; q < chunks; ++q) {
      wait_buffers<NB>();
      const std::uint32_t src = base + static_cast<std::uint32_t>(slot * chunk_bytes);
      slot = (slot + 1) % NB;
      const int c0 = tn * kTile + q * v.box, c1 = tm * kTile;
      if (v.hint)
        store_hint(&map, src, c0, c1, policy);
      else
        sm90::tma_store(&map, src, c0, c1);
      sm90::bulk_commit_group();
    }
  }
  sm90::bulk_wait_group<0>();
}

// The data movement of k15's batched kernel without its math (move_units<NB,
// S, UM, ISS>): units of UM x 128 (UM = 128: k15's; 256: cuBLASLt's tile); a
// producer thread TMA-loads each unit's two k-tiles of A (64 x UM per
// k-tile) and B (64 x 128 as two 64 x 64 boxes) into a ring of S stages;
// with ISS = 2 issuer i (thread 128 i) takes units i, i + 2, ... of its CTA
// and the two hand the ring over by k15's turn, with ISS = 1 thread 0 takes
// them all.  An issuer waits for each k-tile, spins `spin` / 2 cycles (the
// stand-in for the wgmmas and the conversion), releases the stage and
// stores the unit's D as 128 x 64 chunks from NB staging buffers of its own.
// A: batch x 2048 rows x 128 (K contiguous), B: batch x 128 x 2048 (N
// contiguous), the bench's default layout A:k, B:n.
struct Maps {
  CUtensorMap a, b, d, a256;
};
template <int NB, int S, int UM, int ISS>
__global__ void __launch_bounds__(384, 1) move_units(const __grid_constant__ Maps maps, Variant v) {
  extern __shared__ __align__(1024) unsigned char smem[];
  // A unit is UM rows x 128 columns of D; its k-tile stage holds A (64 x UM) and B (64 x 128).
  constexpr int kStageBytes = (UM + 128) * 64 * 2, kChunkBytes = kTile * 64 * 2, kTilesM = 2048 / UM;
  constexpr int kMoveUnits = 32 * kTilesM * kTilesN;
  // The barriers after the staging: static shared memory would come first and break the 1024-byte alignment.
  auto* full = reinterpret_cast<unsigned long long*>(smem + S * kStageBytes + ISS * NB * kChunkBytes);
  unsigned long long* empty = full + S;
  // k15's turn: issuer i starts waiting for unit j's stages only after the
  // other issuer has passed unit j - 1's, so that no wait runs two phases
  // ahead of its barrier (a parity wait cannot tell phase p from p + 2).
  unsigned long long* turn = empty + S;
  const std::uint32_t ring = tessel::arch::smem_addr(smem), staging = ring + S * kStageBytes;
  auto* s = reinterpret_cast<unsigned short*>(smem + S * kStageBytes);
  for (int i = threadIdx.x; i < ISS * NB * kChunkBytes / 2; i += blockDim.x) s[i] = kValue;
  if (threadIdx.x == 0) {
    for (int i = 0; i < S; ++i) {
      sm90::mbarrier_init(tessel::arch::smem_addr(&full[i]), 1);
      sm90::mbarrier_init(tessel::arch::smem_addr(&empty[i]), 1);
    }
    for (int i = 0; i < 2; ++i) sm90::mbarrier_init(tessel::arch::smem_addr(&turn[i]), 1);
    sm90::fence_mbarrier_init();
  }
  sm90::fence_proxy_async_shared_cta();
  __syncthreads();
  const auto unit_tile = [&](int u, int& batch, int& tm, int& tn) {
    batch = u / (kTilesM * kTilesN);
    const int l = u % (kTilesM * kTilesN);
    tm = l / kTilesN, tn = l % kTilesN;
  };
  const CUtensorMap* map_a = UM == 128 ? &maps.a : &maps.a256;
  if (threadIdx.x == 256) {  // the producer
    int stage = 0, phase = 0;
    for (int u = static_cast<int>(blockIdx.x); u < kMoveUnits; u += static_cast<int>(gridDim.x)) {
      int batch, tm, tn;
      unit_tile(u, batch, tm, tn);
      for (int kt = 0; kt < 2; ++kt) {
        sm90::mbarrier_wait_parity(tessel::arch::smem_addr(&empty[stage]), phase ^ 1);
        const std::uint32_t f = tessel::arch::smem_addr(&full[stage]), dst = ring + stage * kStageBytes;
        sm90::mbarrier_arrive_expect_tx(f, kStageBytes);
        sm90::tma_load(dst, map_a, f, kt * 64, tm * UM, batch);
        sm90::tma_load(dst + UM * 128, &maps.b, f, tn * kTile, kt * 64, batch);
        sm90::tma_load(dst + UM * 128 + 8192, &maps.b, f, tn * kTile + 64, kt * 64, batch);
        if (++stage == S) stage = 0, phase ^= 1;
      }
    }
    return;
  }
  const int issuer = threadIdx.x == 0 ? 0 : threadIdx.x == 128 && ISS == 2 ? 1 : -1;
  if (issuer < 0) return;
  const std::uint32_t base = staging + static_cast<std::uint32_t>(issuer * NB * kChunkBytes);
  int stage = 0, phase = 0, slot = 0, i = 0;
  const int units = (kMoveUnits - 1 - static_cast<int>(blockIdx.x)) / static_cast<int>(gridDim.x) + 1;
  for (int u = static_cast<int>(blockIdx.x); u < kMoveUnits; u += static_cast<int>(gridDim.x), ++i) {
    if (i % ISS != issuer) {
      for (int kt = 0; kt < 2; ++kt)
        if (++stage == S) stage = 0, phase ^= 1;
      continue;
    }
    if (ISS == 2 && i > 0) sm90::mbarrier_wait_parity(tessel::arch::smem_addr(&turn[1 - issuer]), ((i - 1) / 2) & 1);
    for (int kt = 0; kt < 2; ++kt) {
      sm90::mbarrier_wait_parity(tessel::arch::smem_addr(&full[stage]), phase);
      if (v.spin > 0) {
        const long long t0 = clock64();
        while (clock64() - t0 < v.spin / 2) {
        }
      }
      sm90::mbarrier_arrive(tessel::arch::smem_addr(&empty[stage]));
      if (++stage == S) stage = 0, phase ^= 1;
    }
    if (ISS == 2 && i + 1 < units) sm90::mbarrier_arrive(tessel::arch::smem_addr(&turn[issuer]));
    int batch, tm, tn;
    unit_tile(u, batch, tm, tn);
    for (int h = 0; h < UM / kTile; ++h)
      for (int q = 0; q < 2; ++q) {
        wait_buffers<NB>();
        const std::uint32_t src = base + static_cast<std::uint32_t>(slot * kChunkBytes);
        slot = (slot + 1) % NB;
        sm90::tma_store(&maps.d, src, tn * kTile + q * 64, batch * 2048 + tm * UM + h * kTile);
        sm90::bulk_commit_group();
      }
  }
  sm90::bulk_wait_group<0>();
}

// Unit pairs, with and without B multicast: CTAs 2c and 2c + 1 take the two units of pair p (tile rows 2 pm and
// 2 pm + 1 of one batch and tile column), pairs c, c + 66, ...  Without
// multicast (MC = false) each CTA loads its own A and all of B, as
// move_units does, only in pair order.  With it (MC = true, clusters of 2)
// each CTA loads its A and one 64-column half of B into both CTAs of the
// cluster (k14's sharing), so the pair reads B from L2 once: 48 KB of L2
// reads per unit-pair k-tile instead of 64.  A stage's empty barrier then
// counts both CTAs' releases (its B half lives in the peer too), and every
// thread meets a cluster barrier after the barriers' init and before exit.
// Sizes at run time: D is batch x m rows by n columns (m a multiple of 256,
// n of 128); A and B as in move_units.
struct Dims {
  int m, n, batch;
};
__device__ __forceinline__ void tma_load_multicast_3d(std::uint32_t dst, const CUtensorMap* map, std::uint32_t bar,
                                                      std::uint16_t mask, int c0, int c1, int c2) {
  asm volatile(
      "cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster"
      " [%0], [%1, {%4, %5, %6}], [%2], %3;\n" ::"r"(dst),
      "l"(reinterpret_cast<std::uint64_t>(map)), "r"(bar), "h"(mask), "r"(c0), "r"(c1), "r"(c2)
      : "memory");
}
template <int NB, int S, bool MC>
__global__ void __launch_bounds__(384, 1) move_pairs(const __grid_constant__ Maps maps, Variant v, Dims dm) {
  extern __shared__ __align__(1024) unsigned char smem[];
  constexpr int kStageBytes = 32768, kChunkBytes = kTile * 64 * 2;
  auto* full = reinterpret_cast<unsigned long long*>(smem + S * kStageBytes + 2 * NB * kChunkBytes);
  unsigned long long* empty = full + S;
  unsigned long long* turn = empty + S;  // as move_units'
  const std::uint32_t ring = tessel::arch::smem_addr(smem), staging = ring + S * kStageBytes;
  auto* s = reinterpret_cast<unsigned short*>(smem + S * kStageBytes);
  for (int i = threadIdx.x; i < 2 * NB * kChunkBytes / 2; i += blockDim.x) s[i] = kValue;
  const unsigned rank = MC ? sm90::cluster_ctarank() : blockIdx.x % 2;
  if (threadIdx.x == 0) {
    for (int i = 0; i < S; ++i) {
      sm90::mbarrier_init(tessel::arch::smem_addr(&full[i]), 1);
      sm90::mbarrier_init(tessel::arch::smem_addr(&empty[i]), MC ? 2 : 1);
    }
    for (int i = 0; i < 2; ++i) sm90::mbarrier_init(tessel::arch::smem_addr(&turn[i]), 1);
    sm90::fence_mbarrier_init();
  }
  sm90::fence_proxy_async_shared_cta();
  __syncthreads();
  if constexpr (MC) sm90::cluster_sync();  // the peer's barriers exist before any multicast or remote arrive
  const int pairs_m = dm.m / 256, tiles_n = dm.n / kTile, pairs = dm.batch * pairs_m * tiles_n;
  const int first = static_cast<int>(blockIdx.x) / 2, step = static_cast<int>(gridDim.x) / 2;
  const auto pair_tile = [&](int p, int& batch, int& tm, int& tn) {
    batch = p / (pairs_m * tiles_n);
    const int l = p % (pairs_m * tiles_n);
    tm = 2 * (l / tiles_n) + static_cast<int>(rank), tn = l % tiles_n;
  };
  if (threadIdx.x == 256) {  // the producer
    int stage = 0, phase = 0;
    for (int p = first; p < pairs; p += step) {
      int batch, tm, tn;
      pair_tile(p, batch, tm, tn);
      for (int kt = 0; kt < 2; ++kt) {
        sm90::mbarrier_wait_parity(tessel::arch::smem_addr(&empty[stage]), phase ^ 1);
        const std::uint32_t f = tessel::arch::smem_addr(&full[stage]), dst = ring + stage * kStageBytes;
        sm90::mbarrier_arrive_expect_tx(f, kStageBytes);  // A, and both halves of B (one from the peer with MC)
        sm90::tma_load(dst, &maps.a, f, kt * 64, tm * kTile, batch);
        if constexpr (MC) {
          tma_load_multicast_3d(dst + 16384 + rank * 8192, &maps.b, f, 0x3, tn * kTile + static_cast<int>(rank) * 64,
                                kt * 64, batch);
        } else {
          sm90::tma_load(dst + 16384, &maps.b, f, tn * kTile, kt * 64, batch);
          sm90::tma_load(dst + 24576, &maps.b, f, tn * kTile + 64, kt * 64, batch);
        }
        if (++stage == S) stage = 0, phase ^= 1;
      }
    }
  } else if (threadIdx.x == 0 || threadIdx.x == 128) {
    const int issuer = static_cast<int>(threadIdx.x) / 128;
    const std::uint32_t base = staging + static_cast<std::uint32_t>(issuer * NB * kChunkBytes);
    int stage = 0, phase = 0, slot = 0, i = 0;
    const int units = first < pairs ? (pairs - 1 - first) / step + 1 : 0;
    for (int p = first; p < pairs; p += step, ++i) {
      if (i % 2 != issuer) {
        for (int kt = 0; kt < 2; ++kt)
          if (++stage == S) stage = 0, phase ^= 1;
        continue;
      }
      if (i > 0) sm90::mbarrier_wait_parity(tessel::arch::smem_addr(&turn[1 - issuer]), ((i - 1) / 2) & 1);
      for (int kt = 0; kt < 2; ++kt) {
        sm90::mbarrier_wait_parity(tessel::arch::smem_addr(&full[stage]), phase);
        if (v.spin > 0) {
          const long long t0 = clock64();
          while (clock64() - t0 < v.spin / 2) {
          }
        }
        const std::uint32_t e = tessel::arch::smem_addr(&empty[stage]);
        sm90::mbarrier_arrive(e);
        if constexpr (MC) sm90::mbarrier_arrive_cluster(sm90::mapa_shared(e, rank ^ 1u));
        if (++stage == S) stage = 0, phase ^= 1;
      }
      if (i + 1 < units) sm90::mbarrier_arrive(tessel::arch::smem_addr(&turn[issuer]));
      int batch, tm, tn;
      pair_tile(p, batch, tm, tn);
      for (int q = 0; q < 2; ++q) {
        wait_buffers<NB>();
        const std::uint32_t src = base + static_cast<std::uint32_t>(slot * kChunkBytes);
        slot = (slot + 1) % NB;
        sm90::tma_store(&maps.d, src, tn * kTile + q * 64, batch * dm.m + tm * kTile);
        sm90::bulk_commit_group();
      }
    }
    sm90::bulk_wait_group<0>();
  }
  if constexpr (MC) {
    __syncwarp();
    sm90::cluster_sync();  // no CTA exits while its peer may still multicast into it or arrive on its barriers
  }
}

__global__ void store_vec(uint4* d, size_t n) {
  const uint4 x{0x3F803F80u, 0x3F803F80u, 0x3F803F80u, 0x3F803F80u};
  for (size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x; i < n; i += size_t{gridDim.x} * blockDim.x) d[i] = x;
}

__global__ void read_flush(const uint4* f, size_t n, unsigned* sink) {
  unsigned acc = 0;
  for (size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x; i < n; i += size_t{gridDim.x} * blockDim.x)
    acc ^= f[i].x ^ f[i].w;
  if (acc == 0x12345678u) *sink = acc;  // keeps the reads
}

int main(int argc, char** argv) {
  // argv[1]: "move" runs only move_units, "pairs" only move_pairs (e.g. under
  // compute-sanitizer, with argv[2] launches).
  const bool only_move = argc > 1 && std::string(argv[1]) == "move";
  const bool only_pairs = argc > 1 && std::string(argv[1]) == "pairs";
  const int launches = argc > 2 ? std::atoi(argv[2]) : 18, warm = launches > 3 ? 3 : 0;
  const size_t d_bytes = size_t{kRows} * kCols * 2, f_bytes = size_t{160} << 20;
  void *d, *f;
  unsigned* sink;
  CHECK(cudaMalloc(&d, d_bytes));
  CHECK(cudaMalloc(&f, f_bytes));
  CHECK(cudaMalloc(&sink, 4));
  CHECK(cudaMemset(f, 1, f_bytes));
  int sms = 0;
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  cudaDeviceProp prop{};
  CHECK(cudaGetDeviceProperties(&prop, 0));
  std::printf("# %s, %d SMs; D %zu MB of bf16 (%d x %d), %d units of 128 x 128\n", prop.name, sms, d_bytes >> 20, kRows,
              kCols, kUnits);
  cudaEvent_t a, b;
  CHECK(cudaEventCreate(&a));
  CHECK(cudaEventCreate(&b));
  std::vector<unsigned short> host(size_t{kRows} * kCols);

  // `bytes` of D (0: all of it) are checked and counted.
  auto run = [&](const char* name, auto launch, bool verify = true, size_t bytes = 0) {
    if (bytes == 0) bytes = d_bytes;
    CHECK(cudaMemset(d, 0xFF, d_bytes));  // poison
    std::vector<float> t;
    for (int r = 0; r < launches; ++r) {
      read_flush<<<sms * 4, 512>>>(static_cast<const uint4*>(f), f_bytes / 16, sink);
      CHECK(cudaEventRecord(a));
      launch();
      CHECK(cudaEventRecord(b));
      CHECK(cudaEventSynchronize(b));
      CHECK(cudaGetLastError());
      float ms = 0;
      CHECK(cudaEventElapsedTime(&ms, a, b));
      if (r >= warm) t.push_back(ms);
    }
    size_t bad = 0;
    if (verify) {
      CHECK(cudaMemcpy(host.data(), d, bytes, cudaMemcpyDeviceToHost));
      bad = static_cast<size_t>(std::count_if(host.begin(), host.begin() + static_cast<std::ptrdiff_t>(bytes / 2),
                                              [](unsigned short x) { return x != kValue; }));
    }
    std::sort(t.begin(), t.end());
    const double med = t[t.size() / 2] * 1e3;
    std::printf("%-48s median %7.1f us  min %7.1f  %5.0f GB/s  %s\n", name, med, t.front() * 1e3,
                bytes / (med * 1e-6) / 1e9,
                !verify    ? "(not checked)"
                : bad == 0 ? "verified"
                           : "WRONG");
    if (bad != 0) std::printf("  %zu elements not written\n", bad);
  };

  if (!only_move && !only_pairs)
    run(
        "cudaMemsetAsync", [&] { CHECK(cudaMemsetAsync(d, 0x3F, d_bytes)); }, false);  // bytes, not the bf16 value
  if (!only_move && !only_pairs)
    run("st.global.v4, 132 x 8 CTAs of 256",
        [&] { store_vec<<<sms * 8, 256>>>(static_cast<uint4*>(d), d_bytes / 16); });

  auto tma = [&](const Variant& v) {
    tessel::arch::sm90::TensorMapSpec s;
    s.dtype = CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
    s.rank = 2;
    s.global_address = d;
    s.global_dim = {kCols, kRows};
    s.global_stride_bytes = {0, size_t{kCols} * 2};
    s.box_dim = {static_cast<std::uint32_t>(v.box), kTile};
    s.swizzle = v.box == 64 ? CU_TENSOR_MAP_SWIZZLE_128B : CU_TENSOR_MAP_SWIZZLE_NONE;
    CUtensorMap map;
    const auto st = tessel::arch::sm90::encode_tiled(map, s);
    if (!st.ok()) {
      std::printf("encode: %s\n", st.message.c_str());
      std::exit(1);
    }
    const int smem = v.issuers * v.nb * kTile * v.box * 2;
    char name[128];
    std::snprintf(name, sizeof name, "TMA box %3d nb %d issuers %d hint %d spin %4d order %s", v.box, v.nb, v.issuers,
                  v.hint, v.spin, v.order == 0 ? "N" : "M");
    auto go = [&](auto kernel) {
      CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
      run(name, [&] { kernel<<<sms, 256, smem>>>(map, v); });
    };
    switch (v.nb) {
      case 1:
        go(store_units<1>);
        break;
      case 2:
        go(store_units<2>);
        break;
      case 3:
        go(store_units<3>);
        break;
      case 4:
        go(store_units<4>);
        break;
      case 6:
        go(store_units<6>);
        break;
      default:
        std::printf("nb %d not built\n", v.nb);
    }
  };

  // k15's data movement without its math (move_units).
  void *a_buf, *bm;
  const size_t ab_bytes = size_t{32} * 2048 * 128 * 2;
  CHECK(cudaMalloc(&a_buf, ab_bytes));
  CHECK(cudaMalloc(&bm, ab_bytes));
  CHECK(cudaMemset(a_buf, 0x11, ab_bytes));
  CHECK(cudaMemset(bm, 0x22, ab_bytes));
  Maps maps{};
  {
    tessel::arch::sm90::TensorMapSpec s;
    s.rank = 3;
    s.swizzle = CU_TENSOR_MAP_SWIZZLE_128B;
    s.global_address = a_buf;
    s.global_dim = {128, 2048, 32};
    s.global_stride_bytes = {0, 128 * 2, size_t{2048} * 128 * 2};
    s.box_dim = {64, 128, 1};
    if (!tessel::arch::sm90::encode_tiled(maps.a, s).ok()) std::exit(2);
    s.box_dim = {64, 256, 1};
    if (!tessel::arch::sm90::encode_tiled(maps.a256, s).ok()) std::exit(2);
    s.global_address = bm;
    s.global_dim = {2048, 128, 32};
    s.global_stride_bytes = {0, 2048 * 2, size_t{2048} * 128 * 2};
    s.box_dim = {64, 64, 1};
    if (!tessel::arch::sm90::encode_tiled(maps.b, s).ok()) std::exit(2);
    s.rank = 2;
    s.global_address = d;
    s.global_dim = {kCols, kRows};
    s.global_stride_bytes = {0, size_t{kCols} * 2};
    s.box_dim = {64, kTile};
    if (!tessel::arch::sm90::encode_tiled(maps.d, s).ok()) std::exit(2);
  }
  auto move = [&](auto kernel, int nb, int stages, int um, int iss, int spin) {
    const int smem = stages * (um + 128) * 128 + iss * nb * kTile * 64 * 2 + 16 * stages + 16;
    Variant v{64, nb, iss, 0, spin, 0};
    char name[128];
    std::snprintf(name, sizeof name, "move: %3d x 128 units, %d stages, %d issuers, nb %d, spin %4d", um, stages, iss,
                  nb, spin);
    CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
    run(name, [&] { kernel<<<sms, 384, smem>>>(maps, v); });
  };
  for (int spin : {0, 1200}) {
    if (only_pairs) break;
    move(move_units<2, 5, 128, 2>, 2, 5, 128, 2, spin);  // k15 batched
    move(move_units<2, 3, 128, 2>, 2, 3, 128, 2, spin);
    move(move_units<2, 2, 128, 2>, 2, 2, 128, 2, spin);
    move(move_units<4, 5, 128, 1>, 4, 5, 128, 1, spin);
    move(move_units<4, 3, 128, 1>, 4, 3, 128, 1, spin);
    move(move_units<2, 4, 256, 1>, 2, 4, 256, 1, spin);  // cuBLASLt's 256 x 128, 4 stages
    move(move_units<4, 3, 256, 1>, 4, 3, 256, 1, spin);
    move(move_units<2, 2, 256, 2>, 2, 2, 256, 2, spin);
    move(move_units<2, 3, 256, 2>, 2, 3, 256, 2, spin);
  }
  // Unit pairs with and without B multicast (move_pairs), at three sizes
  // (8 x 2048 x 8192 is a batch of 64 tile columns; 3 stages is rule 11c's depth).
  for (const Dims dm : {Dims{2048, 2048, 32}, Dims{512, 512, 32}, Dims{2048, 8192, 8}}) {
    if (only_move) break;
    Maps pm{};
    tessel::arch::sm90::TensorMapSpec s;
    s.rank = 3;
    s.swizzle = CU_TENSOR_MAP_SWIZZLE_128B;
    s.global_address = a_buf;
    s.global_dim = {128, static_cast<std::uint64_t>(dm.m), static_cast<std::uint64_t>(dm.batch)};
    s.global_stride_bytes = {0, 128 * 2, size_t{128} * 2 * dm.m};
    s.box_dim = {64, kTile, 1};
    if (!tessel::arch::sm90::encode_tiled(pm.a, s).ok()) std::exit(2);
    s.global_address = bm;
    s.global_dim = {static_cast<std::uint64_t>(dm.n), 128, static_cast<std::uint64_t>(dm.batch)};
    s.global_stride_bytes = {0, size_t{2} * dm.n, size_t{2} * dm.n * 128};
    s.box_dim = {64, 64, 1};
    if (!tessel::arch::sm90::encode_tiled(pm.b, s).ok()) std::exit(2);
    s.rank = 2;
    s.global_address = d;
    s.global_dim = {static_cast<std::uint64_t>(dm.n), static_cast<std::uint64_t>(dm.batch) * dm.m};
    s.global_stride_bytes = {0, size_t{2} * dm.n};
    s.box_dim = {64, kTile};
    if (!tessel::arch::sm90::encode_tiled(pm.d, s).ok()) std::exit(2);
    const size_t bytes = size_t{2} * dm.batch * dm.m * dm.n;
    auto pairs = [&](auto kernel, int stages, bool mc, int spin) {
      const int smem = stages * 32768 + 2 * 2 * kTile * 64 * 2 + 16 * stages + 16;
      const Variant v{64, 2, 2, 0, spin, 0};
      char name[128];
      std::snprintf(name, sizeof name, "pairs %d x %dx%d: %d stages, %s, spin %4d", dm.batch, dm.m, dm.n, stages,
                    mc ? "B multicast" : "no cluster ", spin);
      CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
      run(
          name,
          [&] {
            cudaLaunchConfig_t cfg{};
            cfg.gridDim = dim3(static_cast<unsigned>(sms & ~1));
            cfg.blockDim = dim3(384);
            cfg.dynamicSmemBytes = static_cast<size_t>(smem);
            cudaLaunchAttribute attr[1];
            attr[0].id = cudaLaunchAttributeClusterDimension;
            attr[0].val.clusterDim.x = mc ? 2 : 1;
            attr[0].val.clusterDim.y = 1;
            attr[0].val.clusterDim.z = 1;
            cfg.attrs = attr;
            cfg.numAttrs = 1;
            CHECK(cudaLaunchKernelEx(&cfg, kernel, pm, v, dm));
          },
          true, bytes);
    };
    for (int spin : {0, 1200}) {
      pairs(move_pairs<2, 3, false>, 3, false, spin);
      pairs(move_pairs<2, 3, true>, 3, true, spin);
      pairs(move_pairs<2, 4, false>, 4, false, spin);
      pairs(move_pairs<2, 4, true>, 4, true, spin);
      pairs(move_pairs<2, 5, false>, 5, false, spin);
      pairs(move_pairs<2, 5, true>, 5, true, spin);
    }
  }
  // k15's epilogue: 2 issuers x 2 buffers of 16 KB, 128-byte chunks, no hint.
  for (int spin : {0, 1500}) {
    if (only_move || only_pairs) break;
    tma({64, 2, 2, 0, spin, 0});
    tma({64, 2, 2, 1, spin, 0});
    tma({64, 4, 2, 0, spin, 0});
    tma({64, 6, 2, 0, spin, 0});
    tma({64, 2, 2, 0, spin, 1});
    tma({128, 1, 2, 0, spin, 0});
    tma({128, 2, 2, 0, spin, 0});
    tma({128, 3, 2, 0, spin, 0});
    tma({64, 4, 1, 0, spin, 0});
  }
  return 0;
}
