// `tessel bench gemm`: the cuBLASLt reference runner (CublasGemm, see
// bench_gemm_cublas.hpp for how tessel's layouts map onto cuBLAS's
// column-major operands): descriptors, matrix layouts and the heuristic's
// algorithm are set up once per problem and reused by every timed launch;
// a batch is one strided batched call, a group cublasGemmGroupedBatchedEx or
// a loop of calls.
#include <cublasLt.h>
#include <cublas_v2.h>
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
    case DType::e4m3:
      return CUDA_R_8F_E4M3;
    case DType::e5m2:
      return CUDA_R_8F_E5M2;
  }
  return CUDA_R_32F;
}

}  // namespace

std::string CublasGemm::make_call(const SubProblem& sub, std::int64_t batch, LtCall& c) {
  const GemmProblem& p = d_.p;
  c.sub = sub;
  CUBLAS_CHECK(cublasLtMatmulDescCreate(&c.op, CUBLAS_COMPUTE_32F, CUDA_R_32F));
  const bool a_k = d_.a_k(), b_n = d_.b_n();
  const cublasOperation_t op_a = b_n ? CUBLAS_OP_N : CUBLAS_OP_T;  // cuBLAS's A is tessel's B
  const cublasOperation_t op_b = a_k ? CUBLAS_OP_N : CUBLAS_OP_T;  // cuBLAS's B is tessel's A
  CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(c.op, CUBLASLT_MATMUL_DESC_TRANSA, &op_a, sizeof op_a));
  CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(c.op, CUBLASLT_MATMUL_DESC_TRANSB, &op_b, sizeof op_b));
  if (is_fp8(p.in)) {
    // FP8: cuBLASLt promotes its sums by default; FAST_ACCUM sums in the tensor core, as tessel's fp8_fast_accum.
    const std::int8_t fast = p.fp8_fast_accum ? 1 : 0;
    CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(c.op, CUBLASLT_MATMUL_DESC_FAST_ACCUM, &fast, sizeof fast));
    if (p.fp8_scale != Fp8Scale::none) {
      // cuBLAS's A is tessel's B: its scales (one, per column of D (N), or per 128 x 128 block), and the
      // other way round; block: 1 x 128 on tessel's A, 128 x 128 on B, in tessel's layouts (GemmArgs::fp8_scale).
      const cublasLtMatmulMatrixScale_t mode_b =
          p.fp8_scale == Fp8Scale::tensor    ? CUBLASLT_MATMUL_MATRIX_SCALE_SCALAR_32F
          : p.fp8_scale == Fp8Scale::channel ? CUBLASLT_MATMUL_MATRIX_SCALE_OUTER_VEC_32F
                                             : CUBLASLT_MATMUL_MATRIX_SCALE_BLK128x128_32F;
      const cublasLtMatmulMatrixScale_t mode_a =
          p.fp8_scale == Fp8Scale::block ? CUBLASLT_MATMUL_MATRIX_SCALE_VEC128_32F : mode_b;
      const void* sa = d_.scale_b.as<float>() + sub.sb_off;  // this problem's (a group's expert's)
      const void* sb = d_.scale_a.as<float>() + sub.sa_off;
      CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(c.op, CUBLASLT_MATMUL_DESC_A_SCALE_MODE, &mode_b, sizeof mode_b));
      CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(c.op, CUBLASLT_MATMUL_DESC_B_SCALE_MODE, &mode_a, sizeof mode_a));
      CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(c.op, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &sa, sizeof sa));
      CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(c.op, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &sb, sizeof sb));
    }
  }
  // The epilogue, where cuBLASLt has it (single problems: the argument
  // parser refuses an epilogue with a batch or a group): its bias is per row
  // of its D^T (N values), tessel's column bias.
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
    CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(c.op, CUBLASLT_MATMUL_DESC_EPILOGUE, &epi, sizeof epi));
    if (col_bias) {
      const void* bias = d_.bias.get();
      CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(c.op, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias, sizeof bias));
      const cudaDataType_t bias_type = to_cuda_type(p.out);  // the default (D's type), said explicitly
      CUBLAS_CHECK(
          cublasLtMatmulDescSetAttribute(c.op, CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, &bias_type, sizeof bias_type));
    }
  }
  const auto u = [](std::int64_t v) { return static_cast<std::uint64_t>(v); };
  const std::int64_t m = sub.m;
  CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&c.la, to_cuda_type(p.in_b.value_or(p.in)), u(b_n ? p.n : p.k),
                                          u(b_n ? p.k : p.n), d_.ldb()));
  CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&c.lb, to_cuda_type(p.in), u(a_k ? p.k : m), u(a_k ? m : p.k), d_.lda(m)));
  CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&c.lc, to_cuda_type(p.out), u(p.n), u(m), d_.ldd()));
  if (batch > 1) {
    // Packed batches: each operand's stride is one matrix.
    const int count = static_cast<int>(batch);
    const std::int64_t strides[3] = {p.k * p.n, m * p.k, m * p.n};
    const cublasLtMatrixLayout_t layouts[3] = {c.la, c.lb, c.lc};
    for (int i = 0; i < 3; ++i) {
      CUBLAS_CHECK(
          cublasLtMatrixLayoutSetAttribute(layouts[i], CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &count, sizeof count));
      CUBLAS_CHECK(cublasLtMatrixLayoutSetAttribute(layouts[i], CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET,
                                                    &strides[i], sizeof strides[i]));
    }
  }
  int found = 0;
  const cublasStatus_t s = cublasLtMatmulAlgoGetHeuristic(lt_, c.op, c.la, c.lb, c.lc, c.lc, pref_, 1, &c.heur, &found);
  if (s != CUBLAS_STATUS_SUCCESS || found == 0 || c.heur.state != CUBLAS_STATUS_SUCCESS)
    return std::string("cublasLtMatmulAlgoGetHeuristic found no algorithm (") +
           cublasLtGetStatusString(s != CUBLAS_STATUS_SUCCESS ? s : c.heur.state) + ")";
  return {};
}

/// A group in one cublasGemmGroupedBatchedEx call (a cuBLAS group of one
/// problem per tessel problem), tried once on the real buffers: false
/// (nothing kept) where cuBLAS refuses the types.
bool CublasGemm::try_grouped() {
  const GemmProblem& p = d_.p;
  const std::size_t count = d_.subs.size();
  if (cublasCreate(&blas_) != CUBLAS_STATUS_SUCCESS) {
    blas_ = nullptr;
    return false;
  }
  CUBLAS_CHECK(cublasSetWorkspace(blas_, workspace_, workspace_bytes_));
  std::vector<const void*> pa, pb;
  std::vector<void*> pc;
  const std::size_t in = elem_bytes(p.in), out = elem_bytes(p.out);
  for (const SubProblem& sp : d_.subs) {
    op_a_.push_back(d_.b_n() ? CUBLAS_OP_N : CUBLAS_OP_T);
    op_b_.push_back(d_.a_k() ? CUBLAS_OP_N : CUBLAS_OP_T);
    m_.push_back(static_cast<int>(p.n));
    n_.push_back(static_cast<int>(sp.m));
    k_.push_back(static_cast<int>(p.k));
    lda_.push_back(static_cast<int>(d_.ldb()));
    ldb_.push_back(static_cast<int>(d_.lda(sp.m)));
    ldc_.push_back(static_cast<int>(d_.ldd()));
    size_.push_back(1);
    alphas_.push_back(alpha_);
    betas_.push_back(beta_);
    pa.push_back(d_.b.as<char>() + sp.b_off * in);
    pb.push_back(d_.a.as<char>() + sp.a_off * in);
    pc.push_back(d_.d_cublas.as<char>() + sp.d_off * out);
  }
  // cuBLAS's C is D in place: with beta != 0 copy C into D before each call
  // would be timed too, so beta != 0 groups take the cuBLASLt loop instead.
  if (p.beta != 0.0) return false;
  ptrs_ = DeviceBuffer(3 * count * sizeof(void*), "cuBLAS pointer arrays");
  CUDA_CHECK(cudaMemcpy(ptrs_.get(), pa.data(), count * sizeof(void*), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(ptrs_.as<void*>() + count, pb.data(), count * sizeof(void*), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(ptrs_.as<void*>() + 2 * count, pc.data(), count * sizeof(void*), cudaMemcpyHostToDevice));
  grouped_call_ = true;
  const cublasStatus_t s = [&] {
    void** ptrs = ptrs_.as<void*>();
    return cublasGemmGroupedBatchedEx(
        blas_, op_a_.data(), op_b_.data(), m_.data(), n_.data(), k_.data(), alphas_.data(), ptrs, to_cuda_type(p.in),
        lda_.data(), ptrs + count, to_cuda_type(p.in), ldb_.data(), betas_.data(), ptrs + 2 * count,
        to_cuda_type(p.out), ldc_.data(), static_cast<int>(count), size_.data(), CUBLAS_COMPUTE_32F);
  }();
  CUDA_CHECK(cudaDeviceSynchronize());
  if (s != CUBLAS_STATUS_SUCCESS) {
    grouped_call_ = false;
    note_ = std::string("cublasGemmGroupedBatchedEx refused (") + cublasGetStatusString(s) + "): a cuBLASLt loop";
    return false;
  }
  note_ = "cublasGemmGroupedBatchedEx, one cuBLAS group per problem";
  return true;
}

CublasGemm::CublasGemm(cublasLtHandle_t lt, ProblemData& d, void* workspace, std::size_t workspace_bytes,
                       bool fp32_reduction)
    : lt_(lt), d_(d), workspace_(workspace), workspace_bytes_(workspace_bytes) {
  const GemmProblem& p = d.p;
  alpha_ = static_cast<float>(p.alpha);
  beta_ = static_cast<float>(p.beta);
  CUBLAS_CHECK(cublasLtMatmulPreferenceCreate(&pref_));
  const std::uint64_t ws = workspace_bytes;
  CUBLAS_CHECK(cublasLtMatmulPreferenceSetAttribute(pref_, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws));
  if (fp32_reduction) {
    const std::uint32_t mask = CUBLASLT_REDUCTION_SCHEME_NONE | CUBLASLT_REDUCTION_SCHEME_COMPUTE_TYPE;
    CUBLAS_CHECK(
        cublasLtMatmulPreferenceSetAttribute(pref_, CUBLASLT_MATMUL_PREF_REDUCTION_SCHEME_MASK, &mask, sizeof mask));
  }
  if (d.grouped()) {
    if (try_grouped()) return;
    if (note_.empty()) note_ = p.beta != 0.0 ? "beta != 0: a cuBLASLt loop" : "a cuBLASLt loop";
    for (const SubProblem& sp : d.subs) {
      calls_.emplace_back();
      if (std::string why = make_call(sp, 1, calls_.back()); !why.empty()) {
        reason_ = why;
        return;
      }
    }
    return;
  }
  calls_.emplace_back();
  reason_ = make_call(d.subs.front(), p.batch, calls_.back());
}

std::string CublasGemm::reduction() const {
  if (calls_.empty() || grouped_call_) return "";
  const cublasLtMatmulAlgo_t& algo = calls_.front().heur.algo;
  std::uint32_t scheme = 0;
  std::int32_t splits = 1;
  std::size_t written = 0;
  if (cublasLtMatmulAlgoConfigGetAttribute(&algo, CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME, &scheme, sizeof scheme,
                                           &written) != CUBLAS_STATUS_SUCCESS ||
      cublasLtMatmulAlgoConfigGetAttribute(&algo, CUBLASLT_ALGO_CONFIG_SPLITK_NUM, &splits, sizeof splits, &written) !=
          CUBLAS_STATUS_SUCCESS)
    return "unknown";
  const char* what = scheme == CUBLASLT_REDUCTION_SCHEME_INPLACE        ? "inplace"
                     : scheme == CUBLASLT_REDUCTION_SCHEME_COMPUTE_TYPE ? "compute_type"
                     : scheme == CUBLASLT_REDUCTION_SCHEME_OUTPUT_TYPE  ? "output_type"
                                                                        : "none";
  if (scheme == CUBLASLT_REDUCTION_SCHEME_NONE || splits <= 1) return "none";
  return std::string(what) + " x" + std::to_string(splits);
}

CublasGemm::~CublasGemm() {
  if (pref_) cublasLtMatmulPreferenceDestroy(pref_);
  for (LtCall& c : calls_) {
    if (c.lc) cublasLtMatrixLayoutDestroy(c.lc);
    if (c.lb) cublasLtMatrixLayoutDestroy(c.lb);
    if (c.la) cublasLtMatrixLayoutDestroy(c.la);
    if (c.op) cublasLtMatmulDescDestroy(c.op);
  }
  if (blas_) cublasDestroy(blas_);
}

void CublasGemm::run(cudaStream_t s) {
  const GemmProblem& p = d_.p;
  if (grouped_call_) {
    const std::size_t count = d_.subs.size();
    void** ptrs = ptrs_.as<void*>();
    CUBLAS_CHECK(cublasSetStream(blas_, s));
    CUBLAS_CHECK(cublasGemmGroupedBatchedEx(
        blas_, op_a_.data(), op_b_.data(), m_.data(), n_.data(), k_.data(), alphas_.data(), ptrs, to_cuda_type(p.in),
        lda_.data(), ptrs + count, to_cuda_type(p.in), ldb_.data(), betas_.data(), ptrs + 2 * count,
        to_cuda_type(p.out), ldc_.data(), static_cast<int>(count), size_.data(), CUBLAS_COMPUTE_32F));
    return;
  }
  const std::size_t in = elem_bytes(p.in), out = elem_bytes(p.out);
  for (const LtCall& c : calls_) {
    // With beta == 0 C is not read; cuBLASLt still wants a pointer: D's.
    void* dptr = d_.d_cublas.as<char>() + c.sub.d_off * out;
    const void* cptr = d_.c.get() ? static_cast<const void*>(d_.c.as<char>() + c.sub.d_off * out) : dptr;
    CUBLAS_CHECK(cublasLtMatmul(lt_, c.op, &alpha_, d_.b.as<char>() + c.sub.b_off * in, c.la,
                                d_.a.as<char>() + c.sub.a_off * in, c.lb, &beta_, cptr, c.lc, dptr, c.lc, &c.heur.algo,
                                workspace_, workspace_bytes_, s));
  }
}

}  // namespace tessel::bench::gemm_detail
