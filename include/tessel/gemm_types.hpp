// tessel/gemm_types.hpp — the names of the GEMM ladder: element types,
// layouts, epilogue activations and bias kinds, implementations, their
// spellings and parsers.
//
// Header-only and free of CUDA (the standard library only), so that one
// definition serves the host API (host/gemm.hpp), the kernels
// (kernels/gemm/common.cuh) and host-only code such as the CLI's argument
// parser (tools/tessel/bench_gemm_args.cpp), which builds without CUDA.
//
// Layout names follow docs/bench-protocol.md §5: `A:k` means K is A's
// contiguous index (row-major M x K), `A:m` means M is; `B:n` means N is B's
// contiguous index (row-major K x N), `B:k` means K is.  C and D are row-major.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "tessel/core/major.hpp"

namespace tessel {

/// Split K's partial tiles that the last unit of a tile loads a pass: each
/// pass waits one L2 round trip, and a pass holds what 32 pairs of a consumer
/// thread's registers take (`pairs`: the tile's fp32 accumulator pairs a
/// thread, tile width / 4 for k13's and k14's 64- and 128-row tiles), at most
/// 16.  The kernels' reduction (kernels/gemm/split_k.cuh) and the plan's
/// model (gemm_model.hpp) both read it.
/// C++ example: split_sum_per_pass(4) == 16 (swapped x 16), split_sum_per_pass(16) == 2 (64 x 64),
/// split_sum_per_pass(32) == 1.
constexpr int split_sum_per_pass(int pairs) { return pairs <= 4 ? 16 : pairs <= 16 ? 32 / pairs : 1; }
static_assert(split_sum_per_pass(4) == 16 && split_sum_per_pass(8) == 4 && split_sum_per_pass(16) == 2 &&
              split_sum_per_pass(20) == 1 && split_sum_per_pass(64) == 1);

/// The most splits of K that k13 runs inside a cluster (a portable cluster's CTAs).
inline constexpr int kMaxClusterSplits = 8;
/// Does k13 split K inside clusters (kernels/gemm/cluster_split_k.cuh: the
/// splits of a tile summed in one CTA's shared memory, no partials in global
/// memory) for `units` = tiles x splits on `sms` SMs?  Its swapped 16- and
/// 32-wide tiles (16-bit inputs) at 2..8 splits, where every cluster is
/// resident at once: a pair of SMs always holds a cluster of 2, so up to the
/// SMs' count; larger clusters need their CTAs in one GPC, and past half the
/// SMs they ran in two waves on the H200 (18 x 576 x 8975, 6 splits of 18
/// tiles: 16.2 -> 20.4 us), so up to half.  The launch and the plan's model
/// (gemm_model.hpp) both read it; the launch also checks the clusters the
/// device holds and splits through global memory where they are fewer.
/// C++ example: splits_in_cluster(true, 16, 4, 64, 132) == true; splits_in_cluster(true, 16, 4, 100, 132) == false.
constexpr bool splits_in_cluster(bool swap, int tile_n, int splits, long long units, int sms) {
  return swap && tile_n <= 32 && splits >= 2 && splits <= kMaxClusterSplits && units <= (splits == 2 ? sms : sms / 2);
}
static_assert(splits_in_cluster(true, 32, 8, 64, 132) && !splits_in_cluster(true, 16, 12, 24, 132) &&
              !splits_in_cluster(false, 16, 2, 8, 132) && splits_in_cluster(true, 16, 2, 132, 132) &&
              !splits_in_cluster(true, 16, 3, 69, 132));

namespace names_detail {
/// ASCII only: the parsers must not depend on the C locale the program set.
constexpr char lower_ascii(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }
constexpr bool space_ascii(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'; }
/// Equal ignoring ASCII case.
constexpr bool iequal(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (lower_ascii(a[i]) != lower_ascii(b[i])) return false;
  return true;
}
}  // namespace names_detail

// ------------------------------------------------------------------ element types

/// e4m3 and e5m2 are the two FP8 formats (OCP FP8, CUDA's __nv_fp8_e4m3 and
/// __nv_fp8_e5m2): input types only (A and B), C and D are 16 or 32 bits.
enum class DType { bf16, f16, f32, e4m3, e5m2 };

/// "bf16", "fp16", "fp32", "e4m3", "e5m2" (the spelling of CSV/JSON columns and messages).
constexpr const char* name(DType t) {
  switch (t) {
    case DType::bf16:
      return "bf16";
    case DType::f16:
      return "fp16";
    case DType::f32:
      return "fp32";
    case DType::e4m3:
      return "e4m3";
    case DType::e5m2:
      return "e5m2";
  }
  return "unknown";
}
/// "bf16", "fp16"/"f16", "fp32"/"f32", "e4m3"/"fp8_e4m3", "e5m2"/"fp8_e5m2",
/// exactly (case and spaces matter).
constexpr std::optional<DType> parse_dtype(std::string_view s) {
  if (s == "bf16") return DType::bf16;
  if (s == "fp16" || s == "f16") return DType::f16;
  if (s == "fp32" || s == "f32") return DType::f32;
  if (s == "e4m3" || s == "fp8_e4m3") return DType::e4m3;
  if (s == "e5m2" || s == "fp8_e5m2") return DType::e5m2;
  return std::nullopt;
}
/// Is `t` one of the FP8 formats?
constexpr bool is_fp8(DType t) { return t == DType::e4m3 || t == DType::e5m2; }
/// Bytes of one element: 1, 2 or 4.
constexpr int size_bytes(DType t) { return t == DType::f32 ? 4 : is_fp8(t) ? 1 : 2; }
/// A's and B's types (GemmArgs::ab_type, b_type) from one name for both
/// ("bf16": bf16 and bf16) or two FP8 formats that differ, A's then B's,
/// joined by 'x' ("e4m3xe5m2": e4m3 and e5m2); nullopt for anything else.
constexpr std::optional<std::pair<DType, DType>> parse_input_types(std::string_view s) {
  const std::size_t x = s.find('x');
  if (x == std::string_view::npos) {
    const std::optional<DType> t = parse_dtype(s);
    if (!t) return std::nullopt;
    return std::pair{*t, *t};
  }
  const std::optional<DType> a = parse_dtype(s.substr(0, x)), b = parse_dtype(s.substr(x + 1));
  if (!a || !b || !is_fp8(*a) || !is_fp8(*b) || *a == *b) return std::nullopt;
  return std::pair{*a, *b};
}
static_assert(parse_input_types("e5m2xe4m3") == std::pair{DType::e5m2, DType::e4m3} &&
              parse_input_types("fp16") == std::pair{DType::f16, DType::f16} && !parse_input_types("e4m3xe4m3") &&
              !parse_input_types("bf16xe4m3"));

// ------------------------------------------------------------------ layouts

enum class MajorA { k, m };  // A:k (K contiguous) or A:m (M contiguous)
enum class MajorB { n, k };  // B:n (N contiguous) or B:k (K contiguous)
/// Which index of the A (M,K) or B (N,K) operand is contiguous, in the one
/// type the kernels use (core/major.hpp).
constexpr OperandMajor major_of(MajorA a) { return a == MajorA::k ? OperandMajor::k : OperandMajor::mn; }
constexpr OperandMajor major_of(MajorB b) { return b == MajorB::k ? OperandMajor::k : OperandMajor::mn; }
struct GemmLayout {
  MajorA a = MajorA::k;
  MajorB b = MajorB::n;
  friend constexpr bool operator==(const GemmLayout&, const GemmLayout&) = default;
};
inline constexpr GemmLayout kAllGemmLayouts[] = {
    {MajorA::k, MajorB::n}, {MajorA::k, MajorB::k}, {MajorA::m, MajorB::n}, {MajorA::m, MajorB::k}};

/// "A:k,B:n" and so on.
inline std::string name(GemmLayout l) {
  return std::string("A:") + (l.a == MajorA::k ? "k" : "m") + ",B:" + (l.b == MajorB::n ? "n" : "k");
}
/// Accepts "A:k,B:n" (the two parts in any order, spaces and case ignored)
/// and the short form "kn" (A's contiguous index, then B's).
constexpr std::optional<GemmLayout> parse_gemm_layout(std::string_view s) {
  using namespace names_detail;
  // Without spaces, lower case.  The longest valid text is "a:k,b:n": more
  // than that is rejected without looking further.
  constexpr std::size_t kMax = 7;
  char t[kMax] = {};
  std::size_t n = 0;
  for (char c : s) {
    if (space_ascii(c)) continue;
    if (n == kMax) return std::nullopt;
    t[n++] = lower_ascii(c);
  }
  GemmLayout l;
  if (n == 2) {  // short form: "kn", "kk", "mn", "mk"
    if ((t[0] != 'k' && t[0] != 'm') || (t[1] != 'n' && t[1] != 'k')) return std::nullopt;
    l.a = t[0] == 'k' ? MajorA::k : MajorA::m;
    l.b = t[1] == 'n' ? MajorB::n : MajorB::k;
    return l;
  }
  // Long form: exactly "a:?" and "b:?" around one comma.
  if (n != 7 || t[3] != ',') return std::nullopt;
  bool have_a = false, have_b = false;
  constexpr std::size_t kParts[] = {0, 4};
  for (std::size_t at : kParts) {
    const char who = t[at], what = t[at + 2];
    if (t[at + 1] != ':') return std::nullopt;
    if (who == 'a' && !have_a && (what == 'k' || what == 'm')) {
      l.a = what == 'k' ? MajorA::k : MajorA::m;
      have_a = true;
    } else if (who == 'b' && !have_b && (what == 'n' || what == 'k')) {
      l.b = what == 'n' ? MajorB::n : MajorB::k;
      have_b = true;
    } else {
      return std::nullopt;
    }
  }
  return l;
}

// ------------------------------------------------------------------ epilogues

/// The activation of a fused epilogue, D = act(alpha * A B + beta * C + bias)
/// (host/gemm.hpp, GemmEpilogue; docs/epilogues.md):
///   relu       max(x, 0)
///   gelu_erf   0.5 x (1 + erf(x / sqrt 2))              (the exact GELU)
///   gelu_tanh  0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))  (cuBLASLt's GELU)
///   silu       x / (1 + e^-x)
enum class Activation : unsigned char { none, relu, gelu_erf, gelu_tanh, silu };
inline constexpr Activation kAllActivations[] = {Activation::none, Activation::relu, Activation::gelu_erf,
                                                 Activation::gelu_tanh, Activation::silu};

/// "none", "relu", "gelu_erf", "gelu_tanh", "silu".
constexpr const char* name(Activation a) {
  switch (a) {
    case Activation::none:
      return "none";
    case Activation::relu:
      return "relu";
    case Activation::gelu_erf:
      return "gelu_erf";
    case Activation::gelu_tanh:
      return "gelu_tanh";
    case Activation::silu:
      return "silu";
  }
  return "unknown";
}
/// The names above, case ignored; no spaces.
constexpr std::optional<Activation> parse_activation(std::string_view s) {
  for (Activation a : kAllActivations)
    if (names_detail::iequal(s, name(a))) return a;
  return std::nullopt;
}

/// Where a fused epilogue's bias vector runs: `row` has one value per row of
/// D (length M, added along each row), `col` one per column (length N, the
/// usual bias of a linear layer y = x W^T + b with row-major y).
enum class BiasKind : unsigned char { none, row, col };
inline constexpr BiasKind kAllBiasKinds[] = {BiasKind::none, BiasKind::row, BiasKind::col};

/// "none", "row", "col".
constexpr const char* name(BiasKind b) {
  switch (b) {
    case BiasKind::none:
      return "none";
    case BiasKind::row:
      return "row";
    case BiasKind::col:
      return "col";
  }
  return "unknown";
}
/// "none", "row", "col" (also "column"), case ignored; no spaces.
constexpr std::optional<BiasKind> parse_bias_kind(std::string_view s) {
  if (names_detail::iequal(s, "column")) return BiasKind::col;
  for (BiasKind b : kAllBiasKinds)
    if (names_detail::iequal(s, name(b))) return b;
  return std::nullopt;
}

/// How an FP8 call's A and B are scaled (GemmArgs::fp8_scale; docs/fp8.md):
/// D = alpha * (sA . A)(sB . B) + beta * C, with fp32 scales
///   none     no scale (alpha alone)
///   tensor   one scale each for A and B, read from device memory
///   channel  one per row of A (M) and one per column of B (N)
///   block    one per 128 elements of K of each row of A, a k-block's M
///            scales contiguous (ceil(K/128) x M, row-major), and one per
///            128 x 128 block of B (ceil(N/128) x ceil(K/128), row-major):
///            DeepSeek-V3's recipe, in the layouts of cuBLASLt's VEC128_32F
///            and BLK128x128_32F modes (torch's _scaled_mm blockwise scales).
enum class Fp8Scale : unsigned char { none, tensor, channel, block };
inline constexpr Fp8Scale kAllFp8Scales[] = {Fp8Scale::none, Fp8Scale::tensor, Fp8Scale::channel, Fp8Scale::block};

/// "none", "tensor", "channel", "block".
constexpr const char* name(Fp8Scale s) {
  switch (s) {
    case Fp8Scale::none:
      return "none";
    case Fp8Scale::tensor:
      return "tensor";
    case Fp8Scale::channel:
      return "channel";
    case Fp8Scale::block:
      return "block";
  }
  return "unknown";
}
/// The names above, case ignored; no spaces.
constexpr std::optional<Fp8Scale> parse_fp8_scale(std::string_view s) {
  for (Fp8Scale x : kAllFp8Scales)
    if (names_detail::iequal(s, name(x))) return x;
  return std::nullopt;
}

/// Who sums k13's partials where it splits K through global memory (unfused
/// 16-bit calls without a split tail, GemmTuning::split_sum): the last unit of
/// each tile, or a second kernel over all the SMs, launched as a programmatic
/// dependent of the GEMM so that its launch overlaps the GEMM's main loop.
/// Elsewhere the knob changes nothing.
enum class SplitSum : unsigned char { plan = 0, last_unit = 1, second_kernel = 2 };
/// Which operand tile k14's pairs share by TMA multicast (GemmTuning::cluster_share): `a` (the pair's CTAs are
/// N-neighbours: each requests half of A's lines a k-tile), `b` (M-neighbours, half of B's), or `plan`: k14's own
/// (B's tile at 128 x 128 and wider, A's at 128 x 64).  Pairs of 128-row tiles, unsplit; k14 only.
enum class ClusterShare : unsigned char { plan = 0, a = 1, b = 2 };

// ------------------------------------------------------------------ implementations

/// The steps of the ladder (docs/ladder.md), in order.
enum class GemmImpl {
  k01_naive,                 // one thread per element of C
  k02_smem_fma,              // shared-memory tiles + a TiledMMA of FMA atoms
  k03_smem_padded,           // k02 with a bank-conflict-free shared layout
  k04_mma_sync,              // mma.sync m16n8k16, 128x128x64, swizzled smem, ldmatrix, cp.async
  k05_double_buffer,         // two stages: load k+1 while computing k
  k06_grouped_raster,        // L2-friendly CTA order
  k07_three_stages,          // three stages
  k08_smem_epilogue,         // epilogue through shared memory, 128-bit stores
  k09_tma_mbarriers,         // TMA loads, mbarrier pipeline, producer warp, 128x256 tile
  k10_persistent_warpgroup,  // persistent CTAs, producer warpgroup, setmaxnreg
  k11_tma_store_epilogue,    // D through shared memory and TMA stores (the best step)
  k12_wgmma,                 // k11 with wgmma (SS) from the TMA-filled stages, two consumer warpgroups
  k13_wgmma_in_flight,       // k12 with one k-tile of wgmma in flight; tile width and split K as knobs
  k14_cluster_multicast,     // k13 on 2-CTA clusters that multicast their shared B tile (A at 128 x 64)
  k15_pingpong,  // the two consumer warpgroups on different 128x128 tiles: one's epilogue hides behind the other's
                 // wgmmas
  // The fp32 ladder (docs/ladder-fp32.md): fp32 A, B, C and D, FFMA on the CUDA cores, no TF32.
  f01_naive,             // one thread per element of D
  f02_smem_fma,          // shared-memory tiles + a TiledMMA of FMA atoms
  f03_smem_padded,       // f02 with a bank-conflict-free shared layout
  f04_double_buffer,     // two shared stages filled through registers, fragments loaded one k ahead
  f05_warp_tiling,       // warps own compact blocks of D (4x4 per thread); epilogue through shared memory
  f06_vector_smem,       // M/N-major shared tiles read with 128-bit loads; cp.async loads
  f07_two_ctas_per_sm,   // f06's tiles under 128 registers (2 CTAs per SM), 4 cp.async stages, epilogue from registers
  f08_thread_tile_16x8,  // 16x8 accumulators per thread on a 256x128 tile, one CTA per SM (cuBLAS's shape)
  f09_spread_copies,     // f08 with the next k-tile's cp.async spread over the k-steps
  f10_tma_loads,         // TMA loads on a 128x256 tile (B:n, 16-byte rows; f08's kernel elsewhere)
  f11_stream_k,          // f10 with the last wave's tiles shared along K by every SM (stream-K)
  f12_operand_copies,    // f11 on A:m, B:n copies of operands it cannot read so (A or B K-major, rows TMA cannot read)
  /// Not a ladder step: M <= 64 with A:k, B:n, B's rows streamed at any alignment (kernels/gemm/small_m_stream.cuh).
  small_m_stream,
  /// Not a step: tessel::gemm chooses the kernel and its tuning (tessel/gemm_plan.hpp).
  automatic,
};
/// The 16-bit ladder k01..k15, in order (bf16 or fp16 A and B; the fp32
/// ladder is kFp32GemmImpls).
inline constexpr GemmImpl kAllGemmImpls[] = {GemmImpl::k01_naive,
                                             GemmImpl::k02_smem_fma,
                                             GemmImpl::k03_smem_padded,
                                             GemmImpl::k04_mma_sync,
                                             GemmImpl::k05_double_buffer,
                                             GemmImpl::k06_grouped_raster,
                                             GemmImpl::k07_three_stages,
                                             GemmImpl::k08_smem_epilogue,
                                             GemmImpl::k09_tma_mbarriers,
                                             GemmImpl::k10_persistent_warpgroup,
                                             GemmImpl::k11_tma_store_epilogue,
                                             GemmImpl::k12_wgmma,
                                             GemmImpl::k13_wgmma_in_flight,
                                             GemmImpl::k14_cluster_multicast,
                                             GemmImpl::k15_pingpong};
/// The fp32 ladder, in order: the steps that take fp32 A and B (and only
/// those; every step of kAllGemmImpls takes bf16 or fp16 A and B).
inline constexpr GemmImpl kFp32GemmImpls[] = {
    GemmImpl::f01_naive,           GemmImpl::f02_smem_fma,         GemmImpl::f03_smem_padded,
    GemmImpl::f04_double_buffer,   GemmImpl::f05_warp_tiling,      GemmImpl::f06_vector_smem,
    GemmImpl::f07_two_ctas_per_sm, GemmImpl::f08_thread_tile_16x8, GemmImpl::f09_spread_copies,
    GemmImpl::f10_tma_loads,       GemmImpl::f11_stream_k,         GemmImpl::f12_operand_copies};
namespace names_detail {
template <std::size_t N>
constexpr bool holds(const GemmImpl (&list)[N], GemmImpl g) {
  for (GemmImpl f : list)
    if (f == g) return true;
  return false;
}
}  // namespace names_detail
/// Is `g` a step of the fp32 ladder (fp32 A and B)?
constexpr bool is_fp32_step(GemmImpl g) { return names_detail::holds(kFp32GemmImpls, g); }
/// The ladder's teaching steps: those `auto` never picks and no other step
/// falls back to (k08 is the TMA steps' and non-sm_90 devices' fallback, f08
/// f10's and f11's; f07, f10-f12 are the fp32 plan's).  A build configured
/// with TESSEL_LADDER_INSTANCES=one (scripts/test.sh without a GPU) holds one
/// instance of each: bf16 with A:k, B:n, or fp32 with A:m, B:n
/// (CMakeLists.txt keeps the same list of translation units).
inline constexpr GemmImpl kTeachingGemmImpls[] = {GemmImpl::k01_naive,
                                                  GemmImpl::k02_smem_fma,
                                                  GemmImpl::k03_smem_padded,
                                                  GemmImpl::k04_mma_sync,
                                                  GemmImpl::k05_double_buffer,
                                                  GemmImpl::k06_grouped_raster,
                                                  GemmImpl::k07_three_stages,
                                                  GemmImpl::k09_tma_mbarriers,
                                                  GemmImpl::k10_persistent_warpgroup,
                                                  GemmImpl::k11_tma_store_epilogue,
                                                  GemmImpl::k12_wgmma,
                                                  GemmImpl::f01_naive,
                                                  GemmImpl::f02_smem_fma,
                                                  GemmImpl::f03_smem_padded,
                                                  GemmImpl::f04_double_buffer,
                                                  GemmImpl::f05_warp_tiling,
                                                  GemmImpl::f06_vector_smem,
                                                  GemmImpl::f09_spread_copies};
/// Is `g` one of the ladder's teaching steps?
constexpr bool is_teaching_step(GemmImpl g) { return names_detail::holds(kTeachingGemmImpls, g); }
/// Is (A and B's type, layout) the one instance of a teaching step that a
/// TESSEL_LADDER_INSTANCES=one build holds?  `fp32`: a step of the fp32 ladder.
constexpr bool is_one_instance_call(bool fp32, DType ab, GemmLayout l) {
  return fp32 ? l.a == MajorA::m && l.b == MajorB::n : ab == DType::bf16 && l.a == MajorA::k && l.b == MajorB::n;
}
/// The rule such a build states for a call outside that instance (gemm_check's
/// status and the launchers' guard, src/kernels/gemm/dispatch.hpp).
inline std::string one_instance_rule(bool fp32) {
  return std::string(fp32 ? "fp32 with A:m, B:n" : "bf16 with A:k, B:n") +
         " only (TESSEL_LADDER_INSTANCES=one or TESSEL_GEMM_INSTANCES=one); configure with "
         "-DTESSEL_LADDER_INSTANCES=all "
         "-DTESSEL_GEMM_INSTANCES=all for the other input types and layouts";
}
/// What `tessel bench gemm` runs by default: the plan's choice (`auto`).
inline constexpr GemmImpl kBestGemmImpl = GemmImpl::automatic;

/// "k01".."k15", "f01".."f12" (and "auto"): the short name (the CLI's, the `impl` column's).
constexpr const char* short_name(GemmImpl g) {
  switch (g) {
    case GemmImpl::k01_naive:
      return "k01";
    case GemmImpl::k02_smem_fma:
      return "k02";
    case GemmImpl::k03_smem_padded:
      return "k03";
    case GemmImpl::k04_mma_sync:
      return "k04";
    case GemmImpl::k05_double_buffer:
      return "k05";
    case GemmImpl::k06_grouped_raster:
      return "k06";
    case GemmImpl::k07_three_stages:
      return "k07";
    case GemmImpl::k08_smem_epilogue:
      return "k08";
    case GemmImpl::k09_tma_mbarriers:
      return "k09";
    case GemmImpl::k10_persistent_warpgroup:
      return "k10";
    case GemmImpl::k11_tma_store_epilogue:
      return "k11";
    case GemmImpl::k12_wgmma:
      return "k12";
    case GemmImpl::k13_wgmma_in_flight:
      return "k13";
    case GemmImpl::k14_cluster_multicast:
      return "k14";
    case GemmImpl::k15_pingpong:
      return "k15";
    case GemmImpl::f01_naive:
      return "f01";
    case GemmImpl::f02_smem_fma:
      return "f02";
    case GemmImpl::f03_smem_padded:
      return "f03";
    case GemmImpl::f04_double_buffer:
      return "f04";
    case GemmImpl::f05_warp_tiling:
      return "f05";
    case GemmImpl::f06_vector_smem:
      return "f06";
    case GemmImpl::f07_two_ctas_per_sm:
      return "f07";
    case GemmImpl::f08_thread_tile_16x8:
      return "f08";
    case GemmImpl::f09_spread_copies:
      return "f09";
    case GemmImpl::f10_tma_loads:
      return "f10";
    case GemmImpl::f11_stream_k:
      return "f11";
    case GemmImpl::f12_operand_copies:
      return "f12";
    case GemmImpl::small_m_stream:
      return "small_m";
    case GemmImpl::automatic:
      return "auto";
  }
  return "unknown";
}
/// "k04_mma_sync" and so on: the long name (the short name, '_', what it adds).
constexpr const char* name(GemmImpl g) {
  switch (g) {
    case GemmImpl::k01_naive:
      return "k01_naive";
    case GemmImpl::k02_smem_fma:
      return "k02_smem_fma";
    case GemmImpl::k03_smem_padded:
      return "k03_smem_padded";
    case GemmImpl::k04_mma_sync:
      return "k04_mma_sync";
    case GemmImpl::k05_double_buffer:
      return "k05_double_buffer";
    case GemmImpl::k06_grouped_raster:
      return "k06_grouped_raster";
    case GemmImpl::k07_three_stages:
      return "k07_three_stages";
    case GemmImpl::k08_smem_epilogue:
      return "k08_smem_epilogue";
    case GemmImpl::k09_tma_mbarriers:
      return "k09_tma_mbarriers";
    case GemmImpl::k10_persistent_warpgroup:
      return "k10_persistent_warpgroup";
    case GemmImpl::k11_tma_store_epilogue:
      return "k11_tma_store_epilogue";
    case GemmImpl::k12_wgmma:
      return "k12_wgmma";
    case GemmImpl::k13_wgmma_in_flight:
      return "k13_wgmma_in_flight";
    case GemmImpl::k14_cluster_multicast:
      return "k14_cluster_multicast";
    case GemmImpl::k15_pingpong:
      return "k15_pingpong";
    case GemmImpl::f01_naive:
      return "f01_naive";
    case GemmImpl::f02_smem_fma:
      return "f02_smem_fma";
    case GemmImpl::f03_smem_padded:
      return "f03_smem_padded";
    case GemmImpl::f04_double_buffer:
      return "f04_double_buffer";
    case GemmImpl::f05_warp_tiling:
      return "f05_warp_tiling";
    case GemmImpl::f06_vector_smem:
      return "f06_vector_smem";
    case GemmImpl::f07_two_ctas_per_sm:
      return "f07_two_ctas_per_sm";
    case GemmImpl::f08_thread_tile_16x8:
      return "f08_thread_tile_16x8";
    case GemmImpl::f09_spread_copies:
      return "f09_spread_copies";
    case GemmImpl::f10_tma_loads:
      return "f10_tma_loads";
    case GemmImpl::f11_stream_k:
      return "f11_stream_k";
    case GemmImpl::f12_operand_copies:
      return "f12_operand_copies";
    case GemmImpl::small_m_stream:
      return "small_m_stream";
    case GemmImpl::automatic:
      return "auto";
  }
  return "unknown";
}
/// Accepts the short name ("k04") or the long one ("k04_mma_sync"), case
/// ignored (as in layouts and on the command line); no spaces.
constexpr std::optional<GemmImpl> parse_gemm_impl(std::string_view s) {
  if (names_detail::iequal(s, "auto")) return GemmImpl::automatic;
  for (GemmImpl g : kAllGemmImpls)
    if (names_detail::iequal(s, short_name(g)) || names_detail::iequal(s, name(g))) return g;
  for (GemmImpl g : kFp32GemmImpls)
    if (names_detail::iequal(s, short_name(g)) || names_detail::iequal(s, name(g))) return g;
  if (names_detail::iequal(s, short_name(GemmImpl::small_m_stream)) ||
      names_detail::iequal(s, name(GemmImpl::small_m_stream)))
    return GemmImpl::small_m_stream;
  return std::nullopt;
}

// ------------------------------------------------------------------ the plan's knobs

/// k13 computes D^T = B^T A^T (A and B swapped) so that a small M is the tile's narrow side, not empty box rows.
enum class SwapAB : unsigned char { plan = 0, off = 1, on = 2 };
/// Run-time compiled fused epilogues for k13 (docs/design.md §6): `off` none; `on` where the ahead-of-time set has
/// no fused kernel (C or aux) on a width with fused instances; `always` every such call.  Failing, the call runs AOT.
enum class GemmJit : unsigned char { off = 0, on = 1, always = 2 };
/// The knobs, 0 (SwapAB::plan) meaning the plan's: `tile_n` 64, 128, 192, 256 or, on 128 rows, a multiple of 16 from
/// 80 to 240 (swapped: 16, 32, 64 of M, or with A:k 80..256 on 128 rows of N), `splits` of K (k13;
/// k14 on 64 x 128 and 128 x 128 pairs), `raster_group` (rule 6), `tile_m` 64 for one consumer warpgroup (rules 1b,
/// 4b), `tune`: measured tuning, `split_tail`: split only the tiles past the grid's full waves (rule 14), `stages` in
/// flight of the swapped x 16/32 tiles (stages_in_flight, gemm_model.hpp; other tiles keep their compiled depth),
/// `cluster` k14's CTAs a cluster (0, 2: pairs; 4: 2 x 2 sharing A and B; k13: 1 no cluster split), `split_sum`,
/// `cluster_share` the operand k14's pairs share.  Under GemmImpl::automatic `cluster` 1 keeps the plan on k13; the
/// plan passes `stages`, `cluster`, `split_sum` and `cluster_share` to the step it chooses, whose check refuses by name
/// what that step cannot take.
struct GemmTuning {
  int tile_n = 0, splits = 0;
  SwapAB swap_ab = SwapAB::plan;
  int raster_group = 0;
  GemmJit jit = GemmJit::off;
  int tile_m = 0;
  bool tune = false, split_tail = false;
  int stages = 0, cluster = 0;          // stages 0: the launch's
  SplitSum split_sum = SplitSum::plan;  // the plan's: the last unit
  ClusterShare cluster_share = ClusterShare::plan;
};
/// What the plan chose and, in words, why (the bench's `note` column).
struct GemmPlan {
  GemmImpl impl = GemmImpl::k13_wgmma_in_flight;
  GemmTuning tuning{256, 1, SwapAB::off, 8};
  std::string why;
};

}  // namespace tessel
