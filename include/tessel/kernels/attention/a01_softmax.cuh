// a01 — attention as three kernels: S = scale Q K^T (tessel::gemm, fp32 out),
// the softmax of each row of S into P (this kernel), O = P V (tessel::gemm).
//
// The baseline every later step is measured against.  Its cost is the
// scratch traffic: per head and query row S is written and read in fp32 and
// P written and read in 16 bits, 12 bytes a key against the 4 d flops a key
// the two GEMMs do, so at head dim 128 the row pass moves 3 bytes per 128
// flops and the whole call is bound by memory (docs/attention.md).
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>

#include "tessel/kernels/attention/flash_common.cuh"
#include "tessel/kernels/gemm/common.cuh"  // from_float: the GEMM epilogues' rounding

namespace tessel::attention_kernels::a01 {

inline constexpr int kThreads = 256;

/// The two statistics of a softmax over some keys: their largest score m and
/// sum_j exp(s_j - m).  Merging two sets rescales the smaller maximum's sum.
struct RowStats {
  float m = -INFINITY, l = 0.0f;
  __device__ void add(float s) {
    if (s > m) {
      l = l * __expf(m - s) + 1.0f;  // m = -inf: exp(-inf) = 0, l was 0
      m = s;
    } else {
      l += __expf(s - m);
    }
  }
  __device__ void merge(RowStats o) {
    if (o.m == -INFINITY) return;
    if (m == -INFINITY) {
      *this = o;
      return;
    }
    const float mm = fmaxf(m, o.m);
    l = l * __expf(m - mm) + o.l * __expf(o.m - mm);
    m = mm;
  }
};

__device__ inline RowStats shuffle_xor(RowStats r, int mask) {
  RowStats o;
  o.m = __shfl_xor_sync(0xffffffffu, r.m, mask);
  o.l = __shfl_xor_sync(0xffffffffu, r.l, mask);
  return o;
}

/// Row r of the chunk (`rows` query rows of each of the group's heads, the
/// first query row `row0`): S's row r (fp32, `ld` apart) into P's (T, `ld`
/// apart), P = exp(S - m) / l over the keys the row attends to and 0 past
/// them; lse[head * lse_head + i] = m + log(l) (-inf where the row attends to
/// no key) when lse is not null.  One CTA a row.
template <class T>
__global__ void __launch_bounds__(kThreads)
    softmax_rows(const float* __restrict__ s, T* __restrict__ p, float* __restrict__ lse, std::int64_t lse_head,
                 std::int64_t ld, std::int64_t rows, std::int64_t row0, std::int64_t seq_q, std::int64_t seq_kv,
                 bool causal) {
  const std::int64_t r = blockIdx.x;
  const std::int64_t head = r / rows, i = row0 + r % rows;
  // Keys 0 .. count-1: the causal mask is aligned to the bottom-right corner.
  std::int64_t count = causal ? i + (seq_kv - seq_q) + 1 : seq_kv;
  count = count < 0 ? 0 : (count > seq_kv ? seq_kv : count);
  const float* srow = s + r * ld;
  T* prow = p + r * ld;

  RowStats st;
  for (std::int64_t j = threadIdx.x; j < count; j += kThreads) st.add(srow[j]);
  for (int mask = 16; mask > 0; mask >>= 1) st.merge(shuffle_xor(st, mask));
  __shared__ RowStats warps[kThreads / 32];
  if (threadIdx.x % 32 == 0) warps[threadIdx.x / 32] = st;
  __syncthreads();
  RowStats all;
  for (int w = 0; w < kThreads / 32; ++w) all.merge(warps[w]);

  const float inv = all.l > 0.0f ? 1.0f / all.l : 0.0f;
  for (std::int64_t j = threadIdx.x; j < seq_kv; j += kThreads)
    prow[j] = gemm_kernels::detail::from_float<T>(j < count ? __expf(srow[j] - all.m) * inv : 0.0f);
  if (lse != nullptr && threadIdx.x == 0) lse[head * lse_head + i] = count > 0 ? all.m + logf(all.l) : -INFINITY;
}

}  // namespace tessel::attention_kernels::a01
