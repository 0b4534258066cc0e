// tessel/kernels/gemm/small_m_stream.cuh — D = alpha A B + beta C for small M
// (at most 64 rows) with A:k and B:n: the call is B's stream from DRAM, and
// this kernel reads B's rows whatever their alignment, so no padded copy of B
// doubles the stream where N is not a multiple of 8.
//
// The idea: each k-tile of B (64 rows of the CTA's 128 columns) and of A (M
// rows of 64) is fetched by cp.async as the 16-byte aligned chunks that cover
// each row (a row that starts 2j bytes into a chunk takes one chunk more), so
// every request is aligned and consecutive threads read consecutive chunks.
// Where the rows are whole chunks (leading dimensions multiples of 8, bases
// 16-byte aligned) the warps read their fragments by ldmatrix (B transposed);
// elsewhere element by element from each row's offset in its first chunk.
// The products are mma.sync m16n8k16 with the roles swapped: B^T's 16 columns
// of N are the instruction's M, A's rows its N (8 per instruction), so M = 1
// costs one instruction per 16 x 16 of B.  Eight warps: four 16-row k-slices
// of the k-tile times two 64-column halves; the slices are summed in order
// through shared memory at the end.  K is split over blockIdx.y: each split
// writes its fp32 partial tile and the last to arrive sums them in split
// order (the same bits on every call) and writes D.
//
// Why not k13 swapped: there, a B whose rows TMA cannot read (ldb not a
// multiple of 8) is copied first, reading and writing B once more.
#pragma once

#include <cstdint>

#include "tessel/arch/sm80.hpp"
#include "tessel/kernels/gemm/common.cuh"

namespace tessel::gemm_kernels::small_m {

inline constexpr int kBN = 128;                    // columns of N per CTA
inline constexpr int kBK = 64;                     // rows of K per k-tile
inline constexpr int kThreads = 256;               // 4 k-slices x 2 column halves
inline constexpr int kChunksB = kBN * 2 / 16 + 1;  // 16-byte chunks covering a B row of 128 at any offset
inline constexpr int kChunksA = kBK * 2 / 16 + 1;  // ... an A row of 64
inline constexpr int kPitchB = kChunksB * 16;      // 272 bytes: 8 rows of a ldmatrix fall in distinct banks
inline constexpr int kPitchA = kChunksA * 16;      // 144 bytes, likewise
inline constexpr int kRedPitch = kBN + 4;          // floats: the slices' sums stored without bank conflicts

/// Shared memory of a CTA with MT rows of A (8, 16, 32, 64) and `stages` k-tiles in flight.
TESSEL_HD constexpr int stage_bytes(int mt) { return kBK * kPitchB + mt * kPitchA; }
TESSEL_HD constexpr int smem_bytes(int mt, int stages) {
  const int pipe = stages * stage_bytes(mt), red = 4 * mt * kRedPitch * 4;
  return pipe > red ? pipe : red;
}

/// Split K: `splits` ranges of `tiles_per_split` k-tiles; with more than one,
/// `partials` holds splits x MT x 128 floats per column tile and `counters`
/// one zeroed int per column tile (the last arrival sets it back to zero).
struct SplitK {
  float* partials = nullptr;
  int* counters = nullptr;
  int splits = 1;
  int tiles_per_split = 0;
};

namespace detail {
__device__ __forceinline__ const char* floor16(const char* p) {
  return reinterpret_cast<const char*>(reinterpret_cast<std::uintptr_t>(p) & ~std::uintptr_t{15});
}
__device__ __forceinline__ int offset16(const char* p) {
  return static_cast<int>(reinterpret_cast<std::uintptr_t>(p) & 15);
}
__device__ __forceinline__ std::uint16_t ld16(const unsigned char* p) {
  return *reinterpret_cast<const std::uint16_t*>(p);
}
__device__ __forceinline__ std::uint32_t pack(std::uint16_t lo, std::uint16_t hi) {
  return std::uint32_t{lo} | (std::uint32_t{hi} << 16);
}
template <class T>
__device__ __forceinline__ void mma(float (&d)[4], const std::uint32_t (&a)[4], const std::uint32_t (&b)[2]) {
  if constexpr (std::is_same_v<T, __nv_bfloat16>)
    arch::sm80::mma_m16n8k16_f32_bf16(d, a, b, d);
  else
    arch::sm80::mma_m16n8k16_f32_f16(d, a, b, d);
}
}  // namespace detail

/// The kernel: grid (ceil(N / 128), splits), kThreads threads, smem_bytes(MT, Stages) of dynamic shared memory.
/// kAligned: lda and ldb multiples of 8 and A, B 16-byte aligned (the launcher decides).
template <class T, int MT, int Stages, bool kAligned>
__global__ void __launch_bounds__(kThreads, MT <= 32 ? 2 : 1) gemm_small_m(Params<T> p, SplitK sk) {
  static_assert(MT == 8 || MT == 16 || MT == 32 || MT == 64, "MT: 8, 16, 32 or 64 rows of A");
  constexpr int NB = MT / 8;  // mma instructions along A's rows
  constexpr int kBBytes = kBK * kPitchB, kStage = stage_bytes(MT);
  // Whole-chunk rows need no covering chunk.
  constexpr int CB = kAligned ? kChunksB - 1 : kChunksB, CA = kAligned ? kChunksA - 1 : kChunksA;
  constexpr int kBChunks = kBK * CB, kChunks = kBChunks + MT * CA;
  extern __shared__ __align__(128) unsigned char smem[];
  const std::uint32_t sbase = arch::smem_addr(smem);
  const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32, g = lane / 4, c = lane % 4;
  const int ks = warp & 3, half = warp >> 2;  // the warp's 16 rows of a k-tile and its 64 of the 128 columns
  const int tile = blockIdx.x, split = blockIdx.y;
  const index_t n0 = index_t{tile} * kBN;
  const int k_tiles = static_cast<int>((p.k + kBK - 1) / kBK);
  const int kt0 = split * sk.tiles_per_split, kt1 = min(k_tiles, kt0 + sk.tiles_per_split);
  const index_t k_end = min(p.k, index_t{kt1} * kBK);
  const char* b = reinterpret_cast<const char*>(p.b);
  const char* a = reinterpret_cast<const char*>(p.a);
  // One past each operand's last element: no chunk reads beyond it.
  const char* b_end = b + 2 * ((p.k - 1) * p.ldb + p.n);
  const char* a_end = a + 2 * ((p.m - 1) * p.lda + p.k);

  // Stage k-tile kt, the careful way (the k-tile that ends past K, the first
  // where a base is off its chunk, and those whose chunks could reach past an
  // operand's end; `load` below says which): consecutive threads take
  // consecutive chunks; rows past K or the split and A's rows past M are
  // zeros, and a chunk that would cross the operand's end, or start before
  // an operand whose base is not 16-byte aligned, is read element by element.
  const auto load_edge = [&](int kt, int slot) {
    const index_t k0 = index_t{kt} * kBK;
    const std::uint32_t sb = sbase + slot * kStage;
#pragma unroll 1
    for (int i = tid; i < kChunks; i += kThreads) {
      const char* chunk;
      const char* begin;
      const char* end;
      bool live;
      std::uint32_t dst;
      if (i < kBChunks) {
        const int r = i / CB, j = i % CB;
        chunk = detail::floor16(b + 2 * ((k0 + r) * p.ldb + n0)) + 16 * j;
        begin = b, end = b_end, live = k0 + r < k_end, dst = sb + r * kPitchB + 16 * j;
      } else {
        const int r = (i - kBChunks) / CA, j = (i - kBChunks) % CA;
        chunk = detail::floor16(a + 2 * (r * p.lda + k0)) + 16 * j;
        begin = a, end = a_end, live = r < p.m, dst = sb + kBBytes + r * kPitchA + 16 * j;
      }
      const std::ptrdiff_t left = live ? end - chunk : 0, before = begin - chunk;
      if (left >= 16 && before <= 0) {
        arch::sm80::cp_async_cg16(dst, chunk);
      } else {
        std::uint16_t v[8];
#pragma unroll
        for (int e = 0; e < 8; ++e)
          v[e] = 2 * e < left && 2 * e >= before ? *reinterpret_cast<const std::uint16_t*>(chunk + 2 * e) : 0;
        asm volatile("st.shared.v4.u32 [%0], {%1, %2, %3, %4};\n" ::"r"(dst), "r"(detail::pack(v[0], v[1])),
                     "r"(detail::pack(v[2], v[3])), "r"(detail::pack(v[4], v[5])), "r"(detail::pack(v[6], v[7]))
                     : "memory");
      }
    }
  };

  // Every other k-tile: whole rows of the split, every chunk inside its
  // operand.  A k-tile moves B's rows by 128 ldb bytes and A's by 128 bytes,
  // multiples of 16, so each thread's chunks are fixed pointers plus the
  // k-tile's offset: a few instructions per chunk where the careful way
  // spends about ninety (the time did not move: the kernel is not bound by
  // its instructions, docs/heuristics.md).  Thread t takes chunk t % 16
  // of B's rows t / 16 + 16 q (and, where rows are not whole chunks, threads
  // 0-63 the covering chunk of row t); A's rows past M are left unread (they
  // only reach output rows that are not written).
  const char* b_chunk = detail::floor16(b + 2 * (index_t{tid / 16} * p.ldb + n0)) + 16 * (tid % 16);
  const char* b_cover = detail::floor16(b + 2 * (index_t{tid % kBK} * p.ldb + n0)) + 16 * (CB - 1);
  const std::uint32_t b_dst = (tid / 16) * kPitchB + 16 * (tid % 16), cover_dst = (tid % kBK) * kPitchB + 16 * (CB - 1);
  constexpr int kAIters = (MT * CA + kThreads - 1) / kThreads;
  const char* a_chunk[kAIters];
#pragma unroll
  for (int it = 0; it < kAIters; ++it) {
    const int i = tid + it * kThreads, r = i / CA, j = i % CA;
    a_chunk[it] = i < MT * CA && r < p.m ? detail::floor16(a + 2 * (r * p.lda)) + 16 * j : nullptr;
  }
  const auto load_fast = [&](int kt, int slot) {
    const std::uint32_t sb = sbase + slot * kStage;
    const index_t step = 32 * p.ldb, b_off = index_t{kt} * (128 * p.ldb);  // rows r to r + 16; k-tile kt
    const char* bt = b_chunk + b_off;
#pragma unroll
    for (int q = 0; q < kBK / 16; ++q) arch::sm80::cp_async_cg16(sb + b_dst + q * 16 * kPitchB, bt + q * step);
    if (CB > 16 && tid < kBK) arch::sm80::cp_async_cg16(sb + cover_dst, b_cover + b_off);
#pragma unroll
    for (int it = 0; it < kAIters; ++it) {
      const int i = tid + it * kThreads;
      if (a_chunk[it] != nullptr)
        arch::sm80::cp_async_cg16(sb + kBBytes + (i / CA) * kPitchA + 16 * (i % CA), a_chunk[it] + 128 * index_t{kt});
    }
  };
  // A k-tile takes the fast way when it is whole within the split, is not the
  // first k-tile of an operand whose base is off its chunk, and rows enough
  // follow it that its last chunks end inside the operands: B's last row
  // reaches at most 8 CB elements past its column n0 (< N), so ceil(8 CB /
  // ldb) more rows keep it inside B; A's rows reach 8 CA elements past k0.
  const bool off_chunk = ((reinterpret_cast<std::uintptr_t>(a) | reinterpret_cast<std::uintptr_t>(b)) & 15) != 0;
  const index_t rows_b = p.ldb >= 8 * CB ? 1 : (8 * CB + static_cast<int>(p.ldb) - 1) / static_cast<int>(p.ldb);
  const index_t rows_a = 8 * CA - kBK;
  const index_t k_fast = min(k_end, p.k - (rows_b > rows_a ? rows_b : rows_a));
  const auto load = [&](int kt, int slot) {
    if (index_t{kt} * kBK + kBK <= k_fast && (kt > 0 || !off_chunk))
      load_fast(kt, slot);
    else
      load_edge(kt, slot);
  };

  float acc[4][NB][4] = {};
  // Each row's offset in its first chunk repeats every k-tile (64 rows move 128 x ld bytes).
  int kr[4], boff[4], aoff[NB];
#pragma unroll
  for (int q = 0; q < 4; ++q) {
    kr[q] = 16 * ks + 2 * c + (q & 1) + (q >> 1) * 8;  // the k of the thread's fragment values
    boff[q] = kr[q] * kPitchB + detail::offset16(b + 2 * (kr[q] * p.ldb + n0)) + 2 * 64 * half;
  }
#pragma unroll
  for (int j = 0; j < NB; ++j) {
    const int m = 8 * j + g;
    aoff[j] = kBBytes + m * kPitchA + detail::offset16(a + 2 * (m * p.lda)) + 2 * (16 * ks + 2 * c);
  }

  const int nk = kt1 - kt0;
#pragma unroll
  for (int s = 0; s < Stages - 1; ++s) {
    if (s < nk) load(kt0 + s, s);
    arch::sm80::cp_async_commit();
  }
  for (int t = 0; t < nk; ++t) {
    arch::sm80::cp_async_wait<Stages - 2>();
    __syncthreads();
    if (t + Stages - 1 < nk) load(kt0 + t + Stages - 1, (t + Stages - 1) % Stages);  // the slot read last iteration
    arch::sm80::cp_async_commit();
    const int slot = t % Stages;
    unsigned char* sb = smem + slot * kStage;
    const index_t k0 = index_t{kt0 + t} * kBK;
    const bool last = k0 + kBK > k_end;  // A's values past K or the split must be zeros (B's rows there are)
    std::uint32_t bf[NB][2], af[4][4];
    if constexpr (kAligned) {
      if (last) {
        __syncthreads();
        for (int i = tid; i < MT * kBK; i += kThreads)
          if (k0 + i % kBK >= k_end)
            *reinterpret_cast<std::uint16_t*>(sb + kBBytes + (i / kBK) * kPitchA + 2 * (i % kBK)) = 0;
        __syncthreads();
      }
      const std::uint32_t su = sbase + slot * kStage;
      const int q = lane / 8, rr = lane % 8;  // the ldmatrix row this lane addresses
#pragma unroll
      for (int j = 0; j < NB; j += 2) {
        if constexpr (NB == 1)
          arch::sm80::ldmatrix_x2(su + kBBytes + rr * kPitchA + 2 * (16 * ks + (q & 1) * 8), bf[0][0], bf[0][1]);
        else
          arch::sm80::ldmatrix_x4(su + kBBytes + (8 * (j + q / 2) + rr) * kPitchA + 2 * (16 * ks + (q & 1) * 8),
                                  bf[j][0], bf[j][1], bf[j + 1][0], bf[j + 1][1]);
      }
#pragma unroll
      for (int i = 0; i < 4; ++i)
        arch::sm80::ldmatrix_x4_trans(
            su + (16 * ks + rr + (q >> 1) * 8) * kPitchB + 2 * (64 * half + 16 * i + (q & 1) * 8), af[i][0], af[i][1],
            af[i][2], af[i][3]);
    } else {
#pragma unroll
      for (int j = 0; j < NB; ++j) {
        const unsigned char* ra = sb + aoff[j];
        std::uint16_t v[4] = {detail::ld16(ra), detail::ld16(ra + 2), detail::ld16(ra + 16), detail::ld16(ra + 18)};
        if (last) {
#pragma unroll
          for (int q = 0; q < 4; ++q)
            if (k0 + kr[q] >= k_end) v[q] = 0;
        }
        bf[j][0] = detail::pack(v[0], v[1]);
        bf[j][1] = detail::pack(v[2], v[3]);
      }
      // All of the k-tile's B values first, so that their loads are in flight together.
      std::uint16_t bv[4][4][2];
#pragma unroll
      for (int i = 0; i < 4; ++i)
#pragma unroll
        for (int q = 0; q < 4; ++q) {
          bv[i][q][0] = detail::ld16(sb + boff[q] + 2 * (16 * i + g));
          bv[i][q][1] = detail::ld16(sb + boff[q] + 2 * (16 * i + g + 8));
        }
#pragma unroll
      for (int i = 0; i < 4; ++i) {
        af[i][0] = detail::pack(bv[i][0][0], bv[i][1][0]);
        af[i][1] = detail::pack(bv[i][0][1], bv[i][1][1]);
        af[i][2] = detail::pack(bv[i][2][0], bv[i][3][0]);
        af[i][3] = detail::pack(bv[i][2][1], bv[i][3][1]);
      }
    }
#pragma unroll
    for (int i = 0; i < 4; ++i)
#pragma unroll
      for (int j = 0; j < NB; ++j) detail::mma<T>(acc[i][j], af[i], bf[j]);
  }
  arch::sm80::cp_async_wait<0>();
  __syncthreads();

  // acc[i][j][e]: column 64 half + 16 i + g (+8 for e = 2, 3) of the tile, row 8 j + 2c (+1 for odd e).
  float* red = reinterpret_cast<float*>(smem);  // [k-slice][MT][kRedPitch]
#pragma unroll
  for (int i = 0; i < 4; ++i)
#pragma unroll
    for (int j = 0; j < NB; ++j)
#pragma unroll
      for (int e = 0; e < 4; ++e)
        red[(ks * MT + 8 * j + 2 * c + (e & 1)) * kRedPitch + 64 * half + 16 * i + g + (e >> 1) * 8] = acc[i][j][e];
  __syncthreads();
  const auto sum_slices = [&](int o) {
    const float* x = red + (o / kBN) * kRedPitch + o % kBN;
    return ((x[0] + x[MT * kRedPitch]) + x[2 * MT * kRedPitch]) + x[3 * MT * kRedPitch];
  };
  // Only A's rows are summed, written and read back (M = 17 runs 32 rows).
  const int rows = p.m < MT ? static_cast<int>(p.m) : MT;
  if (sk.splits == 1) {
    for (int o = tid; o < rows * kBN; o += kThreads) {
      const index_t m = o / kBN, n = n0 + o % kBN;
      if (n < p.n) epilogue_element(p, m, n, sum_slices(o));
    }
    return;
  }
  float* own = sk.partials + (static_cast<std::size_t>(tile) * sk.splits + split) * MT * kBN;
  for (int o = tid; o < rows * kBN; o += kThreads) own[o] = sum_slices(o);
  __shared__ bool is_last;
  __threadfence();  // this split's partial is visible before its arrival is counted
  __syncthreads();
  if (tid == 0) is_last = atomicAdd(&sk.counters[tile], 1) == sk.splits - 1;
  __syncthreads();
  if (!is_last) return;
  __threadfence();
  // Each thread's outputs summed in split order, kBatch splits of all of
  // them loaded before any is added: one L2 round trip a batch, where a sum
  // per output made a chain of round trips per output.
  const float* parts = sk.partials + static_cast<std::size_t>(tile) * sk.splits * MT * kBN;
  constexpr int kPer = MT * kBN / kThreads;                                     // outputs a thread: 4 to 32
  constexpr int kBatch = kPer >= 32 ? 2 : kPer >= 16 ? 4 : kPer >= 8 ? 8 : 16;  // 64 loads in flight
  float v[kPer];
#pragma unroll
  for (int u = 0; u < kPer; ++u) v[u] = 0.0f;
  for (int s0 = 0; s0 < sk.splits; s0 += kBatch) {
    float x[kBatch][kPer];
#pragma unroll
    for (int b = 0; b < kBatch; ++b)
#pragma unroll
      for (int u = 0; u < kPer; ++u) {
        const int o = tid + u * kThreads;
        x[b][u] = s0 + b < sk.splits && o < rows * kBN ? __ldcg(parts + static_cast<std::size_t>(s0 + b) * MT * kBN + o)
                                                       : 0.0f;
      }
#pragma unroll
    for (int b = 0; b < kBatch; ++b)
#pragma unroll
      for (int u = 0; u < kPer; ++u)
        if (s0 + b < sk.splits) v[u] += x[b][u];
  }
#pragma unroll
  for (int u = 0; u < kPer; ++u) {
    const int o = tid + u * kThreads;
    const index_t m = o / kBN, n = n0 + o % kBN;
    if (o < rows * kBN && n < p.n) epilogue_element(p, m, n, v[u]);
  }
  if (tid == 0) sk.counters[tile] = 0;  // zero again for the stream's next launch
}

}  // namespace tessel::gemm_kernels::small_m
