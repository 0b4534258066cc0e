// tessel::gemm: the checks every ladder step shares (the epilogue's among
// them), and dispatch to the steps' launchers (src/kernels/gemm/kNN.cu), with
// the unfused epilogue (src/kernels/gemm/epilogue.cu) after every step that
// has no fused one.  The names of types, layouts and steps are header-only
// (tessel/gemm_types.hpp).
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "src/kernels/gemm/launch.hpp"
#include "src/kernels/gemm/pads.hpp"
#include "src/kernels/gemm/workspace.hpp"
#include "src/kernels/gemm_tune.hpp"
#include "tessel/core/integer.hpp"
#include "tessel/gemm_model.hpp"
#include "tessel/host/gemm.hpp"
#include "tessel/host/jit.hpp"

namespace tessel {

namespace {

Status invalid(std::string msg) { return Status::failure(Status::invalid_argument, std::move(msg)); }

/// The strided batch's rules (GemmArgs::batch; docs/batched.md).  Strides
/// and counts are bounded so that every footprint below fits in 63 bits.
Status check_batch(const GemmArgs& g) {
  if (g.batch < 1) return invalid("batch must be at least 1 (got batch=" + std::to_string(g.batch) + ")");
  if (g.batch == 1) return Status::success();
  if (g.batch > 0x7FFFFFFF) return invalid("batch must be below 2^31 (got batch=" + std::to_string(g.batch) + ")");
  for (index_t st : {g.stride_a, g.stride_b, g.stride_c, g.stride_d})
    if (st < 0 || st > (index_t{1} << 40))
      return invalid("batch strides must be in 0..2^40 elements (got stride_a=" + std::to_string(g.stride_a) +
                     ", stride_b=" + std::to_string(g.stride_b) + ", stride_c=" + std::to_string(g.stride_c) +
                     ", stride_d=" + std::to_string(g.stride_d) + ")");
  // Batches' D must be disjoint: one below the other (stride_d at least one
  // D's footprint), or side by side inside the rows of D (each batch N
  // columns wide, all of them within ldd).
  const index_t d_footprint = (g.m - 1) * g.ldd + g.n;
  const bool stacked = g.stride_d >= d_footprint;
  const bool side_by_side = g.stride_d >= g.n && (g.batch - 1) * g.stride_d + g.n <= g.ldd;
  if (!stacked && !side_by_side)
    return invalid("batches' D overlap: stride_d=" + std::to_string(g.stride_d) +
                   " must be at least one D's footprint (M-1)*ldd+N=" + std::to_string(d_footprint) +
                   ", or the batches must sit side by side in D's rows ((batch-1)*stride_d+N <= ldd)");
  return Status::success();
}

/// The byte range [lo, hi) an operand's elements lie in, over every batch.
struct Span {
  std::uintptr_t lo = 0, hi = 0;
  bool meets(const Span& o) const { return lo < o.hi && o.lo < hi; }
};
Span span_of(const void* p, index_t rows, index_t cols, index_t ld, index_t batch, index_t stride, DType t) {
  const index_t elems = (rows - 1) * ld + cols + (batch - 1) * stride;
  const auto lo = reinterpret_cast<std::uintptr_t>(p);
  return {lo, lo + static_cast<std::uintptr_t>(elems) * static_cast<std::uintptr_t>(size_bytes(t))};
}
Span span_a(const GemmArgs& g) {
  const bool ak = g.layout.a == MajorA::k;
  return span_of(g.a, ak ? g.m : g.k, ak ? g.k : g.m, g.lda, g.batch, g.stride_a, g.ab_type);
}
Span span_b(const GemmArgs& g) {
  const bool bn = g.layout.b == MajorB::n;
  return span_of(g.b, bn ? g.k : g.n, bn ? g.n : g.k, g.ldb, g.batch, g.stride_b, b_type_of(g));
}
Span span_c(const GemmArgs& g) { return span_of(g.c, g.m, g.n, g.ldc, g.batch, g.stride_c, g.cd_type); }
Span span_d(const GemmArgs& g) { return span_of(g.d, g.m, g.n, g.ldd, g.batch, g.stride_d, g.cd_type); }
/// C read where D is written in place (C is D: same pointer, ld and batch
/// stride): each element is read before it is written, by the same thread.
bool c_in_place(const GemmArgs& g) {
  return g.c == g.d && g.ldc == g.ldd && (g.batch == 1 || g.stride_c == g.stride_d);
}
bool reads_c(const GemmArgs& g) { return g.c != nullptr && (g.beta != 0.0f || g.beta_device != nullptr); }

/// `g` as the host rules read it: with beta_device, beta counts as nonzero
/// (C is read; the kernels take the value from the pointer).
GemmArgs with_device_scalars(const GemmArgs& g) {
  GemmArgs a = g;
  if (a.beta_device != nullptr) a.beta = 1.0f;
  return a;
}

/// D must not overlap what the call reads (A, B, and C unless C is D in
/// place): a kernel would read values it has already overwritten, in an
/// order no one chose.  Conservative: byte ranges from each operand's first
/// to last element over every batch, so operands interleaved inside each
/// other's rows are refused too (docs/batched.md).
Status check_overlap(const GemmArgs& g) {
  const Span d = span_d(g);
  if (d.meets(span_a(g))) return invalid("D overlaps A (their byte ranges over every batch intersect)");
  if (d.meets(span_b(g))) return invalid("D overlaps B (their byte ranges over every batch intersect)");
  if (reads_c(g) && !c_in_place(g) && d.meets(span_c(g)))
    return invalid("D overlaps C without being C in place (same pointer, ldc = ldd and stride_c = stride_d)");
  return Status::success();
}

/// A single call has its rows on the host: m_device is gemm_grouped's.
Status check_not_masked(const GemmArgs& g) {
  if (g.m_device == nullptr) return Status::success();
  return invalid("m_device (a row count read on the device) is for gemm_grouped's masked problems, not tessel::gemm");
}

/// The rules every step shares (invalid_argument: the call is malformed).
Status check_common(const GemmArgs& g) {
  if (g.m < 1 || g.n < 1 || g.k < 1)
    return invalid("extents must be positive (got M=" + std::to_string(g.m) + ", N=" + std::to_string(g.n) +
                   ", K=" + std::to_string(g.k) + ")");
  if (g.a == nullptr || g.b == nullptr || g.d == nullptr) return invalid("A, B and D must not be null");
  // Every step's, though only k13 has two sums: a value outside the enum is a malformed call anywhere.
  if (static_cast<unsigned>(g.tuning.split_sum) > static_cast<unsigned>(SplitSum::second_kernel))
    return invalid("tuning.split_sum must be SplitSum::plan, last_unit or second_kernel (got " +
                   std::to_string(static_cast<unsigned>(g.tuning.split_sum)) + ")");
  if (static_cast<unsigned>(g.tuning.cluster_share) > static_cast<unsigned>(ClusterShare::b))
    return invalid("tuning.cluster_share must be ClusterShare::plan, a or b (got " +
                   std::to_string(static_cast<unsigned>(g.tuning.cluster_share)) + ")");
  const auto known = [](DType t) { return t == DType::bf16 || t == DType::f16 || t == DType::f32 || is_fp8(t); };
  if (!known(g.ab_type))
    return invalid("ab_type must be a DType (got " + std::to_string(static_cast<int>(g.ab_type)) + ")");
  if (g.b_type && !known(*g.b_type))
    return invalid("b_type must be a DType (got " + std::to_string(static_cast<int>(*g.b_type)) + ")");
  if (b_type_of(g) != g.ab_type && !(is_fp8(g.ab_type) && is_fp8(b_type_of(g))))
    return invalid(std::string("b_type ") + name(b_type_of(g)) + " differs from ab_type " + name(g.ab_type) +
                   ": only FP8 A and B may differ in format (e4m3 x e5m2, e5m2 x e4m3)");
  if (!known(g.cd_type) || is_fp8(g.cd_type))
    return invalid(std::string("cd_type must be bf16, fp16 or fp32 (got ") +
                   (is_fp8(g.cd_type) ? name(g.cd_type) : std::to_string(static_cast<int>(g.cd_type)).c_str()) +
                   "; FP8 is an input type)");
  const auto misaligned = [](const void* p, std::uintptr_t to) {
    return reinterpret_cast<std::uintptr_t>(p) % to != 0;
  };
  if (misaligned(g.alpha_device, 4) || misaligned(g.beta_device, 4))
    return invalid("alpha_device and beta_device must be 4-byte aligned (they point to a float)");
  if (misaligned(g.m_device, 4)) return invalid("m_device must be 4-byte aligned (it points to an int)");
  if (static_cast<unsigned>(g.fp8_scale) > static_cast<unsigned>(Fp8Scale::block))
    return invalid("fp8_scale must be an Fp8Scale (got " + std::to_string(static_cast<int>(g.fp8_scale)) + ")");
  if (g.fp8_scale == Fp8Scale::none) {
    if (g.fp8_scale_a != nullptr || g.fp8_scale_b != nullptr)
      return invalid("fp8_scale_a or fp8_scale_b is set but fp8_scale is none (set the mode the scales are in)");
  } else {
    if (!is_fp8(g.ab_type))
      return invalid(std::string("fp8_scale ") + name(g.fp8_scale) + " needs FP8 A and B (got " + name(g.ab_type) +
                     ")");  // B's type follows (mixed types are FP8 only)
    if (g.fp8_scale_a == nullptr || g.fp8_scale_b == nullptr)
      return invalid(std::string("fp8_scale ") + name(g.fp8_scale) + " needs fp8_scale_a and fp8_scale_b");
    if (misaligned(g.fp8_scale_a, 4) || misaligned(g.fp8_scale_b, 4))
      return invalid("fp8_scale_a and fp8_scale_b must be 4-byte aligned (they point to floats)");
  }
  if (g.beta_device != nullptr && g.c == nullptr)
    return invalid("C is null but beta_device is set (C is read whatever the value beta_device points to)");
  if (g.workspace == nullptr && g.workspace_bytes != 0)
    return invalid("workspace_bytes is " + std::to_string(g.workspace_bytes) + " but workspace is null");
  if (misaligned(g.workspace, 256)) return invalid("workspace must be 256-byte aligned (as cudaMalloc returns it)");
  if (g.beta != 0.0f && g.c == nullptr) return invalid("C is null but beta != 0 (C is read when beta != 0)");
  const index_t a_contig = g.layout.a == MajorA::k ? g.k : g.m;
  const index_t b_contig = g.layout.b == MajorB::n ? g.n : g.k;
  if (g.lda < a_contig)
    return invalid(std::string("lda must be at least ") + (g.layout.a == MajorA::k ? "K (A:k)" : "M (A:m)") +
                   " (got lda=" + std::to_string(g.lda) + ")");
  if (g.ldb < b_contig)
    return invalid(std::string("ldb must be at least ") + (g.layout.b == MajorB::n ? "N (B:n)" : "K (B:k)") +
                   " (got ldb=" + std::to_string(g.ldb) + ")");
  if (g.ldd < g.n) return invalid("ldd must be at least N (D is row-major)");
  if (g.c != nullptr && g.beta != 0.0f && g.ldc < g.n) return invalid("ldc must be at least N (C is row-major)");
  // Element offsets are 64-bit in the kernels, but grids are not unbounded.
  if ((g.m + 127) / 128 > 65535 * 2048LL || (g.n + 127) / 128 > 65535 * 2048LL)
    return Status::failure(Status::unsupported, "M or N too large for the grid");
  if (Status s = check_batch(g); !s) return s;
  return check_overlap(g);
}

/// The bytes [begin, end) that a strided matrix of `rows` x `cols` elements
/// of `elem` bytes each, rows `ld` apart, can touch (saturated at the top of
/// the address space: a range that large overlaps everything, as it should).
struct ByteRange {
  std::uintptr_t begin = 0, end = 0;
};
ByteRange matrix_bytes(const void* p, index_t rows, index_t cols, index_t ld, int elem) {
  const index_t elems = sat_add(sat_mul(rows - 1, ld), cols);
  const index_t bytes = sat_mul(elems, elem);
  const auto b = reinterpret_cast<std::uintptr_t>(p);
  const auto n = static_cast<std::uintptr_t>(bytes);
  return {b, n > UINTPTR_MAX - b ? UINTPTR_MAX : b + n};
}
bool overlap(ByteRange x, ByteRange y) { return x.begin < y.end && y.begin < x.end; }

/// The epilogue's rules (GemmEpilogue), the same for every step:
/// invalid_argument naming the field and the rule.  `operands`: also check
/// aux against A, B and C (gemm; gemm_epilogue_apply reads none of them).
Status check_epilogue(const GemmArgs& g, bool operands) {
  const GemmEpilogue& e = g.epilogue;
  bool act_known = false, kind_known = false;
  for (Activation a : kAllActivations) act_known = act_known || a == e.act;
  for (BiasKind b : kAllBiasKinds) kind_known = kind_known || b == e.bias_kind;
  if (!act_known)
    return invalid("epilogue.act must be an Activation (none, relu, gelu_erf, gelu_tanh, silu; got " +
                   std::to_string(static_cast<int>(e.act)) + ")");
  if (!kind_known)
    return invalid("epilogue.bias_kind must be a BiasKind (none, row, col; got " +
                   std::to_string(static_cast<int>(e.bias_kind)) + ")");
  if (e.active() && g.batch > 1)
    return Status::failure(Status::unsupported,
                           "epilogue: a fused epilogue (bias, activation, aux) takes a single problem, not a batch "
                           "(batch = " +
                               std::to_string(g.batch) + "): call per problem, or apply it after the batch");
  if (e.bias_kind == BiasKind::none && e.bias != nullptr)
    return invalid("epilogue.bias must be null when epilogue.bias_kind is none (a bias given without its kind)");
  if (e.bias_kind != BiasKind::none && e.bias == nullptr)
    return invalid(std::string("epilogue.bias is null but epilogue.bias_kind is ") + name(e.bias_kind) +
                   (e.bias_kind == BiasKind::row ? " (M values expected)" : " (N values expected)"));
  if (e.aux != nullptr && e.ldaux < g.n)
    return invalid("epilogue.ldaux must be at least N when epilogue.aux is given (aux is row-major; got ldaux=" +
                   std::to_string(e.ldaux) + ", N=" + std::to_string(g.n) + ")");
  const int elem = size_bytes(g.cd_type);
  if (reinterpret_cast<std::uintptr_t>(e.bias) % static_cast<std::uintptr_t>(elem) != 0)
    return invalid("epilogue.bias must be aligned to its element size (" + std::to_string(elem) + " bytes, " +
                   name(g.cd_type) + ")");
  if (reinterpret_cast<std::uintptr_t>(e.aux) % static_cast<std::uintptr_t>(elem) != 0)
    return invalid("epilogue.aux must be aligned to its element size (" + std::to_string(elem) + " bytes, " +
                   name(g.cd_type) + ")");
  const ByteRange d = matrix_bytes(g.d, g.m, g.n, g.ldd, elem);
  const ByteRange bias =
      e.bias == nullptr ? ByteRange{} : matrix_bytes(e.bias, 1, e.bias_kind == BiasKind::row ? g.m : g.n, 0, elem);
  if (e.bias != nullptr && overlap(bias, d))
    return invalid("epilogue.bias must not overlap D (D is written while the bias is read)");
  if (e.aux == nullptr) return Status::success();
  const ByteRange aux = matrix_bytes(e.aux, g.m, g.n, e.ldaux, elem);
  if (overlap(aux, d)) return invalid("epilogue.aux must not overlap D (byte ranges of the two M x N matrices)");
  if (e.bias != nullptr && overlap(aux, bias)) return invalid("epilogue.aux must not overlap the bias");
  if (!operands) return Status::success();
  const int ab = size_bytes(g.ab_type);
  const bool ak = g.layout.a == MajorA::k, bn = g.layout.b == MajorB::n;
  if (overlap(aux, matrix_bytes(g.a, ak ? g.m : g.k, ak ? g.k : g.m, g.lda, ab)))
    return invalid("epilogue.aux must not overlap A");
  if (overlap(aux, matrix_bytes(g.b, bn ? g.k : g.n, bn ? g.n : g.k, g.ldb, size_bytes(b_type_of(g)))))
    return invalid("epilogue.aux must not overlap B");
  if (g.c != nullptr && g.beta != 0.0f && overlap(aux, matrix_bytes(g.c, g.m, g.n, g.ldc, elem)))
    return invalid("epilogue.aux must not overlap C");
  return Status::success();
}

/// The element types a step takes (invalid_argument, naming the rule): the
/// 16-bit ladder (k01..k13) takes bf16 or fp16 A and B with any output type;
/// the fp32 ladder (f01..f12) fp32 A, B, C and D.
Status check_types(GemmImpl impl, const GemmArgs& g) {
  if (is_fp32_step(impl)) {
    if (g.ab_type != DType::f32)
      return invalid(std::string(short_name(impl)) + ": A and B must be fp32 (the fp32 ladder f01..f12; got " +
                     name(g.ab_type) + ": bf16 and fp16 inputs are k01..k13)");
    if (g.cd_type != DType::f32)
      return invalid(std::string(short_name(impl)) + ": C and D must be fp32 (the fp32 ladder; got " + name(g.cd_type) +
                     ")");
    return Status::success();
  }
  if (g.ab_type == DType::f32)
    return invalid(std::string(short_name(impl)) +
                   ": A and B must be bf16 or fp16 (k01..k13; fp32 inputs are the fp32 ladder f01..f12)");
  if (is_fp8(g.ab_type) && impl != GemmImpl::k13_wgmma_in_flight)
    return Status::failure(Status::unsupported, std::string(short_name(impl)) + ": FP8 A and B (" + name(g.ab_type) +
                                                    ") run on k13 only (or auto)");
  return Status::success();
}

/// `unsupported` for a call outside the one instance that a
/// TESSEL_LADDER_INSTANCES=one build holds of a teaching step, or a
/// TESSEL_GEMM_INSTANCES=one build of any step (src/kernels/gemm/dispatch.hpp);
/// success otherwise and in every `all` build.
Status check_ladder_instance(GemmImpl impl, const GemmArgs& g) {
#if defined(TESSEL_LADDER_BUILT_ONE) || defined(TESSEL_GEMM_BUILT_ONE)
  if (is_fp8(g.ab_type)) return Status::success();  // k13's FP8 instances are in every build (instances.cu)
#if !defined(TESSEL_GEMM_BUILT_ONE)
  if (!is_teaching_step(impl)) return Status::success();
#endif
  const bool fp32 = g.ab_type == DType::f32;
  if (is_one_instance_call(fp32, g.ab_type, g.layout)) return Status::success();
  return Status::failure(Status::unsupported,
                         std::string(short_name(impl)) + ": this build holds the step for " + one_instance_rule(fp32));
#else
  (void)impl;
  (void)g;
  return Status::success();
#endif
}

/// What the plan needs of a device, read once per device: the attribute
/// queries cost microseconds on every call otherwise, and a GEMM call's host
/// path is on the critical path of short kernels.
struct DeviceTraits {
  int major = 0, minor = 0, sms = 0;
};

/// Set while gemm_plan(args, device) plans for a device the caller names:
/// device_traits() answers with it and queries nothing, so the plan runs on
/// a machine without a GPU.
thread_local const DeviceTraits* t_named_device = nullptr;

DeviceTraits device_traits() {
  if (t_named_device != nullptr) return *t_named_device;
  constexpr int kCached = 64;
  static std::atomic<std::uint64_t> cache[kCached] = {};  // (sms << 16 | major << 8 | minor) + 1 << 48; 0: not read
  int device = 0;
  if (cudaGetDevice(&device) != cudaSuccess) {
    (void)cudaGetLastError();  // not sticky; the launch will report the device's state itself
    return {};
  }
  if (device >= 0 && device < kCached) {
    const std::uint64_t c = cache[device].load(std::memory_order_relaxed);
    if (c != 0)
      return {static_cast<int>((c >> 8) & 0xFF), static_cast<int>(c & 0xFF), static_cast<int>((c >> 16) & 0xFFFFFFFF)};
  }
  DeviceTraits t;
  if (cudaDeviceGetAttribute(&t.major, cudaDevAttrComputeCapabilityMajor, device) != cudaSuccess ||
      cudaDeviceGetAttribute(&t.minor, cudaDevAttrComputeCapabilityMinor, device) != cudaSuccess ||
      cudaDeviceGetAttribute(&t.sms, cudaDevAttrMultiProcessorCount, device) != cudaSuccess) {
    (void)cudaGetLastError();
    return {};
  }
  if (device >= 0 && device < kCached)
    cache[device].store((std::uint64_t{1} << 48) | (static_cast<std::uint64_t>(t.sms) << 16) |
                            (static_cast<std::uint64_t>(t.major & 0xFF) << 8) |
                            static_cast<std::uint64_t>(t.minor & 0xFF),
                        std::memory_order_relaxed);
  return t;
}

/// Does measured tuning apply to `args` (asked, single 16-bit problem, sm_90)?
bool tunable(const GemmArgs& args) {
  if (t_named_device != nullptr) return false;  // measured tuning times kernels on the device it plans for
  if (!gemm_launch::tune_wanted(args) || args.batch != 1 || args.ab_type == DType::f32 || is_fp8(args.ab_type))
    return false;
  const DeviceTraits dev = device_traits();
  return dev.major == 9 && dev.minor == 0;
}

/// model_choice (tessel/gemm_model.hpp) with its words, remembered per
/// problem: scoring every candidate costs microseconds of host time, and a
/// small call's host path is on its critical path (the same problems come
/// back call after call).  At most kMemo problems; then it starts over.
bool model_choice_memo(const PlanProblem& p, int sms, GemmCandidate& out, std::string& why) {
  struct Key {
    index_t m, n, k, lda, ldb;
    int out_bytes, sms, tile_n, tile_m, splits;
    SwapAB swap;
    bool reads_c, d_tma, a_k_major;
    bool operator==(const Key&) const = default;
  };
  struct Hash {
    std::size_t operator()(const Key& x) const {
      std::size_t h = 0;
      for (index_t v : {x.m, x.n, x.k, x.lda, x.ldb, index_t{x.out_bytes}, index_t{x.sms}, index_t{x.tile_n},
                        index_t{x.tile_m}, index_t{x.splits}, index_t{static_cast<int>(x.swap)}, index_t{x.reads_c},
                        index_t{x.d_tma}, index_t{x.a_k_major}})
        h = h * 0x9E3779B97F4A7C15ull + static_cast<std::size_t>(v);
      return h;
    }
  };
  struct Choice {
    bool found;
    GemmCandidate c;
    std::string why;
  };
  constexpr std::size_t kMemo = 4096;
  static std::mutex mu;
  static std::unordered_map<Key, Choice, Hash> memo;
  const Key key{p.m,
                p.n,
                p.k,
                p.lda,
                p.ldb,
                p.out_bytes,
                sms,
                p.asked.tile_n,
                p.asked.tile_m,
                p.asked.splits,
                p.asked.swap_ab,
                p.beta != 0.0f,
                p.d_tma,
                p.a_k_major};
  {
    const std::lock_guard<std::mutex> lock(mu);
    if (auto it = memo.find(key); it != memo.end()) {
      out = it->second.c;
      why = it->second.why;
      return it->second.found;
    }
  }
  Choice ch{};
  double us = 0;
  ch.found = model_choice(p, sms, ch.c, us);
  if (ch.found) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f", us);
    ch.why = "model " + candidate_name(ch.c) + " (predicted " + buf + " us)";
  }
  out = ch.c;
  why = ch.why;
  const bool found = ch.found;
  const std::lock_guard<std::mutex> lock(mu);
  if (memo.size() >= kMemo) memo.clear();
  memo.emplace(key, std::move(ch));
  return found;
}

/// `auto`: the tuning's own rules (checked on every device), then the plan's
/// step and tuning for `args`.
Status planned(const GemmArgs& args, GemmImpl& impl, GemmArgs& out) {
  if (Status s = gemm_launch::check_k13_tuning(args); !s) return s;
  const DeviceTraits dev = device_traits();
  if (is_fp8(args.ab_type) && dev.major != 0 && (dev.major != 9 || dev.minor != 0))
    return Status::failure(Status::unsupported, "FP8 A and B need an sm_90 device (wgmma); this one is sm_" +
                                                    std::to_string(dev.major) + std::to_string(dev.minor));
  const GemmPlan plan = gemm_plan(args);
  impl = plan.impl;
  out = args;
  out.tuning = plan.tuning;
  out.tuning.tune = false;  // measured tuning, where it applies, ran before the plan (gemm)
  return Status::success();
}

}  // namespace

Status gemm_check(GemmImpl impl, const GemmArgs& args) {
  if (args.beta_device != nullptr && args.beta == 0.0f) return gemm_check(impl, with_device_scalars(args));
  if (Status s = check_common(args); !s) return s;
  if (Status s = check_not_masked(args); !s) return s;
  if (Status s = check_epilogue(args, true); !s) return s;
  if (impl != GemmImpl::automatic) {
    if (args.tuning.tune)
      return invalid(std::string(short_name(impl)) +
                     ": tuning.tune asks tessel::gemm to choose the configuration by timing it: it takes "
                     "GemmImpl::automatic, not a named step");
    if (Status s = check_types(impl, args); !s) return s;
    if (Status s = check_ladder_instance(impl, args); !s) return s;
  }
  using namespace gemm_launch;
  switch (impl) {
    case GemmImpl::k01_naive:
      return check_k01(args);
    case GemmImpl::k02_smem_fma:
      return check_k02(args);
    case GemmImpl::k03_smem_padded:
      return check_k03(args);
    case GemmImpl::k04_mma_sync:
      return check_k04(args);
    case GemmImpl::k05_double_buffer:
      return check_k05(args);
    case GemmImpl::k06_grouped_raster:
      return check_k06(args);
    case GemmImpl::k07_three_stages:
      return check_k07(args);
    case GemmImpl::k08_smem_epilogue:
      return check_k08(args);
    case GemmImpl::k09_tma_mbarriers:
      return check_k09(args);
    case GemmImpl::k10_persistent_warpgroup:
      return check_k10(args);
    case GemmImpl::k11_tma_store_epilogue:
      return check_k11(args);
    case GemmImpl::k12_wgmma:
      return check_k12(args);
    case GemmImpl::k13_wgmma_in_flight:
      return check_k13(args);
    case GemmImpl::k14_cluster_multicast:
      return check_k14(args);
    case GemmImpl::k15_pingpong:
      return check_k15(args);
    case GemmImpl::f01_naive:
      return check_f01(args);
    case GemmImpl::f02_smem_fma:
      return check_f02(args);
    case GemmImpl::f03_smem_padded:
      return check_f03(args);
    case GemmImpl::f04_double_buffer:
      return check_f04(args);
    case GemmImpl::f05_warp_tiling:
      return check_f05(args);
    case GemmImpl::f06_vector_smem:
      return check_f06(args);
    case GemmImpl::f07_two_ctas_per_sm:
      return check_f07(args);
    case GemmImpl::f08_thread_tile_16x8:
      return check_f08(args);
    case GemmImpl::f09_spread_copies:
      return check_f09(args);
    case GemmImpl::f10_tma_loads:
      return check_f10(args);
    case GemmImpl::f11_stream_k:
      return check_f11(args);
    case GemmImpl::f12_operand_copies:
      return check_f12(args);
    case GemmImpl::small_m_stream:
      return check_small_m(args);
    case GemmImpl::automatic: {
      GemmImpl step{};
      GemmArgs with_plan;
      if (Status s = planned(args, step, with_plan); !s) return s;
      return gemm_check(step, with_plan);
    }
  }
  return invalid("unknown implementation");
}

namespace {

/// The step's launcher for a checked single problem (batch ignored).
Status launch_step(GemmImpl impl, const GemmArgs& args, cudaStream_t stream) {
  using namespace gemm_launch;
  // k13 and k15 fuse the epilogue where they have the instance (launch_k13,
  // launch_k15; no FP8 one); every other step runs plain, then the elementwise epilogue over D.
  const bool may_fuse =
      (impl == GemmImpl::k13_wgmma_in_flight && !is_fp8(args.ab_type)) || impl == GemmImpl::k15_pingpong;
  if (args.epilogue.active() && !may_fuse) {
    GemmArgs plain = args;
    plain.epilogue = GemmEpilogue{};
    if (Status s = gemm(impl, plain, stream); !s) return s;
    return launch_epilogue(args, stream);
  }
  switch (impl) {
    case GemmImpl::k01_naive:
      return launch_k01(args, stream);
    case GemmImpl::k02_smem_fma:
      return launch_k02(args, stream);
    case GemmImpl::k03_smem_padded:
      return launch_k03(args, stream);
    case GemmImpl::k04_mma_sync:
      return launch_k04(args, stream);
    case GemmImpl::k05_double_buffer:
      return launch_k05(args, stream);
    case GemmImpl::k06_grouped_raster:
      return launch_k06(args, stream);
    case GemmImpl::k07_three_stages:
      return launch_k07(args, stream);
    case GemmImpl::k08_smem_epilogue:
      return launch_k08(args, stream);
    case GemmImpl::k09_tma_mbarriers:
      return launch_k09(args, stream);
    case GemmImpl::k10_persistent_warpgroup:
      return launch_k10(args, stream);
    case GemmImpl::k11_tma_store_epilogue:
      return launch_k11(args, stream);
    case GemmImpl::k12_wgmma:
      return launch_k12(args, stream);
    case GemmImpl::k13_wgmma_in_flight:
      return launch_k13(args, stream);
    case GemmImpl::k14_cluster_multicast:
      return launch_k14(args, stream);
    case GemmImpl::k15_pingpong:
      return launch_k15(args, stream);
    case GemmImpl::f01_naive:
      return launch_f01(args, stream);
    case GemmImpl::f02_smem_fma:
      return launch_f02(args, stream);
    case GemmImpl::f03_smem_padded:
      return launch_f03(args, stream);
    case GemmImpl::f04_double_buffer:
      return launch_f04(args, stream);
    case GemmImpl::f05_warp_tiling:
      return launch_f05(args, stream);
    case GemmImpl::f06_vector_smem:
      return launch_f06(args, stream);
    case GemmImpl::f07_two_ctas_per_sm:
      return launch_f07(args, stream);
    case GemmImpl::f08_thread_tile_16x8:
      return launch_f08(args, stream);
    case GemmImpl::f09_spread_copies:
      return launch_f09(args, stream);
    case GemmImpl::f10_tma_loads:
      return launch_f10(args, stream);
    case GemmImpl::f11_stream_k:
      return launch_f11(args, stream);
    case GemmImpl::f12_operand_copies:
      return launch_f12(args, stream);
    case GemmImpl::small_m_stream:
      return launch_small_m(args, stream);
    case GemmImpl::automatic:
      break;  // gemm() plans first
  }
  return invalid("unknown implementation");
}

/// Problem b of a strided batch, as a single GEMM.
GemmArgs batch_item(const GemmArgs& g, index_t b) {
  GemmArgs s = g;
  s.batch = 1;
  const auto at = [b](const void* p, index_t stride, DType t) -> const char* {
    return p == nullptr ? nullptr : static_cast<const char*>(p) + b * stride * size_bytes(t);
  };
  s.a = at(g.a, g.stride_a, g.ab_type);
  s.b = at(g.b, g.stride_b, b_type_of(g));
  s.c = at(g.c, g.stride_c, g.cd_type);
  s.d = const_cast<char*>(at(g.d, g.stride_d, g.cd_type));
  return s;
}

}  // namespace

namespace {

/// The checked single problem's run: `auto` plans (or runs the tuned
/// choice), a named step launches; a batch runs as one launch or a loop.
Status run(GemmImpl impl, const GemmArgs& args, cudaStream_t stream) {
  gemm_launch::Arena* arena = gemm_launch::active_arena();
  if (impl == GemmImpl::automatic) {
    // The plan once per call; the chosen step checks the rest.
    if (Status s = check_common(args); !s) return s;
    if (Status s = check_epilogue(args, true); !s) return s;
    if (tunable(args)) {
      // Measured tuning: the kept choice, else time the candidates now
      // (gemm_tune.cu; not with the caller's workspace, whose bytes were
      // sized for the plan's choice); where tuning cannot run, the plan below.
      if (Status s = gemm_launch::check_k13_tuning(args); !s) return s;
      GemmCandidate c;
      std::string why;
      bool have = gemm_launch::tuned_choice(args, c, &why);
      if (!have && arena == nullptr) {
        const Status t = gemm_launch::tune(args, stream, c, why);
        if (t.code == Status::cuda_error) return t;
        have = t.is_ok();
      }
      if (have) return gemm(c.impl, gemm_launch::tuned_args(args, c), stream);
    }
    GemmImpl step{};
    GemmArgs with_plan;
    if (Status s = planned(args, step, with_plan); !s) return s;
    return gemm(step, with_plan, stream);
  }
  if (Status s = gemm_check(impl, args); !s) return s;
  if (args.batch > 1) {
    // k13's and k15's batched kernels: every batch in one persistent launch.
    if (impl == GemmImpl::k13_wgmma_in_flight && gemm_launch::k13_batched_applies(args))
      return gemm_launch::launch_k13_batched(args, stream);
    if (impl == GemmImpl::k15_pingpong && gemm_launch::k15_batched_applies(args))
      return gemm_launch::launch_k15_batched(args, stream);
    // Every other step (and k13 where its batched kernel cannot serve the
    // call): one launch per batch, all checked above, so a failure here is
    // the device's (cuda_error) and may leave earlier batches written.  A
    // caller's workspace serves each batch in turn (stream order).
    for (index_t b = 0; b < args.batch; ++b) {
      if (arena != nullptr) arena->rewind();
      if (Status s = launch_step(impl, batch_item(args, b), stream); !s) return s;
    }
    return Status::success();
  }
  return launch_step(impl, args, stream);
}

/// The most workspace bytes step `impl` takes for the checked single
/// problem `g` (a named step, after the plan).
std::size_t step_workspace_bytes(GemmImpl impl, const GemmArgs& g) {
  using gemm_launch::pads_of;
  switch (impl) {
    case GemmImpl::k09_tma_mbarriers:
    case GemmImpl::k10_persistent_warpgroup:
    case GemmImpl::k11_tma_store_epilogue:
    case GemmImpl::k12_wgmma:
      return pads_of(g, false).bytes();  // only what TMA cannot read
    case GemmImpl::k13_wgmma_in_flight:
      return gemm_launch::k13_workspace_bytes(g);
    case GemmImpl::k14_cluster_multicast:
      return gemm_launch::k14_workspace_bytes(g);
    case GemmImpl::k15_pingpong:
      return gemm_launch::k15_workspace_bytes(g);
    case GemmImpl::f11_stream_k:
      return gemm_launch::f11_workspace_bytes(g);
    case GemmImpl::f12_operand_copies:
      return gemm_launch::f12_workspace_bytes(g);
    case GemmImpl::small_m_stream:
      return gemm_launch::small_m_workspace_bytes(g);
    default:
      return 0;  // the other steps take no scratch memory
  }
}

}  // namespace

Status gemm_workspace_size(GemmImpl impl, const GemmArgs& args, std::size_t& bytes) {
  bytes = 0;
  const GemmArgs a = with_device_scalars(args);
  if (Status s = gemm_check(impl, a); !s) return s;
  GemmImpl step = impl;
  GemmArgs g = a;
  if (impl == GemmImpl::automatic) {
    // What run() does with a workspace: the kept tuned choice, else the plan.
    GemmCandidate c;
    if (tunable(a) && gemm_launch::tuned_choice(a, c, nullptr)) {
      step = c.impl;
      g = gemm_launch::tuned_args(a, c);
    } else if (Status s = planned(a, step, g); !s) {
      return s;
    }
  }
  if (g.batch == 1) {
    bytes = step_workspace_bytes(step, g);
    return Status::success();
  }
  if ((step == GemmImpl::k13_wgmma_in_flight && gemm_launch::k13_batched_applies(g)) ||
      (step == GemmImpl::k15_pingpong && gemm_launch::k15_batched_applies(g)))
    return Status::success();  // one launch, no scratch
  // One launch per batch, each from the start of the workspace: the largest.
  // The operands' addresses modulo 128 bytes (all the copies depend on)
  // repeat within 64 batches.
  const index_t items = g.batch < 64 ? g.batch : 64;
  for (index_t b = 0; b < items; ++b) bytes = std::max(bytes, step_workspace_bytes(step, batch_item(g, b)));
  return Status::success();
}

std::uint64_t gemm_pool_allocations() { return gemm_launch::pool_allocations().load(std::memory_order_relaxed); }

Status gemm(GemmImpl impl, const GemmArgs& args, cudaStream_t stream) {
  if (Status s = check_not_masked(args); !s) return s;  // before `auto` times anything
  const GemmArgs a = with_device_scalars(args);
  if (a.workspace == nullptr || gemm_launch::active_arena() != nullptr) return run(impl, a, stream);
  // The caller's workspace: sized first (so that no temporary falls short
  // midway), then every temporary of the call is carved from it.
  std::size_t need = 0;
  if (Status s = gemm_workspace_size(impl, a, need); !s) return s;
  if (a.workspace_bytes < need)
    return invalid("workspace_bytes is " + std::to_string(a.workspace_bytes) + " but the call needs " +
                   std::to_string(need) + " (gemm_workspace_size)");
  const gemm_launch::ArenaScope scope(a.workspace, a.workspace_bytes);
  return run(impl, a, stream);
}

Status gemm_jit_prepare(GemmImpl impl, const GemmArgs& caller_args) {
  const GemmArgs args = with_device_scalars(caller_args);
  GemmImpl step = impl;
  GemmArgs g = args;
  if (impl == GemmImpl::automatic) {
    if (Status s = check_common(args); !s) return s;
    if (Status s = check_epilogue(args, true); !s) return s;
    if (Status s = planned(args, step, g); !s) return s;
  }
  if (Status s = gemm_check(step, g); !s) return s;
  if (step != GemmImpl::k13_wgmma_in_flight || g.batch > 1) return Status::success();
  return gemm_launch::prepare_k13_jit(g);
}

Status gemm_epilogue_apply(const GemmArgs& args, cudaStream_t stream) {
  const GemmArgs& g = args;
  if (g.m < 1 || g.n < 1)
    return invalid("gemm_epilogue_apply: extents must be positive (got M=" + std::to_string(g.m) +
                   ", N=" + std::to_string(g.n) + ")");
  if (g.d == nullptr) return invalid("gemm_epilogue_apply: D must not be null");
  if (g.cd_type != DType::bf16 && g.cd_type != DType::f16 && g.cd_type != DType::f32)
    return invalid("gemm_epilogue_apply: cd_type must be bf16, fp16 or fp32 (D's type)");
  if (g.ldd < g.n) return invalid("gemm_epilogue_apply: ldd must be at least N (D is row-major)");
  if (Status s = check_epilogue(g, false); !s) return Status::failure(s.code, "gemm_epilogue_apply: " + s.message);
  return gemm_launch::launch_epilogue(g, stream);
}

/// The plan's kernel and tuning for `caller_args` (gemm_plan), before the caller's knobs it does not choose.
static GemmPlan plan_of(const GemmArgs& caller_args) {
  const GemmArgs args = with_device_scalars(caller_args);
  GemmPlan plan;
  const bool fused = args.epilogue.active();
  if (args.ab_type == DType::f32) {
    // fp32 inputs: rule 9 (tessel/gemm_plan.hpp): f12 where an operand is
    // K-major (or its rows TMA cannot read) and its copy is cheap against the
    // product; else f11 where its split shares the last partial wave's tiles
    // along K, f10 where the 128 x 256 tile's waves are at least 90 % full,
    // f07 elsewhere; on every device (no tuning).
    bool copy_a = false, copy_b = false;
    gemm_launch::f12_copies(args, copy_a, copy_b);
    plan.impl = fp32_step_for(args.m, args.n, args.k, device_traits().sms, gemm_launch::f10_kernel_applies(args),
                              copy_a, copy_b);
    plan.tuning = args.tuning;
    const std::string step = short_name(plan.impl);
    plan.why = "fp32 inputs: " + step + (fused ? ", unfused epilogue" : "");
    return plan;
  }
  const DeviceTraits dev = device_traits();
  const int major = dev.major, minor = dev.minor, sms = dev.sms;
  if (is_fp8(args.ab_type)) {
    // FP8 inputs: k13's FP8 tiles (k13_fp8.cu), which need sm_90 (wgmma).
    plan.impl = GemmImpl::k13_wgmma_in_flight;
    plan.tuning = gemm_launch::k13_fp8_tuned(args).tuning;
    const int every = args.fp8_scale == Fp8Scale::block ? 1
                      : args.fp8_promote_every > 0      ? args.fp8_promote_every
                                                        : kFp8PromoteEvery;
    plan.why = std::string("k13 FP8 tile ") + (plan.tuning.tile_m == 64 ? "64" : "128") + "x" +
               std::to_string(plan.tuning.tile_n) + " splits " + std::to_string(plan.tuning.splits) +
               (plan.tuning.swap_ab == SwapAB::on ? " swapped" : "") +
               (args.fp8_fast_accum ? ", fast accumulation" : ", promoted every " + std::to_string(every)) +
               (args.fp8_scale == Fp8Scale::none ? "" : std::string(", scales per ") + name(args.fp8_scale)) +
               (fused ? ", unfused epilogue" : "");
    if (args.batch > 1 && gemm_launch::k13_batched_applies(args)) {  // the grouped kernel over the batches
      plan.tuning = GemmTuning{128, 1, SwapAB::off};
      plan.tuning.tile_m = gemm_launch::k13_fp8_group_rows(&args, 1, sms);
      plan.why = "k13 batched FP8 tile " + std::to_string(plan.tuning.tile_m) + "x128 (" + std::to_string(args.batch) +
                 " batches)" +
                 (args.fp8_fast_accum ? ", fast accumulation" : ", promoted every " + std::to_string(every));
    } else if (args.batch > 1) {
      plan.why += ", one launch per batch";
    }
    return plan;
  }
  if (major != 9 || minor != 0) {
    // wgmma and TMA are sm_90 instructions; elsewhere the best mma.sync step runs.
    plan.impl = GemmImpl::k08_smem_epilogue;
    plan.tuning = args.tuning;
    plan.why = fused ? "not an sm_90 device: k08, unfused epilogue" : "not an sm_90 device: k08";
    return plan;
  }
  if (tunable(args)) {
    GemmCandidate c;
    std::string why;
    if (gemm_launch::tuned_choice(args, c, &why)) {
      plan.impl = c.impl;
      plan.tuning = gemm_launch::tuned_args(args, c).tuning;
      plan.why = why;
      return plan;
    }
  }
  plan.impl = GemmImpl::k13_wgmma_in_flight;
  const GemmTuning& asked = args.tuning;
  const bool untuned = asked.tile_n == 0 && asked.splits == 0 && asked.swap_ab == SwapAB::plan && asked.tile_m == 0;
  // tuning.cluster 1 is k13's knob (split K through partials in global memory): no rule then takes another step.
  const bool k13_only = asked.cluster == 1;
  if (args.batch > 1 && untuned && !fused && !k13_only &&
      k15_batched_for(args.m, args.n, args.k, args.batch, sms, args.beta)) {
    // Rule 11: k15's batched kernel (pingpong over the batch's tiles), where
    // it serves the call in one launch (A's and B's rows and batch strides
    // TMA-readable); else rule 8's k13 below, as before.
    GemmArgs k15_args = args;
    k15_args.tuning = GemmTuning{
        128, 1, SwapAB::off,
        asked.raster_group != 0 ? asked.raster_group : batched_raster_group_for(args.m, args.n, sms)};  // rule 11b
    if (gemm_launch::k15_batched_applies(k15_args)) {
      plan.impl = GemmImpl::k15_pingpong;
      plan.tuning = k15_args.tuning;
      plan.why = "k15 batched pingpong 2x128x128, raster group " + std::to_string(k15_args.tuning.raster_group) + ", " +
                 std::to_string(batched_stages_for(args.m, args.n, args.k, sms)) + " stages (" +
                 std::to_string(args.batch) + " batches)";  // rule 11c: the launcher's depth
      return plan;
    }
  }
  if (args.batch > 1 && gemm_launch::k13_batched_tuning(args.tuning)) {
    // Rule 8: k13's batched kernel, one width over batch x tiles (gemm_plan.hpp).
    const int bn =
        args.tuning.tile_n != 0 ? args.tuning.tile_n : plan_batched_tile(args.m, args.n, args.k, args.batch, sms);
    plan.tuning = GemmTuning{bn, 1, SwapAB::off, args.tuning.raster_group != 0 ? args.tuning.raster_group : 8};
    plan.why = "k13 batched tile 128x" + std::to_string(bn) + " (" + std::to_string(args.batch) + " batches)";
    return plan;
  }
  // Rule 15: small M with A:k, B:n where the small-M kernel streams B faster
  // than k13 (small_m_for, gemm_model.hpp): no padded copy of B's rows.
  if (args.batch == 1 && !fused && untuned && !k13_only && !args.tuning.split_tail && args.tuning.stages == 0 &&
      args.layout.a == MajorA::k && args.layout.b == MajorB::n && small_m_for(args.m, args.n, args.k, args.ldb)) {
    plan.impl = GemmImpl::small_m_stream;
    plan.tuning = GemmTuning{};
    plan.why = "small_m splits " + std::to_string(gemm_launch::small_m_launch_splits(args));
    return plan;
  }
  // The model (tessel/gemm_model.hpp): a single unfused problem below
  // kModelMaxFlops runs the configuration with the smallest predicted time.
  // D's rows as TMA stores them (the wide swapped tiles store D^T by TMA only: wide_tiles_fit).
  const bool d_tma = reinterpret_cast<std::uintptr_t>(args.d) % 16 == 0 &&
                     (args.ldd * static_cast<index_t>(size_bytes(args.cd_type))) % 16 == 0;
  if (args.batch == 1 && !fused && !args.tuning.split_tail && in_model_domain(args.m, args.n, args.k)) {
    const PlanProblem pp{args.m, args.n, args.k,    args.lda,    args.ldb, size_bytes(args.cd_type),
                         false,  false,  args.beta, args.tuning, d_tma,    args.layout.a == MajorA::k};
    GemmCandidate c;
    std::string why;
    if (model_choice_memo(pp, sms, c, why) && (!k13_only || c.impl == GemmImpl::k13_wgmma_in_flight)) {
      plan.impl = c.impl;
      plan.tuning = gemm_launch::tuned_args(args, c).tuning;
      plan.why = std::move(why);
      return plan;
    }
  }
  // A's rows as TMA reads them: the caller's where TMA can (lda a multiple
  // of 8 elements), else the padded copy's, whose rows are whole 128-byte lines.
  plan.tuning = plan_k13(args.m, args.n, args.k, sms, args.tuning.tile_n, args.tuning.swap_ab,
                         rows_whole_lines(args.lda), fused, rows_whole_lines(args.ldb));
  if (args.tuning.splits != 0) plan.tuning.splits = args.tuning.splits, plan.tuning.split_tail = args.tuning.split_tail;
  if (args.tuning.raster_group != 0) plan.tuning.raster_group = args.tuning.raster_group;
  plan.tuning.jit = args.tuning.jit;
  plan.tuning.tile_m = planned_tile_m(args.tuning, plan.tuning);
  plan.tuning.tile_n = planned_tile_n(args.tuning, plan.tuning.tile_m, plan.tuning);
  plan.why = "k13 tile " + std::string(plan.tuning.tile_m == 64 ? "64" : "128") + "x" +
             std::to_string(plan.tuning.tile_n) + " splits " + std::to_string(plan.tuning.splits) +
             (plan.tuning.split_tail ? " (the tail's)" : "") + (plan.tuning.swap_ab == SwapAB::on ? " swapped" : "");
  if (fused) {
    // Which epilogue path (gemm_plan.hpp, k13_epilogue_path); the compiler
    // is looked for only where the tuning asks for run-time compilation.
    const bool aux = args.epilogue.aux != nullptr;
    std::string why_not;
    const bool ready = k13_wants_jit(plan.tuning, args.beta, aux) && !jit_compiler(&why_not).empty();
    plan.why += std::string(" ") + name(k13_epilogue_path(plan.tuning, args.beta, aux, ready));
    if (k13_wants_jit(plan.tuning, args.beta, aux) && !ready) plan.why += " (jit unavailable: " + why_not + ")";
  }
  if (args.batch > 1) plan.why += " per batch";  // the caller's tuning: one launch per batch
  // Rules 10, 10b and 10c: would k15 serve the plan's tuning (its baseline in rule 16, its choice below)?
  const bool k15_fits = k15_for(args.m, args.n, args.k, sms, plan.tuning, args.beta) &&
                        !k15_meets_cap(args.m, args.n, args.k) &&
                        !k15_straddled(args.k, !rows_whole_lines(args.lda), !rows_whole_lines(args.ldb));
  // Rule 17: where B's rows straddle lines, k14's pairs share B over what k13 (unsplit) or k15 keeps.
  const auto share_straddled_b = [&](GemmPlan& p) {
    if (fused || args.batch != 1 || !untuned || k13_only ||
        !k14_shares_straddled_b(args.m, args.n, args.k, sms, p.tuning, rows_whole_lines(args.ldb)))
      return;
    p.impl = GemmImpl::k14_cluster_multicast;
    p.why = "k14 tile 128x" + std::to_string(p.tuning.tile_n) + " cluster 2x1 (sharing straddled B rows)";
  };
  // Rule 16: a 128-row tile whose width brings the tiles near whole waves (swapped, or unswapped fitted to N), where
  // the model predicts it clearly faster than rule 10's k15 or the k13 tile above (wave_fill_choice, gemm_model.hpp).
  // Rows TMA reads as they are.
  if (!fused && args.batch == 1 && untuned && args.m > 64 && args.ldb % 8 == 0 && plan.tuning.swap_ab != SwapAB::on &&
      !plan.tuning.split_tail) {
    const PlanProblem pp{args.m, args.n, args.k,    args.lda,    args.ldb, size_bytes(args.cd_type),
                         false,  false,  args.beta, args.tuning, d_tma,    args.layout.a == MajorA::k};
    GemmCandidate rules{GemmImpl::k13_wgmma_in_flight, plan.tuning.tile_m == 64 ? 64 : 128, plan.tuning.tile_n,
                        plan.tuning.splits, false};
    if (k15_fits) rules = GemmCandidate{GemmImpl::k15_pingpong, 128, 128, 1, false};
    GemmCandidate wide;
    if (wave_fill_choice(pp, sms, rules, wide)) {
      plan.tuning = gemm_launch::tuned_args(args, wide).tuning;
      char buf[64];
      std::snprintf(buf, sizeof buf, " (wave fill: predicted %.1f us against %.1f)", predicted_us(pp, wide, sms),
                    predicted_us(pp, rules, sms));
      plan.why = "k13 tile 128x" + std::to_string(wide.tile_n) + " splits 1" + (wide.swap ? " swapped" : "") + buf;
      return plan;
    }
  }
  // Rule 10: k15 (pingpong), with or without the fused epilogue (not with
  // aux, whose fused form is k13's run-time compiled one, nor where the
  // caller asked for run-time compilation: those instances are k13's).
  // Rule 10b: not where k15 alone meets the power cap; 10c: nor over straddled rows.
  if (args.batch == 1 && untuned && !k13_only &&
      (!fused || (args.epilogue.aux == nullptr && asked.jit != GemmJit::always)) && k15_fits) {
    plan.impl = GemmImpl::k15_pingpong;
    plan.tuning.tile_n = 128;
    plan.why = std::string("k15 pingpong 2x128x128") + (fused ? " fused epilogue" : "");
    share_straddled_b(plan);
    // Rule 6b: k15 takes its own tile's raster group (the caller's, else 0: its launcher's), not that of the k13 tile
    // the plan replaced: 16 tile rows suit 128 x 256, not k15's 128 x 128 (docs/heuristics.md, rule 6b).
    if (plan.impl == GemmImpl::k15_pingpong) plan.tuning.raster_group = asked.raster_group;
    return plan;
  }
  // Rules 13 and 13b: k14 on 64 x 128 tiles in clusters sharing B, where
  // the pairs fit one wave and B's rows straddle lines (13), or the second
  // 64-row tile row holds at most 18 rows under rule 1b's tuning (13b).  No
  // epilogue: k14 has no fused instance.
  if (!fused && args.batch == 1 && untuned && !k13_only) {
    const bool straddle = k14_straddle_for(args.m, args.n, sms, plan.tuning, rows_whole_lines(args.ldb));
    if (straddle || k14_thin_pair_for(args.m, args.n, sms, plan.tuning, args.beta)) {
      plan.impl = GemmImpl::k14_cluster_multicast;
      plan.tuning = GemmTuning{128, 1, SwapAB::off, plan.tuning.raster_group, GemmJit::off, 64};
      plan.why = std::string("k14 tile 64x128 cluster 2x1 (") +
                 (straddle ? "B rows straddle lines" : "thin second tile row") + ")";
      return plan;
    }
  }
  // Rule 12: one wave of 128 x 128 tiles (no epilogue: not measured with one): the width and splits that the
  // one-wave model prefers (one_wave_plan, gemm_model.hpp); where that is 128 x 128 unsplit, k15.
  if (!fused && args.batch == 1 && untuned && one_wave_for(args.m, args.n, sms, plan.tuning, args.beta)) {
    const TailPlan w = one_wave_plan(args.m, args.n, args.k, sms, plan.tuning.splits);
    if (w.tile_n == 128 && w.splits == 1 && !k13_only) {
      plan.impl = GemmImpl::k15_pingpong;
      plan.tuning.splits = 1;
      plan.why = "k15 pingpong 128x128 one wave";
      share_straddled_b(plan);
      return plan;
    }
    if (w.tile_n != 128 || w.splits != plan.tuning.splits) {
      plan.tuning.tile_n = w.tile_n;
      plan.tuning.splits = w.splits;
      if (args.tuning.raster_group == 0) plan.tuning.raster_group = raster_group_for(0, 0, w.tile_n, sms);
      plan.why =
          "k13 tile 128x" + std::to_string(w.tile_n) + " splits " + std::to_string(w.splits) + " (one wave, L2-bound)";
      return plan;
    }
  }
  if (!fused && args.batch == 1 && untuned && !k13_only && k14_for(args.m, args.n, args.k, sms, plan.tuning)) {
    plan.impl = GemmImpl::k14_cluster_multicast;
    plan.why = "k14 tile 128x256 cluster 2x1 (short K)";
    return plan;
  }
  // Rule 14: the last partial wave's tiles split along K over every SM, at
  // the width that then predicts the least time (measured without an epilogue).
  if (!fused && args.batch == 1 && untuned && plan.tuning.splits == 1 && plan.tuning.swap_ab != SwapAB::on &&
      plan.tuning.tile_m != 64) {
    const TailPlan tail = split_tail_plan(args.m, args.n, args.k, sms, plan.tuning.tile_n, false,
                                          !rows_whole_lines(args.lda), !rows_whole_lines(args.ldb));
    if (tail.splits > 1) {
      plan.tuning.tile_n = tail.tile_n;
      plan.tuning.splits = tail.splits;
      plan.tuning.split_tail = true;
      if (args.tuning.raster_group == 0) plan.tuning.raster_group = raster_group_for(0, 0, tail.tile_n, sms);
      plan.why = "k13 tile 128x" + std::to_string(tail.tile_n) + " splits 1, tail split " +
                 std::to_string(tail.splits) + " ways";
    }
  }
  if (plan.impl == GemmImpl::k13_wgmma_in_flight) share_straddled_b(plan);
  return plan;
}

GemmPlan gemm_plan(const GemmArgs& args) {
  GemmPlan plan = plan_of(args);
  // The caller's knobs the plan does not choose go to the planned step, whose own check refuses what it cannot take:
  // split K's summation, the stages of the swapped narrow tiles, a cluster (1 kept the plan on k13; 2, 4 and a
  // shared operand are k14's and k15's).
  plan.tuning.split_sum = args.tuning.split_sum;
  plan.tuning.stages = args.tuning.stages;
  plan.tuning.cluster = args.tuning.cluster;
  plan.tuning.cluster_share = args.tuning.cluster_share;
  if (plan.impl == GemmImpl::k14_cluster_multicast && args.tuning.cluster_share != ClusterShare::plan)
    plan.why +=
        std::string("; the caller's cluster_share ") + (args.tuning.cluster_share == ClusterShare::a ? "a" : "b");
  return plan;
}

// ------------------------------------------------------------------ grouped GEMM

namespace {

Status group_invalid(int g, const std::string& msg) { return invalid("problem " + std::to_string(g) + ": " + msg); }

/// The group's own rules (gemm_grouped_check's contract), after each
/// problem passed the single-problem checks.
Status check_group_rules(const GemmArgs* p, int count) {
  const GemmArgs& first = p[0];
  int tile_n = 0, tile_m = 0;
  for (int g = 0; g < count; ++g) {
    const GemmArgs& x = p[g];
    if (x.batch != 1)
      return group_invalid(g, "a grouped problem is one GEMM (batch = 1; got batch=" + std::to_string(x.batch) + ")");
    if (x.ab_type != first.ab_type || b_type_of(x) != b_type_of(first) || x.cd_type != first.cd_type)
      return group_invalid(g, "all problems of a group share ab_type, b_type and cd_type (problem 0's: " +
                                  std::string(name(first.ab_type)) + " x " + name(b_type_of(first)) + " -> " +
                                  name(first.cd_type) + ")");
    if (x.layout.a != first.layout.a || x.layout.b != first.layout.b)
      return group_invalid(
          g, "all problems of a group share the layout (problem 0's: " + std::string(name(first.layout)) + ")");
    const GemmTuning& t = x.tuning;
    if ((t.tile_n != 0 && t.tile_n != 128 && t.tile_n != 256) || (t.splits != 0 && t.splits != 1) ||
        (t.swap_ab != SwapAB::plan && t.swap_ab != SwapAB::off) || t.raster_group < 0 || t.raster_group > 65536 ||
        (t.tile_m != 0 && t.tile_m != 128 && !(t.tile_m == 64 && is_fp8(x.ab_type))))
      return group_invalid(g,
                           "a group's tuning is tile_n 0, 128 or 256, splits 0 or 1, no swap (grouped "
                           "launches split no K and swap no operands), tile_m 0 or 128 (or 64 for FP8) and "
                           "raster_group 0..65536");
    if ((t.tile_n != 0 && tile_n != 0 && t.tile_n != tile_n) || (t.tile_m != 0 && tile_m != 0 && t.tile_m != tile_m))
      return group_invalid(g, "the problems of a group name one tuning.tile_n and tile_m (one tile per launch)");
    if (is_fp8(x.ab_type) && (t.tile_n == 256 || x.fp8_fast_accum != first.fp8_fast_accum ||
                              x.fp8_promote_every != first.fp8_promote_every || x.fp8_scale != first.fp8_scale))
      return group_invalid(g,
                           "an FP8 group runs tiles 128 wide (tile_n 0 or 128) and its problems share "
                           "fp8_fast_accum, fp8_promote_every and the fp8_scale mode (problem 0's)");
    if (t.tile_n != 0) tile_n = t.tile_n;
    if (t.tile_m != 0) tile_m = t.tile_m;
  }
  return Status::success();
}

/// No problem's D may overlap another problem's D, A, B or C: the problems
/// run concurrently in one launch.  O(count log count): the D ranges sorted,
/// then every input range looked up among them.
Status check_group_overlap(const GemmArgs* p, int count) {
  struct Out {
    Span s;
    int g;
  };
  std::vector<Out> ds(static_cast<std::size_t>(count));
  for (int g = 0; g < count; ++g) ds[static_cast<std::size_t>(g)] = {span_d(p[g]), g};
  std::sort(ds.begin(), ds.end(), [](const Out& x, const Out& y) { return x.s.lo < y.s.lo; });
  for (std::size_t i = 1; i < ds.size(); ++i)
    if (ds[i].s.lo < ds[i - 1].s.hi)
      return group_invalid(ds[i].g, "D overlaps problem " + std::to_string(ds[i - 1].g) +
                                        "'s D (groups with mismatched pointers are rejected)");
  // Disjoint and sorted by start, the D ranges are sorted by end as well.
  const auto check = [&](int g, const Span& in, const char* what) -> Status {
    auto it =
        std::lower_bound(ds.begin(), ds.end(), in.lo, [](const Out& x, std::uintptr_t lo) { return x.s.hi <= lo; });
    for (int seen = 0; it != ds.end() && seen < 2 && it->s.lo < in.hi; ++it, ++seen)
      if (it->g != g)
        return group_invalid(it->g, std::string("D overlaps problem ") + std::to_string(g) + "'s " + what +
                                        " (groups with mismatched pointers are rejected)");
    return Status::success();
  };
  for (int g = 0; g < count; ++g) {
    if (Status s = check(g, span_a(p[g]), "A"); !s) return s;
    if (Status s = check(g, span_b(p[g]), "B"); !s) return s;
    if (reads_c(p[g]))
      if (Status s = check(g, span_c(p[g]), "C"); !s) return s;
  }
  return Status::success();
}

}  // namespace

Status gemm_grouped_check(const GemmArgs* problems, int count) {
  if (problems == nullptr || count < 1)
    return invalid("a group has at least one problem (got count=" + std::to_string(count) +
                   (problems == nullptr ? ", problems null)" : ")"));
  if (count > gemm_launch::kMaxGroups)
    return Status::failure(Status::unsupported, "a group has at most " + std::to_string(gemm_launch::kMaxGroups) +
                                                    " problems (got " + std::to_string(count) + ")");
  // Each problem as a single one: the common rules, and `auto`'s type rule
  // (fp32 inputs need fp32 outputs: f07, the only fp32 step a group can run).
  for (int g = 0; g < count; ++g) {
    const GemmArgs& x = problems[g];
    Status s = check_common(x);
    if (s && (x.workspace != nullptr || x.alpha_device != nullptr || x.beta_device != nullptr))
      s = invalid("gemm_grouped takes no workspace and no alpha_device or beta_device: call gemm per problem");
    if (s && x.epilogue.active())
      s = Status::failure(Status::unsupported,
                          "a fused epilogue (bias, activation, aux) is not served in a group: call it per problem");
    if (s && x.ab_type == DType::f32) s = check_types(GemmImpl::f07_two_ctas_per_sm, x);
    if (s && x.m_device != nullptr && x.ab_type == DType::f32)
      s = Status::failure(Status::unsupported, "m_device (masked): the grouped kernel takes 16-bit or FP8 A and B");
    if (s && is_fp8(x.ab_type)) s = gemm_launch::check_k13_fp8(x);
    if (!s) return Status::failure(s.code, "problem " + std::to_string(g) + ": " + s.message);
  }
  if (Status s = check_group_rules(problems, count); !s) return s;
  // The problems share types and layout (above): problem 0 says for all whether this build holds them.
  const GemmImpl step =
      problems[0].ab_type == DType::f32 ? GemmImpl::f07_two_ctas_per_sm : GemmImpl::k13_wgmma_in_flight;
  if (Status s = check_ladder_instance(step, problems[0]); !s) return s;
  return check_group_overlap(problems, count);
}

GemmPlan gemm_plan(const GemmArgs& args, const GemmDevice& device) {
  const bool counted = device.sms > 0;
  const DeviceTraits named{device.major, device.minor, counted ? device.sms : GemmDevice{}.sms};
  struct Naming {  // the caller's device for this thread while gemm_plan runs, however it leaves
    const DeviceTraits* outer;
    ~Naming() { t_named_device = outer; }
  } naming{t_named_device};
  t_named_device = &named;
  GemmPlan plan = gemm_plan(args);
  if (!counted) plan.why = "no SM count given (" + std::to_string(device.sms) + "): planned for 132; " + plan.why;
  return plan;
}

GemmPlan gemm_plan_grouped(const GemmArgs* problems, int count) {
  GemmPlan plan;
  if (problems == nullptr || count < 1) {
    plan.why = "empty group";
    return plan;
  }
  const DeviceTraits dev = device_traits();
  int forced = 0;
  for (int g = 0; g < count; ++g)
    if (problems[g].tuning.tile_n != 0) forced = problems[g].tuning.tile_n;
  if (problems[0].ab_type == DType::f32 || dev.major != 9 || dev.minor != 0) {
    plan = gemm_plan(problems[0]);
    plan.why = "each problem by itself (" +
               std::string(problems[0].ab_type == DType::f32 ? "fp32 inputs" : "not sm_90") +
               "), the first: " + plan.why;
    return plan;
  }
  const bool fp8 = is_fp8(problems[0].ab_type);  // FP8 groups: 128 wide, 128 or 64 rows
  const int bn = fp8 ? 128
                 : forced != 0
                     ? forced
                     : plan_group_tile(
                           [&](int w, index_t& tiles, double& used, double& computed) {
                             tiles = 0, used = computed = 0.0;
                             for (int g = 0; g < count; ++g) {
                               const GemmArgs& x = problems[g];
                               const index_t t = plan_detail::ceil_div(x.m, 128) * plan_detail::ceil_div(x.n, w);
                               tiles += t;
                               used += static_cast<double>(x.m) * static_cast<double>(x.n);
                               computed += static_cast<double>(t) * 128.0 * w;
                             }
                           },
                           dev.sms);
  const int bm = fp8 ? gemm_launch::k13_fp8_group_rows(problems, count, dev.sms) : 128;
  plan.impl = GemmImpl::k13_wgmma_in_flight;
  plan.tuning = GemmTuning{bn, 1, SwapAB::off};
  plan.tuning.tile_m = bm;
  plan.why = std::string(fp8 ? "k13 grouped FP8" : "k13 grouped") + " tile " + std::to_string(bm) + "x" +
             std::to_string(bn) + " (" + std::to_string(count) + " problems)";
  return plan;
}

Status gemm_grouped(const GemmArgs* problems, int count, cudaStream_t stream) {
  if (Status s = gemm_grouped_check(problems, count); !s) return s;
  const GemmPlan plan = gemm_plan_grouped(problems, count);
  if (plan.why.rfind("k13 grouped", 0) == 0 && gemm_launch::k13_grouped_applies(problems, count))
    return gemm_launch::launch_k13_grouped(problems, count, plan.tuning, stream);
  // A masked problem's rows are known on the device only: the grouped kernel or nothing.
  for (int g = 0; g < count; ++g)
    if (problems[g].m_device != nullptr)
      return Status::failure(Status::unsupported,
                             "problem " + std::to_string(g) +
                                 ": m_device (masked) runs on the grouped kernel only: sm_90, and A's and B's rows "
                                 "16-byte aligned (lda, ldb and the pointers) so that TMA reads them (" +
                                 plan.why + ")");
  // Elsewhere (another device, fp32 inputs, operands TMA cannot read): one
  // call per problem, all checked above.
  for (int g = 0; g < count; ++g)
    if (Status s = gemm(problems[g], stream); !s)
      return Status::failure(s.code, "problem " + std::to_string(g) + ": " + s.message);
  return Status::success();
}

namespace gemm_launch {
int device_sm_count() { return device_traits().sms; }

Status launch_status(const char* kernel) {
  const cudaError_t e = cudaGetLastError();
  if (e == cudaSuccess) return Status::success();
  return Status::failure(Status::cuda_error, std::string(kernel) + ": " + cudaGetErrorString(e));
}
}  // namespace gemm_launch

}  // namespace tessel
