// a02 — attention in one kernel: the online softmax on mma.sync tiles
// (FlashAttention-2's schedule).
//
// a01 writes S and P to memory and reads them back: 12 bytes a key and
// query row.  Here a CTA of four warps owns 64 query rows (16 a warp) and
// walks the keys in blocks of 64; for each block a warp computes its 16 x 64
// scores S = Q K^T in registers (mma.sync m16n8k16, fp32), folds them into
// its rows' running maximum m and sum l (rescaling the output accumulated so
// far by exp2(m_old - m_new)), and multiplies P = exp2(S - m) by the block's
// V straight from the same registers: the m16n8 accumulator of S holds, two
// values a register after rounding, exactly the A fragment of m16n8k16, so P
// never leaves the warp.  Only Q, K and V are read and only O (and the
// log-sum-exp) written.  The scale is folded into the base-2 exponent
// (scale * log2 e), one FMUL a score.
//
// Shared memory: Q's 64 rows, and K and V of two key blocks (the next block's
// cp.async copies run under this block's math), rows padded by 16 bytes so
// that the eight 16-byte rows an ldmatrix reads fall in eight different bank
// groups for every head dim (a row of 2 D + 16 bytes is 4 words mod 8 off the
// 32-bank period: 64 -> 36 words, 96 -> 52, 128 -> 68, ...).  Q stays in
// shared memory and is read by ldmatrix each block (in registers it would
// take D / 4 more of them, and head dim 256 would spill).
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <type_traits>

#include "tessel/arch/sm80.hpp"
#include "tessel/kernels/attention/flash_common.cuh"

namespace tessel::attention_kernels::a02 {

inline constexpr int kWarps = 4;
inline constexpr int kThreads = 32 * kWarps;
inline constexpr int kBlockM = 16 * kWarps;  // query rows of a CTA
inline constexpr int kBlockN = 64;           // keys of a block

/// Row pitch of a shared tile in elements: D + 8 (16 bytes of padding).
template <int D>
inline constexpr int kPitch = D + 8;

/// Shared bytes of a CTA: Q, and two stages of K and V.
template <int D>
inline constexpr int kSmemBytes = (kBlockM + 4 * kBlockN) * kPitch<D> * 2;

/// What one launch reads: the tensors (element offsets in the tensors' own
/// strides), the extents, and the packed sequences' offsets.
struct Params : CallParams {
  const void* q;
  const void* k;
  const void* v;
  std::int64_t q_batch, q_head, q_row;
  std::int64_t k_batch, k_head, k_row;
  std::int64_t v_batch, v_head, v_row;
};

template <class T>
__device__ inline void mma(float (&d)[4], const std::uint32_t (&a)[4], std::uint32_t b0, std::uint32_t b1) {
  const std::uint32_t b[2] = {b0, b1};
  if constexpr (std::is_same_v<T, __nv_bfloat16>)
    arch::sm80::mma_m16n8k16_f32_bf16(d, a, b, d);
  else
    arch::sm80::mma_m16n8k16_f32_f16(d, a, b, d);
}

/// cp.async of a 64 x D tile (rows `ld` elements apart) into a padded shared
/// tile at `sdst`; rows at and past `valid` are zero-filled (their source
/// address is the tile's first row, never read).  Thread `tid` of kThreads
/// copies one 16-byte column of every kRows-th row: one pointer advanced by a
/// stride, so that no per-copy 64-bit offset stays live across the key loop.
/// (D = 96 and 192: 120 of the 128 threads, 10 and 5 rows a pass.)
template <int D, class T>
__device__ inline void load_tile(std::uint32_t sdst, const T* g, std::int64_t ld, int valid, int tid) {
  constexpr int kChunks = D / 8;  // 16-byte pieces of a row
  constexpr int kRows = kThreads / kChunks, kIters = (kBlockN + kRows - 1) / kRows;
  const int col = tid % kChunks, r0 = tid / kChunks;
  if (r0 >= kRows) return;
  const T* src = g + r0 * ld + col * 8;
  const std::uint32_t dst = sdst + static_cast<std::uint32_t>((r0 * kPitch<D> + col * 8) * 2);
#pragma unroll
  for (int i = 0; i < kIters; ++i) {
    const int r = r0 + i * kRows;
    if (kBlockN % kRows != 0 && r >= kBlockN) break;
    const bool in = r < valid;
    arch::sm80::cp_async_cg16_zfill(dst + static_cast<std::uint32_t>(i * kRows * kPitch<D> * 2), in ? src : g,
                                    in ? 16u : 0u);
    src += kRows * ld;
  }
}

/// One CTA: query rows [64 x, 64 x + 64) of head y of sequence z.
template <class T, int D>
__global__ void __launch_bounds__(kThreads) flash_forward(const Params p) {
  static_assert(D % 16 == 0 && D >= 16 && D <= 256, "head dims are multiples of 16 up to 256");
  extern __shared__ __align__(16) unsigned char smem[];
  const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
  const int m_block = blockIdx.x, h = blockIdx.y, b = blockIdx.z, hk = h / p.group;

  const SequenceRows seq(p, b);
  const int row0 = m_block * kBlockM, len_q = seq.len_q, len_kv = seq.len_kv, diag = seq.diag();
  if (row0 >= len_q) return;  // the grid covers the longest sequence
  const bool packed = p.cu_q != nullptr;
  const std::int64_t q_first = seq.q_first, kv_first = seq.kv_first;
  const T* gq = static_cast<const T*>(p.q) + (packed ? 0 : b * p.q_batch) + h * p.q_head + (q_first + row0) * p.q_row;
  const T* gk = static_cast<const T*>(p.k) + (packed ? 0 : b * p.k_batch) + hk * p.k_head + kv_first * p.k_row;
  const T* gv = static_cast<const T*>(p.v) + (packed ? 0 : b * p.v_batch) + hk * p.v_head + kv_first * p.v_row;
  T* go = static_cast<T*>(p.o) + (packed ? 0 : b * p.o_batch) + h * p.o_head + (q_first + row0) * p.o_row;
  float* glse =
      p.lse == nullptr
          ? nullptr
          : p.lse + (packed ? std::int64_t{h} * p.seq_q + q_first : (std::int64_t{b} * p.heads_q + h) * p.seq_q) + row0;
  const int blocks = seq.key_blocks(row0, kBlockM, kBlockN, p.causal);

  const std::uint32_t sq = arch::smem_addr(smem);
  constexpr std::uint32_t kTileBytes = kBlockN * kPitch<D> * 2;
  const auto sk = [&](int stage) { return sq + kTileBytes * (1 + 2 * stage); };
  const auto sv = [&](int stage) { return sq + kTileBytes * (2 + 2 * stage); };

  load_tile<D>(sq, gq, p.q_row, len_q - row0, tid);
  if (blocks > 0) {
    load_tile<D>(sk(0), gk, p.k_row, len_kv, tid);
    load_tile<D>(sv(0), gv, p.v_row, len_kv, tid);
  }
  arch::sm80::cp_async_commit();

  // A thread's accumulators: rows g and g + 8 of its warp's 16 (g = lane / 4),
  // columns 2 (lane % 4) + {0, 1} of each 8-wide n-tile.
  float acc_o[D / 8][4] = {};
  float row_max[2] = {-INFINITY, -INFINITY}, row_sum[2] = {0.0f, 0.0f};
  const int g = lane / 4, t = lane % 4;
  // ldmatrix row addresses: lane l gives row l % 16 (Q), l % 8 + 8 (l / 16) (K),
  // l % 8 + 8 ((l / 8) % 2) (V); column offsets 8 (l / 16), 8 ((l / 8) % 2), 8 (l / 16).
  const std::uint32_t q_lane =
      sq + static_cast<std::uint32_t>(((warp * 16 + lane % 16) * kPitch<D> + 8 * (lane / 16)) * 2);
  const std::uint32_t k_lane =
      static_cast<std::uint32_t>(((lane % 8 + 8 * (lane / 16)) * kPitch<D> + 8 * ((lane / 8) % 2)) * 2);
  const std::uint32_t v_lane =
      static_cast<std::uint32_t>(((lane % 8 + 8 * ((lane / 8) % 2)) * kPitch<D> + 8 * (lane / 16)) * 2);

  for (int j = 0; j < blocks; ++j) {
    const int stage = j % 2;
    if (j + 1 < blocks) {  // the next block's copies run under this block's math
      const int next = (j + 1) * kBlockN;
      load_tile<D>(sk(stage ^ 1), gk + next * p.k_row, p.k_row, len_kv - next, tid);
      load_tile<D>(sv(stage ^ 1), gv + next * p.v_row, p.v_row, len_kv - next, tid);
    }
    arch::sm80::cp_async_commit();
    arch::sm80::cp_async_wait<1>();  // this block's group (and Q) has landed
    __syncthreads();

    // S = Q K^T: 16 x 64 a warp, eight n-tiles of 8 keys.
    float s[kBlockN / 8][4] = {};
#pragma unroll
    for (int kk = 0; kk < D / 16; ++kk) {
      std::uint32_t a[4];
      arch::sm80::ldmatrix_x4(q_lane + kk * 32, a[0], a[1], a[2], a[3]);
#pragma unroll
      for (int n2 = 0; n2 < kBlockN / 16; ++n2) {
        std::uint32_t b0, b1, b2, b3;
        arch::sm80::ldmatrix_x4(sk(stage) + k_lane + static_cast<std::uint32_t>(n2 * 16 * kPitch<D> * 2 + kk * 32), b0,
                                b1, b2, b3);
        mma<T>(s[2 * n2], a, b0, b1);
        mma<T>(s[2 * n2 + 1], a, b2, b3);
      }
    }

    // Scores in base-2 units, masked past the sequence and the diagonal; then
    // the online softmax: new maxima, the old sums and outputs rescaled.
    const int key0 = j * kBlockN;
    const bool edge = key0 + kBlockN > len_kv || (p.causal && key0 + kBlockN - 1 > row0 + diag);
    const KeyBlock kb{key0, row0 + warp * 16, len_kv, diag, p.causal, edge};
    scale_and_mask<kBlockN / 2>(&s[0][0], p.scale_log2, kb, lane);
    online_softmax<kBlockN / 2, D / 2>(&s[0][0], 1.0f, &acc_o[0][0], row_max, row_sum,
                                       [](float x) { return exp2f(x); });

    // O += P V: P's accumulators become A fragments, V read transposed.
#pragma unroll
    for (int kk = 0; kk < kBlockN / 16; ++kk) {
      const float* ps = &s[0][0];
      const std::uint32_t a[4] = {
          pack2<T>(ps[p_value(kk, 0)], ps[p_value(kk, 1)]), pack2<T>(ps[p_value(kk, 2)], ps[p_value(kk, 3)]),
          pack2<T>(ps[p_value(kk, 4)], ps[p_value(kk, 5)]), pack2<T>(ps[p_value(kk, 6)], ps[p_value(kk, 7)])};
#pragma unroll
      for (int n2 = 0; n2 < D / 16; ++n2) {
        std::uint32_t b0, b1, b2, b3;
        arch::sm80::ldmatrix_x4_trans(
            sv(stage) + v_lane + static_cast<std::uint32_t>(kk * 16 * kPitch<D> * 2 + n2 * 32), b0, b1, b2, b3);
        mma<T>(acc_o[2 * n2], a, b0, b1);
        mma<T>(acc_o[2 * n2 + 1], a, b2, b3);
      }
    }
    __syncthreads();  // the stage is free for block j + 2's copies
  }
  arch::sm80::cp_async_wait<0>();
  __syncthreads();  // with no key block, other threads' copies of Q may still be landing

  // O = acc / l, staged through the warp's own Q rows for 16-byte stores.
  T* so = reinterpret_cast<T*>(smem);
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    const float l = row_total(row_sum[r]);
    const float inv = l > 0.0f ? 1.0f / l : 0.0f;
    const int row = warp * 16 + g + 8 * r;
#pragma unroll
    for (int nt = 0; nt < D / 8; ++nt)
      *reinterpret_cast<std::uint32_t*>(so + row * kPitch<D> + nt * 8 + 2 * t) =
          pack2<T>(acc_o[nt][2 * r] * inv, acc_o[nt][2 * r + 1] * inv);
    if (glse != nullptr && t == 0 && row0 + row < len_q) glse[row] = log_sum_exp(row_max[r], l);
  }
  __syncwarp();
  constexpr int kChunks = D / 8;
  const int rows = min(16, len_q - row0 - warp * 16);
  for (int c = lane; c < 16 * kChunks; c += 32) {
    const int r = c / kChunks, col = c % kChunks;
    if (r < rows) {
      const int row = warp * 16 + r;
      arch::st_global_128(go + row * p.o_row + col * 8,
                          *reinterpret_cast<const uint4*>(so + row * kPitch<D> + col * 8));
    }
  }
}

}  // namespace tessel::attention_kernels::a02
