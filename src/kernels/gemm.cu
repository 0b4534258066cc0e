// tessel::gemm: names, the checks every ladder step shares, and dispatch to
// the steps' launchers (src/kernels/gemm/kNN.cu).
#include <cctype>
#include <cstdint>
#include <string>

#include "src/kernels/gemm/launch.hpp"
#include "tessel/host/gemm.hpp"

namespace tessel {

const char* name(DType t) {
  switch (t) {
    case DType::bf16: return "bf16";
    case DType::f16: return "fp16";
    case DType::f32: return "fp32";
  }
  return "unknown";
}
std::optional<DType> parse_dtype(std::string_view s) {
  if (s == "bf16") return DType::bf16;
  if (s == "fp16" || s == "f16") return DType::f16;
  if (s == "fp32" || s == "f32") return DType::f32;
  return std::nullopt;
}
int size_bytes(DType t) { return t == DType::f32 ? 4 : 2; }

std::string name(GemmLayout l) {
  return std::string("A:") + (l.a == MajorA::k ? "k" : "m") + ",B:" + (l.b == MajorB::n ? "n" : "k");
}
std::optional<GemmLayout> parse_gemm_layout(std::string_view s) {
  std::string t;
  for (char c : s)
    if (!std::isspace(static_cast<unsigned char>(c))) t += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  GemmLayout l;
  if (t.size() == 2) {  // short form: "kn", "kk", "mn", "mk"
    if (t[0] != 'k' && t[0] != 'm') return std::nullopt;
    if (t[1] != 'n' && t[1] != 'k') return std::nullopt;
    l.a = t[0] == 'k' ? MajorA::k : MajorA::m;
    l.b = t[1] == 'n' ? MajorB::n : MajorB::k;
    return l;
  }
  bool have_a = false, have_b = false;
  std::size_t pos = 0;
  while (pos <= t.size()) {
    const std::size_t end = std::min(t.find(',', pos), t.size());
    const std::string part = t.substr(pos, end - pos);
    if (part == "a:k" && !have_a) l.a = MajorA::k, have_a = true;
    else if (part == "a:m" && !have_a) l.a = MajorA::m, have_a = true;
    else if (part == "b:n" && !have_b) l.b = MajorB::n, have_b = true;
    else if (part == "b:k" && !have_b) l.b = MajorB::k, have_b = true;
    else return std::nullopt;
    pos = end + 1;
  }
  if (!have_a || !have_b) return std::nullopt;
  return l;
}

const char* short_name(GemmImpl g) {
  static const char* const names[] = {"k01", "k02", "k03", "k04", "k05", "k06", "k07", "k08", "k09"};
  return names[static_cast<int>(g)];
}
const char* name(GemmImpl g) {
  switch (g) {
    case GemmImpl::k01_naive: return "k01_naive";
    case GemmImpl::k02_smem_fma: return "k02_smem_fma";
    case GemmImpl::k03_smem_padded: return "k03_smem_padded";
    case GemmImpl::k04_mma_sync: return "k04_mma_sync";
    case GemmImpl::k05_double_buffer: return "k05_double_buffer";
    case GemmImpl::k06_grouped_raster: return "k06_grouped_raster";
    case GemmImpl::k07_three_stages: return "k07_three_stages";
    case GemmImpl::k08_smem_epilogue: return "k08_smem_epilogue";
    case GemmImpl::k09_best_mma_sync: return "k09_best_mma_sync";
  }
  return "unknown";
}
std::optional<GemmImpl> parse_gemm_impl(std::string_view s) {
  for (GemmImpl g : kAllGemmImpls)
    if (s == short_name(g) || s == name(g)) return g;
  return std::nullopt;
}

namespace {

Status invalid(std::string msg) { return Status::failure(Status::invalid_argument, std::move(msg)); }

/// The rules every step shares (invalid_argument: the call is malformed).
Status check_common(const GemmArgs& g) {
  if (g.m < 1 || g.n < 1 || g.k < 1)
    return invalid("extents must be positive (got M=" + std::to_string(g.m) + ", N=" + std::to_string(g.n) +
                   ", K=" + std::to_string(g.k) + ")");
  if (g.ab_type == DType::f32) return invalid("A and B must be bf16 or fp16 (fp32 inputs are not a ladder problem)");
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

}  // namespace

Status gemm_check(GemmImpl impl, const GemmArgs& args) {
  if (Status s = check_common(args); !s) return s;
  using namespace gemm_launch;
  switch (impl) {
    case GemmImpl::k01_naive: return check_k01(args);
    case GemmImpl::k02_smem_fma: return check_k02(args);
    case GemmImpl::k03_smem_padded: return check_k03(args);
    case GemmImpl::k04_mma_sync: return check_k04(args);
    case GemmImpl::k05_double_buffer: return check_k05(args);
    case GemmImpl::k06_grouped_raster: return check_k06(args);
    case GemmImpl::k07_three_stages: return check_k07(args);
    case GemmImpl::k08_smem_epilogue: return check_k08(args);
    case GemmImpl::k09_best_mma_sync: return check_k09(args);
  }
  return invalid("unknown implementation");
}

Status gemm(GemmImpl impl, const GemmArgs& args, cudaStream_t stream) {
  if (Status s = gemm_check(impl, args); !s) return s;
  using namespace gemm_launch;
  switch (impl) {
    case GemmImpl::k01_naive: return launch_k01(args, stream);
    case GemmImpl::k02_smem_fma: return launch_k02(args, stream);
    case GemmImpl::k03_smem_padded: return launch_k03(args, stream);
    case GemmImpl::k04_mma_sync: return launch_k04(args, stream);
    case GemmImpl::k05_double_buffer: return launch_k05(args, stream);
    case GemmImpl::k06_grouped_raster: return launch_k06(args, stream);
    case GemmImpl::k07_three_stages: return launch_k07(args, stream);
    case GemmImpl::k08_smem_epilogue: return launch_k08(args, stream);
    case GemmImpl::k09_best_mma_sync: return launch_k09(args, stream);
  }
  return invalid("unknown implementation");
}

namespace gemm_launch {
Status launch_status(const char* kernel) {
  const cudaError_t e = cudaGetLastError();
  if (e == cudaSuccess) return Status::success();
  return Status::failure(Status::cuda_error, std::string(kernel) + ": " + cudaGetErrorString(e));
}
}  // namespace gemm_launch

}  // namespace tessel
