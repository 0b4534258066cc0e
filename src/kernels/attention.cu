// tessel::attention: the checks, and the launches of the ladder's steps
// (include/tessel/kernels/attention/, docs/attention.md).
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>

#include "src/kernels/gemm/workspace.hpp"
#include "tessel/host/attention.hpp"
#include "tessel/host/gemm.hpp"
#include "tessel/kernels/attention/a01_softmax.cuh"
#include "tessel/kernels/attention/a02_flash.cuh"
#include "tessel/kernels/attention/a03_wgmma.cuh"
#include "tessel/kernels/attention/a04_pingpong.cuh"
#include "tessel/kernels/attention/a05_overlap.cuh"
#include "tessel/kernels/attention/a06_longest_first.cuh"
#include "tessel/kernels/attention/a07_persistent.cuh"
#include "tessel/kernels/attention/a08_kv_rings.cuh"
#include "tessel/kernels/attention/a09_wide_blocks.cuh"
#include "tessel/kernels/attention/a10_chained_tiles.cuh"

namespace tessel {

namespace {

Status invalid(const std::string& m) { return Status::failure(Status::invalid_argument, "attention: " + m); }
Status unsupported(const std::string& m) { return Status::failure(Status::unsupported, "attention: " + m); }

bool packed(const AttentionArgs& a) { return a.cu_seqlens_q != nullptr; }

/// The steps on wgmma fed by TMA (a03's CTA, its rules and maps).
constexpr bool wgmma_step(AttentionImpl i) {
  return i == AttentionImpl::a03 || i == AttentionImpl::a04 || i == AttentionImpl::a05 || i == AttentionImpl::a06 ||
         i == AttentionImpl::a07 || i == AttentionImpl::a08 || i == AttentionImpl::a09 || i == AttentionImpl::a10;
}

/// One of Q, K, V, O as the checks see it: base, strides, and extents
/// (batch, heads, rows, head_dim), the batch's extent 1 for packed sequences.
struct Operand {
  const char* name;
  const void* base;
  AttentionStrides s;
  index_t batch, heads, rows;
};

Operand operand(const AttentionArgs& a, char which) {
  const index_t batch = packed(a) ? 1 : a.batch;
  switch (which) {
    case 'q':
      return {"Q", a.q, a.q_stride, batch, a.heads_q, a.seq_q};
    case 'k':
      return {"K", a.k, a.k_stride, batch, a.heads_kv, a.seq_kv};
    case 'v':
      return {"V", a.v, a.v_stride, batch, a.heads_kv, a.seq_kv};
    default:
      return {"O", a.o, a.o_stride, batch, a.heads_q, a.seq_q};
  }
}

struct Range {
  std::uintptr_t begin = 0, end = 0;
  bool meets(Range o) const { return begin < o.end && o.begin < end; }
};

/// The bytes an operand's elements span (extents >= 1 and strides >= 0 checked).
Range span(const Operand& x, index_t head_dim, int elem) {
  const index_t last = x.s.batch * (x.batch - 1) + x.s.head * (x.heads - 1) + x.s.row * (x.rows - 1) + head_dim;
  const auto b = reinterpret_cast<std::uintptr_t>(x.base);
  return {b, b + static_cast<std::uintptr_t>(last) * static_cast<std::uintptr_t>(elem)};
}

/// Do O's strides keep its elements apart?  Sufficient test: ordered by
/// stride, each mode's stride is past everything the smaller modes reach.
bool distinct(const Operand& x, index_t head_dim) {
  struct Mode {
    index_t stride, extent;
  };
  Mode m[3] = {{x.s.batch, x.batch}, {x.s.head, x.heads}, {x.s.row, x.rows}};
  std::sort(std::begin(m), std::end(m), [](Mode a, Mode b) { return a.stride < b.stride; });
  index_t reach = head_dim;  // elements 0 .. reach-1 covered by the smaller modes
  for (const Mode& md : m) {
    if (md.extent == 1) continue;
    if (md.stride < reach) return false;
    reach = md.stride * (md.extent - 1) + reach;
  }
  return true;
}

inline constexpr index_t kMaxRows = index_t{1} << 30;

bool head_dim_taken(index_t d) { return d == 64 || d == 96 || d == 128 || d == 192 || d == 256; }

Status check_operand(const Operand& x, index_t head_dim) {
  const std::string n = x.name;
  if (x.base == nullptr) return invalid(n + " is null");
  if (x.s.batch < 0 || x.s.head < 0 || x.s.row < 0)
    return invalid(n + "'s strides must be >= 0 (batch " + std::to_string(x.s.batch) + ", head " +
                   std::to_string(x.s.head) + ", row " + std::to_string(x.s.row) + ")");
  if (x.rows > 1 && x.s.row < head_dim)
    return invalid(n + "'s row stride " + std::to_string(x.s.row) + " is below head_dim " + std::to_string(head_dim) +
                   " (rows would overlap)");
  return Status::success();
}

Status check_aligned(const Operand& x) {
  const std::string n = x.name;
  if (reinterpret_cast<std::uintptr_t>(x.base) % 16 != 0)
    return unsupported(n + " is not 16-byte aligned (the kernels read and write rows 16 bytes at a time)");
  const auto off = [](index_t stride, index_t extent) { return extent > 1 && stride % 8 != 0; };
  if (off(x.s.batch, x.batch) || off(x.s.head, x.heads) || off(x.s.row, x.rows))
    return unsupported(n + "'s strides must be multiples of 8 elements (16 bytes) where their extent exceeds 1");
  return Status::success();
}

}  // namespace

float attention_scale(const AttentionArgs& a) {
  return a.scale != 0.0f ? a.scale : 1.0f / std::sqrt(static_cast<float>(std::max<index_t>(a.head_dim, 1)));
}

Status attention_check(AttentionImpl impl, const AttentionArgs& a) {
  if (impl != AttentionImpl::automatic && impl != AttentionImpl::a01 && impl != AttentionImpl::a02 && !wgmma_step(impl))
    return invalid("impl is not an AttentionImpl");
  if (a.dtype != DType::bf16 && a.dtype != DType::f16)
    return invalid(std::string("dtype must be bf16 or f16 (got ") + name(a.dtype) + ")");
  if (a.batch < 1 || a.heads_q < 1 || a.heads_kv < 1 || a.seq_q < 1 || a.seq_kv < 1 || a.head_dim < 1)
    return invalid("batch, heads_q, heads_kv, seq_q, seq_kv and head_dim must be >= 1");
  if (a.heads_q % a.heads_kv != 0)
    return invalid("heads_kv (" + std::to_string(a.heads_kv) + ") must divide heads_q (" + std::to_string(a.heads_q) +
                   ")");
  if (!std::isfinite(a.scale) || a.scale < 0.0f) return invalid("scale must be finite and > 0 (0: 1/sqrt(head_dim))");
  if ((a.cu_seqlens_q == nullptr) != (a.cu_seqlens_kv == nullptr))
    return invalid("cu_seqlens_q and cu_seqlens_kv must be both set (packed sequences) or both null");
  if (packed(a)) {
    if (reinterpret_cast<std::uintptr_t>(a.cu_seqlens_q) % 4 != 0 ||
        reinterpret_cast<std::uintptr_t>(a.cu_seqlens_kv) % 4 != 0)
      return invalid("cu_seqlens_q and cu_seqlens_kv must be 4-byte aligned");
    if (a.max_seq_q < 1 || a.max_seq_kv < 1)
      return invalid("packed sequences need max_seq_q and max_seq_kv >= 1 (the longest sequence's lengths)");
  }
  const int elem = size_bytes(a.dtype);
  const Operand q = operand(a, 'q'), k = operand(a, 'k'), v = operand(a, 'v'), o = operand(a, 'o');
  for (const Operand* x : {&q, &k, &v, &o})
    if (Status s = check_operand(*x, a.head_dim); !s) return s;
  if (!distinct(o, a.head_dim)) return invalid("O's strides map two of its elements to one address");
  const Range ro = span(o, a.head_dim, elem);
  for (const Operand* x : {&q, &k, &v})
    if (ro.meets(span(*x, a.head_dim, elem)))
      return invalid(std::string("O overlaps ") + x->name + " (their byte ranges intersect)");
  if (a.lse != nullptr) {
    if (reinterpret_cast<std::uintptr_t>(a.lse) % 4 != 0) return invalid("lse must be 4-byte aligned");
    const index_t n = (packed(a) ? 1 : a.batch) * a.heads_q * a.seq_q;
    const auto b = reinterpret_cast<std::uintptr_t>(a.lse);
    const Range rl{b, b + static_cast<std::uintptr_t>(n) * 4};
    for (const Operand* x : {&q, &k, &v, &o})
      if (rl.meets(span(*x, a.head_dim, elem)))
        return invalid(std::string("lse overlaps ") + x->name + " (their byte ranges intersect)");
  }

  if (!head_dim_taken(a.head_dim))
    return unsupported("head_dim " + std::to_string(a.head_dim) + " is not one of 64, 96, 128, 192, 256");
  for (const Operand* x : {&q, &k, &v, &o})
    if (Status s = check_aligned(*x); !s) return s;
  // The kernels add a block (and a length) to row indices in 32 bits.
  if (a.seq_q > kMaxRows || a.seq_kv > kMaxRows)
    return unsupported("seq_q and seq_kv must be at most 2^30 (the kernels' 32-bit row arithmetic)");
  if (a.batch > 65535 || a.heads_q > 65535)
    return unsupported("batch and heads_q must be at most 65535 (grid extents)");
  if (wgmma_step(impl)) {
    // TMA maps step every mode of more than one element: no stride 0 (a broadcast).
    for (const Operand* x : {&q, &k, &v})
      if ((x->batch > 1 && x->s.batch == 0) || (x->heads > 1 && x->s.head == 0) || (x->rows > 1 && x->s.row == 0))
        return unsupported(std::string(name(impl)) + " reads " + x->name +
                           " by TMA, which takes no stride 0 (a broadcast) over more than one element: use a02 or "
                           "auto");
    if (impl == AttentionImpl::a10 &&
        (a.head_dim % 64 != 0 || !attention_kernels::a10::fits(static_cast<int>(a.head_dim))))
      return unsupported(
          "a10 takes head dims 64, 128 and 192 (multiples of its 64-element swizzle rows whose two tiles of Q fit "
          "beside two stages each of K and V in 227 KB of shared memory): use a08, a02 or auto");
    if (a.head_dim % 64 != 0)
      return unsupported(std::string(name(impl)) +
                         " takes head dims 64, 128, 192 and 256 (multiples of its 64-element swizzle rows): use a02 "
                         "or auto");
  }
  if (impl == AttentionImpl::a01 && packed(a))
    return unsupported("a01 takes no packed sequences (its GEMMs' extents are host values): use a02 or auto");
  return Status::success();
}

namespace {

// ---------------------------------------------------------------- a01

/// The two GEMMs of a01 for the query rows [row0, row0 + rows) of K/V head
/// `hk` of sequence `b` (its heads_q / heads_kv query heads as a strided batch).
struct A01Gemms {
  GemmArgs s, o;
};

A01Gemms a01_gemms(const AttentionArgs& a, index_t b, index_t hk, index_t row0, index_t rows, float* s_buf, void* p_buf,
                   index_t ld) {
  const index_t g = a.heads_q / a.heads_kv, elem = size_bytes(a.dtype);
  const auto at = [&](const void* base, index_t off) { return static_cast<const char*>(base) + off * elem; };
  // A tensor of one row may have any row stride; the GEMMs want leading dimensions of at least a row.
  const auto ld_of = [&](index_t stride, index_t rows) { return rows > 1 ? stride : std::max(stride, a.head_dim); };
  A01Gemms r;
  GemmArgs& s = r.s;  // S = scale Q K^T, fp32
  s.m = rows, s.n = a.seq_kv, s.k = a.head_dim;
  s.ab_type = a.dtype, s.cd_type = DType::f32;
  s.layout = GemmLayout{MajorA::k, MajorB::k};
  s.a = at(a.q, b * a.q_stride.batch + hk * g * a.q_stride.head + row0 * a.q_stride.row),
  s.lda = ld_of(a.q_stride.row, a.seq_q);
  s.b = at(a.k, b * a.k_stride.batch + hk * a.k_stride.head), s.ldb = ld_of(a.k_stride.row, a.seq_kv);
  s.d = s_buf, s.ldd = ld;
  s.alpha = attention_scale(a);
  s.batch = g, s.stride_a = a.q_stride.head, s.stride_b = 0, s.stride_d = rows * ld;
  GemmArgs& o = r.o;  // O = P V
  o.m = rows, o.n = a.head_dim, o.k = a.seq_kv;
  o.ab_type = a.dtype, o.cd_type = a.dtype;
  o.layout = GemmLayout{MajorA::k, MajorB::n};
  o.a = p_buf, o.lda = ld;
  o.b = at(a.v, b * a.v_stride.batch + hk * a.v_stride.head), o.ldb = ld_of(a.v_stride.row, a.seq_kv);
  o.d = const_cast<char*>(at(a.o, b * a.o_stride.batch + hk * g * a.o_stride.head + row0 * a.o_stride.row));
  o.ldd = ld_of(a.o_stride.row, a.seq_q);
  o.batch = g, o.stride_a = rows * ld, o.stride_b = 0, o.stride_d = a.o_stride.head;
  return r;
}

Status launch_status(const char* step) {
  if (const cudaError_t e = cudaGetLastError(); e != cudaSuccess)
    return Status::failure(Status::cuda_error,
                           std::string("attention: ") + step + "'s launch: " + cudaGetErrorString(e));
  return Status::success();
}

inline constexpr std::size_t kA01Scratch = std::size_t{1} << 30;  // bytes of S and P a chunk of rows may take

Status launch_a01(const AttentionArgs& a, cudaStream_t stream) {
  const index_t g = a.heads_q / a.heads_kv, elem = size_bytes(a.dtype);
  const index_t ld = (a.seq_kv + 63) / 64 * 64;  // S's and P's rows: whole 128-byte lines
  const index_t per_row = g * ld * (4 + elem);
  const index_t rows = std::clamp<index_t>(static_cast<index_t>(kA01Scratch) / per_row, 1, a.seq_q);
  const std::size_t s_bytes = static_cast<std::size_t>(g * rows * ld) * 4;
  const std::size_t p_bytes = static_cast<std::size_t>(g * rows * ld * elem);
  char* scratch = static_cast<char*>(gemm_launch::workspace_alloc(s_bytes + p_bytes + 256, stream));
  if (scratch == nullptr)
    return Status::failure(Status::cuda_error, "attention: a01 could not allocate " +
                                                   std::to_string(s_bytes + p_bytes) + " bytes of scratch for S and P");
  float* s_buf = reinterpret_cast<float*>(scratch);
  void* p_buf = scratch + (s_bytes + 255) / 256 * 256;
  // Every GEMM of the loop differs from the first pair only in its pointers:
  // checked before anything is launched.
  Status st = Status::success();
  {
    const A01Gemms c = a01_gemms(a, 0, 0, 0, rows, s_buf, p_buf, ld);
    if (Status s1 = gemm_check(GemmImpl::automatic, c.s); !s1)
      st = s1;
    else if (Status s2 = gemm_check(GemmImpl::automatic, c.o); !s2)
      st = s2;
  }
  for (index_t b = 0; st && b < a.batch; ++b)
    for (index_t hk = 0; st && hk < a.heads_kv; ++hk)
      for (index_t row0 = 0; st && row0 < a.seq_q; row0 += rows) {
        const index_t n = std::min(rows, a.seq_q - row0);
        const A01Gemms c = a01_gemms(a, b, hk, row0, n, s_buf, p_buf, ld);
        if (Status s1 = gemm(GemmImpl::automatic, c.s, stream); !s1) {
          st = s1;
          break;
        }
        float* lse = a.lse == nullptr ? nullptr : a.lse + (b * a.heads_q + hk * g) * a.seq_q;
        const unsigned grid = static_cast<unsigned>(g * n);
        if (a.dtype == DType::bf16)
          attention_kernels::a01::softmax_rows<__nv_bfloat16><<<grid, attention_kernels::a01::kThreads, 0, stream>>>(
              s_buf, static_cast<__nv_bfloat16*>(p_buf), lse, a.seq_q, ld, n, row0, a.seq_q, a.seq_kv, a.causal);
        else
          attention_kernels::a01::softmax_rows<__half><<<grid, attention_kernels::a01::kThreads, 0, stream>>>(
              s_buf, static_cast<__half*>(p_buf), lse, a.seq_q, ld, n, row0, a.seq_q, a.seq_kv, a.causal);
        if (st = launch_status("a01 softmax"); !st) break;
        if (Status s2 = gemm(GemmImpl::automatic, c.o, stream); !s2) st = s2;
      }
  const cudaError_t freed = gemm_launch::workspace_free(scratch, stream);
  if (st && freed != cudaSuccess)
    st = Status::failure(Status::cuda_error,
                         std::string("attention: freeing a01's scratch: ") + cudaGetErrorString(freed));
  return st;
}

// ---------------------------------------------------------------- a02

/// The current device (`device`), checked to be the kernels' sm_90; cached per device.
Status current_sm90(int& device) {
  constexpr int kCached = 64;
  static std::atomic<int> cache[kCached] = {};  // 0: not read, 1: sm_90, else 2 + major * 10 + minor
  if (cudaGetDevice(&device) != cudaSuccess) {
    (void)cudaGetLastError();
    return Status::failure(Status::cuda_error, "attention: cannot read the current CUDA device");
  }
  int c = device >= 0 && device < kCached ? cache[device].load(std::memory_order_relaxed) : 0;
  if (c == 0) {
    int major = 0, minor = 0;
    if (cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) != cudaSuccess ||
        cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device) != cudaSuccess) {
      (void)cudaGetLastError();
      return Status::failure(Status::cuda_error, "attention: cannot read the device's compute capability");
    }
    c = major == 9 && minor == 0 ? 1 : 2 + major * 10 + minor;
    if (device >= 0 && device < kCached) cache[device].store(c, std::memory_order_relaxed);
  }
  if (c != 1)
    return Status::failure(Status::unsupported, "attention: the kernels are built for sm_90 (Hopper); device " +
                                                    std::to_string(device) + " is sm_" + std::to_string(c - 2));
  return Status::success();
}

/// The SMs of `device` (a persistent grid's size); cached per device.
Status sm_count(int device, int& sms) {
  constexpr int kCached = 64;
  static std::atomic<int> cache[kCached] = {};
  sms = device >= 0 && device < kCached ? cache[device].load(std::memory_order_relaxed) : 0;
  if (sms > 0) return Status::success();
  if (cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) != cudaSuccess || sms <= 0) {
    (void)cudaGetLastError();
    return Status::failure(Status::cuda_error, "attention: cannot read the device's SM count");
  }
  if (device >= 0 && device < kCached) cache[device].store(sms, std::memory_order_relaxed);
  return Status::success();
}

/// Opts `kernel` in to `bytes` of dynamic shared memory on `device`: a
/// per-device attribute, set once on each (`opted`: the kernel's flags).
inline constexpr int kCachedDevices = 64;
Status opt_in(const void* kernel, int bytes, int device, std::atomic<bool> (&opted)[kCachedDevices], const char* step) {
  if (device < kCachedDevices && opted[device].load(std::memory_order_relaxed)) return Status::success();
  if (const cudaError_t e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes);
      e != cudaSuccess)
    return Status::failure(Status::cuda_error, std::string("attention: ") + step + " needs " + std::to_string(bytes) +
                                                   " bytes of shared memory a CTA: " + cudaGetErrorString(e));
  if (device < kCachedDevices) opted[device].store(true, std::memory_order_relaxed);
  return Status::success();
}

/// a06's longest-first sections: as many (head, sequence) pairs as keep their
/// K and V within 16 MiB of L2 (a third of the H100's; a group's query heads
/// share theirs), so that the CTAs running together reuse K and V from L2.
int order_section(const AttentionArgs& a) {
  const index_t rows = packed(a) ? std::min(a.max_seq_kv, a.seq_kv) : a.seq_kv;
  const index_t bytes = std::max<index_t>(2 * rows * a.head_dim * size_bytes(a.dtype), 1);
  const index_t pairs = (index_t{16} << 20) / bytes * (a.heads_q / a.heads_kv);
  return static_cast<int>(std::clamp<index_t>(pairs, 1, a.heads_q * a.batch));
}

/// The parameters a02's and a03's kernels share (O, lse, extents, scale, mask, packed offsets).
template <class P>
void fill_common(P& p, const AttentionArgs& a) {
  p.o = a.o, p.lse = a.lse;
  p.o_batch = a.o_stride.batch, p.o_head = a.o_stride.head, p.o_row = a.o_stride.row;
  p.seq_q = static_cast<int>(a.seq_q), p.seq_kv = static_cast<int>(a.seq_kv);
  p.heads_q = static_cast<int>(a.heads_q), p.group = static_cast<int>(a.heads_q / a.heads_kv);
  p.scale_log2 = attention_scale(a) * 1.4426950408889634f;
  p.causal = a.causal;
  p.cu_q = a.cu_seqlens_q, p.cu_kv = a.cu_seqlens_kv;
  p.section = order_section(a);
}

/// CTAs of `rows` query rows over the longest sequence, every query head and sequence.
dim3 grid_of(const AttentionArgs& a, int rows) {
  const index_t longest = packed(a) ? std::min(a.max_seq_q, a.seq_q) : a.seq_q;
  return dim3(static_cast<unsigned>((longest + rows - 1) / rows), static_cast<unsigned>(a.heads_q),
              static_cast<unsigned>(a.batch));
}

template <class T, int D>
Status launch_a02_as(const AttentionArgs& a, int device, cudaStream_t stream) {
  namespace k = attention_kernels::a02;
  static std::atomic<bool> opted[kCachedDevices] = {};
  if (Status s = opt_in(reinterpret_cast<const void*>(k::flash_forward<T, D>), k::kSmemBytes<D>, device, opted, "a02");
      !s)
    return s;
  k::Params p{};
  fill_common(p, a);
  p.q = a.q, p.k = a.k, p.v = a.v;
  p.q_batch = a.q_stride.batch, p.q_head = a.q_stride.head, p.q_row = a.q_stride.row;
  p.k_batch = a.k_stride.batch, p.k_head = a.k_stride.head, p.k_row = a.k_stride.row;
  p.v_batch = a.v_stride.batch, p.v_head = a.v_stride.head, p.v_row = a.v_stride.row;
  k::flash_forward<T, D><<<grid_of(a, k::kBlockM), k::kThreads, k::kSmemBytes<D>, stream>>>(p);
  return launch_status("a02");
}

template <class T>
Status launch_a02_typed(const AttentionArgs& a, int device, cudaStream_t stream) {
  switch (a.head_dim) {
    case 64:
      return launch_a02_as<T, 64>(a, device, stream);
    case 96:
      return launch_a02_as<T, 96>(a, device, stream);
    case 128:
      return launch_a02_as<T, 128>(a, device, stream);
    case 192:
      return launch_a02_as<T, 192>(a, device, stream);
    default:
      return launch_a02_as<T, 256>(a, device, stream);
  }
}

// ---------------------------------------------------------------- a03

/// The rank-4 map (rows or d first, then heads and batch) of one of Q, K, V
/// for Tma's tiles: `rows` x d, K-major (Q, K) or d-major (V, the M/N-major
/// operand of O = P V).
template <class Tma, class T>
Status a03_map(CUtensorMap& map, const void* base, const AttentionStrides& st, index_t rows, index_t d, index_t heads,
               index_t batch, bool d_major, const char* what) {
  const T* ptr = static_cast<const T*>(base);
  const index_t one = 1;
  // One row never steps: a row's whole granules serve as its stride, whatever the caller's.
  const index_t row = rows > 1 ? st.row : (d + 7) / 8 * 8;
  const auto g =
      d_major ? make_global_tensor(ptr, {d, rows}, {one, row}) : make_global_tensor(ptr, {rows, d}, {row, one});
  const arch::sm90::TensorMapStatus e = Tma::make_batched_map2(map, g, heads, st.head, batch, st.batch);
  if (e.ok()) return Status::success();
  const bool driver =
      e.code == arch::sm90::TensorMapErrc::driver_unavailable || e.code == arch::sm90::TensorMapErrc::driver_rejected;
  return Status::failure(driver ? Status::cuda_error : Status::unsupported,
                         std::string("attention: a03's TMA map of ") + what + ": " + e.message);
}

/// The tiles of a wgmma step, named only for the step that launches (a10's exist up to d 192).
template <class T, int D, AttentionImpl Step>
struct StepTiles {
  static constexpr bool kOverlap =
      Step == AttentionImpl::a05 || Step == AttentionImpl::a06 || Step == AttentionImpl::a07;
  using type = std::conditional_t<Step == AttentionImpl::a09, typename attention_kernels::a09::Stages<T, D>::X,
                                  std::conditional_t<Step == AttentionImpl::a08, attention_kernels::a08::Tiles<T, D>,
                                                     std::conditional_t<kOverlap, attention_kernels::a05::Tiles<T, D>,
                                                                        attention_kernels::a03::Tiles<T, D>>>>;
};
template <class T, int D>
struct StepTiles<T, D, AttentionImpl::a10> {
  using type = typename attention_kernels::a10::Stages<T, D>::X;
};

/// The kernel of a wgmma step (a03-a10) and its tiles: the maps are alike, the stages may differ.
template <class T, int D, AttentionImpl Step>
struct WgmmaStep {
  static constexpr bool kPersistent = Step == AttentionImpl::a07 || Step == AttentionImpl::a08 ||
                                      Step == AttentionImpl::a09 || Step == AttentionImpl::a10;
  using X = typename StepTiles<T, D, Step>::type;
  static constexpr auto kernel() {
    if constexpr (Step == AttentionImpl::a10)
      return attention_kernels::a10::flash_forward<T, D>;
    else if constexpr (Step == AttentionImpl::a09)
      return attention_kernels::a09::flash_forward<T, D>;
    else if constexpr (Step == AttentionImpl::a08)
      return attention_kernels::a08::flash_forward<T, D>;
    else if constexpr (Step == AttentionImpl::a07)
      return attention_kernels::a07::flash_forward<T, D>;
    else if constexpr (Step == AttentionImpl::a06)
      return attention_kernels::a06::flash_forward<T, D>;
    else if constexpr (Step == AttentionImpl::a05)
      return attention_kernels::a05::flash_forward<T, D>;
    else if constexpr (Step == AttentionImpl::a04)
      return attention_kernels::a04::flash_forward<T, D>;
    else
      return attention_kernels::a03::flash_forward<T, D>;
  }
};

template <class T, int D, AttentionImpl Step>
Status launch_wgmma_as(const AttentionArgs& a, int device, cudaStream_t stream) {
  namespace k = attention_kernels::a03;
  using X = typename WgmmaStep<T, D, Step>::X;
  const index_t batch = packed(a) ? 1 : a.batch;  // the maps' batch extent
  CUtensorMap map_q, map_k, map_v;
  if (Status s = a03_map<typename X::OpQ::Tma, T>(map_q, a.q, a.q_stride, a.seq_q, D, a.heads_q, batch, false, "Q"); !s)
    return s;
  if (Status s = a03_map<typename X::OpK::Tma, T>(map_k, a.k, a.k_stride, a.seq_kv, D, a.heads_kv, batch, false, "K");
      !s)
    return s;
  if (Status s = a03_map<typename X::OpV::Tma, T>(map_v, a.v, a.v_stride, a.seq_kv, D, a.heads_kv, batch, true, "V");
      !s)
    return s;
  // a04-a06 run a03's CTA with other key-block loops or orders: the same maps, parameters and grid.
  auto* const kernel = WgmmaStep<T, D, Step>::kernel();
  const char* step = name(Step);
  static std::atomic<bool> opted[kCachedDevices] = {};
  if (Status s = opt_in(reinterpret_cast<const void*>(kernel), X::kSmemBytes, device, opted, step); !s) return s;
  k::Params p{};
  fill_common(p, a);
  dim3 grid = grid_of(a, k::kBM);
  if constexpr (WgmmaStep<T, D, Step>::kPersistent) {
    // A CTA an SM over every tile; causal: sections of whole snake round pairs (snake_section).
    int sms = 0;
    if (Status s = sm_count(device, sms); !s) return s;
    p.blocks_m = static_cast<int>(grid.x), p.batch = static_cast<int>(grid.z);
    const std::int64_t tiles = std::int64_t{grid.x} * grid.y * grid.z;
    grid = dim3(static_cast<unsigned>(std::min<std::int64_t>(tiles, sms)));
    if (a.causal)
      p.section =
          attention_kernels::snake_section(p.section, p.blocks_m, p.heads_q * p.batch, static_cast<int>(grid.x));
  }
  kernel<<<grid, k::kThreads, X::kSmemBytes, stream>>>(map_q, map_k, map_v, p);
  return launch_status(step);
}

template <class T, AttentionImpl Step>
Status launch_wgmma_typed(const AttentionArgs& a, int device, cudaStream_t stream) {
  switch (a.head_dim) {
    case 64:
      return launch_wgmma_as<T, 64, Step>(a, device, stream);
    case 128:
      return launch_wgmma_as<T, 128, Step>(a, device, stream);
    case 192:
      return launch_wgmma_as<T, 192, Step>(a, device, stream);
    default:
      if constexpr (Step == AttentionImpl::a10)
        return unsupported("a10 takes no head dim 256");  // attention_check refused it first
      else
        return launch_wgmma_as<T, 256, Step>(a, device, stream);
  }
}

template <AttentionImpl Step>
Status launch_wgmma_step(const AttentionArgs& a, int device, cudaStream_t stream) {
  return a.dtype == DType::bf16 ? launch_wgmma_typed<__nv_bfloat16, Step>(a, device, stream)
                                : launch_wgmma_typed<__half, Step>(a, device, stream);
}

/// a03-a10.
Status launch_wgmma(AttentionImpl impl, const AttentionArgs& a, int device, cudaStream_t stream) {
  switch (impl) {
    case AttentionImpl::a10:
      return launch_wgmma_step<AttentionImpl::a10>(a, device, stream);
    case AttentionImpl::a09:
      return launch_wgmma_step<AttentionImpl::a09>(a, device, stream);
    case AttentionImpl::a08:
      return launch_wgmma_step<AttentionImpl::a08>(a, device, stream);
    case AttentionImpl::a07:
      return launch_wgmma_step<AttentionImpl::a07>(a, device, stream);
    case AttentionImpl::a03:
      return launch_wgmma_step<AttentionImpl::a03>(a, device, stream);
    case AttentionImpl::a04:
      return launch_wgmma_step<AttentionImpl::a04>(a, device, stream);
    case AttentionImpl::a05:
      return launch_wgmma_step<AttentionImpl::a05>(a, device, stream);
    default:
      return launch_wgmma_step<AttentionImpl::a06>(a, device, stream);
  }
}

/// Keys one (sequence, head)'s row tiles compute in blocks of `block`, masked keys included.
std::int64_t keys_computed(const AttentionArgs& a, int block) {
  namespace k = attention_kernels;
  k::SequenceRows seq;
  seq.len_q = static_cast<int>(a.seq_q), seq.len_kv = static_cast<int>(a.seq_kv);
  const int all = seq.key_blocks(0, k::a03::kBM, block, false);
  std::int64_t blocks = 0;
  for (int row0 = 0; row0 < seq.len_q; row0 += k::a03::kBM) {
    const int n = seq.key_blocks(row0, k::a03::kBM, block, a.causal);
    if (n == all) {  // every later tile needs them all too
      blocks += std::int64_t{all} * ((seq.len_q - row0 + k::a03::kBM - 1) / k::a03::kBM);
      break;
    }
    blocks += n;
  }
  return blocks * block;
}

/// What a persistent step costs on one (sequence, head) of a call, by a model of two terms: a fixed cost a
/// row tile (what its key loop does not hide: the first S and the last P V alone, O's store) and a cost a
/// key computed (masked keys of a partly masked block included).  Fitted per step and head dim to
/// interleaved runs at 1k (8 blocks of 128 keys a tile) and 8k (64) on the H100 (a10 at d 64 on its
/// joint stages); it predicts the causal rows of those runs within 1.5 % of each other's ratios.
struct StepCost {
  AttentionImpl step;
  int d, block;
  double tile_us, key_ns;
};
constexpr StepCost kStepCosts[] = {
    {AttentionImpl::a07, 128, 128, 4.72, 13.40}, {AttentionImpl::a09, 128, 176, 4.84, 12.80},
    {AttentionImpl::a10, 128, 128, 3.22, 13.67}, {AttentionImpl::a07, 64, 128, 2.05, 9.15},
    {AttentionImpl::a10, 64, 128, 1.42, 9.14},   {AttentionImpl::a07, 192, 64, 6.66, 20.37},
    {AttentionImpl::a10, 192, 64, 5.84, 19.98},
};

/// The modelled step of least cost at the call's head dim (64, 128 or 192).
AttentionImpl cheapest_persistent_step(const AttentionArgs& a) {
  const std::int64_t tiles = (a.seq_q + attention_kernels::a03::kBM - 1) / attention_kernels::a03::kBM;
  AttentionImpl best = AttentionImpl::a07;
  double best_us = std::numeric_limits<double>::infinity();
  for (const StepCost& c : kStepCosts) {
    if (c.d != a.head_dim) continue;
    const double us =
        static_cast<double>(tiles) * c.tile_us + 1e-3 * c.key_ns * static_cast<double>(keys_computed(a, c.block));
    if (us < best_us) best = c.step, best_us = us;
  }
  return best;
}

AttentionImpl auto_step(const AttentionArgs& a) {
  if (!attention_check(AttentionImpl::a03, a)) return AttentionImpl::a02;
  // Where three stages of K and V fit (d 64, 128, 192), a persistent step by the cost model above: a10
  // (tiles chained: 1.07x a07 at 1k, d 128, causal 1.10x) where tiles are short, a09 (blocks of 176 keys:
  // 1.03x a07 at 8k) where they are long at d 128; a10 at every length at d 64 (1.02-1.08x a07) and 192
  // (1.02-1.05x).
  // Where two fit (d 256), a08 (a07 with K and V on rings of their own: 1.03-1.14x a03 at 1k and 8k, where
  // a06's softmax under its own P V ran 0.68x a03).  Packed sequences run a06 (three stages) or a03: the
  // persistent grid's fixed snake balances their CTAs worse than CTAs handed out as SMs free up (causal
  // 0.71-0.84x).
  const bool three = attention_kernels::a03::most_stages(static_cast<int>(a.head_dim)) == 3;
  if (packed(a)) return three ? AttentionImpl::a06 : AttentionImpl::a03;
  if (!three) return attention_check(AttentionImpl::a08, a) ? AttentionImpl::a08 : AttentionImpl::a03;
  return cheapest_persistent_step(a);
}

}  // namespace

Status attention_auto_step(const AttentionArgs& a, AttentionImpl& step) {
  if (Status s = attention_check(AttentionImpl::automatic, a); !s) return s;
  step = auto_step(a);
  return Status::success();
}

Status attention(AttentionImpl impl, const AttentionArgs& a, cudaStream_t stream) {
  if (Status s = attention_check(impl, a); !s) return s;
  int device = 0;
  if (Status s = current_sm90(device); !s) return s;
  if (impl == AttentionImpl::a01) return launch_a01(a, stream);
  if (wgmma_step(impl)) return launch_wgmma(impl, a, device, stream);
  if (impl == AttentionImpl::automatic) {
    const AttentionImpl step = auto_step(a);  // the call checked above
    if (step != AttentionImpl::a02) {
      const Status s = launch_wgmma(step, a, device, stream);
      if (s.code != Status::unsupported) return s;  // else a02: a TMA map the driver refused
    }
  }
  return a.dtype == DType::bf16 ? launch_a02_typed<__nv_bfloat16>(a, device, stream)
                                : launch_a02_typed<__half>(a, device, stream);
}

}  // namespace tessel
