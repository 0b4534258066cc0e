// GPU tests of the instruction wrappers in tessel/arch/sm80.hpp and
// tessel/arch/sm90_stmatrix.hpp, run against the ownership layouts of
// atom_reference.hpp (which tests/atom_reference_test.cpp checks against the
// golden tests/data/atom_layouts.tsv):
//
//   * ldmatrix x1/x2/x4 (+.trans): shared tile element (r,c) holds its tile
//     index r + R*c; lane addresses come from the SRC layout (docs/hardware.md §4.2); every
//     lane's 16-bit values must equal DST(lane, value).
//   * stmatrix x1/x2/x4 (+.trans): lane l value v holds 16l+v; after the store
//     tile element SRC(l,v) must hold 16l+v and nothing else may be written.
//   * cp.async .ca 4/8/16 and .cg 16: copies equal a scalar reference; the
//     zero-fill forms copy the first src-size bytes and zero the rest.
//   * mma.sync bf16, f16 (m16n8k16) and tf32 (m16n8k8): each lane gathers its
//     fragments through the A/B/C layouts; D equals a host GEMM bit for bit
//     (integers in [-4,4]: every product and sum is exact in f32).
//
// Every output is poisoned before its kernel, so an unwritten element shows.
// Skipped where no GPU is present.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "atom_reference.hpp"
#include "tessel/arch/sm80.hpp"
#include "tessel/arch/sm90_stmatrix.hpp"
#include "tessel/tessel.hpp"

using namespace tessel;
namespace sm80 = tessel::arch::sm80;
namespace sm90 = tessel::arch::sm90;

#define CUDA_CHECK(expr)                                                       \
  do {                                                                         \
    const cudaError_t err_ = (expr);                                           \
    ASSERT_EQ(err_, cudaSuccess) << #expr << ": " << cudaGetErrorString(err_); \
  } while (0)

namespace {

bool have_gpu() {
  int n = 0;
  return cudaGetDeviceCount(&n) == cudaSuccess && n > 0;
}
/// The kernels are built for sm_90a only (stmatrix needs sm_90), so they run on
/// compute capability 9.0 and nowhere else.
bool is_sm90() {
  cudaDeviceProp p{};
  return cudaGetDeviceProperties(&p, 0) == cudaSuccess && p.major == 9 && p.minor == 0;
}
#define REQUIRE_GPU()                                                                                          \
  if (!have_gpu()) GTEST_SKIP() << "no CUDA device on this machine: GPU test skipped (it runs on the device)"; \
  if (!is_sm90()) GTEST_SKIP() << "device 0 is not compute capability 9.0: this test binary is built for sm_90a only"

/// A device array of T, filled with a byte pattern before each kernel so that
/// an element the kernel does not write keeps a recognisable value.
template <class T>
struct DeviceArray {
  T* ptr = nullptr;
  std::size_t n = 0;
  cudaError_t status = cudaSuccess;
  explicit DeviceArray(std::size_t count) : n(count) { status = cudaMalloc(&ptr, n * sizeof(T)); }
  ~DeviceArray() { cudaFree(ptr); }
  DeviceArray(const DeviceArray&) = delete;
  DeviceArray& operator=(const DeviceArray&) = delete;
  cudaError_t poison(unsigned char byte) { return cudaMemset(ptr, byte, n * sizeof(T)); }
  cudaError_t upload(const std::vector<T>& h) {
    return cudaMemcpy(ptr, h.data(), n * sizeof(T), cudaMemcpyHostToDevice);
  }
  cudaError_t download(std::vector<T>& h) const {
    h.resize(n);
    return cudaMemcpy(h.data(), ptr, n * sizeof(T), cudaMemcpyDeviceToHost);
  }
};

// ================================================================ ldmatrix / stmatrix

// The shared tile: up to 16 rows of kPitch 16-bit elements.  The pitch (48
// bytes) keeps rows 16-byte aligned but not adjacent, and tile row r sits in
// shared row kRowSlot(r), a permutation, because ldmatrix/stmatrix take one
// address per row and rows need not be contiguous.
constexpr int kPitch = 24;
constexpr int kSlots = 16;
TESSEL_HD constexpr int row_slot(int r) { return (5 * r + 3) % kSlots; }
constexpr std::uint16_t kSmemPoison = 0xFFFF;  // not a tile index (< 256) nor a code 16l+v (< 512)
constexpr std::uint32_t kRegPoison = 0xDEADBEEF;

/// One ldmatrix/stmatrix variant: matrices, .trans, tile, and the layouts of
/// its register side (REG: (lane, value) -> tile index) and of its memory side
/// (ROW: (lane, element j of the addressed row) -> tile index).
template <int Num, bool Trans>
struct Matrix;
template <>
struct Matrix<1, false> {
  static constexpr int rows = 8, cols = 8;
  static constexpr Layout ld_dst = ref::ldmatrix_x1_dst, ld_src = ref::ldmatrix_x1_src;
  static constexpr Layout st_src = ref::stmatrix_x1_src, st_dst = ref::stmatrix_x1_dst;
};
template <>
struct Matrix<2, false> {
  static constexpr int rows = 16, cols = 8;
  static constexpr Layout ld_dst = ref::ldmatrix_x2_dst, ld_src = ref::ldmatrix_x2_src;
  static constexpr Layout st_src = ref::stmatrix_x2_src, st_dst = ref::stmatrix_x2_dst;
};
template <>
struct Matrix<4, false> {
  static constexpr int rows = 16, cols = 16;
  static constexpr Layout ld_dst = ref::ldmatrix_x4_dst, ld_src = ref::ldmatrix_x4_src;
  static constexpr Layout st_src = ref::stmatrix_x4_src, st_dst = ref::stmatrix_x4_dst;
};
template <>
struct Matrix<1, true> {
  static constexpr int rows = 8, cols = 8;
  static constexpr Layout ld_dst = ref::ldmatrix_x1_trans_dst, ld_src = ref::ldmatrix_x1_trans_src;
  static constexpr Layout st_src = ref::stmatrix_x1_trans_src, st_dst = ref::stmatrix_x1_trans_dst;
};
template <>
struct Matrix<2, true> {
  static constexpr int rows = 16, cols = 8;
  static constexpr Layout ld_dst = ref::ldmatrix_x2_trans_dst, ld_src = ref::ldmatrix_x2_trans_src;
  static constexpr Layout st_src = ref::stmatrix_x2_trans_src, st_dst = ref::stmatrix_x2_trans_dst;
};
template <>
struct Matrix<4, true> {
  static constexpr int rows = 16, cols = 16;
  static constexpr Layout ld_dst = ref::ldmatrix_x4_trans_dst, ld_src = ref::ldmatrix_x4_trans_src;
  static constexpr Layout st_src = ref::stmatrix_x4_trans_src, st_dst = ref::stmatrix_x4_trans_dst;
};

/// The shared-window address of the row that `lane` supplies, from the
/// memory-side layout: element 0 of its row is tile index ROW(lane, 0).
template <Layout Row, int Rows>
__device__ std::uint32_t lane_row_address(const std::uint16_t* tile, int lane) {
  constexpr StaticLayout<Row> row;
  const int e = row(lane, 0);
  const int r = e % Rows, c = e / Rows;
  return sm80::smem_addr(tile + row_slot(r) * kPitch + c);
}

/// ldmatrix of the variant: smem element (r,c) of the tile holds r + R*c (every
/// other element the poison); out[lane + 32*v] = the lane's value v.
template <int Num, bool Trans>
__global__ void ldmatrix_kernel(std::uint32_t* out) {
  using M = Matrix<Num, Trans>;
  __shared__ alignas(16) std::uint16_t tile[kSlots * kPitch];
  const int lane = static_cast<int>(threadIdx.x);
  for (int s = lane; s < kSlots * kPitch; s += 32) tile[s] = kSmemPoison;
  __syncthreads();
  for (int e = lane; e < M::rows * M::cols; e += 32)
    tile[row_slot(e % M::rows) * kPitch + e / M::rows] = static_cast<std::uint16_t>(e);
  __syncthreads();

  const std::uint32_t addr = lane_row_address<M::ld_src, M::rows>(tile, lane);
  std::uint32_t reg[4] = {kRegPoison, kRegPoison, kRegPoison, kRegPoison};
  if constexpr (Num == 1 && !Trans) sm80::ldmatrix_x1(addr, reg[0]);
  if constexpr (Num == 2 && !Trans) sm80::ldmatrix_x2(addr, reg[0], reg[1]);
  if constexpr (Num == 4 && !Trans) sm80::ldmatrix_x4(addr, reg[0], reg[1], reg[2], reg[3]);
  if constexpr (Num == 1 && Trans) sm80::ldmatrix_x1_trans(addr, reg[0]);
  if constexpr (Num == 2 && Trans) sm80::ldmatrix_x2_trans(addr, reg[0], reg[1]);
  if constexpr (Num == 4 && Trans) sm80::ldmatrix_x4_trans(addr, reg[0], reg[1], reg[2], reg[3]);
  for (int v = 0; v < 2 * Num; ++v) out[lane + 32 * v] = (reg[v / 2] >> (16 * (v % 2))) & 0xFFFFu;
}

/// stmatrix of the variant: lane l's value v is 16l+v; out = the whole shared
/// array afterwards (kSlots x kPitch, poison where nothing was stored).
template <int Num, bool Trans>
__global__ void stmatrix_kernel(std::uint16_t* out) {
  using M = Matrix<Num, Trans>;
  __shared__ alignas(16) std::uint16_t tile[kSlots * kPitch];
  const int lane = static_cast<int>(threadIdx.x);
  for (int s = lane; s < kSlots * kPitch; s += 32) tile[s] = kSmemPoison;
  __syncthreads();

  std::uint32_t reg[4];
  for (int i = 0; i < 4; ++i)
    reg[i] = static_cast<std::uint32_t>(16 * lane + 2 * i) | (static_cast<std::uint32_t>(16 * lane + 2 * i + 1) << 16);
  const std::uint32_t addr = lane_row_address<M::st_dst, M::rows>(tile, lane);
  if constexpr (Num == 1 && !Trans) sm90::stmatrix_x1(addr, reg[0]);
  if constexpr (Num == 2 && !Trans) sm90::stmatrix_x2(addr, reg[0], reg[1]);
  if constexpr (Num == 4 && !Trans) sm90::stmatrix_x4(addr, reg[0], reg[1], reg[2], reg[3]);
  if constexpr (Num == 1 && Trans) sm90::stmatrix_x1_trans(addr, reg[0]);
  if constexpr (Num == 2 && Trans) sm90::stmatrix_x2_trans(addr, reg[0], reg[1]);
  if constexpr (Num == 4 && Trans) sm90::stmatrix_x4_trans(addr, reg[0], reg[1], reg[2], reg[3]);
  __syncthreads();
  for (int s = lane; s < kSlots * kPitch; s += 32) out[s] = tile[s];
}

// A lane's row address describes 8 consecutive columns of one tile row only if
// ROW(lane, j) = ROW(lane, 0) + R*j; the kernels rely on that.
::testing::AssertionResult rows_are_contiguous(const Layout& row, int rows) {
  for (int lane = 0; lane < 32; ++lane)
    for (int j = 0; j < 8; ++j)
      if (row(lane, j) != row(lane, 0) + rows * j)
        return ::testing::AssertionFailure() << to_string(row) << ": lane " << lane << " element " << j;
  return ::testing::AssertionSuccess();
}

template <int Num, bool Trans>
void check_ldmatrix() {
  using M = Matrix<Num, Trans>;
  SCOPED_TRACE(::testing::Message() << "ldmatrix.x" << Num << (Trans ? ".trans" : "") << " DST "
                                    << to_string(M::ld_dst));
  ASSERT_TRUE(rows_are_contiguous(M::ld_src, M::rows));
  const int nv = 2 * Num;
  DeviceArray<std::uint32_t> out(32 * nv);
  CUDA_CHECK(out.status);
  CUDA_CHECK(out.poison(0xA5));
  ldmatrix_kernel<Num, Trans><<<1, 32>>>(out.ptr);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<std::uint32_t> got;
  CUDA_CHECK(out.download(got));
  int mismatches = 0;
  for (int lane = 0; lane < 32; ++lane)
    for (int v = 0; v < nv; ++v) {
      const index_t want = M::ld_dst(lane, v);
      const std::uint32_t have = got[static_cast<std::size_t>(lane + 32 * v)];
      if (have != static_cast<std::uint32_t>(want) && ++mismatches <= 8)
        ADD_FAILURE() << "lane " << lane << " value " << v << ": got tile index " << have << ", DST gives " << want
                      << " (row " << want % M::rows << ", column " << want / M::rows << ")";
    }
  EXPECT_EQ(mismatches, 0);
}

template <int Num, bool Trans>
void check_stmatrix() {
  using M = Matrix<Num, Trans>;
  SCOPED_TRACE(::testing::Message() << "stmatrix.x" << Num << (Trans ? ".trans" : "") << " SRC "
                                    << to_string(M::st_src));
  ASSERT_TRUE(rows_are_contiguous(M::st_dst, M::rows));
  // The expected shared array: code 16l+v at the slot of tile element SRC(l,v).
  std::vector<std::uint16_t> want(kSlots * kPitch, kSmemPoison);
  for (int lane = 0; lane < 32; ++lane)
    for (int v = 0; v < 2 * Num; ++v) {
      const auto e = static_cast<int>(M::st_src(lane, v));
      ASSERT_TRUE(e >= 0 && e < M::rows * M::cols) << "SRC(" << lane << "," << v << ") = " << e;
      std::uint16_t& slot = want[static_cast<std::size_t>(row_slot(e % M::rows) * kPitch + e / M::rows)];
      ASSERT_EQ(slot, kSmemPoison) << "SRC gives tile element " << e << " twice";
      slot = static_cast<std::uint16_t>(16 * lane + v);
    }
  DeviceArray<std::uint16_t> out(kSlots * kPitch);
  CUDA_CHECK(out.status);
  CUDA_CHECK(out.poison(0x5A));
  stmatrix_kernel<Num, Trans><<<1, 32>>>(out.ptr);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<std::uint16_t> got;
  CUDA_CHECK(out.download(got));
  int mismatches = 0;
  for (int s = 0; s < kSlots * kPitch; ++s) {
    const std::size_t i = static_cast<std::size_t>(s);
    if (got[i] != want[i] && ++mismatches <= 8)
      ADD_FAILURE() << "shared row slot " << s / kPitch << " column " << s % kPitch << ": got " << got[i] << ", want "
                    << want[i] << (want[i] == kSmemPoison ? " (untouched)" : "");
  }
  EXPECT_EQ(mismatches, 0);
}

// ================================================================ cp.async

enum class Copy { ca4, ca8, ca16, cg16 };
template <Copy K>
constexpr int kCopyBytes = K == Copy::ca4   ? 4
                           : K == Copy::ca8 ? 8
                                            : 16;
constexpr const char* copy_name(Copy k) {
  return k == Copy::ca4    ? "cp.async.ca 4"
         : k == Copy::ca8  ? "cp.async.ca 8"
         : k == Copy::ca16 ? "cp.async.ca 16"
                           : "cp.async.cg 16";
}

template <Copy K>
__device__ void copy_chunk(std::uint32_t dst, const void* src) {
  if constexpr (K == Copy::cg16)
    sm80::cp_async_cg16(dst, src);
  else
    sm80::cp_async_ca<kCopyBytes<K>>(dst, src);
}
template <Copy K>
__device__ void copy_chunk_zfill(std::uint32_t dst, const void* src, std::uint32_t src_bytes) {
  if constexpr (K == Copy::cg16)
    sm80::cp_async_cg16_zfill(dst, src, src_bytes);
  else
    sm80::cp_async_ca_zfill<kCopyBytes<K>>(dst, src, src_bytes);
}

constexpr int kCopyBufferBytes = 4096;
constexpr int kCopyThreads = 128;
/// Chunk c of the source lands in shared chunk copy_slot(c) (a permutation, so
/// source and destination offsets differ).
TESSEL_HD constexpr int copy_slot(int c, int chunks) { return (7 * c + 3) % chunks; }

/// Copies the whole source in two commit groups (even chunks, then odd
/// chunks); reads back the first group after cp_async_wait<1>, the second
/// after cp_async_wait_all.  out = the shared buffer image.
template <Copy K>
__global__ void copy_kernel(const unsigned char* src, unsigned char* out) {
  constexpr int kBytes = kCopyBytes<K>;
  constexpr int kChunks = kCopyBufferBytes / kBytes;
  __shared__ alignas(16) unsigned char buf[kCopyBufferBytes];
  const int t = static_cast<int>(threadIdx.x);
  for (int b = t; b < kCopyBufferBytes; b += kCopyThreads) buf[b] = 0xA5;
  __syncthreads();
  for (int group = 0; group < 2; ++group) {
    for (int c = 2 * t + group; c < kChunks; c += 2 * kCopyThreads)
      copy_chunk<K>(sm80::smem_addr(buf + copy_slot(c, kChunks) * kBytes), src + c * kBytes);
    sm80::cp_async_commit();
  }
  // Group 0 (even chunks) is complete for this thread; the barrier publishes it.
  sm80::cp_async_wait<1>();
  __syncthreads();
  for (int c = 2 * t; c < kChunks; c += 2 * kCopyThreads)
    for (int b = 0; b < kBytes; ++b) out[copy_slot(c, kChunks) * kBytes + b] = buf[copy_slot(c, kChunks) * kBytes + b];
  sm80::cp_async_wait_all();
  __syncthreads();
  for (int c = 2 * t + 1; c < kChunks; c += 2 * kCopyThreads)
    for (int b = 0; b < kBytes; ++b) out[copy_slot(c, kChunks) * kBytes + b] = buf[copy_slot(c, kChunks) * kBytes + b];
}

/// Thread t copies one chunk (16-byte slots) with src-size = t, for t = 0..Bytes.
template <Copy K>
__global__ void zfill_kernel(const unsigned char* src, unsigned char* out) {
  constexpr int kBytes = kCopyBytes<K>;
  __shared__ alignas(16) unsigned char buf[17 * 16];
  const int t = static_cast<int>(threadIdx.x);
  for (int b = 0; b < 16; ++b) buf[t * 16 + b] = 0xA5;
  copy_chunk_zfill<K>(sm80::smem_addr(buf + t * 16), src + t * 16, static_cast<std::uint32_t>(t));
  sm80::cp_async_wait_all();
  for (int b = 0; b < kBytes; ++b) out[t * kBytes + b] = buf[t * 16 + b];
  // The bytes after the copy size stay as they were.
  for (int b = kBytes; b < 16; ++b) out[(kBytes + 1) * kBytes + t * (16 - kBytes) + (b - kBytes)] = buf[t * 16 + b];
}

std::vector<unsigned char> random_bytes(std::size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> byte(1, 255);  // never 0: zero fill must show
  std::vector<unsigned char> v(n);
  for (auto& b : v) {
    b = static_cast<unsigned char>(byte(rng));
    if (b == 0xA5) b = 0x3C;  // never the shared poison either
  }
  return v;
}

template <Copy K>
void check_copy() {
  constexpr int kBytes = kCopyBytes<K>;
  constexpr int kChunks = kCopyBufferBytes / kBytes;
  SCOPED_TRACE(copy_name(K));
  const std::vector<unsigned char> src = random_bytes(kCopyBufferBytes, 17u + static_cast<unsigned>(kBytes));
  // Scalar reference: chunk c, byte by byte, to slot copy_slot(c).
  std::vector<unsigned char> want(kCopyBufferBytes, 0);
  for (int c = 0; c < kChunks; ++c)
    for (int b = 0; b < kBytes; ++b)
      want[static_cast<std::size_t>(copy_slot(c, kChunks) * kBytes + b)] =
          src[static_cast<std::size_t>(c * kBytes + b)];

  DeviceArray<unsigned char> d_src(kCopyBufferBytes), d_out(kCopyBufferBytes);
  CUDA_CHECK(d_src.status);
  CUDA_CHECK(d_out.status);
  CUDA_CHECK(d_src.upload(src));
  CUDA_CHECK(d_out.poison(0x5A));
  copy_kernel<K><<<1, kCopyThreads>>>(d_src.ptr, d_out.ptr);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<unsigned char> got;
  CUDA_CHECK(d_out.download(got));
  int mismatches = 0;
  for (std::size_t i = 0; i < got.size(); ++i)
    if (got[i] != want[i] && ++mismatches <= 8)
      ADD_FAILURE() << "byte " << i << ": got " << int{got[i]} << ", want " << int{want[i]};
  EXPECT_EQ(mismatches, 0);
}

template <Copy K>
void check_zfill() {
  constexpr int kBytes = kCopyBytes<K>;
  SCOPED_TRACE(copy_name(K));
  const std::vector<unsigned char> src = random_bytes(17 * 16, 91u + static_cast<unsigned>(kBytes));
  const std::size_t copied = static_cast<std::size_t>((kBytes + 1) * kBytes);
  const std::size_t beyond = static_cast<std::size_t>((kBytes + 1) * (16 - kBytes));
  DeviceArray<unsigned char> d_src(src.size()), d_out(copied + beyond);
  CUDA_CHECK(d_src.status);
  CUDA_CHECK(d_out.status);
  CUDA_CHECK(d_src.upload(src));
  CUDA_CHECK(d_out.poison(0x5A));
  zfill_kernel<K><<<1, kBytes + 1>>>(d_src.ptr, d_out.ptr);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<unsigned char> got;
  CUDA_CHECK(d_out.download(got));
  int mismatches = 0;
  for (int s = 0; s <= kBytes; ++s) {  // src-size s
    for (int b = 0; b < kBytes; ++b) {
      const unsigned char want = b < s ? src[static_cast<std::size_t>(s * 16 + b)] : 0;
      const unsigned char have = got[static_cast<std::size_t>(s * kBytes + b)];
      if (have != want && ++mismatches <= 8)
        ADD_FAILURE() << "src-size " << s << ", byte " << b << ": got " << int{have} << ", want " << int{want};
    }
    for (int b = kBytes; b < 16; ++b) {
      const unsigned char have = got[copied + static_cast<std::size_t>(s * (16 - kBytes) + (b - kBytes))];
      if (have != 0xA5 && ++mismatches <= 8)
        ADD_FAILURE() << "src-size " << s << ": byte " << b << " beyond the copy size was written (" << int{have}
                      << ")";
    }
  }
  EXPECT_EQ(mismatches, 0);
}

// ================================================================ mma.sync

enum class Mma { bf16, f16, tf32 };

/// One MMA: its tile sizes and the A, B (as N x K), C/D layouts.
template <Mma T>
struct MmaShape;
template <>
struct MmaShape<Mma::bf16> {
  static constexpr int m = 16, n = 8, k = 16;
  static constexpr Layout a = ref::mma_m16n8k16_bf16_a, b = ref::mma_m16n8k16_bf16_b, c = ref::mma_m16n8k16_bf16_c;
  static constexpr const char* name = ref::kMmaBf16;
};
template <>
struct MmaShape<Mma::f16> {
  static constexpr int m = 16, n = 8, k = 16;
  static constexpr Layout a = ref::mma_m16n8k16_f16_a, b = ref::mma_m16n8k16_f16_b, c = ref::mma_m16n8k16_f16_c;
  static constexpr const char* name = ref::kMmaF16;
};
template <>
struct MmaShape<Mma::tf32> {
  static constexpr int m = 16, n = 8, k = 8;
  static constexpr Layout a = ref::mma_m16n8k8_tf32_a, b = ref::mma_m16n8k8_tf32_b, c = ref::mma_m16n8k8_tf32_c;
  static constexpr const char* name = ref::kMmaTf32;
};

/// The bits of one input element as the instruction reads it: 16 bits of bf16
/// or f16, or the 32-bit f32 pattern for tf32.
template <Mma T>
__device__ std::uint32_t element_bits(float x) {
  if constexpr (T == Mma::bf16) {
    return __bfloat16_as_ushort(__float2bfloat16_rn(x));
  } else if constexpr (T == Mma::f16) {
    return __half_as_ushort(__float2half_rn(x));
  } else {
    return __float_as_uint(x);
  }
}

/// Fragment registers of a (lane) from the tile `t` (column-major tile index
/// as the layout gives it): two 16-bit values per register, low half first,
/// or one 32-bit value per register.
template <Mma T, Layout L, int Regs>
__device__ void gather(const float* t, int lane, std::uint32_t (&reg)[Regs]) {
  constexpr StaticLayout<L> layout;
  constexpr int kPerReg = T == Mma::tf32 ? 1 : 2;
  static_assert(StaticLayout<L>::kSize == 32 * Regs * kPerReg, "fragment size");
  for (int r = 0; r < Regs; ++r) {
    reg[r] = 0;
    for (int h = 0; h < kPerReg; ++h) reg[r] |= element_bits<T>(t[layout(lane, kPerReg * r + h)]) << (16 * h);
  }
}

template <Mma T>
__global__ void mma_kernel(const float* A, const float* B, const float* C, float* D) {
  using S = MmaShape<T>;
  constexpr StaticLayout<S::c> lc;
  const int lane = static_cast<int>(threadIdx.x);
  std::uint32_t a[4], b[2];
  gather<T, S::a>(A, lane, a);
  gather<T, S::b>(B, lane, b);
  float c[4], d[4];
  for (int v = 0; v < 4; ++v) c[v] = C[lc(lane, v)];
  if constexpr (T == Mma::bf16) sm80::mma_m16n8k16_f32_bf16(d, a, b, c);
  if constexpr (T == Mma::f16) sm80::mma_m16n8k16_f32_f16(d, a, b, c);
  if constexpr (T == Mma::tf32) sm80::mma_m16n8k8_f32_tf32(d, a, b, c);
  for (int v = 0; v < 4; ++v) D[lc(lane, v)] = d[v];
}

template <Mma T>
void check_mma(unsigned seed) {
  using S = MmaShape<T>;
  SCOPED_TRACE(::testing::Message() << S::name << " seed " << seed);
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> small(-4, 4);
  // Integer tiles, column-major: A(m,k) at m + M*k, B(k,n) at n + N*k, C(m,n) at m + M*n.
  std::vector<int> ia(S::m * S::k), ib(S::n * S::k), ic(S::m * S::n);
  for (auto* v : {&ia, &ib, &ic})
    for (int& x : *v) x = small(rng);
  std::vector<float> fa(ia.begin(), ia.end()), fb(ib.begin(), ib.end()), fc(ic.begin(), ic.end());
  // Host GEMM in integers; the conversion to float is exact.
  std::vector<float> want(S::m * S::n);
  for (int m = 0; m < S::m; ++m)
    for (int n = 0; n < S::n; ++n) {
      int acc = ic[static_cast<std::size_t>(m + S::m * n)];
      for (int k = 0; k < S::k; ++k)
        acc += ia[static_cast<std::size_t>(m + S::m * k)] * ib[static_cast<std::size_t>(n + S::n * k)];
      want[static_cast<std::size_t>(m + S::m * n)] = static_cast<float>(acc);
    }

  DeviceArray<float> dA(fa.size()), dB(fb.size()), dC(fc.size()), dD(want.size());
  CUDA_CHECK(dA.status);
  CUDA_CHECK(dB.status);
  CUDA_CHECK(dC.status);
  CUDA_CHECK(dD.status);
  CUDA_CHECK(dA.upload(fa));
  CUDA_CHECK(dB.upload(fb));
  CUDA_CHECK(dC.upload(fc));
  CUDA_CHECK(dD.poison(0xFF));  // 0xFFFFFFFF: a NaN, never a result here
  mma_kernel<T><<<1, 32>>>(dA.ptr, dB.ptr, dC.ptr, dD.ptr);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<float> got;
  CUDA_CHECK(dD.download(got));
  int mismatches = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    std::uint32_t g = 0, w = 0;
    std::memcpy(&g, &got[i], sizeof g);
    std::memcpy(&w, &want[i], sizeof w);
    if (g != w && ++mismatches <= 8)
      ADD_FAILURE() << "D(" << i % S::m << "," << i / S::m << "): got " << got[i] << " (0x" << std::hex << g
                    << "), want " << std::dec << want[i] << " (0x" << std::hex << w << std::dec << ")";
  }
  EXPECT_EQ(mismatches, 0);
}

}  // namespace

TEST(ArchSm80, LdmatrixMatchesDstLayouts) {
  REQUIRE_GPU();
  check_ldmatrix<1, false>();
  check_ldmatrix<2, false>();
  check_ldmatrix<4, false>();
  check_ldmatrix<1, true>();
  check_ldmatrix<2, true>();
  check_ldmatrix<4, true>();
}

TEST(ArchSm90, StmatrixMatchesSrcLayouts) {
  REQUIRE_GPU();
  check_stmatrix<1, false>();
  check_stmatrix<2, false>();
  check_stmatrix<4, false>();
  check_stmatrix<1, true>();
  check_stmatrix<2, true>();
  check_stmatrix<4, true>();
}

TEST(ArchSm80, CpAsyncCopiesExactly) {
  REQUIRE_GPU();
  check_copy<Copy::ca4>();
  check_copy<Copy::ca8>();
  check_copy<Copy::ca16>();
  check_copy<Copy::cg16>();
}

TEST(ArchSm80, CpAsyncZeroFillsBeyondSrcSize) {
  REQUIRE_GPU();
  check_zfill<Copy::ca4>();
  check_zfill<Copy::ca8>();
  check_zfill<Copy::ca16>();
  check_zfill<Copy::cg16>();
}

TEST(ArchSm80, MmaBf16MatchesHostGemm) {
  REQUIRE_GPU();
  for (unsigned seed : {1u, 2u, 3u}) check_mma<Mma::bf16>(seed);
}

TEST(ArchSm80, MmaF16MatchesHostGemm) {
  REQUIRE_GPU();
  for (unsigned seed : {1u, 2u, 3u}) check_mma<Mma::f16>(seed);
}

TEST(ArchSm80, MmaTf32MatchesHostGemm) {
  REQUIRE_GPU();
  for (unsigned seed : {1u, 2u, 3u}) check_mma<Mma::tf32>(seed);
}
