// Launcher of fp32 ladder step f12 (include/tessel/kernels/gemm/f12_operand_copies.cuh):
// f11 on A:m, B:n copies of the operands f11's TMA kernel cannot read so.
// A K-major is transposed into a packed K x M buffer, B K-major into K x N;
// an operand of the right layout whose rows TMA cannot read (base not
// 16-byte aligned, leading dimension not a multiple of 4) is copied into a
// packed one (cudaMemcpy2DAsync).  The copies come from tessel's
// stream-ordered pool (workspace.hpp) and go back to it after f11's launch,
// in stream order.  Where nothing needs copying f12 is f11.
#include <string>

#include "src/kernels/gemm/f10_launch.hpp"
#include "src/kernels/gemm/workspace.hpp"
#include "tessel/kernels/gemm/f11_stream_k.cuh"
#include "tessel/kernels/gemm/f12_operand_copies.cuh"

namespace tessel::gemm_launch {

namespace {

namespace k12 = gemm_kernels::f12;

/// Which operands f12 copies, and the packed leading dimensions of the
/// copies (rows of whole 16-byte granules, as TMA needs).
struct Copies {
  bool a = false, b = false;
  index_t lda = 0, ldb = 0;
  explicit Copies(const GemmArgs& g)
      : a(g.layout.a == MajorA::k || !f10_maps::tma_rows(g.a, g.lda)),
        b(g.layout.b == MajorB::k || !f10_maps::tma_rows(g.b, g.ldb)),
        lda((g.m + 3) / 4 * 4),
        ldb((g.n + 3) / 4 * 4) {}
  std::size_t a_floats(const GemmArgs& g) const { return a ? static_cast<std::size_t>(g.k * lda) : 0; }
  std::size_t b_floats(const GemmArgs& g) const { return b ? static_cast<std::size_t>(g.k * ldb) : 0; }
};

index_t transpose_tiles(index_t rows, index_t cols) {
  return ((rows + k12::kTile - 1) / k12::kTile) * ((cols + k12::kTile - 1) / k12::kTile);
}

/// `dst` (K x ld, row-major, the copy) from operand `src` of the caller's
/// problem: transposed where it is K-major (`rows` x K with leading
/// dimension `ld_src`), else copied row by row (K x `rows`).
Status copy_operand(const float* src, float* dst, bool k_major, index_t rows, index_t k, index_t ld_src, index_t ld,
                    cudaStream_t stream, const char* what) {
  if (k_major) {
    const index_t tiles = transpose_tiles(rows, k);
    k12::transpose<<<static_cast<unsigned>(tiles), k12::kThreads, 0, stream>>>(src, dst, rows, k, ld_src, ld);
    return launch_status(what);
  }
  if (cudaMemcpy2DAsync(dst, static_cast<std::size_t>(ld) * 4, src, static_cast<std::size_t>(ld_src) * 4,
                        static_cast<std::size_t>(rows) * 4, static_cast<std::size_t>(k), cudaMemcpyDeviceToDevice,
                        stream) != cudaSuccess)
    return launch_status(what);
  return Status::success();
}

}  // namespace

void f12_copies(const GemmArgs& a, bool& copy_a, bool& copy_b) {
  const Copies c(a);
  copy_a = c.a;
  copy_b = c.b;
}

Status check_f12(const GemmArgs& a) {
  // f11's TMA kernel runs every problem here (on the copies): its rules.
  if (Status s = check_f11_kernel(a, "f12"); !s) return s;
  const Copies c(a);
  if ((c.a && a.layout.a == MajorA::k && transpose_tiles(a.m, a.k) > 0x7FFFFFFF) ||
      (c.b && a.layout.b == MajorB::k && transpose_tiles(a.n, a.k) > 0x7FFFFFFF))
    return Status::failure(Status::unsupported, "f12: the operand's transpose needs more than 2^31-1 tiles of 32 x 32");
  return Status::success();
}

std::size_t f12_workspace_bytes(const GemmArgs& a) {
  const Copies c(a);
  if (!c.a && !c.b) return f11_workspace_bytes(a);
  GemmArgs g = a;  // f11 then runs on the copies: M- and N-major, rows TMA reads
  g.layout = GemmLayout{MajorA::m, MajorB::n};
  g.a = nullptr, g.b = nullptr;
  g.lda = c.a ? c.lda : a.lda, g.ldb = c.b ? c.ldb : a.ldb;
  const std::size_t copies = ((c.a_floats(a) + 63) / 64 * 64 + c.b_floats(a)) * 4 + 256;
  return copies + f11_workspace_bytes(g);
}

Status launch_f12(const GemmArgs& a, cudaStream_t stream) {
  const Copies c(a);
  if (!c.a && !c.b) return launch_f11(a, stream);
  const std::size_t a_span = (c.a_floats(a) + 63) / 64 * 64;  // B's copy starts 256-byte aligned after A's
  const std::size_t bytes = (a_span + c.b_floats(a)) * 4;
  void* ws = workspace_alloc(bytes, stream);
  if (ws == nullptr)
    return Status::failure(Status::cuda_error, "f12: cannot allocate the operands' copies of " +
                                                   std::to_string(bytes >> 20) + " MiB from " + workspace_source());
  GemmArgs g = a;
  Status s = Status::success();
  float* next = static_cast<float*>(ws);
  if (c.a) {
    s = copy_operand(static_cast<const float*>(a.a), next, a.layout.a == MajorA::k, a.m, a.k, a.lda, c.lda, stream,
                     "f12 (A's copy)");
    g.a = next, g.lda = c.lda, g.layout.a = MajorA::m;
    next += a_span;
  }
  if (s && c.b) {
    s = copy_operand(static_cast<const float*>(a.b), next, a.layout.b == MajorB::k, a.n, a.k, a.ldb, c.ldb, stream,
                     "f12 (B's copy)");
    g.b = next, g.ldb = c.ldb, g.layout.b = MajorB::n;
  }
  if (s) s = launch_f11(g, stream);
  (void)workspace_free(ws, stream);  // after the launches that read it, in stream order
  return s;
}

}  // namespace tessel::gemm_launch
