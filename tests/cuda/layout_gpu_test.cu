// GPU tests: layouts evaluated in kernels equal their host evaluation, for
// static layouts (folded at compile time), swizzled layouts, and layouts built
// and transformed at run time on the device.  Skipped where no GPU is present.
#include <gtest/gtest.h>

#include "gpu_test.hpp"

#include <cstdio>
#include <vector>

#include "tessel/tessel.hpp"

using namespace tessel;

namespace {

constexpr index_t kPoison = -0x5A5A5A5A5A5A5A5ALL;

/// A device buffer poisoned before each kernel, so an unwritten element shows.
struct DeviceBuffer {
  index_t* ptr = nullptr;
  std::size_t n = 0;
  explicit DeviceBuffer(std::size_t count) : n(count) {
    if (cudaMalloc(&ptr, n * sizeof(index_t)) != cudaSuccess) ptr = nullptr;
  }
  ~DeviceBuffer() { cudaFree(ptr); }
  void poison() {
    std::vector<index_t> p(n, kPoison);
    cudaMemcpy(ptr, p.data(), n * sizeof(index_t), cudaMemcpyHostToDevice);
  }
  std::vector<index_t> read() const {
    std::vector<index_t> h(n);
    cudaMemcpy(h.data(), ptr, n * sizeof(index_t), cudaMemcpyDeviceToHost);
    return h;
  }
};

// Kernels are templated on a *provider* type P (P::value is the layout), not
// on StaticLayout<...> itself: nvcc's host stubs cannot spell a class-type
// template argument of a kernel (see docs/design.md, "Static layouts in kernels").
template <class P>
__global__ void eval_static(index_t* out, int n) {
  constexpr StaticLayout<P::value> layout;
  const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i < n) out[i] = static_cast<index_t>(layout(i));
}

template <class P>
__global__ void eval_static_swizzled(index_t* out, int n) {
  constexpr StaticSwizzledLayout<P::value> layout;
  const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i < n) out[i] = static_cast<index_t>(layout(i));
}

template <class P>
__global__ void eval_static_2d(index_t* out, int rows, int cols) {
  constexpr StaticLayout<P::value> layout;
  const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i < rows * cols) out[i] = static_cast<index_t>(layout(i % rows, i / rows));
}

__global__ void eval_dynamic(Layout l, index_t* out, index_t n) {
  const index_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = l(i);
}

/// Builds a run-time m x k row-major layout on the device, tiles it with
/// zipped_divide by <128,64>, and evaluates the result.  Error code in out[n].
__global__ void divide_on_device(index_t* out, index_t n, int m, int k) {
  const Layout global = make_layout(make_shape(m, k), LayoutRight{});
  const Result<Layout> tiles = zipped_divide(global, make_tiler(_128{}, _64{}));
  const index_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i == 0) out[n] = static_cast<index_t>(tiles.code());
  if (tiles.ok() && i < n) out[i] = tiles.val(i);
}

/// The inputs that once crashed or overflowed on the host (a 0 in a
/// cotarget, a zero target extent, products past 2^63) and 64-bit values,
/// with run-time leaves `z` (0) and `big` (2^62) so nothing folds: the device
/// gives the same error codes and values as the host.  out[2*c] is the
/// error code of case c, out[2*c+1] its size (or -1).  One kernel per case:
/// the six cases inlined into one kernel took ptxas about 220 s of CPU on the
/// 2-core CI machine, as six kernels 80 s.
constexpr int kRobustCases = 6;
__host__ __device__ Result<Layout> robust_case(int c, index_t z, index_t big) {
  switch (c) {
    case 0:
      return complement(make_layout(make_shape(2), make_stride(1)), make_shape(z));  // cotarget 0
    case 1:
      return complement(make_layout(make_shape(4), make_stride(1)), make_tuple(z, index_t{2}));  // (0,2)
    case 2:
      return tile_to_shape(make_layout(make_shape(2), make_stride(1)), make_shape(index_t{4}, z));  // target 0
    case 3:
      return composition(make_layout(make_shape(big), make_stride(index_t{2})),  // stride 2^63
                         make_layout(make_shape(index_t{2}), make_stride(big)));
    case 4:
      return logical_product(make_layout(make_shape(big), make_stride(index_t{1})),
                             make_layout(make_shape(index_t{2}), make_stride(index_t{2})));
    default:
      return make_layout_checked(make_shape(index_t{65536}, index_t{65536}, index_t{65536}),  // 2^48 elements
                                 make_stride(index_t{1}, index_t{65536}, big >> 30));
  }
}
template <int C>
__global__ void robust_on_device(index_t* out, index_t z, index_t big) {
  const Result<Layout> r = robust_case(C, z, big);
  out[2 * C] = static_cast<index_t>(r.code());
  out[2 * C + 1] = r.ok() ? size(r.val) : -1;
}
using RobustKernel = void (*)(index_t*, index_t, index_t);
constexpr RobustKernel kRobustKernels[kRobustCases] = {robust_on_device<0>, robust_on_device<1>, robust_on_device<2>,
                                                       robust_on_device<3>, robust_on_device<4>, robust_on_device<5>};

template <class P>
void expect_static_matches() {
  const Layout host = P::value;
  const auto n = static_cast<int>(size(host));
  DeviceBuffer buf(n);
  ASSERT_NE(buf.ptr, nullptr);
  buf.poison();
  eval_static<P><<<(n + 127) / 128, 128>>>(buf.ptr, n);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaDeviceSynchronize());
  const auto got = buf.read();
  for (int i = 0; i < n; ++i) ASSERT_EQ(got[i], host(index_t{i})) << "index " << i << " of " << to_string(host);
}

struct RowMajor {
  static constexpr Layout value = make_layout(make_shape(6, 20), LayoutRight{});
};
struct Divided {
  static constexpr Layout value = logical_divide(RowMajor::value, make_tiler(2, 4)).value();
};
struct Product {
  static constexpr Layout value = blocked_product(make_layout(make_shape(2, 5), make_stride(5, 1)),
                                                  make_layout(make_shape(3, 4), make_stride(1, 3)))
                                      .value();
};
struct Swizzled {
  static constexpr SwizzledLayout value = compose(
      Swizzle{3, 3, 3}, tile_to_shape(make_layout(make_shape(8, 64), LayoutRight{}), make_shape(128, 64)).value());
};
constexpr Layout kDivided = Divided::value;
constexpr SwizzledLayout kSwizzled = Swizzled::value;

}  // namespace

TEST(LayoutGpu, StaticLayoutsMatchHost) {
  REQUIRE_GPU();
  expect_static_matches<Divided>();
  expect_static_matches<Product>();
  expect_static_matches<RowMajor>();
}

TEST(LayoutGpu, StaticRank2CoordinatesMatchHost) {
  REQUIRE_GPU();
  const int rows = static_cast<int>(size(mode(kDivided, 0)));
  const int cols = static_cast<int>(size(mode(kDivided, 1)));
  DeviceBuffer buf(rows * cols);
  ASSERT_NE(buf.ptr, nullptr);
  buf.poison();
  eval_static_2d<Divided><<<1, rows * cols>>>(buf.ptr, rows, cols);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaDeviceSynchronize());
  const auto got = buf.read();
  for (int i = 0; i < rows * cols; ++i) ASSERT_EQ(got[i], kDivided(make_tuple(i % rows, i / rows))) << i;
}

TEST(LayoutGpu, SwizzledMatchesHost) {
  REQUIRE_GPU();
  const int n = static_cast<int>(size(kSwizzled));
  DeviceBuffer buf(n);
  ASSERT_NE(buf.ptr, nullptr);
  buf.poison();
  eval_static_swizzled<Swizzled><<<(n + 127) / 128, 128>>>(buf.ptr, n);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaDeviceSynchronize());
  const auto got = buf.read();
  for (int i = 0; i < n; ++i) ASSERT_EQ(got[i], kSwizzled(index_t{i})) << i;
}

TEST(LayoutGpu, RunTimeLayoutMatchesHost) {
  REQUIRE_GPU();
  // Built on the host from run-time values, evaluated on the device.
  volatile int m = 300, k = 70;
  const Layout l = zipped_divide(make_layout(make_shape(int{m}, int{k})), make_tiler(32, 16)).value();
  const index_t n = size(l);
  DeviceBuffer buf(static_cast<std::size_t>(n));
  ASSERT_NE(buf.ptr, nullptr);
  buf.poison();
  eval_dynamic<<<static_cast<unsigned>((n + 255) / 256), 256>>>(l, buf.ptr, n);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaDeviceSynchronize());
  const auto got = buf.read();
  for (index_t i = 0; i < n; ++i) ASSERT_EQ(got[i], l(i)) << i;
}

TEST(LayoutGpu, AlgebraOnDeviceEqualsHost) {
  REQUIRE_GPU();
  // The same algebra call on the device and on the host, with run-time extents.
  for (const auto& [m, k] : std::vector<std::pair<int, int>>{{1024, 512}, {256, 128}, {1000, 640}}) {
    const Result<Layout> host = zipped_divide(make_layout(make_shape(m, k), LayoutRight{}), make_tiler(_128{}, _64{}));
    const index_t n = host.ok() ? size(host.val) : 1;
    DeviceBuffer buf(static_cast<std::size_t>(n + 1));
    ASSERT_NE(buf.ptr, nullptr);
    buf.poison();
    divide_on_device<<<static_cast<unsigned>((n + 255) / 256), 256>>>(buf.ptr, n, m, k);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaDeviceSynchronize());
    const auto got = buf.read();
    ASSERT_EQ(got[static_cast<std::size_t>(n)], static_cast<index_t>(host.code())) << m << "x" << k;
    if (!host.ok()) continue;  // both sides rejected the same input with the same rule
    for (index_t i = 0; i < n; ++i)
      ASSERT_EQ(got[static_cast<std::size_t>(i)], host.val(i)) << m << "x" << k << " at " << i;
  }
}

TEST(LayoutGpu, RejectedInputsAndLargeValuesMatchHost) {
  REQUIRE_GPU();
  DeviceBuffer buf(2 * kRobustCases);
  ASSERT_NE(buf.ptr, nullptr);
  buf.poison();
  for (const RobustKernel kernel : kRobustKernels) {
    kernel<<<1, 1>>>(buf.ptr, 0, index_t{1} << 62);
    CUDA_CHECK(cudaGetLastError());
  }
  CUDA_CHECK(cudaDeviceSynchronize());
  const auto got = buf.read();
  const Errc want[kRobustCases] = {Errc::value_range, Errc::value_range, Errc::value_range,
                                   Errc::value_range, Errc::value_range, Errc::ok};
  for (int c = 0; c < kRobustCases; ++c) {
    const Result<Layout> host = robust_case(c, 0, index_t{1} << 62);
    EXPECT_EQ(host.code(), want[c]) << "case " << c << ": " << host.err.message();
    EXPECT_EQ(got[2 * c], static_cast<index_t>(host.code())) << "case " << c;
    EXPECT_EQ(got[2 * c + 1], host.ok() ? size(host.val) : -1) << "case " << c;
  }
  EXPECT_EQ(got[2 * (kRobustCases - 1) + 1], index_t{1} << 48);
}
