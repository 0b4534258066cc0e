// The tile copy kernels against a host reference, on shapes that are not
// multiples of the 128 x 64 tile.  Outputs are poisoned before each run, and
// the elements outside the matrix (padding of the row stride) must stay
// untouched.  Skipped where no GPU is present.
#include <gtest/gtest.h>

#include "gpu_test.hpp"

#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "tessel/host/copy.hpp"

using namespace tessel;
using bf16 = __nv_bfloat16;

namespace {

constexpr std::uint16_t kPoison = 0xFFC1;  // a NaN pattern no input contains

/// Runs one kernel on an m x n matrix with row strides padded by `pad` and
/// compares every element (and the untouched padding) with the host.
void run_case(CopyKernel k, index_t m, index_t n, index_t pad) {
  const bool transpose = k == CopyKernel::transpose;
  const index_t ld_src = n + pad, ld_dst = (transpose ? m : n) + pad;
  const index_t rows_dst = transpose ? n : m;
  std::vector<std::uint16_t> src(static_cast<std::size_t>(m * ld_src)),
      dst(static_cast<std::size_t>(rows_dst * ld_dst));
  std::mt19937 rng(static_cast<unsigned>(m * 131 + n));
  for (auto& x : src) x = static_cast<std::uint16_t>(rng() & 0x7F7F);  // finite bf16 patterns
  void *d_src = nullptr, *d_dst = nullptr;
  CUDA_CHECK(cudaMalloc(&d_src, src.size() * 2));
  CUDA_CHECK(cudaMalloc(&d_dst, dst.size() * 2));
  CUDA_CHECK(cudaMemcpy(d_src, src.data(), src.size() * 2, cudaMemcpyHostToDevice));
  std::vector<std::uint16_t> poison(dst.size(), kPoison);
  CUDA_CHECK(cudaMemcpy(d_dst, poison.data(), dst.size() * 2, cudaMemcpyHostToDevice));
  const Status s = tile_copy(k, static_cast<const bf16*>(d_src), static_cast<bf16*>(d_dst), m, n, ld_src, ld_dst);
  ASSERT_TRUE(s.is_ok()) << name(k) << " " << m << "x" << n << ": " << s.message;
  CUDA_CHECK(cudaDeviceSynchronize());
  CUDA_CHECK(cudaMemcpy(dst.data(), d_dst, dst.size() * 2, cudaMemcpyDeviceToHost));
  cudaFree(d_src);
  cudaFree(d_dst);
  index_t bad = 0;
  for (index_t r = 0; r < rows_dst; ++r)
    for (index_t c = 0; c < ld_dst; ++c) {
      const std::uint16_t got = dst[static_cast<std::size_t>(r * ld_dst + c)];
      const bool in = c < (transpose ? m : n);
      const std::uint16_t want = !in ? kPoison
                                     : (transpose ? src[static_cast<std::size_t>(c * ld_src + r)]
                                                  : src[static_cast<std::size_t>(r * ld_src + c)]);
      if (got != want && bad++ < 5)
        ADD_FAILURE() << name(k) << " " << m << "x" << n << " pad " << pad << ": dst(" << r << "," << c << ") = " << got
                      << ", expected " << want;
    }
  EXPECT_EQ(bad, 0) << name(k) << " " << m << "x" << n;
}

}  // namespace

TEST(CopyKernels, ScalarAnyShape) {
  REQUIRE_GPU();
  for (auto [m, n] :
       std::vector<std::pair<index_t, index_t>>{{1, 1}, {7, 3}, {127, 63}, {128, 64}, {129, 65}, {300, 1001}})
    for (index_t pad : {0, 5}) run_case(CopyKernel::scalar, m, n, pad);
}

TEST(CopyKernels, VectorKernelsOnNonTileShapes) {
  REQUIRE_GPU();
  for (CopyKernel k : {CopyKernel::vector, CopyKernel::cp_async, CopyKernel::swizzled, CopyKernel::tma})
    for (auto [m, n] : std::vector<std::pair<index_t, index_t>>{
             {1, 8}, {7, 16}, {127, 56}, {128, 64}, {129, 72}, {1000, 1000}, {257, 8}})
      for (index_t pad : {0, 8}) run_case(k, m, n, pad);
}

TEST(CopyKernels, TransposeOnNonTileShapes) {
  REQUIRE_GPU();
  for (auto [m, n] : std::vector<std::pair<index_t, index_t>>{
           {8, 8}, {16, 24}, {120, 56}, {128, 64}, {136, 72}, {1000, 1000}, {264, 8}})
    for (index_t pad : {0, 8}) run_case(CopyKernel::transpose, m, n, pad);
}

TEST(CopyKernels, RejectionsNameTheRuleAndWriteNothing) {
  // Argument checks happen before any launch: they need no GPU.
  bf16* fake = reinterpret_cast<bf16*>(std::uintptr_t{4096});
  Status s = tile_copy(CopyKernel::vector, fake, fake, 16, 1001, 1001, 1001);
  EXPECT_EQ(s.code, Status::unsupported);
  EXPECT_NE(s.message.find("unsupported alignment"), std::string::npos) << s.message;
  s = tile_copy(CopyKernel::vector, fake + 1, fake, 16, 64, 64, 64);
  EXPECT_EQ(s.code, Status::unsupported);
  s = tile_copy(CopyKernel::scalar, nullptr, fake, 16, 64, 64, 64);
  EXPECT_EQ(s.code, Status::invalid_argument);
  s = tile_copy(CopyKernel::scalar, fake, fake, 0, 64, 64, 64);
  EXPECT_EQ(s.code, Status::invalid_argument);
  s = tile_copy(CopyKernel::scalar, fake, fake, 16, 64, 32, 64);
  EXPECT_EQ(s.code, Status::invalid_argument);
  s = tile_copy(CopyKernel::transpose, fake, fake, 100, 64, 64, 64);  // ld_dst < m
  EXPECT_EQ(s.code, Status::invalid_argument);
}
