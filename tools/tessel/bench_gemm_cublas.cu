// `tessel bench gemm`: the cuBLASLt reference runner (CublasGemm, see
// bench_gemm_cublas.hpp for how tessel's layouts map onto cuBLAS's
// column-major operands): descriptors, matrix layouts and the heuristic's
// algorithm are set up once per problem and reused by every timed launch.
#include <cublasLt.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "bench_gemm_cublas.hpp"

namespace tessel::bench::gemm_detail {
namespace {

cudaDataType_t to_cuda_type(DType t) {
  switch (t) {
    case DType::bf16:
      return CUDA_R_16BF;
    case DType::f16:
      return CUDA_R_16F;
    case DType::f32:
      return CUDA_R_32F;
  }
  return CUDA_R_32F;
}

}  // namespace

CublasGemm::CublasGemm(cublasLtHandle_t lt, ProblemData& d, void* workspace, std::size_t workspace_bytes)
    : lt_(lt), d_(d), workspace_(workspace), workspace_bytes_(workspace_bytes) {
  const GemmProblem& p = d.p;
  alpha_ = static_cast<float>(p.alpha);
  beta_ = static_cast<float>(p.beta);
  CUBLAS_CHECK(cublasLtMatmulDescCreate(&op_, CUBLAS_COMPUTE_32F, CUDA_R_32F));
  const bool a_k = d.a_k(), b_n = d.b_n();
  const cublasOperation_t op_a = b_n ? CUBLAS_OP_N : CUBLAS_OP_T;  // cuBLAS's A is tessel's B
  const cublasOperation_t op_b = a_k ? CUBLAS_OP_N : CUBLAS_OP_T;  // cuBLAS's B is tessel's A
  CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(op_, CUBLASLT_MATMUL_DESC_TRANSA, &op_a, sizeof op_a));
  CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(op_, CUBLASLT_MATMUL_DESC_TRANSB, &op_b, sizeof op_b));
  // The epilogue, where cuBLASLt has it: its bias is per row of its D^T (N
  // values), tessel's column bias.
  const BenchEpilogue& e = p.epilogue;
  const bool col_bias = e.bias == BiasKind::col;
  cublasLtEpilogue_t epi = CUBLASLT_EPILOGUE_DEFAULT;
  const char* epi_name = "";
  if (e.bias != BiasKind::row) {
    if (e.act == Activation::none && col_bias) epi = CUBLASLT_EPILOGUE_BIAS, epi_name = "BIAS";
    if (e.act == Activation::relu) {
      epi = col_bias ? CUBLASLT_EPILOGUE_RELU_BIAS : CUBLASLT_EPILOGUE_RELU;
      epi_name = col_bias ? "RELU_BIAS" : "RELU";
    }
    if (e.act == Activation::gelu_tanh) {
      epi = col_bias ? CUBLASLT_EPILOGUE_GELU_BIAS : CUBLASLT_EPILOGUE_GELU;
      epi_name = col_bias ? "GELU_BIAS" : "GELU";
    }
  }
  if (e.act != Activation::none || e.bias != BiasKind::none) {
    fused_ = epi != CUBLASLT_EPILOGUE_DEFAULT;
    epilogue_note_ =
        fused_ ? std::string("cuBLASLt epilogue ") + epi_name
               : std::string("cuBLASLt plain + tessel gemm_epilogue_apply (cuBLASLt has no ") +
                     (e.bias == BiasKind::row ? "bias per row of D, per column of its D^T" : tessel::name(e.act)) +
                     " epilogue)";
  }
  if (fused_ && epi != CUBLASLT_EPILOGUE_DEFAULT) {
    CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(op_, CUBLASLT_MATMUL_DESC_EPILOGUE, &epi, sizeof epi));
    if (col_bias) {
      const void* bias = d.bias.get();
      CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(op_, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias, sizeof bias));
      const cudaDataType_t bias_type = to_cuda_type(p.out);  // the default (D's type), said explicitly
      CUBLAS_CHECK(
          cublasLtMatmulDescSetAttribute(op_, CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, &bias_type, sizeof bias_type));
    }
  }
  const auto u = [](std::int64_t v) { return static_cast<std::uint64_t>(v); };
  CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&la_, to_cuda_type(p.in), u(b_n ? p.n : p.k), u(b_n ? p.k : p.n), d.ldb()));
  CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&lb_, to_cuda_type(p.in), u(a_k ? p.k : p.m), u(a_k ? p.m : p.k), d.lda()));
  CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&lc_, to_cuda_type(p.out), u(p.n), u(p.m), d.ldd()));
  CUBLAS_CHECK(cublasLtMatmulPreferenceCreate(&pref_));
  const std::uint64_t ws = workspace_bytes;
  CUBLAS_CHECK(cublasLtMatmulPreferenceSetAttribute(pref_, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws));
  int found = 0;
  const cublasStatus_t s = cublasLtMatmulAlgoGetHeuristic(lt_, op_, la_, lb_, lc_, lc_, pref_, 1, &heur_, &found);
  if (s != CUBLAS_STATUS_SUCCESS || found == 0 || heur_.state != CUBLAS_STATUS_SUCCESS)
    reason_ = std::string("cublasLtMatmulAlgoGetHeuristic found no algorithm (") +
              cublasLtGetStatusString(s != CUBLAS_STATUS_SUCCESS ? s : heur_.state) + ")";
}

CublasGemm::~CublasGemm() {
  if (pref_) cublasLtMatmulPreferenceDestroy(pref_);
  if (lc_) cublasLtMatrixLayoutDestroy(lc_);
  if (lb_) cublasLtMatrixLayoutDestroy(lb_);
  if (la_) cublasLtMatrixLayoutDestroy(la_);
  if (op_) cublasLtMatmulDescDestroy(op_);
}

void CublasGemm::run(cudaStream_t s) {
  // With beta == 0 C is not read; cuBLASLt still wants a pointer: D's.
  void* dptr = d_.d_cublas.get();
  const void* cptr = d_.c.get() ? d_.c.get() : dptr;
  CUBLAS_CHECK(cublasLtMatmul(lt_, op_, &alpha_, d_.b.get(), la_, d_.a.get(), lb_, &beta_, cptr, lc_, dptr, lc_,
                              &heur_.algo, workspace_, workspace_bytes_, s));
}

}  // namespace tessel::bench::gemm_detail
