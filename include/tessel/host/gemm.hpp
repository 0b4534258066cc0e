// tessel/host/gemm.hpp — the GEMM ladder behind one host API:
//   D = act(alpha * A * B + beta * C + bias)
// with A (M x K), B (K x N), C and D (M x N), fp32 accumulation; the bias,
// the activation and an auxiliary output of the pre-activation value are the
// optional epilogue (GemmEpilogue; docs/epilogues.md), by default absent:
// D = alpha * A * B + beta * C.
//
// The names (DType, GemmLayout, GemmImpl, their spellings and parsers) are
// in tessel/gemm_types.hpp, which needs no CUDA.  Neither does this header:
// the stream is only named, so host code includes it without the toolkit's
// headers (linking needs tessel_kernels and the CUDA runtime).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>

#include "tessel/core/config.hpp"
#include "tessel/gemm_plan.hpp"
#include "tessel/gemm_types.hpp"
#include "tessel/host/status.hpp"

// cudaStream_t as driver_types.h declares it (there with __device_builtin__,
// which is empty outside nvcc); repeating a typedef of the same type is
// allowed, so including cuda_runtime.h before or after this is fine.
struct CUstream_st;
typedef struct CUstream_st* cudaStream_t;

namespace tessel {

/// What the GEMM does after alpha * A B + beta * C (docs/epilogues.md), as
/// plain data; the default does nothing more.  With x(i, j) = alpha *
/// (A B)(i, j) + beta * C(i, j) + bias:
///   D(i, j)   = act(x(i, j)), rounded to D's type;
///   aux(i, j) = x(i, j), rounded to D's type (what a backward pass needs:
///               act'(x)), when `aux` is not null.
/// The bias and aux have D's element type (GemmArgs::cd_type); aux is
/// row-major like D, aux(i, j) at aux[i * ldaux + j].
/// Checked (gemm_check, invalid_argument naming the rule): `bias_kind` and
/// `act` are enumerators; `bias` is null iff `bias_kind` is none, and holds
/// M (row) or N (col) elements; `aux` non-null needs ldaux >= N; bias and aux
/// aligned to their element size; aux overlaps none of D, A, B, C and the
/// bias, and the bias does not overlap D (byte ranges).
/// Paths: k13 (and `auto`, whose plan then keeps to them) computes the
/// epilogue in its own epilogue (fused) on its fused instances: tile widths
/// 64, 128, 256, unswapped, split K or not.  Every other step or tuning runs
/// the plain GEMM and then gemm_epilogue_apply over D (unfused): D is then
/// written twice, and a 16-bit D is rounded twice (alpha * A B + beta * C,
/// then act(D + bias)).  Ahead of time k13 fuses only calls with beta = 0 and
/// no aux (k13_fuses); with GemmTuning::jit it fuses the others too, with a
/// kernel compiled at run time for the call's epilogue (tessel/host/jit.hpp,
/// docs/design.md §6).
struct GemmEpilogue {
  Activation act = Activation::none;
  BiasKind bias_kind = BiasKind::none;
  const void* bias = nullptr;  // M (row) or N (col) elements of cd_type; null iff bias_kind is none
  void* aux = nullptr;         // null: no auxiliary output
  index_t ldaux = 0;           // aux's row stride in elements (>= N when aux is not null)
  /// Anything beyond D = alpha * A B + beta * C?
  constexpr bool active() const { return act != Activation::none || bias_kind != BiasKind::none || aux != nullptr; }
};

/// One GEMM.  Element (i, l) of A is a[i*lda + l] for A:k and a[i + l*lda]
/// for A:m; element (l, j) of B is b[l*ldb + j] for B:n and b[l + j*ldb] for
/// B:k; C(i, j) = c[i*ldc + j], D(i, j) = d[i*ldd + j].  A and B share one
/// type and C and D share one: for the 16-bit ladder (k01..k13) A and B are
/// bf16 or f16 and C and D bf16, f16 or f32; for the fp32 ladder (f01..f12)
/// all four are f32.  `c` may be null only when beta == 0 (C is then not read
/// at all).
struct GemmArgs {
  index_t m = 0, n = 0, k = 0;
  DType ab_type = DType::bf16;  // A's type, and B's unless b_type says otherwise
  DType cd_type = DType::bf16;
  /// B's type where it differs from A's (b_type_of): FP8 only, e4m3 x e5m2 or
  /// e5m2 x e4m3 (wgmma's mixed forms, as in cuBLASLt; e5m2 gradients times
  /// e4m3 weights in a backward pass).  Unset, or equal to ab_type: B is
  /// ab_type.  Checked (invalid_argument): where it differs, both FP8.
  std::optional<DType> b_type;
  GemmLayout layout{};
  const void* a = nullptr;
  index_t lda = 0;
  const void* b = nullptr;
  index_t ldb = 0;
  const void* c = nullptr;
  index_t ldc = 0;
  void* d = nullptr;
  index_t ldd = 0;
  float alpha = 1.0f, beta = 0.0f;
  /// k13's tile width, split count and swap of A and B; 0 (SwapAB::plan)
  /// lets the plan choose (the default).  Other steps ignore it.
  /// swap_ab = on: k13 computes D^T = B^T A^T, with N along the tile's 128
  /// rows and M along its tile_n columns, and writes D (reads C) transposed
  /// from registers; the result is the same D.  tile_n is always the
  /// kernel's tile width: with the swap, the width along M.
  /// Checked: tile_n in {0, 16, 32, 64, 128, 192, 256} (more swapped widths below), where 16 and 32 need
  /// the swap (on, or the plan's, which then swaps; with the plan's swap a
  /// forced 64..256 runs unswapped) and the swap on takes 0, 16, 32 or 64, or for A K-major only a multiple of 16
  /// from 80 to 256 (128 rows of N by that much of M), or 48, 80, 96 with tile_m 64 (one consumer warpgroup, 64
  /// rows of N); splits in 0..64 and at most the number of 64-wide k-tiles; swap_ab one of SwapAB's values.
  GemmTuning tuning{};
  /// Bias, activation and the auxiliary output (GemmEpilogue); the default
  /// adds nothing.
  GemmEpilogue epilogue{};
  /// Strided batched GEMM (cuBLAS's strided batched call): `batch` problems
  /// of the same shape, layout, types and scalars; problem b reads A at
  /// a + b * stride_a, B at b + b * stride_b, C at c + b * stride_c, and
  /// writes D at d + b * stride_d (strides in elements, not bytes).  The
  /// default batch = 1 is a single GEMM and ignores the strides.
  /// Checked (invalid_argument, naming the rule): batch >= 1; strides >= 0;
  /// stride 0 is allowed for A, B and C (every problem reads the same
  /// matrix: a broadcast); the batches' D must not overlap: stride_d at
  /// least one D's footprint, (M-1)*ldd + N elements, or batches side by
  /// side inside D's rows ((batch-1)*stride_d + N <= ldd, stride_d >= N).
  /// Which kernels serve batched problems: docs/batched.md.
  index_t batch = 1;
  index_t stride_a = 0, stride_b = 0, stride_c = 0, stride_d = 0;
  /// alpha and beta read from device memory when the kernels run (cuBLAS's
  /// device pointer mode: a captured CUDA graph replays with new scalars).
  /// Where set, the float it points to replaces `alpha` or `beta`; the
  /// pointer must stay valid until the call's work on the stream is done.
  /// Checked (invalid_argument): 4-byte aligned; beta_device needs C (C is
  /// read whatever the value turns out to be); gemm_grouped takes neither.
  const float* alpha_device = nullptr;
  const float* beta_device = nullptr;
  /// Caller-owned scratch memory (optional).  With `workspace` set, every
  /// temporary of the call (split K's partial tiles and counters, the padded
  /// copies of operands whose rows TMA cannot read or that straddle lines,
  /// f12's copies) is carved from these `workspace_bytes` bytes and the call
  /// allocates nothing; gemm_workspace_size says how many it needs.  Used in
  /// stream order: the caller may reuse or free it once the call's work on
  /// the stream is done; calls running concurrently need separate
  /// workspaces.  Checked (invalid_argument): 256-byte aligned, at least
  /// gemm_workspace_size's bytes; workspace_bytes without a workspace is an
  /// error; gemm_grouped takes none.  A tuned call (GemmTuning::tune) with a
  /// workspace runs the kept choice or the plan: it times nothing.
  void* workspace = nullptr;
  std::size_t workspace_bytes = 0;
  /// FP8 A and B (ab_type e4m3 or e5m2; docs/fp8.md); other types ignore
  /// both.  The tensor core sums FP8 products in an accumulator of about 14
  /// bits, so by default the sum of every `fp8_promote_every` k-tiles of 128
  /// elements (0: kFp8PromoteEvery) is added into fp32 registers (cuBLASLt's
  /// default, and DeepSeek-V3's promotion).  fp8_fast_accum = true sums in the
  /// tensor core from the first k-tile to the last (cuBLASLt's FAST_ACCUM,
  /// torch's use_fast_accum): faster on large tiles, an error that grows with
  /// K.  Checked: fp8_promote_every in 0..64; the 128 x 256 tile only with
  /// fp8_fast_accum (two accumulators of it do not fit in registers).
  bool fp8_fast_accum = false;
  int fp8_promote_every = 0;
  /// FP8 scales (Fp8Scale, tessel/gemm_types.hpp): fp32 arrays in device
  /// memory, `fp8_scale_a` A's and `fp8_scale_b` B's, read when the kernel
  /// runs.  Checked (invalid_argument): FP8 A and B; both pointers set and
  /// 4-byte aligned where the mode is not none, null where it is.  Block
  /// scales promote every k-tile (fp8_fast_accum false, fp8_promote_every 0
  /// or 1) on the unswapped 128-wide tiles (tile_n 0 or 128, no swap):
  /// otherwise `unsupported`.
  Fp8Scale fp8_scale = Fp8Scale::none;
  const float* fp8_scale_a = nullptr;
  const float* fp8_scale_b = nullptr;
  /// A masked problem of gemm_grouped (decode-time mixtures of experts,
  /// where a router on the device decides each expert's rows): the row count
  /// read from this int when the kernel runs; `m` is then the capacity (the
  /// rows of A, C and D allocated).  Rows at and past the count are not
  /// computed, and D's are not written; a count above m is taken as m, below
  /// 0 as 0.  The int must stay valid until the call's work is done.
  /// Checked: 4-byte aligned (invalid_argument); gemm_grouped only, on the
  /// grouped kernel (sm_90, 16-bit or FP8 A and B whose rows TMA reads):
  /// elsewhere `unsupported` (tessel::gemm: invalid_argument).
  const int* m_device = nullptr;
};

/// B's element type: GemmArgs::b_type where set, else ab_type.
inline DType b_type_of(const GemmArgs& g) { return g.b_type.value_or(g.ab_type); }

/// The default promotion interval of FP8 sums (GemmArgs::fp8_promote_every),
/// in k-tiles of 128 elements: measured, docs/fp8.md.
inline constexpr int kFp8PromoteEvery = 8;

/// The bytes of `workspace` that gemm(impl, args) needs (0: none), after the
/// checks of gemm_check (whose status it returns, with `bytes` set to 0, on
/// failure).  An upper bound of what the call takes, exact for split K's
/// partial tiles; it depends on the extents, layouts, leading dimensions,
/// the operands' addresses modulo 128 bytes, the tuning and the device.
Status gemm_workspace_size(GemmImpl impl, const GemmArgs& args, std::size_t& bytes);

/// How many allocations GEMM calls in this process have taken from tessel's
/// own memory pool (a counter for tests and diagnostics: a call with a
/// caller-owned workspace adds none).
std::uint64_t gemm_pool_allocations();

/// Checks `args` for `impl` without launching anything: `invalid_argument`
/// for malformed arguments (null pointers, negative extents, leading
/// dimensions smaller than the contiguous extent, null C with beta != 0, the
/// batch's rules (GemmArgs::batch), D overlapping A or B, or C unless C is D
/// in place (same pointer, ldc = ldd, stride_c = stride_d; byte ranges over
/// every batch),
/// types the step does not take: fp32 A/B for k01..k13, anything but fp32
/// for f01..f12), `unsupported` for well-formed problems
/// this implementation cannot serve, each naming the rule broken.
Status gemm_check(GemmImpl impl, const GemmArgs& args);

/// Launches `impl` on `stream` after gemm_check; on any failure nothing is
/// launched and nothing is written.  A strided batch (batch > 1) runs as one
/// launch of k13's batched kernel where k13 runs and can (docs/batched.md),
/// else as one launch of `impl` per batch: every batch checked before the
/// first, so only a device error can stop it midway (earlier batches written).  M, N or K may be zero-size only as
/// rejected arguments: every extent must be at least 1.
/// Scratch memory: k09..k13 (the TMA steps) with an A or B whose rows are not
/// 16-byte aligned (lda or ldb not a multiple of 8, or a misaligned pointer)
/// copy that operand into a padded temporary (one kernel for both), and k13
/// with split K keeps its fp32 partial tiles in a workspace and its per-tile
/// counters in an array per stream that the kernel leaves zeroed (a stream
/// under graph capture gets counters of its own, zeroed in the graph).  Both come from a stream-ordered memory pool of
/// tessel's own per device (allocated and freed on `stream`; up to 512 MiB of freed memory stays mapped for the next
/// call; the device's default pool is not touched), or from GemmArgs::workspace where the caller gives one (then
/// nothing is allocated).  If a padded copy cannot be allocated, k08's kernel runs instead;
/// if split K's workspace cannot, the call fails with cuda_error and nothing is written.  Calls on different streams
/// may run concurrently: each has its own temporaries.
Status gemm(GemmImpl impl, const GemmArgs& args, cudaStream_t stream = nullptr);

/// A group of independent GEMMs (mixture-of-experts layers): problem g is
/// D_g = alpha_g * A_g * B_g + beta_g * C_g with its own M, N, K, pointers,
/// leading dimensions and scalars.  Every problem is checked as gemm_check
/// checks a single one (the message names the problem's index), and the
/// group's rules are (invalid_argument, naming the rule): count >= 1 and
/// `problems` not null; every problem has batch = 1; all problems share
/// ab_type, b_type, cd_type and layout; every problem's tuning is the default or
/// names the same tile_n (0, 128 or 256; no split of K, no swap); no
/// problem's D overlaps another problem's D, A, B or C (byte ranges).
/// alpha and beta may differ between problems.
Status gemm_grouped_check(const GemmArgs* problems, int count);

/// Runs the group on `stream` after gemm_grouped_check; on any failure
/// nothing is launched and nothing is written.  On sm_90 with 16-bit inputs
/// whose A and B rows TMA can read, ONE persistent launch of k13's grouped
/// kernel computes every problem (one tile width for the whole group, chosen
/// by gemm_plan_grouped; no split K, no swap of A and B); elsewhere each
/// problem runs as tessel::gemm(problem) in turn (correct, slower; said in
/// docs/batched.md).  The problems' descriptors (three TMA maps each) are
/// encoded on the host and copied to device memory on `stream` from
/// tessel's pool.
Status gemm_grouped(const GemmArgs* problems, int count, cudaStream_t stream = nullptr);

/// The tile width gemm_grouped runs with (gemm_plan.hpp, plan_grouped), and why.
GemmPlan gemm_plan_grouped(const GemmArgs* problems, int count);

/// The plan's choice for `args` on the current device (tessel/gemm_plan.hpp,
/// docs/heuristics.md): what gemm(GemmImpl::automatic, args) runs, with the
/// caller's nonzero tuning fields kept.  `why` says which rule decided.
GemmPlan gemm_plan(const GemmArgs& args);

/// A device as the plan sees it: compute capability and SM count (the
/// default, an H100 SXM or H200: sm_90 with 132 SMs).
struct GemmDevice {
  int major = 9, minor = 0;
  int sms = 132;
};

/// The plan's choice for `args` on `device`, with no device queried: runs
/// without a GPU (`tessel bench gemm --plan`).  The operands' addresses are
/// read for their alignment only; measured tuning is not consulted (its
/// choices are timings on a device).  An SM count below 1 plans for 132 and
/// says so in `why`.
GemmPlan gemm_plan(const GemmArgs& args, const GemmDevice& device);

/// The unfused epilogue on its own: over the M x N matrix D (args.d, ldd,
/// cd_type), in place,
///   x = D(i, j) + bias;  aux(i, j) = x (if args.epilogue.aux);  D(i, j) = act(x)
/// in fp32, each result rounded to cd_type.  This is what gemm runs after the
/// plain GEMM where no fused instance serves the call; A, B, C, alpha, beta,
/// K and the tuning are not read (the extents, D and the epilogue are
/// checked as gemm_check checks them: invalid_argument naming the rule, and
/// nothing is launched).  An epilogue that is not active() launches nothing.
Status gemm_epilogue_apply(const GemmArgs& args, cudaStream_t stream = nullptr);

/// Compiles or loads, without launching anything, the run-time compiled
/// kernel that gemm(impl, args) would run (GemmTuning::jit, docs/design.md
/// §6, tessel/host/jit.hpp), so that the first call of a configuration does
/// not wait for nvcc.  ok when the call needs no such kernel (jit off, a path
/// without one) or when it is ready; `unsupported` with the reason when it
/// cannot be had (the call itself would then fall back to the ahead-of-time
/// path).  The arguments are checked as gemm_check checks them.
/// Thread-safe: several configurations prepared from several threads compile
/// in parallel; the same configuration compiles once.
Status gemm_jit_prepare(GemmImpl impl, const GemmArgs& args);

/// gemm(GemmImpl::automatic, args, stream): the plan chooses.
inline Status gemm(const GemmArgs& args, cudaStream_t stream = nullptr) {
  return gemm(GemmImpl::automatic, args, stream);
}

}  // namespace tessel
