// tessel/host/gemm.hpp — the GEMM ladder behind one host API:
//   D = alpha * A * B + beta * C
// with A (M x K), B (K x N), C and D (M x N), fp32 accumulation.
//
// Layout names follow ../shared/bench/PROTOCOL.md: `A:k` means K is A's
// contiguous index (row-major M x K), `A:m` means M is; `B:n` means N is B's
// contiguous index (row-major K x N), `B:k` means K is.  C and D are row-major.
#pragma once

#include <cuda_runtime.h>

#include <optional>
#include <string>
#include <string_view>

#include "tessel/core/config.hpp"
#include "tessel/host/status.hpp"

namespace tessel {

enum class DType { bf16, f16, f32 };
const char* name(DType t);
std::optional<DType> parse_dtype(std::string_view s);  // "bf16", "fp16"/"f16", "fp32"/"f32"
int size_bytes(DType t);

enum class MajorA { k, m };  // A:k (K contiguous) or A:m (M contiguous)
enum class MajorB { n, k };  // B:n (N contiguous) or B:k (K contiguous)
struct GemmLayout {
  MajorA a = MajorA::k;
  MajorB b = MajorB::n;
  friend bool operator==(const GemmLayout&, const GemmLayout&) = default;
};
/// "A:k,B:n" and so on.
std::string name(GemmLayout l);
/// Accepts "A:k,B:n" (any order, spaces allowed) and the short form "kn"
/// (A's contiguous index, then B's).
std::optional<GemmLayout> parse_gemm_layout(std::string_view s);
inline constexpr GemmLayout kAllGemmLayouts[] = {
    {MajorA::k, MajorB::n}, {MajorA::k, MajorB::k}, {MajorA::m, MajorB::n}, {MajorA::m, MajorB::k}};

/// One GEMM.  Element (i, l) of A is a[i*lda + l] for A:k and a[i + l*lda]
/// for A:m; element (l, j) of B is b[l*ldb + j] for B:n and b[l + j*ldb] for
/// B:k; C(i, j) = c[i*ldc + j], D(i, j) = d[i*ldd + j].  A and B share one
/// type (bf16 or f16); C and D share one type (bf16, f16 or f32).  `c` may
/// be null only when beta == 0 (C is then not read at all).
struct GemmArgs {
  index_t m = 0, n = 0, k = 0;
  DType ab_type = DType::bf16;
  DType cd_type = DType::bf16;
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
};

/// The steps of the ladder (docs/ladder.md), in order.
enum class GemmImpl {
  k01_naive,            // one thread per element of C
  k02_smem_fma,         // shared-memory tiles + a TiledMMA of FMA atoms
  k03_smem_padded,      // k02 with a bank-conflict-free shared layout
  k04_mma_sync,         // mma.sync m16n8k16, 128x128x64, swizzled smem, ldmatrix, cp.async
  k05_double_buffer,    // two stages: load k+1 while computing k
  k06_grouped_raster,   // L2-friendly CTA order
  k07_three_stages,     // three stages
  k08_smem_epilogue,    // epilogue through shared memory, 128-bit stores
  k09_best_mma_sync,    // the best mma.sync kernel
};
inline constexpr GemmImpl kAllGemmImpls[] = {
    GemmImpl::k01_naive,          GemmImpl::k02_smem_fma,    GemmImpl::k03_smem_padded,
    GemmImpl::k04_mma_sync,       GemmImpl::k05_double_buffer, GemmImpl::k06_grouped_raster,
    GemmImpl::k07_three_stages,   GemmImpl::k08_smem_epilogue, GemmImpl::k09_best_mma_sync};

/// "k01".."k09" (the short name used by the CLI) and the long name.
const char* short_name(GemmImpl g);
const char* name(GemmImpl g);
/// Accepts the short name ("k04") or the long one ("k04_mma_sync").
std::optional<GemmImpl> parse_gemm_impl(std::string_view s);

/// Checks `args` for `impl` without launching anything: `invalid_argument`
/// for malformed arguments (null pointers, negative extents, leading
/// dimensions smaller than the contiguous extent, null C with beta != 0, an
/// input type that is not bf16/f16), `unsupported` for well-formed problems
/// this implementation cannot serve, each naming the rule broken.
Status gemm_check(GemmImpl impl, const GemmArgs& args);

/// Launches `impl` on `stream` after gemm_check; on any failure nothing is
/// launched and nothing is written.  M, N or K may be zero-size only as
/// rejected arguments: every extent must be at least 1.
/// k09 with an A or B whose rows are not 16-byte aligned (lda or ldb not a
/// multiple of 8, or a misaligned pointer) copies that operand into a
/// temporary from the device's stream-ordered memory pool
/// (cudaMallocAsync / cudaFreeAsync on `stream`); if the pool cannot supply
/// it, k09 runs its slower unaligned kernel instead.
Status gemm(GemmImpl impl, const GemmArgs& args, cudaStream_t stream = nullptr);

}  // namespace tessel
