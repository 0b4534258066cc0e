// tessel/host/attention.hpp — fused attention's host API (docs/attention.md):
//   O = softmax(scale * Q K^T [+ causal mask]) V,   lse = log-sum-exp of each row
// with bf16 or fp16 Q, K, V and O, fp32 row statistics, grouped K/V heads
// (GQA, MQA) and packed batches of sequences of different lengths.
//
// Like tessel/host/gemm.hpp this header needs no CUDA: the stream is only
// named, and the checks run without a GPU.
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

#include "tessel/core/config.hpp"
#include "tessel/gemm_types.hpp"
#include "tessel/host/status.hpp"

struct CUstream_st;
typedef struct CUstream_st* cudaStream_t;

namespace tessel {

/// The ladder's steps (docs/attention.md).
///   a01: three kernels, S = scale Q K^T by tessel::gemm into fp32 scratch,
///        a row softmax into P, O = P V by tessel::gemm (the baseline);
///   a02: one kernel, the online softmax on mma.sync tiles (FlashAttention-2);
///   a03: TMA loads from a producer warpgroup, wgmma on two consumer
///        warpgroups (head dims 64, 128, 192, 256);
///   a04: a03 with the two warpgroups' wgmmas in turn (pingpong), one's
///        softmax under the other's wgmmas; a03's rules.
///   a05: a04 with each warpgroup's softmax under its own P V too (S of a
///        block and P V of the one before in one turn); a03's rules.
///   a06: a05 with each head's row blocks launched longest first (the
///        causal mask's last rows first); a03's rules.
///   a07: a06 on a persistent grid (a CTA an SM, tile after tile), the next
///        tile's loads under the current one's last steps; a03's rules.
///   a08: a07 with K and V on rings of their own (K given back when S is
///        done, V when P V is); a03's rules.
///   a09: a08 with key blocks of 176 at head dim 128 and 192 at 64 (a08's
///        elsewhere); a03's rules.
///   a10: a07/a08 with a CTA's tiles chained (the next tile's first S
///        issued with the current one's last P V, on a second buffer of Q);
///        a03's rules, head dims 64, 128, 192.
/// `automatic`: attention_auto_step below.
enum class AttentionImpl { automatic, a01, a02, a03, a04, a05, a06, a07, a08, a09, a10 };

constexpr const char* name(AttentionImpl i) {
  switch (i) {
    case AttentionImpl::automatic:
      return "auto";
    case AttentionImpl::a01:
      return "a01";
    case AttentionImpl::a02:
      return "a02";
    case AttentionImpl::a03:
      return "a03";
    case AttentionImpl::a04:
      return "a04";
    case AttentionImpl::a05:
      return "a05";
    case AttentionImpl::a06:
      return "a06";
    case AttentionImpl::a07:
      return "a07";
    case AttentionImpl::a08:
      return "a08";
    case AttentionImpl::a09:
      return "a09";
    case AttentionImpl::a10:
      return "a10";
  }
  return "?";
}

/// Every AttentionImpl, `automatic` first, then the steps in ladder order.
inline constexpr AttentionImpl kAttentionImpls[] = {AttentionImpl::automatic, AttentionImpl::a01, AttentionImpl::a02,
                                                    AttentionImpl::a03,       AttentionImpl::a04, AttentionImpl::a05,
                                                    AttentionImpl::a06,       AttentionImpl::a07, AttentionImpl::a08,
                                                    AttentionImpl::a09,       AttentionImpl::a10};

constexpr std::optional<AttentionImpl> parse_attention_impl(std::string_view s) {
  for (AttentionImpl i : kAttentionImpls)
    if (s == name(i)) return i;
  return std::nullopt;
}

/// Where element (b, h, s, e) of a tensor lives: at
/// b * batch + h * head + s * row + e elements from its base (the head
/// dimension e is contiguous).  (batch, heads, seq, dim) row-major is
/// {H*S*D, S*D, D}; (batch, seq, heads, dim), FlashAttention's layout, is
/// {S*H*D, D, H*D}.  With packed sequences (AttentionArgs::cu_seqlens_q)
/// `batch` is not read: sequence b's rows are rows cu_seqlens[b] .. cu_seqlens[b+1]-1.
struct AttentionStrides {
  index_t batch = 0, head = 0, row = 0;
};

/// One attention call.  Query row i of a sequence with Lq query rows and Lk
/// keys attends to key j when j <= i + (Lk - Lq) under `causal` (the mask
/// aligned bottom-right, as FlashAttention-2 and cuDNN align it), to every
/// key otherwise.  A row that attends to no key (causal with Lq > Lk) gets
/// O = 0 and lse = -inf.  Query head h reads K/V head h / (heads_q / heads_kv).
/// Checked (attention_check; invalid_argument naming the rule): dtype bf16
/// or f16; extents >= 1; heads_kv divides heads_q; q, k, v, o not null;
/// strides >= 0; O's elements distinct (its strides do not fold two (b, h,
/// s, e) onto one address); O overlaps none of Q, K, V and lse, lse none of
/// Q, K, V; scale finite; cu_seqlens_q and cu_seqlens_kv both set or both
/// null, 4-byte aligned, with max_seq_q, max_seq_kv >= 1.  `unsupported`
/// (the call is well formed, the kernels do not take it): head_dim not one
/// of 64, 96, 128, 192, 256; a base not 16-byte aligned, or a row or head
/// stride not a multiple of 8 elements; seq_q or seq_kv above 2^30; a step
/// that does not take packed sequences (a01), the head dim (a03-a09: 96) or
/// a stride 0 over more than one element (a03-a09: TMA steps every mode).
struct AttentionArgs {
  DType dtype = DType::bf16;  // Q, K, V and O
  index_t batch = 1, heads_q = 1, heads_kv = 1;
  /// Rows of each sequence (Q's and K/V's); with packed sequences the rows
  /// of the packed tensors (the totals, cu_seqlens[batch]).
  index_t seq_q = 0, seq_kv = 0;
  index_t head_dim = 0;
  const void* q = nullptr;
  const void* k = nullptr;
  const void* v = nullptr;
  void* o = nullptr;
  AttentionStrides q_stride{}, k_stride{}, v_stride{}, o_stride{};
  /// Optional fp32 output: each query row's natural log of sum_j exp(scale
  /// q.k_j) over the keys it attends to (what a backward pass needs), at
  /// lse[(b * heads_q + h) * seq_q + i]; with packed sequences at
  /// lse[h * seq_q + row] (row of the packed Q).
  float* lse = nullptr;
  bool causal = false;
  /// The factor on Q K^T; 0 means 1 / sqrt(head_dim).
  float scale = 0.0f;
  /// Packed sequences (variable lengths): device arrays of batch + 1 ints,
  /// non-decreasing from 0, sequence b's query rows cu_seqlens_q[b] ..
  /// cu_seqlens_q[b+1]-1 of Q and O and its keys the same of K and V; read
  /// when the kernel runs, clamped to the tensors' rows (offsets that
  /// decrease give empty sequences; sequences that overlap write their
  /// common rows twice, in no set order).  max_seq_q bounds the query
  /// lengths (the grid is sized by it; a longer sequence's query rows past it
  /// are not computed); every key of a sequence is used, and max_seq_kv is
  /// only checked (the API of FlashAttention's varlen call, kept for steps
  /// that size by it).
  const int* cu_seqlens_q = nullptr;
  const int* cu_seqlens_kv = nullptr;
  index_t max_seq_q = 0, max_seq_kv = 0;
};

/// The factor the call applies: args.scale, or 1 / sqrt(head_dim) for 0.
float attention_scale(const AttentionArgs& args);

/// Checks `args` for `impl` without launching anything (rules above); on
/// success a launch of `impl` takes the call.
Status attention_check(AttentionImpl impl, const AttentionArgs& args);

/// The step `automatic` runs for `args`, chosen on the host before anything
/// launches: where three stages of K and V fit beside Q (d 64, 128, 192) the
/// persistent step a model of a fixed cost a row tile and a cost a key
/// computed finds cheapest (a10 at d 64 and 192 and on short tiles at d
/// 128, a09 on long ones there), a08 at d 256; for
/// packed sequences a06, at d 256 a03; a02 where a03's rules do not take the
/// call (head dim 96, a stride 0).  A wgmma step whose TMA maps the driver
/// refuses at launch runs a02 instead.  A call attention_check(automatic)
/// refuses gets its status, and `step` is left as it was.
Status attention_auto_step(const AttentionArgs& args, AttentionImpl& step);

/// Runs `impl` on `stream` after attention_check; on any failure nothing is
/// launched and nothing is written.  The kernels are built for sm_90: on
/// another device `unsupported`.  a01 takes scratch memory for S and P from
/// tessel's pool (query rows in chunks of at most 1 GiB of it).
Status attention(AttentionImpl impl, const AttentionArgs& args, cudaStream_t stream = nullptr);

inline Status attention(const AttentionArgs& args, cudaStream_t stream = nullptr) {
  return attention(AttentionImpl::automatic, args, stream);
}

}  // namespace tessel
