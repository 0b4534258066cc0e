// f07 — two CTAs per SM: f06's tiles and loads under 128 registers.
//
// f06 reads its fragments with LDS.128 and loads its stages by cp.async,
// but it needs 167 registers: one CTA (8 warps, 2 per scheduler) per SM.
// Each k-tile of 8 is then 2 x 64 x 8 = 1024 FFMA clocks per scheduler
// between a cp.async and the barrier that waits for it, about the latency
// of a global load under load, and every barrier stalls the whole SM.
// f07 keeps f06's ideas and fits them under 128 registers, so that
// __launch_bounds__(256, 2) puts two CTAs (16 warps) on each SM, and takes
// k-tiles of 16 (f04..f06: 8), which halves the barriers, waits, copies'
// address arithmetic and loop control per FFMA: in the SASS of the main
// loop (A:k, B:n) 1024 of the 1187 instructions per k-tile are FFMA (86 %;
// with k-tiles of 8 the same loop was 512 of 628, 82 %):
//  * the same thread tile, 8x8 accumulators as 2x2 blocks of 4x4, in a
//    compact warp tile of 32x64 (lanes 4 x 8; the 8 warps 4 along M and 2
//    along N): thread (tm, tn) of warp (wm, wn) owns rows
//    32*wm + 4*tm + [0,4) + {0, 16} and columns 64*wn + 4*tn + [0,4) + {0, 32};
//  * f06's M/N-major stages, (128,16):(1,132), so a thread's 4 rows of A (4
//    columns of B) at one k are one LDS.128: per k 2 + 2 LDS.128 for 64
//    FFMA.  Per warp an LDS.128 of A reads 4 distinct vectors (64
//    contiguous bytes) and of B 8 (128 bytes): one wavefront each;
//  * register double buffering: the fragments of k+1 are loaded before the
//    FFMAs of k (2 x (8 + 8) registers);
//  * four shared stages filled by cp.async three k-tiles ahead: the copies
//    of k-tile kt+3 are issued before the FFMAs of kt, and a thread waits
//    (cp.async.wait_group 2) only for kt+1, at the last k of kt.  cp.async
//    costs no registers, so the depth is only shared memory (4 x 16 KB +
//    the pads: 66 KB per CTA, 132 KB for two); one barrier per k-tile.
// What the registers go to: 64 accumulators, 32 fragment values, and the
// addressing kept small on purpose: one 64-bit global pointer per operand
// (advanced by one k-tile after each load), 32-bit shared offsets, and
// everything else (M, N, K, leading dimensions, alpha, beta) read from the
// kernel parameters, which live in constant memory and cost no register.
// The library's tensors and partitions compute 64-bit offsets per access;
// in f05/f06 ptxas kept 32..88 bytes of them live across the loop at 128
// registers and spilled.  So this kernel's hot loop is written on raw
// pointers, its layouts are the library's (checked below), and f06 stays
// the tensor-algebra version of the same tiles.
//
// Loads (per thread and k-tile; 16-byte copies where the rows allow):
//  * K-contiguous operand (A:k, B:k), element (r, k) at base[r*ld + k]: the
//    transpose into the M/N-major stage, thread t at k t%8 + 8h (h < 2) of
//    rows t/8 + 32v (v < 4): eight 4-byte cp.async, each of a warp reading 4 whole
//    32-byte rows (4 sectors; f04..f06 read 16 rows x 8 bytes per copy, 16
//    sectors that L1 must look up 4 times over, in the pipe that also
//    serves the LDS.128); the stores hit bank (4k + r) % 32, a warp's 4 rows
//    x 8 k are banks 0..31 once each;
//  * M/N-contiguous operand (A:m, B:n), element (r, k) at base[r + k*ld]:
//    with 16-byte rows (pointer and ld multiples of 4 floats) thread t
//    copies rows 4*(t%32) + [0,4) of k t/32 + 8h in a 16-byte cp.async (a
//    warp 512 consecutive bytes), two per k-tile; otherwise rows t%32 + 32v,
//    v < 4, by 4-byte cp.async (a warp 128 consecutive bytes per copy,
//    conflict-free), eight per k-tile.
// Edge tiles (a CTA tile not inside M x N, or the last k-tile when K % 16 !=
// 0) take a predicated path: zero-filling copies (src-size 0, or the valid
// bytes of a partial 16-byte vector).
//
// Epilogue from registers, no shared memory: a thread holds 4 consecutive
// columns of each of its 16 rows, so where D's (and, with beta != 0, C's)
// rows are 16-byte aligned and the 4 columns are inside, D = alpha * acc +
// beta * C is one 128-bit load of C and one 128-bit store of D; a warp's
// store writes 4 rows x 128 consecutive bytes (whole sectors).  Elsewhere
// element by element, predicated.  C and D are fp32 (the fp32 ladder's
// type rule, checked by the launcher).
#pragma once

#include <cstdint>

#include "tessel/arch/sm80.hpp"
#include "tessel/atom/bank_conflicts.hpp"
#include "tessel/kernels/gemm/common.cuh"

namespace tessel::gemm_kernels::f07 {

inline constexpr int kBM = 128, kBN = 128, kBK = 16, kThreads = 256, kStages = 4;
inline constexpr int kMinBlocks = 2;  // CTAs per SM: __launch_bounds__ caps registers at 128

/// A stage's k-rows: 128 floats and a pad of 4 (16-byte vectors stay
/// aligned; the transposing stores of K-contiguous operands hit distinct banks).
inline constexpr int kRow = kBM + 4;
/// The (128,16) M/N-major stage of A or B, f06's SmemMNMajor with 16 k.
inline constexpr Layout kStage = make_layout(make_shape(kBM, kBK), make_stride(1, kRow));
inline constexpr int kStageFloats = kBK * kRow;  // 2112 floats, 8448 bytes (a multiple of 16)
static_assert(cosize(kStage) <= kStageFloats && kStageFloats % 4 == 0 && kBK % 8 == 0);
/// Dynamic shared memory: A's stages, then B's (67584 bytes; two CTAs take 132 KB of an SM's 228).
inline constexpr int kSmemBytes = 2 * kStages * kStageFloats * 4;

/// The thread tile: warps 4 (M) x 2 (N) of 32x64, lanes 4 (M) x 8 (N),
/// 2x2 blocks of 4x4 per thread, 16 rows and 32 columns apart.
inline constexpr int kWarpM = 32, kWarpN = 64, kLanesN = 8, kBlockStepM = 16, kBlockStepN = 32;
__device__ inline int thread_row(int t) { return kWarpM * ((t >> 5) & 3) + 4 * ((t & 31) / kLanesN); }
__device__ inline int thread_col(int t) { return kWarpN * (t >> 7) + 4 * ((t & 31) % kLanesN); }

// The fragment reads, as TV layouts of the stage's element indices: a warp's
// LDS.128 of A at one k (lane -> its 4 rows; lanes with the same tm read
// the same vector) and of B.  Conflict-free, 4-byte words counted (a
// broadcast of one vector is not a conflict).
inline constexpr Layout kFragReadA =
    make_layout(make_shape(make_shape(kLanesN, 4), 4), make_stride(make_stride(0, 4), 1));  // ((tn,tm),v) -> row
inline constexpr Layout kFragReadB =
    make_layout(make_shape(make_shape(kLanesN, 4), 4), make_stride(make_stride(4, 0), 1));  // ((tn,tm),v) -> col
static_assert(bank_conflict_ways(kFragReadA, 4) == 1);
static_assert(bank_conflict_ways(kFragReadB, 4) == 1);
// The transposing 4-byte stores of a K-contiguous operand: lane l at k l%8,
// row l/8 + 32 v (value v), stage index 132 k + r.
inline constexpr Layout kStoreK =
    make_layout(make_shape(make_shape(8, 4), 4), make_stride(make_stride(kRow, 1), 32));  // ((k,r),v)
static_assert(bank_conflict_ways(kStoreK, 4) == 1);
// The 4-byte stores of an M/N-contiguous operand without 16-byte rows: lane l
// at row l + 32 v.
inline constexpr Layout kStoreMN = make_layout(make_shape(32, 4), make_stride(1, 32));  // (lane,v)
static_assert(bank_conflict_ways(kStoreMN, 4) == 1);

/// This thread's copies of one operand, an (R,K) matrix (A: R = M, B: R = N)
/// whose rows r0 + [0,Rows) the CTA computes, BK k at a time (128 and 16
/// here; f08 takes other tiles with the same code): `g` is its first element of the next
/// k-tile to load, `s` that element's byte offset in a stage, whose k-rows
/// are Rows floats and a pad of 4 (kPitch).
template <OperandMajor Major, int Rows = kBM, int BK = kBK>
struct OperandLoad {
  static constexpr int kPitch = Rows + 4;  // floats from one k to the next in the stage
  static constexpr int kV = Rows / 32;     // 4-byte copies per group of 8 k: rows 32 apart
  static constexpr int kU = Rows / 128;    // 16-byte copies per group of 8 k: 128 rows apart
  static constexpr int kGroups = BK / 8;   // groups of 8 k in a k-tile (a warp's copies cover 8 k at a time)
  static_assert(Rows % 128 == 0 && kPitch % 32 == 4, "the stage's banks: (4k + r) % 32");
  static_assert(BK % 8 == 0, "k-tiles of whole groups of 8 k");

  const float* g;
  std::uint32_t s;
  bool vec;  // M/N-contiguous with 16-byte rows: kU 16-byte copies per 8 k

  __device__ OperandLoad(const float* base, index_t ld, index_t r0, int t) {
    int r, k;
    if constexpr (Major == OperandMajor::k) {
      vec = false;
      r = t >> 3;
      k = t & 7;
      g = base + (r0 + r) * ld + k;
    } else {
      vec = reinterpret_cast<std::uintptr_t>(base) % 16 == 0 && ld % 4 == 0;
      r = vec ? 4 * (t & 31) : (t & 31);
      k = t >> 5;
      g = base + r0 + r + k * ld;
    }
    s = static_cast<std::uint32_t>((k * kPitch + r) * 4);
  }

  /// Floats from one k-tile to the next.
  __device__ static index_t step(index_t ld) {
    if constexpr (Major == OperandMajor::k)
      return BK;
    else
      return BK * ld;
  }

  /// The whole k-tile into the stage at shared byte address `stage`; then
  /// `g` moves to the next k-tile.
  __device__ void load(std::uint32_t stage, index_t ld) {
    const std::uint32_t d = stage + s;
    if constexpr (Major == OperandMajor::k) {
      // Value (h, v): k + 8h, row + 32v.
      TESSEL_UNROLL
      for (int v = 0; v < kV; ++v) {
        TESSEL_UNROLL
        for (int h = 0; h < kGroups; ++h)
          arch::sm80::cp_async_ca<4>(d + (8 * h * kPitch + 32 * v) * 4, g + 8 * h + v * 32 * ld);
      }
    } else {
      // Value (h, v): k + 8h, row + 32v (4-byte copies; a 16-byte copy covers 4 v).
      TESSEL_UNROLL
      for (int h = 0; h < kGroups; ++h) {
        if (vec) {
          TESSEL_UNROLL
          for (int u = 0; u < kU; ++u)
            arch::sm80::cp_async_cg16(d + (8 * h * kPitch + 128 * u) * 4, g + 8 * h * ld + 128 * u);
        } else {
          TESSEL_UNROLL
          for (int v = 0; v < kV; ++v)
            arch::sm80::cp_async_ca<4>(d + (8 * h * kPitch + 32 * v) * 4, g + 8 * h * ld + 32 * v);
        }
      }
    }
    g += step(ld);
  }

  /// Part `part` of `parts` of load(): the copies whose index (in load()'s
  /// loop order) is `part` modulo `parts`, so that a kernel can spread one
  /// k-tile's copies over several k-steps (f09); `g` stays, advance() moves
  /// it after the last part.  `part` and `parts` are constants once the
  /// caller's k-loop is unrolled, and so is the choice of copies.
  __device__ void load_part(std::uint32_t stage, index_t ld, int part, int parts) const {
    const std::uint32_t d = stage + s;
    if constexpr (Major == OperandMajor::k) {
      TESSEL_UNROLL
      for (int v = 0; v < kV; ++v) {
        TESSEL_UNROLL
        for (int h = 0; h < kGroups; ++h)
          if ((v * kGroups + h) % parts == part)
            arch::sm80::cp_async_ca<4>(d + (8 * h * kPitch + 32 * v) * 4, g + 8 * h + v * 32 * ld);
      }
    } else {
      TESSEL_UNROLL
      for (int h = 0; h < kGroups; ++h) {
        if (vec) {
          TESSEL_UNROLL
          for (int u = 0; u < kU; ++u)
            if ((h * kU + u) % parts == part)
              arch::sm80::cp_async_cg16(d + (8 * h * kPitch + 128 * u) * 4, g + 8 * h * ld + 128 * u);
        } else {
          TESSEL_UNROLL
          for (int v = 0; v < kV; ++v)
            if ((h * kV + v) % parts == part)
              arch::sm80::cp_async_ca<4>(d + (8 * h * kPitch + 32 * v) * 4, g + 8 * h * ld + 32 * v);
        }
      }
    }
  }

  /// `g` to the next k-tile (after the last load_part of this one).
  __device__ void advance(index_t ld) { g += step(ld); }

  /// The same k-tile where it may cross the matrix's edge: `rows` rows of the
  /// tile (R - r0, may exceed Rows) and `ks` of its k (K - BK kt) exist; what
  /// lies outside is zero-filled (the source then is `base`, a valid address).
  __device__ void load_edge(std::uint32_t stage, index_t ld, const float* base, index_t rows, index_t ks, int t) {
    const std::uint32_t d = stage + s;
    if constexpr (Major == OperandMajor::k) {
      TESSEL_UNROLL
      for (int v = 0; v < kV; ++v) {
        TESSEL_UNROLL
        for (int h = 0; h < kGroups; ++h) {
          const bool ok = (t & 7) + 8 * h < ks && (t >> 3) + 32 * v < rows;
          arch::sm80::cp_async_ca_zfill<4>(d + (8 * h * kPitch + 32 * v) * 4, ok ? g + 8 * h + v * 32 * ld : base,
                                           ok ? 4u : 0u);
        }
      }
    } else {
      TESSEL_UNROLL
      for (int h = 0; h < kGroups; ++h) {
        const bool k_ok = (t >> 5) + 8 * h < ks;
        if (vec) {
          TESSEL_UNROLL
          for (int u = 0; u < kU; ++u) {
            const index_t left = rows - 4 * (t & 31) - 128 * u;
            const std::uint32_t bytes = !k_ok || left <= 0 ? 0u
                                        : left >= 4        ? 16u
                                                           : static_cast<std::uint32_t>(left) * 4;
            arch::sm80::cp_async_cg16_zfill(d + (8 * h * kPitch + 128 * u) * 4, bytes ? g + 8 * h * ld + 128 * u : base,
                                            bytes);
          }
        } else {
          TESSEL_UNROLL
          for (int v = 0; v < kV; ++v) {
            const bool ok = k_ok && (t & 31) + 32 * v < rows;
            arch::sm80::cp_async_ca_zfill<4>(d + (8 * h * kPitch + 32 * v) * 4, ok ? g + 8 * h * ld + 32 * v : base,
                                             ok ? 4u : 0u);
          }
        }
      }
    }
    g += step(ld);
  }
};

/// The 8 values of A (or B) at step k of a stage: two LDS.128, `apart`
/// floats apart (16 rows of A, 32 columns of B).
template <int Apart>
__device__ inline void load_fragment(const float* s, float (&f)[8]) {
  const float4 x = *reinterpret_cast<const float4*>(s);
  const float4 y = *reinterpret_cast<const float4*>(s + Apart);
  f[0] = x.x, f[1] = x.y, f[2] = x.z, f[3] = x.w;
  f[4] = y.x, f[5] = y.y, f[6] = y.z, f[7] = y.w;
}

/// How the fp32 steps' register epilogues (f07, f08, f10) write D: where
/// D's rows (and, with beta != 0, C's) are 16-byte aligned, four
/// neighbouring columns go as one 128-bit load of C and one 128-bit store of
/// D, element by element elsewhere.
struct RegisterEpilogue {
  float* d;
  const float* c;
  bool read_c, vec;

  __device__ explicit RegisterEpilogue(const Params<float>& p)
      : d(static_cast<float*>(p.d)), c(static_cast<const float*>(p.c)), read_c(p.beta != 0.0f) {
    vec = reinterpret_cast<std::uintptr_t>(d) % 16 == 0 && p.ldd % 4 == 0 &&
          (!read_c || (reinterpret_cast<std::uintptr_t>(c) % 16 == 0 && p.ldc % 4 == 0));
  }

  /// D(row, col + j) = alpha * a[j] + beta * C(row, col + j) for j < 4, the
  /// columns inside D only (`row` is inside: the caller checks it).
  __device__ void four(const Params<float>& p, index_t row, index_t col, const float* a) const {
    const float s_alpha = alpha_of(p), s_beta = read_c ? beta_of(p) : 0.0f;
    if (vec && col + 3 < p.n) {
      float4 x = make_float4(s_alpha * a[0], s_alpha * a[1], s_alpha * a[2], s_alpha * a[3]);
      if (read_c) {
        const float4 y = *reinterpret_cast<const float4*>(c + row * p.ldc + col);
        x.x += s_beta * y.x, x.y += s_beta * y.y, x.z += s_beta * y.z, x.w += s_beta * y.w;
      }
      *reinterpret_cast<float4*>(d + row * p.ldd + col) = x;
    } else {
      TESSEL_UNROLL
      for (int j = 0; j < 4; ++j) {
        if (col + j >= p.n) continue;
        float x = s_alpha * a[j];
        if (read_c) x += s_beta * c[row * p.ldc + col + j];
        d[row * p.ldd + col + j] = x;
      }
    }
  }
};

/// D = alpha * acc + beta * C for this thread's 8x8 values (rows m, columns n
/// of D as thread_row/thread_col say, offset by the CTA's m0, n0).
__device__ inline void epilogue(const Params<float>& p, index_t m0, index_t n0, int t, const float (&acc)[8][8]) {
  const RegisterEpilogue out(p);
  const index_t row0 = m0 + thread_row(t), col0 = n0 + thread_col(t);
  TESSEL_UNROLL
  for (int i = 0; i < 8; ++i) {
    const index_t row = row0 + (i / 4) * kBlockStepM + i % 4;
    if (row >= p.m) continue;
    TESSEL_UNROLL
    for (int bj = 0; bj < 2; ++bj) out.four(p, row, col0 + bj * kBlockStepN, &acc[i][4 * bj]);
  }
}

/// The fp32 GEMM of f07 (see the header comment): one CTA of 256 threads per
/// 128x128 tile of D (blockIdx.x along N, blockIdx.y along M), two per SM.
template <MajorA MA, MajorB MB>
__global__ void __launch_bounds__(kThreads, kMinBlocks) gemm_two_ctas(Params<float> p) {
  extern __shared__ __align__(16) float smem[];
  float* const sa = smem;                           // kStages x (128,16) of A
  float* const sb = smem + kStages * kStageFloats;  // kStages x (128,16) of B
  const std::uint32_t sa_addr = arch::smem_addr(sa), sb_addr = arch::smem_addr(sb);
  constexpr std::uint32_t kStageBytes = kStageFloats * 4;

  const int t = static_cast<int>(threadIdx.x);
  const index_t m0 = index_t{blockIdx.y} * kBM, n0 = index_t{blockIdx.x} * kBN;
  const index_t k_tiles = (p.k + kBK - 1) / kBK;
  // Inside along M and N: only the last k-tile (K % 16 != 0) needs predicates.
  const bool inside = m0 + kBM <= p.m && n0 + kBN <= p.n;

  OperandLoad<major_of(MA)> load_a(p.a, p.lda, m0, t);
  OperandLoad<major_of(MB)> load_b(p.b, p.ldb, n0, t);
  // k-tile kt into stage kt % kStages (then both pointers move on one k-tile).
  const auto load_tile = [&](index_t kt) {
    const std::uint32_t st = static_cast<std::uint32_t>(kt % kStages) * kStageBytes;
    const index_t ks = p.k - kt * kBK;
    if (inside && ks >= kBK) {
      load_a.load(sa_addr + st, p.lda);
      load_b.load(sb_addr + st, p.ldb);
    } else {
      load_a.load_edge(sa_addr + st, p.lda, p.a, p.m - m0, ks, t);
      load_b.load_edge(sb_addr + st, p.ldb, p.b, p.n - n0, ks, t);
    }
  };

  // k-tiles 0 .. kStages-2 on their way; one commit group per k-tile (empty
  // ones past the end keep the count that cp.async.wait_group relies on).
  TESSEL_UNROLL
  for (int kt = 0; kt < kStages - 1; ++kt) {
    if (kt < k_tiles) load_tile(kt);
    arch::sm80::cp_async_commit();
  }
  arch::sm80::cp_async_wait<kStages - 2>();
  __syncthreads();

  // This thread's fragments in a stage: its rows of A, its columns of B.
  const int frag_a = thread_row(t), frag_b = thread_col(t);
  float acc[8][8];
  TESSEL_UNROLL
  for (int i = 0; i < 8; ++i) {
    TESSEL_UNROLL
    for (int j = 0; j < 8; ++j) acc[i][j] = 0.0f;
  }
  float fa[2][8], fb[2][8];  // step k's fragments and step k+1's, being loaded
  load_fragment<kBlockStepM>(sa + frag_a, fa[0]);
  load_fragment<kBlockStepN>(sb + frag_b, fb[0]);

  for (index_t kt = 0; kt < k_tiles; ++kt) {
    // Stage (kt-1) % kStages was last read before the previous k-tile's
    // barrier: refill it with k-tile kt+3, before this k-tile's FFMAs.
    if (kt + kStages - 1 < k_tiles) load_tile(kt + kStages - 1);
    arch::sm80::cp_async_commit();
    const int now = static_cast<int>(kt % kStages), next = static_cast<int>((kt + 1) % kStages);
    const float* const sa_now = sa + now * kStageFloats + frag_a;
    const float* const sb_now = sb + now * kStageFloats + frag_b;
    TESSEL_UNROLL
    for (int k = 0; k < kBK; ++k) {
      if (k == kBK - 1) {
        // k-tile kt+1 has landed (at most kStages-2 younger groups pending)
        // and, after the barrier, everyone's: its first fragments load now.
        // The barrier also ends every read of stage `now`, refilled next.
        arch::sm80::cp_async_wait<kStages - 2>();
        __syncthreads();
        load_fragment<kBlockStepM>(sa + next * kStageFloats + frag_a, fa[0]);
        load_fragment<kBlockStepN>(sb + next * kStageFloats + frag_b, fb[0]);
      } else {
        load_fragment<kBlockStepM>(sa_now + (k + 1) * kRow, fa[(k + 1) % 2]);
        load_fragment<kBlockStepN>(sb_now + (k + 1) * kRow, fb[(k + 1) % 2]);
      }
      TESSEL_UNROLL
      for (int i = 0; i < 8; ++i) {
        TESSEL_UNROLL
        for (int j = 0; j < 8; ++j) acc[i][j] += fa[k % 2][i] * fb[k % 2][j];
      }
    }
  }

  epilogue(p, m0, n0, t, acc);
}

}  // namespace tessel::gemm_kernels::f07
