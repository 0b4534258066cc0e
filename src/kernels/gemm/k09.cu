// Launcher of ladder step k09 (include/tessel/kernels/gemm/k09_best_mma_sync.cuh):
// TMA maps for A, B and D, then the warp-specialized kernel.  An A or B whose
// rows TMA cannot describe (not 16-byte aligned, e.g. lda = 4095) is first
// copied into a temporary with padded rows; a D it cannot describe is written
// by the register epilogue.
#include <cstdint>
#include <cstring>
#include <mutex>

#include "src/kernels/gemm/multistage_launch.hpp"
#include "tessel/kernels/gemm/k09_best_mma_sync.cuh"

namespace tessel::gemm_launch {

namespace k = gemm_kernels::k09;

namespace {

/// TMA needs a 16-byte aligned base and 16-byte multiples between rows.
bool tma_ready(const void* p, index_t ld, int elem_bytes) {
  return reinterpret_cast<std::uintptr_t>(p) % 16 == 0 && (ld * elem_bytes) % 16 == 0;
}

/// Encoding a tensor map costs host time between the caller's events; the
/// same matrices come back call after call (benchmarks, training loops), so
/// the last few maps are kept.
struct MapKey {
  const void* ptr;
  index_t shape[2], stride[2];
  int elem_bytes, box[2];
  TmaUse use;
  bool operator==(const MapKey&) const = default;
};
struct MapCache {
  std::mutex mu;
  MapKey keys[16]{};
  CUtensorMap maps[16]{};
  int next = 0, used = 0;
};
MapCache& cache() {
  static MapCache c;
  return c;
}

/// The map of global tensor g for the tiles of TmaTile `Tma` (which knows
/// the box and the swizzle from the kernel's shared layout).
template <class Tma, class T>
Status map_of(CUtensorMap& out, const T* ptr, const index_t (&shape)[2], const index_t (&stride)[2], const char* what,
              TmaUse use = TmaUse::load) {
  const MapKey key{ptr,
                   {shape[0], shape[1]},
                   {stride[0], stride[1]},
                   static_cast<int>(sizeof(T)),
                   {static_cast<int>(Tma::kPlan.box[0]), static_cast<int>(Tma::kPlan.box[1])},
                   use};
  MapCache& c = cache();
  std::lock_guard<std::mutex> lock(c.mu);
  for (int i = 0; i < c.used; ++i)
    if (c.keys[i] == key) {
      out = c.maps[i];
      return Status::success();
    }
  const arch::sm90::TensorMapStatus s = Tma::make_map(out, make_global_tensor(ptr, shape, stride), use);
  if (!s.ok()) return Status::failure(Status::unsupported, std::string("k09: TMA map of ") + what + ": " + s.message);
  c.keys[c.next] = key;
  c.maps[c.next] = out;
  c.next = (c.next + 1) % 16;
  if (c.used < 16) ++c.used;
  return Status::success();
}

using Fallback = gemm_kernels::k08::Config;

/// A stream-ordered temporary copy of a row-major (rows x cols) matrix of
/// 16-bit elements with its rows padded to 16 bytes.
struct PaddedCopy {
  void* ptr = nullptr;
  index_t ld = 0;
  /// Allocates and enqueues the copy; false (and nothing allocated) when
  /// the allocation or the copy cannot be enqueued.
  bool make(const void* src, index_t rows, index_t cols, index_t src_ld, cudaStream_t stream) {
    ld = (cols + 7) / 8 * 8;
    const std::size_t row_bytes = static_cast<std::size_t>(ld) * 2;
    if (cudaMallocAsync(&ptr, static_cast<std::size_t>(rows) * row_bytes, stream) != cudaSuccess) {
      (void)cudaGetLastError();  // not sticky: clear it, the caller takes the other path
      ptr = nullptr;
      return false;
    }
    if (cudaMemcpy2DAsync(ptr, row_bytes, src, static_cast<std::size_t>(src_ld) * 2, static_cast<std::size_t>(cols) * 2,
                          static_cast<std::size_t>(rows), cudaMemcpyDeviceToDevice, stream) != cudaSuccess) {
      (void)cudaGetLastError();
      release(stream);
      return false;
    }
    return true;
  }
  void release(cudaStream_t stream) {
    if (ptr != nullptr) (void)cudaFreeAsync(ptr, stream);
    ptr = nullptr;
  }
};

/// The TMA kernel for A and B with 16-byte aligned rows.
Status launch_tma(const GemmArgs& a, cudaStream_t stream) {
  return with_types(a, [&]<class T, MajorA MA, MajorB MB>() {
    using X = k::Tiles<T, MA, MB>;
    const T* pa = static_cast<const T*>(a.a);
    const T* pb = static_cast<const T*>(a.b);
    CUtensorMap map_a, map_b;
    // A is (M,K) and B (N,K) whatever their memory order: (M,K):(lda,1) for
    // A:k, (M,K):(1,lda) for A:m; the tiles' shared layouts say which mode
    // TMA reads contiguously.
    const index_t one = 1;
    Status s = MA == MajorA::k ? map_of<typename X::OpA::Tma>(map_a, pa, {a.m, a.k}, {a.lda, one}, "A")
                               : map_of<typename X::OpA::Tma>(map_a, pa, {a.m, a.k}, {one, a.lda}, "A");
    if (!s) return s;
    s = MB == MajorB::k ? map_of<typename X::OpB::Tma>(map_b, pb, {a.n, a.k}, {a.ldb, one}, "B")
                        : map_of<typename X::OpB::Tma>(map_b, pb, {a.n, a.k}, {one, a.ldb}, "B");
    if (!s) return s;
    // D through TMA stores when its rows allow it; otherwise (or if the map
    // cannot be encoded) the register epilogue writes it.
    CUtensorMap map_d{};
    bool tma_store = false;
    if (tma_ready(a.d, a.ldd, size_bytes(a.cd_type))) {
      const auto map_d_of = [&]<class U>() {
        using Tma = typename X::template Epilogue<U>::Tma;
        // D's rows must fill whole 16-byte granules, or TMA would write into
        // its row padding: then the register epilogue writes D.
        return map_of<Tma>(map_d, static_cast<const U*>(a.d), {a.m, a.n}, {a.ldd, index_t{1}}, "D", TmaUse::store);
      };
      const Status sd = a.cd_type == DType::bf16  ? map_d_of.template operator()<__nv_bfloat16>()
                        : a.cd_type == DType::f16 ? map_d_of.template operator()<__half>()
                                                  : map_d_of.template operator()<float>();
      tma_store = sd.is_ok();
    }
    auto* kernel = &k::gemm_warp_specialized<T, MA, MB>;
    if (Status e = allow_smem(kernel, X::kSmemBytes, "k09"); !e) return e;
    // Persistent: one CTA per SM (the kernel's shared memory allows one), at most one per tile.
    int device = 0, sms = 0;
    if (cudaGetDevice(&device) != cudaSuccess ||
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) != cudaSuccess)
      return launch_status("k09 (SM count)");
    const index_t tiles = ceil_div(a.m, index_t{k::kBM}) * ceil_div(a.n, index_t{k::kBN});
    const dim3 grid(static_cast<unsigned>(tiles < sms ? tiles : sms));
    kernel<<<grid, k::kThreads, X::kSmemBytes, stream>>>(map_a, map_b, map_d, tma_store, make_params<T>(a));
    return launch_status("k09");
  });
}

}  // namespace

Status check_k09(const GemmArgs& a) {
  if (Status s = check_tiles_linear(a, k::kBM, k::kBN, "k09"); !s) return s;
  return check_multistage<Fallback>(a, "k09");
}

Status launch_k09(const GemmArgs& a, cudaStream_t stream) {
  const bool a_ready = tma_ready(a.a, a.lda, 2), b_ready = tma_ready(a.b, a.ldb, 2);
  if (a_ready && b_ready) return launch_tma(a, stream);
  // Unaligned rows: a padded copy costs one read and one write of the
  // operand (52 us for 4095 x 4095 on an H100, bench/lab/copy2d.cu) and lets
  // the TMA kernel run; k08's kernel would load such rows element by
  // element, 7x slower at 4095^3.  The copies come from the device's stream-ordered memory pool and
  // are freed behind the kernel; if they cannot be made, k08's kernel runs.
  GemmArgs p = a;
  PaddedCopy ca, cb;
  bool ok = true;
  if (!a_ready) {
    const bool ak = a.layout.a == MajorA::k;
    ok = ca.make(a.a, ak ? a.m : a.k, ak ? a.k : a.m, a.lda, stream);
    p.a = ca.ptr;
    p.lda = ca.ld;
  }
  if (ok && !b_ready) {
    const bool bk = a.layout.b == MajorB::k;
    ok = cb.make(a.b, bk ? a.n : a.k, bk ? a.k : a.n, a.ldb, stream);
    p.b = cb.ptr;
    p.ldb = cb.ld;
  }
  const Status s = ok ? launch_tma(p, stream) : Status::success();
  ca.release(stream);
  cb.release(stream);
  if (!ok) return launch_multistage<Fallback>(a, stream, "k09 (k08 kernel)");
  return s;
}

}  // namespace tessel::gemm_launch
