// What the fused attention steps (a02, a03) share: the call's parameters and
// a sequence's rows, the paired rounding of P, and the online softmax on a
// thread's share of an m16n8 / m64nN accumulator: value 4 n + 2 r + c of a
// thread is n-tile n, row g + 8 r of its warp's 16 (g = lane / 4), column
// 8 n + 2 (lane % 4) + c.  A row's values lie on the four lanes of one g, so
// its maximum and sum are reduced over lanes xor 1 and 2.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <type_traits>

#include "tessel/kernels/attention/fragment_map.hpp"

namespace tessel::attention_kernels {

/// What every fused step's launch reads besides its operands: O (element
/// offsets in O's strides), the log-sum-exp, the extents, the scale, the
/// mask and the packed sequences' offsets.
struct CallParams {
  void* o;
  float* lse;
  std::int64_t o_batch, o_head, o_row;
  int seq_q, seq_kv;   // a sequence's rows; packed: the tensors' rows
  int heads_q, group;  // query heads, and query heads per K/V head
  float scale_log2;    // scale * log2(e)
  bool causal;
  const int* cu_q;  // packed sequences' first rows (batch + 1), or null
  const int* cu_kv;
  int section;          // (head, sequence) pairs a section of the longest-first order (a06)
  int blocks_m, batch;  // a persistent grid's row blocks a head and sequences (a07)
};

/// Sequence b's first rows in the tensors and its lengths; packed offsets are
/// clamped to the tensors' rows whatever the device memory holds.
struct SequenceRows {
  int q_first = 0, kv_first = 0, len_q = 0, len_kv = 0;
  SequenceRows() = default;
  __device__ SequenceRows(const CallParams& p, int b) : len_q(p.seq_q), len_kv(p.seq_kv) {
    if (p.cu_q != nullptr) {
      const int q0 = min(max(p.cu_q[b], 0), p.seq_q), q1 = min(max(p.cu_q[b + 1], q0), p.seq_q);
      const int k0 = min(max(p.cu_kv[b], 0), p.seq_kv), k1 = min(max(p.cu_kv[b + 1], k0), p.seq_kv);
      q_first = q0, len_q = q1 - q0, kv_first = k0, len_kv = k1 - k0;
    }
  }
  /// diag: row i sees keys j <= i + diag under the causal mask (aligned bottom-right).
  __host__ __device__ int diag() const { return len_kv - len_q; }
  /// Key blocks of `block` keys that query rows [row0, row0 + rows) need: every
  /// one, or under the causal mask none past the last row's diagonal.
  __host__ __device__ int key_blocks(int row0, int rows, int block, bool causal) const {
    const int all = (len_kv + block - 1) / block;
    if (!causal) return all;
    const int last_key = (row0 + rows < len_q ? row0 + rows : len_q) - 1 + diag();
    return last_key < 0 ? 0 : (all < last_key / block + 1 ? all : last_key / block + 1);
  }
};

/// Two values rounded to T in one register, the first in the low half (the
/// order of mma and wgmma fragments).
template <class T>
__device__ __forceinline__ std::uint32_t pack2(float lo, float hi) {
  if constexpr (std::is_same_v<T, __nv_bfloat16>) {
    const __nv_bfloat162 v = __floats2bfloat162_rn(lo, hi);
    return *reinterpret_cast<const std::uint32_t*>(&v);
  } else {
    const __half2 v = __floats2half2_rn(lo, hi);
    return *reinterpret_cast<const std::uint32_t*>(&v);
  }
}

/// Where a block of keys sits against a warp's rows: value v of a lane is key
/// key0 + acc_col and query row row + acc_row (row: the warp's first); a key
/// is masked past len_kv and, causal, past its row + diag (diag = len_kv -
/// len_q: the mask aligned bottom-right).
struct KeyBlock {
  int key0, row, len_kv, diag;
  bool causal, edge;  // edge: some key of the block may be masked for some row of the CTA
};

/// Masks a thread's scores (-inf) past the sequence and the diagonal; the
/// scale is applied in the softmax's exponent.  The test for a block without
/// masked keys is taken once, outside the loop: inside it, ptxas kept a
/// branch around each value's mask.
template <int kValues>
__device__ __forceinline__ void mask_scores(float* s, const KeyBlock& kb, int lane) {
  if (!kb.edge) return;
#pragma unroll
  for (int v = 0; v < kValues; ++v) {
    const int key = kb.key0 + acc_col(lane, v), row = kb.row + acc_row(lane, v);
    if (key >= kb.len_kv || (kb.causal && key > row + kb.diag)) s[v] = -INFINITY;
  }
}

/// Scales a thread's scores to base 2 (scale * log2 e) and masks them (-inf),
/// for a softmax that then runs with scale 1: a02's form (with the scale in
/// the exponent's FFMA it spilled at d = 128 and took 247 registers at 256).
template <int kValues>
__device__ __forceinline__ void scale_and_mask(float* s, float scale_log2, const KeyBlock& kb, int lane) {
#pragma unroll
  for (int v = 0; v < kValues; ++v) s[v] *= scale_log2;
  mask_scores<kValues>(s, kb, lane);
}

/// One block of the online softmax on unscaled scores: each row's new
/// maximum m in base-2 units (scale_log2 = scale * log2 e times the largest
/// score, the scale being positive), its scores replaced by exp2(s scale_log2
/// - m) (one FFMA and one exp2 a score), its running sum rescaled and
/// increased, and in `rescale` the factor exp2(m_old - m) that the row's
/// output still owes (rescale_rows).  A row with no key yet keeps m = -inf
/// with every p and the rescale 0 (no NaN).  The sums stay this thread's
/// partial ones (the four lanes' are added at the end: row_total).
template <int kValues, class Exp2>
__device__ __forceinline__ void softmax_block(float* s, float scale_log2, float (&row_max)[2], float (&row_sum)[2],
                                              float (&rescale)[2], const Exp2& exp2) {
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    float top = -INFINITY;
#pragma unroll
    for (int n = 0; n < kValues / 4; ++n) top = fmaxf(top, fmaxf(s[4 * n + 2 * r], s[4 * n + 2 * r + 1]));
    top = fmaxf(top, __shfl_xor_sync(0xffffffffu, top, 1));
    top = fmaxf(top, __shfl_xor_sync(0xffffffffu, top, 2));
    const float mx = fmaxf(row_max[r], top * scale_log2);
    const float base = mx == -INFINITY ? 0.0f : mx;
    rescale[r] = exp2(row_max[r] - base);
    row_max[r] = mx;
    float sum = 0.0f;
#pragma unroll
    for (int n = 0; n < kValues / 4; ++n)
#pragma unroll
      for (int c = 0; c < 2; ++c) {
        float& e = s[4 * n + 2 * r + c];
        e = exp2(fmaf(e, scale_log2, -base));
        sum += e;
      }
    row_sum[r] = row_sum[r] * rescale[r] + sum;
  }
}

/// A thread's two rows of output (kOValues / 4 n-tiles) times their rescale.
template <int kOValues>
__device__ __forceinline__ void rescale_rows(float* o, const float (&rescale)[2]) {
#pragma unroll
  for (int n = 0; n < kOValues / 4; ++n)
#pragma unroll
    for (int v = 0; v < 4; ++v) o[4 * n + v] *= rescale[v / 2];
}

/// One block of the online softmax, the output rescaled at once.
template <int kValues, int kOValues, class Exp2>
__device__ __forceinline__ void online_softmax(float* s, float scale_log2, float* o, float (&row_max)[2],
                                               float (&row_sum)[2], const Exp2& exp2) {
  float rescale[2];
  softmax_block<kValues>(s, scale_log2, row_max, row_sum, rescale, exp2);
  rescale_rows<kOValues>(o, rescale);
}

/// A row's whole sum (the four lanes' partial sums added).
__device__ __forceinline__ float row_total(float partial) {
  partial += __shfl_xor_sync(0xffffffffu, partial, 1);
  return partial + __shfl_xor_sync(0xffffffffu, partial, 2);
}

/// The row's natural log-sum-exp from its base-2 maximum and sum (-inf for
/// a row that saw no key).
__device__ __forceinline__ float log_sum_exp(float max2, float sum) {
  return sum > 0.0f ? (max2 + __log2f(sum)) * 0.69314718055994531f : -INFINITY;
}

}  // namespace tessel::attention_kernels
