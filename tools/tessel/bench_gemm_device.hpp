// `tessel bench gemm`: what every piece of the runner (bench_gemm*.cu) shares:
// the error that a failed CUDA or cuBLAS call throws, device memory freed on
// scope exit, and one problem's buffers on the device (inputs, both outputs,
// and the reference, bound and counters of the verification).  Internal to
// the runner; namespace gemm_detail keeps its names apart from the other
// benchmarks' in tessel::bench.
#pragma once

#include <cublasLt.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "bench.hpp"

namespace tessel::bench::gemm_detail {

// ================================================================== errors

/// A failed CUDA or cuBLAS call; the message names the call.  Caught per
/// problem: the problem's remaining rows become `error` rows, and the run
/// goes on unless the CUDA context is broken (a sticky error).
struct BenchError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

inline void check_cuda(cudaError_t e, const char* call) {
  if (e != cudaSuccess)
    throw BenchError(std::string(call) + " failed: " + cudaGetErrorName(e) + ": " + cudaGetErrorString(e));
}
inline void check_cublas(cublasStatus_t s, const char* call) {
  if (s != CUBLAS_STATUS_SUCCESS) throw BenchError(std::string(call) + " failed: " + cublasLtGetStatusString(s));
}
#define CUDA_CHECK(expr) check_cuda((expr), #expr)
#define CUBLAS_CHECK(expr) check_cublas((expr), #expr)

/// Device memory, freed on scope exit.
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  DeviceBuffer(std::size_t bytes, const char* what) {
    if (bytes == 0) return;
    const cudaError_t e = cudaMalloc(&p_, bytes);
    if (e != cudaSuccess) {
      p_ = nullptr;
      cudaGetLastError();  // out of memory is not sticky: clear it
      throw BenchError(std::string("cudaMalloc(") + what + ", " + std::to_string(bytes >> 20) +
                       " MiB) failed: " + cudaGetErrorString(e));
    }
  }
  DeviceBuffer(DeviceBuffer&& o) noexcept : p_(std::exchange(o.p_, nullptr)) {}
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    std::swap(p_, o.p_);
    return *this;
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer() {
    if (p_) cudaFree(p_);
  }
  void* get() const { return p_; }
  template <class T>
  T* as() const {
    return static_cast<T*>(p_);
  }

 private:
  void* p_ = nullptr;
};

/// Bytes of one element, for buffer sizes.
inline std::size_t elem_bytes(DType t) { return static_cast<std::size_t>(size_bytes(t)); }

// ================================================================== the problem on the device

/// What the comparison kernel reports (bench_gemm_verify.cu); ProblemData
/// holds one on the device.
struct VerifyStats {
  unsigned long long mismatches;
  unsigned long long first_bad;     // smallest linear index that failed (ULLONG_MAX: none)
  unsigned long long max_err_bits;  // bit pattern of the largest error (a non-negative double)
  unsigned long long nonzero_ref;   // tier 1: elements whose rounded reference is not zero
};

/// One GEMM of a row: a batch's b-th problem or a group's g-th, packed in
/// the row's buffers at these element offsets (A, B, and C/D/ref/bound; A's
/// and B's FP8 scales, each problem its own in GemmArgs::fp8_scale's layout).
struct SubProblem {
  std::int64_t m = 0;
  std::size_t a_off = 0, b_off = 0, d_off = 0;
  std::size_t sa_off = 0, sb_off = 0;
};

/// Everything one problem needs on the device.  A batch's or a group's
/// problems lie one after the other in every buffer (`subs`), each packed
/// (leading dimension = its contiguous extent).
struct ProblemData {
  const GemmProblem& p;
  DeviceBuffer a, b, c, d_tessel, d_cublas, ref, bound, stats;
  DeviceBuffer bias;              // the epilogue's bias (M or N elements of the output type), if it has one
  DeviceBuffer scale_a, scale_b;  // FP8 scales (fp32, GemmArgs::fp8_scale's layout), if the problem has them
  std::size_t scale_a_elems = 0, scale_b_elems = 0;
  std::vector<SubProblem> subs;
  std::size_t a_elems = 0, b_elems = 0, d_elems = 0, bias_elems = 0;

  ProblemData(const GemmProblem& prob, bool with_reference) : p(prob) {
    const auto z = [](std::int64_t v) { return static_cast<std::size_t>(v); };
    const std::vector<std::int64_t> ms = p.group_m.empty() ? std::vector<std::int64_t>(z(p.batch), p.m) : p.group_m;
    const std::size_t kb = z((p.k + 127) / 128), nb = z((p.n + 127) / 128);
    const Fp8Scale mode = p.fp8_scale;
    for (std::int64_t m : ms) {
      subs.push_back({m, a_elems, b_elems, d_elems, scale_a_elems, scale_b_elems});
      a_elems += z(m) * z(p.k);
      b_elems += z(p.k) * z(p.n);
      d_elems += z(m) * z(p.n);
      if (mode != Fp8Scale::none) {
        scale_a_elems += mode == Fp8Scale::tensor ? 1 : mode == Fp8Scale::channel ? z(m) : z(m) * kb;
        scale_b_elems += mode == Fp8Scale::tensor ? 1 : mode == Fp8Scale::channel ? z(p.n) : nb * kb;
      }
    }
    // The epilogue runs on single problems only (the argument parser refuses
    // it with --batch and --group-m): M or N values of the output type.
    bias_elems = p.epilogue.bias == BiasKind::row ? z(p.m) : p.epilogue.bias == BiasKind::col ? z(p.n) : 0;
    a = DeviceBuffer(a_elems * elem_bytes(p.in), "A");
    b = DeviceBuffer(b_elems * elem_bytes(p.in), "B");
    if (p.beta != 0.0) c = DeviceBuffer(d_elems * elem_bytes(p.out), "C");  // C is read only when beta != 0
    if (bias_elems > 0) bias = DeviceBuffer(bias_elems * elem_bytes(p.out), "bias");
    if (mode != Fp8Scale::none) {
      scale_a = DeviceBuffer(scale_a_elems * sizeof(float), "A's scales");
      scale_b = DeviceBuffer(scale_b_elems * sizeof(float), "B's scales");
    }
    d_tessel = DeviceBuffer(d_elems * elem_bytes(p.out), "D (tessel)");
    d_cublas = DeviceBuffer(d_elems * elem_bytes(p.out), "D (cuBLAS)");
    if (with_reference) {
      ref = DeviceBuffer(d_elems * sizeof(double), "reference");
      bound = DeviceBuffer(d_elems * sizeof(double), "bound");
      stats = DeviceBuffer(sizeof(VerifyStats), "verification counters");
    }
  }
  bool a_k() const { return p.layout.a == MajorA::k; }
  bool b_n() const { return p.layout.b == MajorB::n; }
  /// The leading dimensions of a problem with `m` rows (packed).
  std::int64_t lda(std::int64_t m) const { return a_k() ? p.k : m; }
  std::int64_t lda() const { return lda(subs.front().m); }
  std::int64_t ldb() const { return b_n() ? p.n : p.k; }
  std::int64_t ldd() const { return p.n; }
  bool grouped() const { return !p.group_m.empty(); }
};

}  // namespace tessel::bench::gemm_detail
