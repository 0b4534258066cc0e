// bench/lab/batched_grouped.cu — strided batched and grouped GEMM (issue 13,
// item 2) against cuBLAS, until `tessel bench gemm` has --batch/--grouped
// modes: bf16 in and out, A row-major (A:k), B row-major (B:n), beta = 0.
//
//   batched B M N K   tessel::gemm with batch = B (k13's batched kernel)
//                     against cuBLASLt strided batched (BATCH_COUNT and
//                     STRIDED_BATCH_OFFSET layout attributes)
//   moe N K M1,M2,..  tessel::gemm_grouped over the problems (Mi x N x K)
//                     against cublasGemmGroupedBatchedEx (one problem per
//                     cuBLAS group) and a loop of cuBLASLt calls
//
// Verification first: every implementation's D against the first one's (max
// |difference| relative to max |D|; random bf16 inputs in [-1, 1]).  Timing:
// interleaved rounds (each round times every implementation, the first of a
// round rotating), `reps` launches per timed block between two events, the
// median over rounds; no L2 flush (the batched problems fit in the L2 as a
// whole: warm-L2 numbers for both sides).  FLOP counts every problem: 2 M N
// K per problem, summed.
//   nvcc -std=c++20 -O2 --expt-relaxed-constexpr -gencode=arch=compute_90a,code=sm_90a -I. -Iinclude \
//     bench/lab/batched_grouped.cu build/cuda/libtessel_kernels.a -lcublasLt -lcublas -o build/lab/batched_grouped
//   build/lab/batched_grouped batched 32 512 512 128
//   build/lab/batched_grouped moe 4096 7168 64,128,256,512,768,1024,1536,2048
//   build/lab/batched_grouped host 256 64 256 128   (host us per gemm_grouped call, cached and encoding)
#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "tessel/host/gemm.hpp"

#define CHECK(x)                                                                       \
  do {                                                                                 \
    cudaError_t e_ = (x);                                                              \
    if (e_ != cudaSuccess) {                                                           \
      std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
      std::exit(1);                                                                    \
    }                                                                                  \
  } while (0)
#define CHECK_BLAS(x)                                                            \
  do {                                                                           \
    int s_ = static_cast<int>(x);                                                \
    if (s_ != 0) {                                                               \
      std::fprintf(stderr, "%s:%d: cuBLAS status %d\n", __FILE__, __LINE__, s_); \
      std::exit(1);                                                              \
    }                                                                            \
  } while (0)

namespace {

struct Impl {
  std::string name;
  std::function<void(cudaStream_t)> run;
  void* d;  // its output (verification)
};

__nv_bfloat16* random_bf16(std::size_t n, unsigned seed) {
  std::vector<__nv_bfloat16> h(n);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  for (auto& x : h) x = __float2bfloat16_rn(u(rng));
  __nv_bfloat16* d = nullptr;
  CHECK(cudaMalloc(&d, n * 2));
  CHECK(cudaMemcpy(d, h.data(), n * 2, cudaMemcpyHostToDevice));
  return d;
}

/// Max |x - y| / max |y| over the `n` bf16 values of two outputs.
double rel_diff(const void* x, const void* y, std::size_t n) {
  std::vector<__nv_bfloat16> hx(n), hy(n);
  CHECK(cudaMemcpy(hx.data(), x, n * 2, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(hy.data(), y, n * 2, cudaMemcpyDeviceToHost));
  double diff = 0.0, mag = 0.0;
  for (std::size_t i = 0; i < n; ++i) {
    const double a = __bfloat162float(hx[i]), b = __bfloat162float(hy[i]);
    diff = std::max(diff, std::fabs(a - b));
    mag = std::max(mag, std::fabs(b));
  }
  return mag > 0.0 ? diff / mag : diff;
}

void time_all(std::vector<Impl>& impls, std::size_t d_elems, double flops, cudaStream_t s) {
  for (auto& i : impls) i.run(s);
  CHECK(cudaStreamSynchronize(s));
  for (std::size_t i = 1; i < impls.size(); ++i) {
    const double r = rel_diff(impls[i].d, impls[0].d, d_elems);
    std::printf("verify %-28s vs %s: max rel diff %.3g%s\n", impls[i].name.c_str(), impls[0].name.c_str(), r,
                r > 2e-2 ? "  <-- MISMATCH" : "");
  }
  constexpr int kRounds = 30, kReps = 20;
  std::vector<std::vector<float>> ms(impls.size());
  cudaEvent_t e0, e1;
  CHECK(cudaEventCreate(&e0));
  CHECK(cudaEventCreate(&e1));
  for (int r = 0; r < kRounds; ++r)
    for (std::size_t j = 0; j < impls.size(); ++j) {
      Impl& im = impls[(j + static_cast<std::size_t>(r)) % impls.size()];
      CHECK(cudaEventRecord(e0, s));
      for (int k = 0; k < kReps; ++k) im.run(s);
      CHECK(cudaEventRecord(e1, s));
      CHECK(cudaEventSynchronize(e1));
      float t = 0.0f;
      CHECK(cudaEventElapsedTime(&t, e0, e1));
      ms[(j + static_cast<std::size_t>(r)) % impls.size()].push_back(t / kReps);
    }
  std::vector<double> med(impls.size());
  for (std::size_t i = 0; i < impls.size(); ++i) {
    std::sort(ms[i].begin(), ms[i].end());
    med[i] = ms[i][ms[i].size() / 2];
  }
  std::printf("%-32s %12s %10s %10s\n", "impl", "us", "TFLOP/s", "tessel x");
  for (std::size_t i = 0; i < impls.size(); ++i)
    std::printf("%-32s %12.2f %10.1f %10.3f\n", impls[i].name.c_str(), med[i] * 1e3, flops / (med[i] * 1e-3) / 1e12,
                med[i] / med[0]);
}

/// cuBLASLt for row-major D (m x n) = A (m x k, lda) B (k x n, ldb): the
/// column-major D^T = B^T A^T, optionally strided batched.
struct LtGemm {
  cublasLtHandle_t lt;
  cublasLtMatmulDesc_t op{};
  cublasLtMatrixLayout_t la{}, lb{}, lc{};
  cublasLtMatmulHeuristicResult_t heur{};
  void* ws;
  std::size_t ws_bytes;
  LtGemm(cublasLtHandle_t h, int m, int n, int k, int batch, long long sa, long long sb, long long sd, void* w,
         std::size_t wb)
      : lt(h), ws(w), ws_bytes(wb) {
    CHECK_BLAS(cublasLtMatmulDescCreate(&op, CUBLAS_COMPUTE_32F, CUDA_R_32F));
    CHECK_BLAS(cublasLtMatrixLayoutCreate(&la, CUDA_R_16BF, n, k, n));  // B^T: n x k, ld n
    CHECK_BLAS(cublasLtMatrixLayoutCreate(&lb, CUDA_R_16BF, k, m, k));  // A^T: k x m, ld k
    CHECK_BLAS(cublasLtMatrixLayoutCreate(&lc, CUDA_R_16BF, n, m, n));
    if (batch > 1) {
      for (auto [l, st] : {std::pair{la, sb}, std::pair{lb, sa}, std::pair{lc, sd}}) {
        CHECK_BLAS(cublasLtMatrixLayoutSetAttribute(l, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &batch, sizeof batch));
        CHECK_BLAS(cublasLtMatrixLayoutSetAttribute(l, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &st, sizeof st));
      }
    }
    cublasLtMatmulPreference_t pref;
    CHECK_BLAS(cublasLtMatmulPreferenceCreate(&pref));
    CHECK_BLAS(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws_bytes,
                                                    sizeof ws_bytes));
    int found = 0;
    CHECK_BLAS(cublasLtMatmulAlgoGetHeuristic(lt, op, la, lb, lc, lc, pref, 1, &heur, &found));
    if (found == 0) {
      std::fprintf(stderr, "cuBLASLt: no algorithm\n");
      std::exit(1);
    }
    cublasLtMatmulPreferenceDestroy(pref);
  }
  void run(const void* a, const void* b, void* d, cudaStream_t s) const {
    const float alpha = 1.0f, beta = 0.0f;
    CHECK_BLAS(cublasLtMatmul(lt, op, &alpha, b, la, a, lb, &beta, d, lc, d, lc, &heur.algo, ws, ws_bytes, s));
  }
};

std::vector<long long> parse_list(const char* s) {
  std::vector<long long> v;
  for (const char* p = s; *p;) {
    v.push_back(std::strtoll(p, const_cast<char**>(&p), 10));
    if (*p == ',') ++p;
  }
  return v;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s batched B M N K | moe N K M1,M2,...\n", argv[0]);
    return 2;
  }
  cudaStream_t s;
  CHECK(cudaStreamCreate(&s));
  cublasLtHandle_t lt;
  CHECK_BLAS(cublasLtCreate(&lt));
  const std::size_t ws_bytes = 32 << 20;
  void* ws = nullptr;
  CHECK(cudaMalloc(&ws, ws_bytes));
  std::vector<Impl> impls;
  const std::string mode = argv[1];
  if (mode == "batched" && argc == 6) {
    const long long batch = std::atoll(argv[2]), m = std::atoll(argv[3]), n = std::atoll(argv[4]),
                    k = std::atoll(argv[5]);
    const std::size_t na = static_cast<std::size_t>(batch * m * k), nb = static_cast<std::size_t>(batch * k * n),
                      nd = static_cast<std::size_t>(batch * m * n);
    __nv_bfloat16 *a = random_bf16(na, 1), *b = random_bf16(nb, 2), *d0 = nullptr, *d1 = nullptr;
    CHECK(cudaMalloc(&d0, nd * 2));
    CHECK(cudaMalloc(&d1, nd * 2));
    tessel::GemmArgs g;
    g.m = m, g.n = n, g.k = k, g.batch = batch;
    g.a = a, g.lda = k, g.b = b, g.ldb = n, g.d = d0, g.ldd = n;
    g.stride_a = m * k, g.stride_b = k * n, g.stride_d = m * n;
    std::printf("batched %lld x %lldx%lldx%lld bf16: plan %s\n", batch, m, n, k, tessel::gemm_plan(g).why.c_str());
    impls.push_back({"tessel::gemm (batch)",
                     [g](cudaStream_t st) {
                       const tessel::Status r = tessel::gemm(g, st);
                       if (!r) {
                         std::fprintf(stderr, "tessel: %s\n", r.message.c_str());
                         std::exit(1);
                       }
                     },
                     d0});
    auto* lg = new LtGemm(lt, static_cast<int>(m), static_cast<int>(n), static_cast<int>(k), static_cast<int>(batch),
                          m * k, k * n, m * n, ws, ws_bytes);
    impls.push_back({"cuBLASLt strided batched", [lg, a, b, d1](cudaStream_t st) { lg->run(a, b, d1, st); }, d1});
    time_all(impls, nd, 2.0 * static_cast<double>(batch * m * n * k), s);
    return 0;
  }
  if (mode == "moe" && argc == 5) {
    const long long n = std::atoll(argv[2]), k = std::atoll(argv[3]);
    const std::vector<long long> ms = parse_list(argv[4]);
    const int count = static_cast<int>(ms.size());
    long long rows = 0;
    for (long long m : ms) rows += m;
    // A: the experts' rows stacked (rows x k); B: one k x n weight per expert;
    // D: rows x n stacked.  Three outputs, one per implementation.
    __nv_bfloat16* a = random_bf16(static_cast<std::size_t>(rows * k), 1);
    __nv_bfloat16* b = random_bf16(static_cast<std::size_t>(count) * static_cast<std::size_t>(k * n), 2);
    __nv_bfloat16* d[3];
    for (auto& x : d) CHECK(cudaMalloc(&x, static_cast<std::size_t>(rows * n) * 2));
    std::vector<tessel::GemmArgs> gs(static_cast<std::size_t>(count));
    double flops = 0.0;
    long long row = 0;
    for (int p = 0; p < count; ++p) {
      tessel::GemmArgs& g = gs[static_cast<std::size_t>(p)];
      g.m = ms[static_cast<std::size_t>(p)], g.n = n, g.k = k;
      g.a = a + row * k, g.lda = k, g.b = b + static_cast<long long>(p) * k * n, g.ldb = n;
      g.d = d[0] + row * n, g.ldd = n;
      row += g.m;
      flops += 2.0 * static_cast<double>(g.m * n * k);
    }
    std::printf("moe %d problems, N = %lld, K = %lld bf16: %s\n", count, n, k,
                tessel::gemm_plan_grouped(gs.data(), count).why.c_str());
    impls.push_back({"tessel::gemm_grouped",
                     [gs, count](cudaStream_t st) {
                       const tessel::Status r = tessel::gemm_grouped(gs.data(), count, st);
                       if (!r) {
                         std::fprintf(stderr, "tessel: %s\n", r.message.c_str());
                         std::exit(1);
                       }
                     },
                     d[0]});
    // cublasGemmGroupedBatchedEx: one problem per cuBLAS group, column-major D^T = B^T A^T.
    cublasHandle_t h;
    CHECK_BLAS(cublasCreate(&h));
    CHECK_BLAS(cublasSetStream(h, s));
    CHECK_BLAS(cublasSetWorkspace(h, ws, ws_bytes));
    std::vector<cublasOperation_t> ops(static_cast<std::size_t>(count), CUBLAS_OP_N);
    std::vector<int> mm, nn, kk, lda, ldb, ldc, size(static_cast<std::size_t>(count), 1);
    std::vector<float> alpha(static_cast<std::size_t>(count), 1.0f), beta(static_cast<std::size_t>(count), 0.0f);
    std::vector<const void*> pa, pb;
    std::vector<void*> pc;
    row = 0;
    for (int p = 0; p < count; ++p) {
      const long long m = ms[static_cast<std::size_t>(p)];
      mm.push_back(static_cast<int>(n)), nn.push_back(static_cast<int>(m)), kk.push_back(static_cast<int>(k));
      lda.push_back(static_cast<int>(n)), ldb.push_back(static_cast<int>(k)), ldc.push_back(static_cast<int>(n));
      pa.push_back(b + static_cast<long long>(p) * k * n), pb.push_back(a + row * k), pc.push_back(d[1] + row * n);
      row += m;
    }
    void** dev_ptrs = nullptr;
    CHECK(cudaMalloc(&dev_ptrs, 3 * static_cast<std::size_t>(count) * sizeof(void*)));
    CHECK(cudaMemcpy(dev_ptrs, pa.data(), count * sizeof(void*), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dev_ptrs + count, pb.data(), count * sizeof(void*), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dev_ptrs + 2 * count, pc.data(), count * sizeof(void*), cudaMemcpyHostToDevice));
    const cublasStatus_t probe = cublasGemmGroupedBatchedEx(
        h, ops.data(), ops.data(), mm.data(), nn.data(), kk.data(), alpha.data(), dev_ptrs, CUDA_R_16BF, lda.data(),
        dev_ptrs + count, CUDA_R_16BF, ldb.data(), beta.data(), dev_ptrs + 2 * count, CUDA_R_16BF, ldc.data(), count,
        size.data(), CUBLAS_COMPUTE_32F);
    if (probe == CUBLAS_STATUS_SUCCESS) {
      impls.push_back({"cublasGemmGroupedBatchedEx",
                       [=](cudaStream_t) {
                         CHECK_BLAS(cublasGemmGroupedBatchedEx(
                             h, ops.data(), ops.data(), mm.data(), nn.data(), kk.data(), alpha.data(), dev_ptrs,
                             CUDA_R_16BF, lda.data(), dev_ptrs + count, CUDA_R_16BF, ldb.data(), beta.data(),
                             dev_ptrs + 2 * count, CUDA_R_16BF, ldc.data(), count, size.data(), CUBLAS_COMPUTE_32F));
                       },
                       d[1]});
    } else {
      std::printf("cublasGemmGroupedBatchedEx: status %d for bf16 (not timed)\n", static_cast<int>(probe));
    }
    std::vector<LtGemm*> lts;
    for (int p = 0; p < count; ++p)
      lts.push_back(new LtGemm(lt, static_cast<int>(ms[static_cast<std::size_t>(p)]), static_cast<int>(n),
                               static_cast<int>(k), 1, 0, 0, 0, ws, ws_bytes));
    impls.push_back({"cuBLASLt loop",
                     [=](cudaStream_t st) {
                       long long r = 0;
                       for (int p = 0; p < count; ++p) {
                         lts[static_cast<std::size_t>(p)]->run(a + r * k, b + static_cast<long long>(p) * k * n,
                                                               d[2] + r * n, st);
                         r += ms[static_cast<std::size_t>(p)];
                       }
                     },
                     d[2]});
    time_all(impls, static_cast<std::size_t>(rows * n), flops, s);
    return 0;
  }
  if (mode == "host" && argc == 6) {
    // Host time of one gemm_grouped call with G problems of M x N x K: the
    // same problems call after call (the descriptor cache hits: no encode),
    // then two sets of D pointers in turn (every call misses: 3 G encodes).
    const int count = std::atoi(argv[2]);
    const long long m = std::atoll(argv[3]), n = std::atoll(argv[4]), k = std::atoll(argv[5]);
    __nv_bfloat16* a = random_bf16(static_cast<std::size_t>(count * m * k), 1);
    __nv_bfloat16* b = random_bf16(static_cast<std::size_t>(count * k * n), 2);
    __nv_bfloat16* d = nullptr;
    CHECK(cudaMalloc(&d, 2 * static_cast<std::size_t>(count * m * n) * 2));
    std::vector<tessel::GemmArgs> sets[2];
    for (int set = 0; set < 2; ++set)
      for (int p = 0; p < count; ++p) {
        tessel::GemmArgs g;
        g.m = m, g.n = n, g.k = k;
        g.a = a + p * m * k, g.lda = k, g.b = b + p * k * n, g.ldb = n;
        g.d = d + (static_cast<long long>(set) * count + p) * m * n, g.ldd = n;
        sets[set].push_back(g);
      }
    const auto host_us = [&](bool alternate) {
      constexpr int kCalls = 200;
      for (int i = 0; i < 20; ++i) (void)tessel::gemm_grouped(sets[0].data(), count, s);
      CHECK(cudaStreamSynchronize(s));
      const auto t0 = std::chrono::steady_clock::now();
      for (int i = 0; i < kCalls; ++i) {
        const tessel::Status r = tessel::gemm_grouped(sets[alternate ? i % 2 : 0].data(), count, s);
        if (!r) {
          std::fprintf(stderr, "tessel: %s\n", r.message.c_str());
          std::exit(1);
        }
      }
      const double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
      CHECK(cudaStreamSynchronize(s));
      return us / kCalls;
    };
    const double hit = host_us(false), miss = host_us(true);
    std::printf(
        "gemm_grouped host time, %d problems of %lldx%lldx%lld: %.2f us a call with the descriptors cached, "
        "%.2f us encoding them (%.3f us per cuTensorMapEncodeTiled, 3 per problem)\n",
        count, m, n, k, hit, miss, (miss - hit) / (3.0 * count));
    return 0;
  }
  std::fprintf(stderr, "usage: %s batched B M N K | moe N K M1,M2,... | host G M N K\n", argv[0]);
  return 2;
}
