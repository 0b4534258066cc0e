// a03 — attention on wgmma, fed by TMA from a producer warpgroup.
//
// a02's warps each read their K and V fragments from shared memory through
// registers (ldmatrix), 16 query rows at a time: per mma.sync as many bytes
// of shared memory as the SM moves in about two of its clocks, the same
// ceiling that held k04-k08 near 360 TFLOP/s (docs/ladder.md, k12).  Here a
// CTA takes 128 query rows on two consumer warpgroups (64 rows each) and a
// producer warpgroup: one thread of it loads Q once and each key block's K
// and V by TMA into a two-stage pipeline (the GEMM's blocks::TmaPipeline and
// TmaOperand tiles: 128-byte swizzled, as wgmma reads them), while the
// consumers compute
//   S = Q K^T        wgmma SS: Q and K read from shared memory by descriptors,
//                    d / 16 instructions of m64 x kBN a warpgroup;
//   P = exp2(S - m)  in registers, the online softmax of a02 on the same
//                    accumulator layout (a warp's 16 rows, a row's values on
//                    four lanes);
//   O += P V         wgmma RS: P from registers, V (key-major, d contiguous)
//                    through a transposed descriptor, kBN / 16 instructions.
// The m64 accumulator of S holds, eight values a 16-key slice, exactly the
// A fragment of the next wgmma, so P never touches shared memory (FA3's
// identity, as a02's on mma.sync).  Each warpgroup waits for its own wgmmas
// before the softmax: overlapping the two warpgroups (a04) and the softmax
// with the next S (a05) are the next steps.
//
// Head dims 64, 128, 192 and 256 (d a multiple of the 64-element swizzle
// row); 96 runs a02.  Blocks of 128 keys up to d = 128, 64 above (two stages
// of K and V then fit beside Q in 227 KB).
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <type_traits>

#include "tessel/atom/mma_sm90.hpp"
#include "tessel/kernels/attention/flash_common.cuh"
#include "tessel/kernels/blocks/pipeline_sm90.cuh"
#include "tessel/kernels/gemm/k10_persistent_warpgroup.cuh"
#include "tessel/kernels/gemm/tma_warp_specialized_common.cuh"

namespace tessel::attention_kernels::a03 {

inline constexpr int kConsumerWarps = 8;                    // two warpgroups, 64 query rows each
inline constexpr int kThreads = 32 * kConsumerWarps + 128;  // + the producer warpgroup
inline constexpr int kBM = 128;                             // query rows of a CTA

/// Keys a block: 128 up to d = 128, 64 above.
constexpr int block_keys(int d) { return d <= 128 ? 128 : 64; }

/// The most stages of K and V (two or three) that fit beside Q in 227 KB.
constexpr int most_stages(int d) {
  const int q = kBM * d * 2, stage = 2 * block_keys(d) * d * 2;
  return q + 3 * stage + 1024 <= 227 * 1024 ? 3 : 2;
}

/// The tiles of one element type and head dim: Q as d / 64 K-major (128 x 64)
/// tiles, K as d / 64 K-major (kBN x 64) tiles, V as ceil(kBN / 64) tiles of
/// (d x 64 keys), d contiguous (the M/N-major operand of O = P V); `Stages` of
/// K and V; blocks of `BN` keys (a multiple of 16: a block of 176 loads V's
/// third tile whole and its wgmmas read 48 of its keys).
template <class T, int D, int Stages = 2, int BN = block_keys(D)>
struct Tiles {
  static_assert(D % 64 == 0 && D >= 64 && D <= 256, "tessel: a03 takes head dims 64, 128, 192, 256");
  static_assert(BN % 16 == 0 && BN >= 64 && BN <= 256, "tessel: key blocks of 64-256 keys, a multiple of 16");
  static constexpr int kBN = BN;
  static constexpr int kStages = Stages;
  static constexpr int kDK = D / 64, kNK = (kBN + 63) / 64;
  using OpQ = gemm_kernels::TmaOperand<T, OperandMajor::k, kBM>;
  using OpK = gemm_kernels::TmaOperand<T, OperandMajor::k, kBN>;
  using OpV = gemm_kernels::TmaOperand<T, OperandMajor::mn, D>;
  using MmaS = TiledMma<SM90_64xNx16_F32_SS<T, kBN, OperandMajor::k, OperandMajor::k>, 2, 1, 1>;
  using MmaO = TiledMma<SM90_64xNx16_F32_RS<T, D, OperandMajor::mn>, 2, 1, 1>;
  using FragS = typename MmaS::template FragmentC<coord_layout(make_shape(kBM, kBN))>;  // (kBN/2,1,1) f32
  using FragO = typename MmaO::template FragmentC<coord_layout(make_shape(kBM, D))>;    // (D/2,1,1) f32
  using Pipeline = blocks::TmaPipeline<kStages>;
  static constexpr std::uint32_t kQBytes = kDK * OpQ::kElems * sizeof(T);
  static constexpr std::uint32_t kStageBytes = (kDK * OpK::kElems + kNK * OpV::kElems) * sizeof(T);
  struct SharedStorage {
    alignas(1024) T q[kDK][OpQ::kElems];
    alignas(1024) T k[kStages][kDK][OpK::kElems];
    alignas(1024) T v[kStages][kNK][OpV::kElems];
    blocks::PipelineStorage<kStages> pipe;
    std::uint64_t q_full;
    std::uint64_t q_empty;  // a persistent CTA's (a07): every consumer warp is done reading Q
  };
  static constexpr int kSmemBytes = static_cast<int>(sizeof(SharedStorage));
  static_assert(kSmemBytes <= 227 * 1024, "tessel: a03's tiles exceed 227 KB of shared memory");
  static_assert(FragS::kValues == kBN / 2 && FragO::kValues == D / 2, "one wgmma atom a consumer thread");
};

/// What a launch reads besides the three maps (Q, K: (rows, d) K-major; V:
/// (d, rows) d contiguous; each over (heads, batch)).
using Params = CallParams;

__device__ __forceinline__ float fast_exp2(float x) {
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}

/// The order of the two consumer warpgroups' wgmmas: a03's is none (each
/// issues when it is ready).  A schedule has start(wg, blocks) before the
/// loop, and turn(wg) / pass(wg, last) around each issue of wgmmas.
struct AnyOrder {
  __device__ static void start(int, int) {}
  __device__ static void turn(int) {}
  __device__ static void pass(int, bool) {}
};

/// Zeroes keys [k0, k1) of a stage's V tiles (kNK of (d x 64 keys), a key a
/// 128-byte row of each 64-element slice of d, which the 128-byte swizzle
/// permutes only within itself); thread `i` of 128.
template <class X, class T>
__device__ __forceinline__ void zero_keys(T (&v)[X::kNK][X::OpV::kElems], int k0, int k1, int i) {
  constexpr int kSlices = X::OpV::kElems / 4096;  // 64-element slices of d
  const int rows = (k1 - k0) * kSlices;           // 128-byte rows to clear, 8 stores of 16 bytes each
  for (int c = i; c < rows * 8; c += 128) {
    const int row = c / 8, key = k0 + row / kSlices, slice = row % kSlices;
    T* at = &v[key / 64][slice * 4096 + 64 * (key % 64)] + 8 * (c % 8);
    *reinterpret_cast<uint4*>(at) = uint4{0, 0, 0, 0};
  }
}

/// A tile's Q into `q` by the producer's issuing thread, its bytes expected on `q_full`.
template <class X, class T>
__device__ __forceinline__ void load_q_into(T (&q)[X::kDK][X::OpQ::kElems], std::uint64_t& q_full,
                                            const CUtensorMap* map_q, int q_row, int h, int tb) {
  const std::uint32_t full = arch::smem_addr(&q_full);
  arch::sm90::mbarrier_arrive_expect_tx(full, X::kQBytes);
  for (int s = 0; s < X::kDK; ++s) X::OpQ::Tma::load_at(map_q, q[s], full, q_row, 64 * s, h, tb);
}

/// A tile's Q into the one Q buffer of `shared`.
template <class X>
__device__ __forceinline__ void load_q(typename X::SharedStorage& shared, const CUtensorMap* map_q, int q_row, int h,
                                       int tb) {
  load_q_into<X>(shared.q, shared.q_full, map_q, q_row, h, tb);
}

/// Key block `key0`'s K (d / 64 slices) into stage `stage`, completing on `full`.
template <class X>
__device__ __forceinline__ void load_k(typename X::SharedStorage& shared, const CUtensorMap* map_k, int stage,
                                       std::uint32_t full, int key0, int hk, int tb) {
  for (int s = 0; s < X::kDK; ++s) X::OpK::Tma::load_at(map_k, shared.k[stage][s], full, key0, 64 * s, hk, tb);
}

/// Key block `key0`'s V (kBN / 64 slices of 64 keys) into stage `stage`, completing on `full`.
template <class X>
__device__ __forceinline__ void load_v(typename X::SharedStorage& shared, const CUtensorMap* map_v, int stage,
                                       std::uint32_t full, int key0, int hk, int tb) {
  for (int s = 0; s < X::kNK; ++s) X::OpV::Tma::load_at(map_v, shared.v[stage][s], full, 0, key0 + 64 * s, hk, tb);
}

/// Each of `blocks` key blocks' K and V into the stage at `write` (one stage
/// a block, both halves), which is left past the last.
template <class X>
__device__ __forceinline__ void load_key_blocks(typename X::SharedStorage& shared, const typename X::Pipeline& pipe,
                                                const CUtensorMap* map_k, const CUtensorMap* map_v,
                                                typename X::Pipeline::State& write, int kv_first, int hk, int tb,
                                                int blocks) {
  for (int j = 0; j < blocks; ++j, ++write) {
    pipe.producer_acquire(write, X::kStageBytes);
    const std::uint32_t full = pipe.full(write.index());
    const int key0 = kv_first + j * X::kBN;
    load_k<X>(shared, map_k, write.index(), full, key0, hk, tb);
    load_v<X>(shared, map_v, write.index(), full, key0, hk, tb);
  }
}

/// One tile's loads by the producer's issuing thread: Q, then each of
/// `blocks` key blocks' K and V into the stage at `write`, which is left past
/// the last.
template <class X>
__device__ __forceinline__ void load_tile(typename X::SharedStorage& shared, const typename X::Pipeline& pipe,
                                          const CUtensorMap* map_q, const CUtensorMap* map_k, const CUtensorMap* map_v,
                                          typename X::Pipeline::State& write, int q_row, int kv_first, int h, int hk,
                                          int tb, int blocks) {
  load_q<X>(shared, map_q, q_row, h, tb);
  load_key_blocks<X>(shared, pipe, map_k, map_v, write, kv_first, hk, tb, blocks);
}

/// The producer warpgroup: one thread loads Q once, then each of `blocks` key
/// blocks' K and V into the next stage; the warpgroup's registers go to the
/// consumers.
template <class X>
__device__ __forceinline__ void produce(typename X::SharedStorage& shared, const typename X::Pipeline& pipe,
                                        const CUtensorMap* map_q, const CUtensorMap* map_k, const CUtensorMap* map_v,
                                        int q_row, int kv_first, int h, int hk, int tb, int blocks, int warp) {
  gemm_kernels::k10::ProducerWarpgroupPersistent::producer_start();
  if (warp != kConsumerWarps || !arch::sm90::elect_one_sync()) return;
  typename X::Pipeline::State write;
  load_tile<X>(shared, pipe, map_q, map_k, map_v, write, q_row, kv_first, h, hk, tb, blocks);
}

/// P's registers kept until the wgmmas that read them are done.
template <int kBN>
__device__ __forceinline__ void fence_p(std::uint32_t (&pr)[kBN / 16][4]) {
  TESSEL_UNROLL
  for (int i = 0; i < kBN / 16; ++i) {
    TESSEL_UNROLL
    for (int r = 0; r < 4; ++r) arch::sm90::register_fence(pr[i][r]);
  }
}

/// A consumer thread's share of a CTA: its rows, the sequence, the running
/// output and row statistics, and the pieces of a key block's work (each
/// issue of wgmmas without the arrive and commit around it).
template <class T, int D, class X>
struct Consumer {
  using MmaS = typename X::MmaS;
  using MmaO = typename X::MmaO;
  static constexpr int kBN = X::kBN;
  typename X::SharedStorage& shared;
  const Params& p;
  int t, lane, wg;  // thread t of the TiledMMAs' 256, its warpgroup
  int row0, row_w;  // the CTA's and the warp's first query row (warps 0-3: rows 0-63, 4-7: 64-127)
  int kv_first, len_kv, diag;
  decltype(MmaS{}.get_slice(0)) thr_s;
  decltype(MmaO{}.get_slice(0)) thr_o;
  typename X::FragO acc_o;
  float row_max[2] = {-INFINITY, -INFINITY}, row_sum[2] = {0.0f, 0.0f};

  // Descriptors from lane 0's index (warp-uniform), as k13's.
  __device__ Consumer(typename X::SharedStorage& sh, const Params& pp, const SequenceRows& seq, int row0_)
      : shared(sh),
        p(pp),
        t(static_cast<int>(threadIdx.x)),
        lane(t % 32),
        wg(t / 128),
        row0(row0_),
        row_w(row0_ + 16 * (t / 32)),
        kv_first(seq.kv_first),
        len_kv(seq.len_kv),
        diag(seq.diag()),
        thr_s(MmaS{}.get_slice(__shfl_sync(0xffffffffu, t, 0))),
        thr_o(MmaO{}.get_slice(__shfl_sync(0xffffffffu, t, 0))) {
    for (int v = 0; v < X::FragO::kValues; ++v) *acc_o.addr(v) = 0.0f;
  }

  /// S = Q K^T over d in slices of 64, K from `stage`.
  __device__ __forceinline__ void issue_s(typename X::FragS& acc_s, int stage) const {
    issue_s_from(shared.q, acc_s, stage);
  }

  /// issue_s with Q from `q` (a10 keeps two).
  __device__ __forceinline__ void issue_s_from(const T (&q)[X::kDK][X::OpQ::kElems], typename X::FragS& acc_s,
                                               int stage) const {
    TESSEL_UNROLL
    for (int s = 0; s < X::kDK; ++s) {
      const auto tSdQ = thr_s.partition_fragment_A(make_smem_tensor<X::OpQ::kSmem>(q[s]));                // (1,1,4)
      const auto tSdK = thr_s.partition_fragment_B(make_smem_tensor<X::OpK::kSmem>(shared.k[stage][s]));  // (1,1,4)
      TESSEL_UNROLL
      for (int k = 0; k < 4; ++k) gemm(MmaS{}, tSdQ(_, _, k), tSdK(_, _, k), acc_s, s > 0 || k > 0);
    }
  }

  /// O += P V, V from `stage`: 16 keys of P a wgmma, packed in `pr`.
  __device__ __forceinline__ void issue_pv(const std::uint32_t (&pr)[kBN / 16][4], int stage) {
    TESSEL_UNROLL
    for (int s = 0; s < X::kNK; ++s) {
      const auto tOdV = thr_o.partition_fragment_B(make_smem_tensor<X::OpV::kSmem>(shared.v[stage][s]));  // (1,1,4)
      TESSEL_UNROLL
      for (int k = 0; k < 4; ++k)
        if (4 * s + k < kBN / 16)  // a block of 176 keys reads 48 of its last tile's 64
          arch::sm90::wgmma_rs<detail::wgmma_type<T>(), D, OperandMajor::mn>(
              *reinterpret_cast<float(*)[D / 2]>(acc_o.addr(0)), pr[4 * s + k], tOdV(0, 0, k), true);
    }
  }

  /// Waits for every wgmma issued (P V the last) and holds P's registers and O to them.
  __device__ __forceinline__ void wait_pv(std::uint32_t (&pr)[kBN / 16][4]) {
    warpgroup_wait<0>();
    fence_p<kBN>(pr);
    warpgroup_fence_operand(acc_o);
  }

  /// wait_pv, then gives `st`'s stage back (one release a warp).
  template <class Pipe>
  __device__ __forceinline__ void finish_pv(std::uint32_t (&pr)[kBN / 16][4], const Pipe& pipe,
                                            const typename Pipe::State& st) {
    wait_pv(pr);
    __syncwarp();
    if (lane == 0) pipe.consumer_release(st);
  }

  /// Block j's scores masked past the sequence and the diagonal (the softmax scales them).
  __device__ __forceinline__ void mask_block(typename X::FragS& acc_s, int j) const {
    const int key0 = j * kBN;
    const bool edge = key0 + kBN > len_kv || (p.causal && key0 + kBN - 1 > row0 + diag);
    mask_scores<kBN / 2>(acc_s.addr(0), KeyBlock{key0, row_w, len_kv, diag, p.causal, edge}, lane);
  }

  /// Packed sequences: block j's keys past the sequence are the next
  /// sequence's rows, masked (p = 0) but multiplied: a NaN or inf there would
  /// reach O (0 x inf).  Zeroes them in V's stage, as TMA zero-fills rows past
  /// the tensor (each warpgroup the same rows, then its own wgmmas).
  __device__ __forceinline__ void clear_tail_keys(int j, int stage) {
    const int key0 = j * kBN;
    if (key0 + kBN <= len_kv || kv_first + len_kv >= p.seq_kv) return;
    zero_keys<X>(shared.v[stage], len_kv - key0, min(kBN, p.seq_kv - kv_first - key0), t % 128);
    arch::sm90::fence_proxy_async_shared_cta();  // generic stores, then wgmma's reads and TMA's next fill
    arch::named_barrier_sync(1 + wg, 128);
  }

  /// Points the consumer at another tile of rows (a10's next tile): its
  /// sequence and first row; O and the row statistics are left as they are.
  __device__ __forceinline__ void retarget(const SequenceRows& seq, int row0_) {
    row0 = row0_, row_w = row0_ + 16 * (t / 32);
    kv_first = seq.kv_first, len_kv = seq.len_kv, diag = seq.diag();
  }

  /// O = acc / l in the output type, straight from registers (4 bytes a pair);
  /// lse = (m2 + log2 l) ln 2.
  __device__ __forceinline__ void store(int b, int h, int q_first, int len_q) const {
    store_as(b, h, q_first, len_q, row_w, row_max, row_sum);
  }

  /// store for the warp's rows from `row_w_` with those statistics (a10 stores
  /// a tile once the consumer points at the next).
  __device__ __forceinline__ void store_as(int b, int h, int q_first, int len_q, int row_w_, const float (&row_max_)[2],
                                           const float (&row_sum_)[2]) const {
    store_rows<false>(p, &acc_o, lane, b, h, q_first, len_q, row_w_, row_max_, row_sum_);
  }

  /// A warp's 16 rows of O from `o` and the statistics, or with kEmpty rows
  /// that saw no key (O = 0, lse = -inf; `o` is not read).
  template <bool kEmpty>
  __device__ __forceinline__ static void store_rows(const Params& p, const typename X::FragO* o, int lane, int b, int h,
                                                    int q_first, int len_q, int row_w_, const float (&row_max_)[2],
                                                    const float (&row_sum_)[2]) {
    const int g = lane / 4, tq = lane % 4;
    T* go = static_cast<T*>(p.o) + (p.cu_q != nullptr ? 0 : std::int64_t{b} * p.o_batch) + std::int64_t{h} * p.o_head;
    TESSEL_UNROLL
    for (int r = 0; r < 2; ++r) {
      const float l = kEmpty ? 0.0f : row_total(row_sum_[r]);
      const float inv = l > 0.0f ? 1.0f / l : 0.0f;
      const int row = row_w_ + g + 8 * r;
      if (row >= len_q) continue;
      T* orow = go + std::int64_t{q_first + row} * p.o_row;
      TESSEL_UNROLL
      for (int n = 0; n < D / 8; ++n) {
        *reinterpret_cast<std::uint32_t*>(orow + 8 * n + 2 * tq) =
            kEmpty ? 0u : pack2<T>(*o->addr(4 * n + 2 * r) * inv, *o->addr(4 * n + 2 * r + 1) * inv);
      }
      if (p.lse != nullptr && tq == 0) {
        const std::int64_t at = p.cu_q != nullptr ? std::int64_t{h} * p.seq_q + q_first + row
                                                  : (std::int64_t{b} * p.heads_q + h) * p.seq_q + row;
        p.lse[at] = log_sum_exp(row_max_[r], l);
      }
    }
  }
};

/// P, the softmax's values of a block's accumulator, as the A fragments of
/// the P V wgmmas: 16 keys are accumulator values 8 i .. 8 i + 7, in the A
/// fragment's order.  Packed before the warpgroup's arrive (packing inside
/// the atom, after it, makes ptxas serialize the wgmmas).
template <class T, class FragS, int kBN>
__device__ __forceinline__ void pack_p(const FragS& acc_s, std::uint32_t (&pr)[kBN / 16][4]) {
  TESSEL_UNROLL
  for (int i = 0; i < kBN / 16; ++i) {
    TESSEL_UNROLL
    for (int r = 0; r < 4; ++r) {
      pr[i][r] = pack2<T>(*acc_s.addr(p_value(i, 2 * r)), *acc_s.addr(p_value(i, 2 * r + 1)));
      arch::sm90::register_fence(pr[i][r]);
    }
  }
}

/// One CTA of 128 query rows of head y of sequence z, tiles X: the producer
/// warpgroup loads, and the consumers run `main_loop(consumer, pipe, blocks)`
/// over the key blocks, then store O and the log-sum-exp.  CTA (x, y, z) takes
/// row block x of head y of sequence z, or with `LongestFirst` the CTAs in
/// launch order take sections of p.section (head, sequence) pairs, each
/// section's row blocks from the last to the first (under the causal mask
/// the last rows see the most keys) and its pairs in turn within a row block.
template <class T, int D, class X, bool LongestFirst = false, class MainLoop>
__device__ __forceinline__ void cta(const CUtensorMap* map_q, const CUtensorMap* map_k, const CUtensorMap* map_v,
                                    const Params& p, MainLoop&& main_loop) {
  extern __shared__ __align__(1024) unsigned char smem[];
  auto& shared = *reinterpret_cast<typename X::SharedStorage*>(smem);
  const typename X::Pipeline pipe(shared.pipe);
  const int warp = static_cast<int>(threadIdx.x) / 32;
  int h = static_cast<int>(blockIdx.y), b = static_cast<int>(blockIdx.z), m_block = static_cast<int>(blockIdx.x);
  if constexpr (LongestFirst) {
    const int heads = static_cast<int>(gridDim.y);
    // The CTA's place in launch order (< 2^31: O's rows are distinct).
    const int launched = m_block + static_cast<int>(gridDim.x) * (h + heads * b);
    const CtaWork w =
        longest_first(launched, static_cast<int>(gridDim.x), heads, static_cast<int>(gridDim.z), p.section);
    m_block = w.m, h = w.h, b = w.b;
  }
  const SequenceRows seq(p, b);
  const int row0 = m_block * kBM;
  if (row0 >= seq.len_q) return;  // the whole CTA, before any barrier
  const int blocks = seq.key_blocks(row0, kBM, X::kBN, p.causal);

  if (threadIdx.x == 0) {
    pipe.init(kConsumerWarps);  // one release a consumer warp
    arch::sm90::mbarrier_init(arch::smem_addr(&shared.q_full), 1);
    arch::sm90::fence_mbarrier_init();
  }
  __syncthreads();
  if (warp >= kConsumerWarps) {
    const int tb = p.cu_q != nullptr ? 0 : b;  // the maps' batch coordinate
    produce<X>(shared, pipe, map_q, map_k, map_v, seq.q_first + row0, seq.kv_first, h, h / p.group, tb, blocks, warp);
    return;
  }
  gemm_kernels::k10::ProducerWarpgroupPersistent::consumer_start();
  Consumer<T, D, X> c(shared, p, seq, row0);
  arch::sm90::mbarrier_wait_parity(arch::smem_addr(&shared.q_full), 0);
  main_loop(c, pipe, blocks);
  c.store(b, h, seq.q_first, seq.len_q);
}

/// a03's and a04's key-block loop: S, its softmax, then P V, each warpgroup
/// waiting for its own wgmmas before the next step; the warpgroups' issues in
/// the order of `Schedule` (a04 passes its own).
template <class T, int D, class Schedule>
__device__ __forceinline__ void forward(const CUtensorMap* map_q, const CUtensorMap* map_k, const CUtensorMap* map_v,
                                        const Params& p) {
  using X = Tiles<T, D>;
  cta<T, D, X>(map_q, map_k, map_v, p, [](Consumer<T, D, X>& c, const typename X::Pipeline& pipe, int blocks) {
    Schedule::start(c.wg, blocks);
    typename X::Pipeline::State read;
    for (int j = 0; j < blocks; ++j, ++read) {
      pipe.consumer_wait(read);
      typename X::FragS acc_s;
      warpgroup_fence_operand(acc_s);
      Schedule::turn(c.wg);
      warpgroup_arrive();
      c.issue_s(acc_s, read.index());
      warpgroup_commit_batch();
      Schedule::pass(c.wg, false);
      warpgroup_wait<0>();
      warpgroup_fence_operand(acc_s);

      c.mask_block(acc_s, j);
      online_softmax<X::kBN / 2, D / 2>(acc_s.addr(0), c.p.scale_log2, c.acc_o.addr(0), c.row_max, c.row_sum,
                                        [](float x) { return fast_exp2(x); });
      std::uint32_t pr[X::kBN / 16][4];
      pack_p<T, typename X::FragS, X::kBN>(acc_s, pr);
      c.clear_tail_keys(j, read.index());

      warpgroup_fence_operand(c.acc_o);
      Schedule::turn(c.wg);
      warpgroup_arrive();
      c.issue_pv(pr, read.index());
      warpgroup_commit_batch();
      Schedule::pass(c.wg, j + 1 == blocks);
      c.finish_pv(pr, pipe, read);  // P's registers and the stage are read until the batch is done
    }
  });
}

template <class T, int D>
__global__ void __launch_bounds__(kThreads, 1)
    flash_forward(const __grid_constant__ CUtensorMap map_q, const __grid_constant__ CUtensorMap map_k,
                  const __grid_constant__ CUtensorMap map_v, const Params p) {
  forward<T, D, AnyOrder>(&map_q, &map_k, &map_v, p);
}

}  // namespace tessel::attention_kernels::a03
