// `tessel bench gemm`: the same-run reference, cuBLASLt on the problem's own
// buffers (bench_gemm_cublas.cu): the first algorithm of
// cublasLtMatmulAlgoGetHeuristic, CUBLAS_COMPUTE_32F, fp32 scale factors, a
// caller-provided workspace.  The mapping of tessel's row-major D and its A/B
// layouts onto column-major cuBLAS is described at the class.
#pragma once

#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <string>
#include <vector>

#include "bench_gemm_device.hpp"

namespace tessel::bench::gemm_detail {

/// cuBLASLt on the same buffers.  cuBLAS is column-major; tessel's D is
/// row-major, and a row-major M x N matrix with ld N is the column-major
/// N x M matrix D^T with the same ld.  So cuBLAS computes
///     D^T (N x M) = alpha * B^T (N x K) * A^T (K x M) + beta * C^T
/// i.e. cuBLAS's "A" is tessel's B and cuBLAS's "B" is tessel's A:
///   B:n  b[l*N + j]  read column-major is N x K (ld N)   = B^T -> op N
///   B:k  b[l + j*K]  read column-major is K x N (ld K)   = B   -> op T
///   A:k  a[i*K + l]  read column-major is K x M (ld K)   = A^T -> op N
///   A:m  a[i + l*M]  read column-major is M x K (ld M)   = A   -> op T
/// A cuBLASLt matrix layout describes the stored matrix (rows x cols before
/// the op), hence the (rows, cols) pairs in the constructor.
///
/// The epilogue (d.p.epilogue): cuBLASLt's bias vector runs along the rows
/// of its D^T, so it is tessel's column bias (BiasKind::col).  cuBLASLt has
/// CUBLASLT_EPILOGUE_BIAS, RELU, RELU_BIAS, GELU and GELU_BIAS (its GELU is
/// the tanh form); fused() is false for the others (erf GELU, SiLU, a row
/// bias), which run the plain GEMM here and leave the epilogue to the
/// caller (tessel's gemm_epilogue_apply), and epilogue_note() says which.
/// A strided batch is one cuBLASLt call (the layouts' BATCH_COUNT and
/// STRIDED_BATCH_OFFSET).  A group is one cublasGemmGroupedBatchedEx call (a
/// cuBLAS group per problem) where cuBLAS serves the types, else one
/// cuBLASLt call per problem in turn; note() says which.
class CublasGemm {
 public:
  /// `fp32_reduction`: only algorithms that reduce in fp32 (no split K, or
  /// split K summed in the compute type), --reference cublas_fp32.
  CublasGemm(cublasLtHandle_t lt, ProblemData& d, void* workspace, std::size_t workspace_bytes,
             bool fp32_reduction = false);
  ~CublasGemm();
  CublasGemm(const CublasGemm&) = delete;
  CublasGemm& operator=(const CublasGemm&) = delete;

  bool supported() const { return reason_.empty(); }
  /// Does cuBLASLt compute the problem's epilogue itself (none counts as yes)?
  bool fused() const { return fused_; }
  /// "cuBLASLt epilogue GELU_BIAS", "cuBLASLt plain + tessel epilogue (...)", or "" without one.
  const std::string& epilogue_note() const { return epilogue_note_; }
  const std::string& reason() const { return reason_; }
  /// How a group runs ("" for a single problem or a batch).
  const std::string& note() const { return note_; }
  /// How the first call's algorithm reduces split K: "none", "inplace x2",
  /// "compute_type x4", "output_type x3" (CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME
  /// and SPLITK_NUM); "" for a grouped call.
  std::string reduction() const;

  void run(cudaStream_t s);

 private:
  /// One cuBLASLt call: problem `sub` of the row (`batch` of them when strided).
  struct LtCall {
    cublasLtMatmulDesc_t op = nullptr;
    cublasLtMatrixLayout_t la = nullptr, lb = nullptr, lc = nullptr;
    cublasLtMatmulHeuristicResult_t heur{};
    SubProblem sub;
  };
  std::string make_call(const SubProblem& sub, std::int64_t batch, LtCall& call);
  bool try_grouped();

  cublasLtHandle_t lt_;
  ProblemData& d_;
  void* workspace_;
  std::size_t workspace_bytes_;
  float alpha_ = 1, beta_ = 0;
  std::vector<LtCall> calls_;
  cublasLtMatmulPreference_t pref_ = nullptr;
  // cublasGemmGroupedBatchedEx's arguments (a group).
  cublasHandle_t blas_ = nullptr;
  DeviceBuffer ptrs_;  // A, B, C pointer arrays (cuBLAS's), count each
  std::vector<cublasOperation_t> op_a_, op_b_;
  std::vector<int> m_, n_, k_, lda_, ldb_, ldc_, size_;
  std::vector<float> alphas_, betas_;
  bool grouped_call_ = false;
  std::string reason_, note_;
  bool fused_ = true;
  std::string epilogue_note_;
};

}  // namespace tessel::bench::gemm_detail
