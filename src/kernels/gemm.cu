// tessel::gemm: the checks every ladder step shares (the epilogue's among
// them), and dispatch to the steps' launchers (src/kernels/gemm/kNN.cu), with
// the unfused epilogue (src/kernels/gemm/epilogue.cu) after every step that
// has no fused one.  The names of types, layouts and steps are header-only
// (tessel/gemm_types.hpp).
#include <atomic>
#include <cstdint>
#include <string>

#include "src/kernels/gemm/launch.hpp"
#include "tessel/core/integer.hpp"
#include "tessel/host/gemm.hpp"

namespace tessel {

namespace {

Status invalid(std::string msg) { return Status::failure(Status::invalid_argument, std::move(msg)); }

/// The rules every step shares (invalid_argument: the call is malformed).
Status check_common(const GemmArgs& g) {
  if (g.m < 1 || g.n < 1 || g.k < 1)
    return invalid("extents must be positive (got M=" + std::to_string(g.m) + ", N=" + std::to_string(g.n) +
                   ", K=" + std::to_string(g.k) + ")");
  if (g.a == nullptr || g.b == nullptr || g.d == nullptr) return invalid("A, B and D must not be null");
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
  return Status::success();
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
  if (overlap(aux, matrix_bytes(g.b, bn ? g.k : g.n, bn ? g.n : g.k, g.ldb, ab)))
    return invalid("epilogue.aux must not overlap B");
  if (g.c != nullptr && g.beta != 0.0f && overlap(aux, matrix_bytes(g.c, g.m, g.n, g.ldc, elem)))
    return invalid("epilogue.aux must not overlap C");
  return Status::success();
}

/// The element types a step takes (invalid_argument, naming the rule): the
/// 16-bit ladder (k01..k13) takes bf16 or fp16 A and B with any output type;
/// the fp32 ladder (f01..f07) fp32 A, B, C and D.
Status check_types(GemmImpl impl, const GemmArgs& g) {
  if (is_fp32_step(impl)) {
    if (g.ab_type != DType::f32)
      return invalid(std::string(short_name(impl)) + ": A and B must be fp32 (the fp32 ladder f01..f07; got " +
                     name(g.ab_type) + ": bf16 and fp16 inputs are k01..k13)");
    if (g.cd_type != DType::f32)
      return invalid(std::string(short_name(impl)) + ": C and D must be fp32 (the fp32 ladder; got " + name(g.cd_type) +
                     ")");
    return Status::success();
  }
  if (g.ab_type == DType::f32)
    return invalid(std::string(short_name(impl)) +
                   ": A and B must be bf16 or fp16 (k01..k13; fp32 inputs are the fp32 ladder f01..f07)");
  return Status::success();
}

/// What the plan needs of a device, read once per device: the attribute
/// queries cost microseconds on every call otherwise, and a GEMM call's host
/// path is on the critical path of short kernels.
struct DeviceTraits {
  int major = 0, minor = 0, sms = 0;
};

DeviceTraits device_traits() {
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

/// `auto`: the tuning's own rules (checked on every device), then the plan's
/// step and tuning for `args`.
Status planned(const GemmArgs& args, GemmImpl& impl, GemmArgs& out) {
  if (Status s = gemm_launch::check_k13_tuning(args); !s) return s;
  const GemmPlan plan = gemm_plan(args);
  impl = plan.impl;
  out = args;
  out.tuning = plan.tuning;
  return Status::success();
}

}  // namespace

Status gemm_check(GemmImpl impl, const GemmArgs& args) {
  if (Status s = check_common(args); !s) return s;
  if (Status s = check_epilogue(args, true); !s) return s;
  if (impl != GemmImpl::automatic)
    if (Status s = check_types(impl, args); !s) return s;
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
    case GemmImpl::automatic: {
      GemmImpl step{};
      GemmArgs with_plan;
      if (Status s = planned(args, step, with_plan); !s) return s;
      return gemm_check(step, with_plan);
    }
  }
  return invalid("unknown implementation");
}

Status gemm(GemmImpl impl, const GemmArgs& args, cudaStream_t stream) {
  if (impl == GemmImpl::automatic) {
    // The plan once per call; the chosen step checks the rest.
    if (Status s = check_common(args); !s) return s;
    if (Status s = check_epilogue(args, true); !s) return s;
    GemmImpl step{};
    GemmArgs with_plan;
    if (Status s = planned(args, step, with_plan); !s) return s;
    return gemm(step, with_plan, stream);
  }
  if (Status s = gemm_check(impl, args); !s) return s;
  using namespace gemm_launch;
  // k13 fuses the epilogue where it has the instance (launch_k13); every
  // other step runs plain, then the elementwise epilogue over D.
  if (args.epilogue.active() && impl != GemmImpl::k13_wgmma_in_flight) {
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
    case GemmImpl::automatic:
      break;  // handled above
  }
  return invalid("unknown implementation");
}

Status gemm_epilogue_apply(const GemmArgs& args, cudaStream_t stream) {
  const GemmArgs& g = args;
  if (g.m < 1 || g.n < 1)
    return invalid("gemm_epilogue_apply: extents must be positive (got M=" + std::to_string(g.m) +
                   ", N=" + std::to_string(g.n) + ")");
  if (g.d == nullptr) return invalid("gemm_epilogue_apply: D must not be null");
  if (g.ldd < g.n) return invalid("gemm_epilogue_apply: ldd must be at least N (D is row-major)");
  if (Status s = check_epilogue(g, false); !s) return Status::failure(s.code, "gemm_epilogue_apply: " + s.message);
  return gemm_launch::launch_epilogue(g, stream);
}

GemmPlan gemm_plan(const GemmArgs& args) {
  GemmPlan plan;
  const bool fused = args.epilogue.active();
  if (args.ab_type == DType::f32) {
    // fp32 inputs: the fp32 ladder's last step, on every device (no tuning).
    // f07: 0.88-0.90 of cuBLAS fp32 against f06's 0.67 at 2048^3-8192^3 on an
    // H100 (bench/results/fp32_f07_h100.csv).
    plan.impl = GemmImpl::f07_two_ctas_per_sm;
    plan.tuning = args.tuning;
    plan.why = fused ? "fp32 inputs: f07, unfused epilogue" : "fp32 inputs: f07";
    return plan;
  }
  const DeviceTraits dev = device_traits();
  const int major = dev.major, minor = dev.minor, sms = dev.sms;
  if (major != 9 || minor != 0) {
    // wgmma and TMA are sm_90 instructions; elsewhere the best mma.sync step runs.
    plan.impl = GemmImpl::k08_smem_epilogue;
    plan.tuning = args.tuning;
    plan.why = fused ? "not an sm_90 device: k08, unfused epilogue" : "not an sm_90 device: k08";
    return plan;
  }
  plan.impl = GemmImpl::k13_wgmma_in_flight;
  // A's rows as TMA reads them: the caller's where TMA can (lda a multiple
  // of 8 elements), else the padded copy's, whose rows are whole 128-byte lines.
  const bool a_whole_lines = args.lda % 8 != 0 || args.lda % 64 == 0;
  plan.tuning = plan_k13(args.m, args.n, args.k, sms, args.tuning.tile_n, args.tuning.swap_ab, a_whole_lines, fused);
  if (args.tuning.splits != 0) plan.tuning.splits = args.tuning.splits;
  if (args.tuning.raster_group != 0) plan.tuning.raster_group = args.tuning.raster_group;
  plan.why = "k13 tile 128x" + std::to_string(plan.tuning.tile_n) + " splits " + std::to_string(plan.tuning.splits) +
             (plan.tuning.swap_ab == SwapAB::on ? " swapped" : "") +
             (!fused                            ? ""
              : k13_fused_instance(plan.tuning) ? " fused epilogue"
                                                : " unfused epilogue");
  const GemmTuning& asked = args.tuning;
  if (!fused && asked.tile_n == 0 && asked.splits == 0 && asked.swap_ab == SwapAB::plan &&
      k14_for(args.m, args.n, args.k, sms, plan.tuning)) {
    plan.impl = GemmImpl::k14_cluster_multicast;
    plan.why = "k14 tile 128x256 cluster 2x1 (short K)";
  }
  return plan;
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
