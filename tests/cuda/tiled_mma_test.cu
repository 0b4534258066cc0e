// TiledMMA end to end on one CTA: a (BM,BK) x (BN,BK) product in shared
// memory, partitioned by a 2x2x1 TiledMMA of mma.sync m16n8k16, accumulated
// with gemm() and written with partition_C; exact against the host for small
// integers.  Skipped where no GPU is present.
#include <gtest/gtest.h>

#include "gpu_test.hpp"

#include <random>
#include <vector>

#include "tessel/algorithm/copy.hpp"
#include "tessel/atom/copy_ldsm.hpp"
#include "tessel/atom/mma_sm80.hpp"

using namespace tessel;
using bf16 = __nv_bfloat16;

namespace {

constexpr int BM = 64, BN = 32, BK = 32;
using MMA = TiledMma<SM80_16x8x16_F32BF16BF16F32_TN, 2, 2, 1>;  // (32,16,16) per step, 128 threads
// Shared tiles, column-major (the TV layouts index column-major tiles).
constexpr Layout kA = make_layout(make_shape(BM, BK));
constexpr Layout kB = make_layout(make_shape(BN, BK));
// The same tiles K-major (rows of BK contiguous) and swizzled, as a GEMM keeps them.
constexpr SwizzledLayout kAk = compose(Swizzle{2, 3, 3}, make_layout(make_shape(BM, BK), LayoutRight{}));
constexpr SwizzledLayout kBk = compose(Swizzle{2, 3, 3}, make_layout(make_shape(BN, BK), LayoutRight{}));
struct CTile {
  static constexpr IntTuple value = make_shape(BM, BN);
};

/// C (BM x BN, row-major, ldc) = A (BM x BK, row-major) * B^T with B given as
/// (BN x BK, row-major), i.e. C[m][n] = sum_k A[m][k] * B[n][k].
__global__ void tiled_mma_kernel(const bf16* A, const bf16* B, float* C, int ldc, int* ldsm_mismatches) {
  __shared__ bf16 sa[BM * BK], sb[BN * BK];
  // K-major copies with the 128-byte-row swizzle of a GEMM tile, for ldmatrix
  // (rows of 32 bf16 = 64 bytes: Sw<2,3,3>).
  __shared__ alignas(1024) bf16 sak[BM * BK], sbk[BN * BK];
  for (int i = threadIdx.x; i < BM * BK; i += blockDim.x)
    sak[StaticSwizzledLayout<kAk>{}(i / BK, i % BK)] = A[(i / BK) * BK + i % BK];
  for (int i = threadIdx.x; i < BN * BK; i += blockDim.x)
    sbk[StaticSwizzledLayout<kBk>{}(i / BK, i % BK)] = B[(i / BK) * BK + i % BK];
  for (int i = threadIdx.x; i < BM * BK; i += blockDim.x)
    sa[StaticLayout<kA>{}(i % BM, i / BM)] = A[(i % BM) * BK + i / BM];
  for (int i = threadIdx.x; i < BN * BK; i += blockDim.x)
    sb[StaticLayout<kB>{}(i % BN, i / BN)] = B[(i % BN) * BK + i / BN];
  __syncthreads();

  const MMA mma;
  const auto thr = mma.get_slice(static_cast<int>(threadIdx.x));
  const auto tCsA = thr.partition_A(make_smem_tensor<kA>(sa));  // (8,(2,2)) values: atom values x (RM, RK)
  const auto tCsB = thr.partition_B(make_smem_tensor<kB>(sb));  // (4,(2,2))
  MMA::FragmentA<kA> tCrA;
  MMA::FragmentB<kB> tCrB;
  MMA::FragmentC<coord_layout(CTile::value)> tCrC;
  // The fragments are filled by TiledCopies derived from the TiledMMA (so the
  // copy's partition is the MMA's); the C tile is written the same way.
  using CopyA = TiledCopyA<UniversalCopy<bf16, 16>, MMA>;
  using CopyB = TiledCopyB<UniversalCopy<bf16, 16>, MMA>;
  copy(CopyA{}, CopyA{}.get_slice(static_cast<int>(threadIdx.x)).partition_S(make_smem_tensor<kA>(sa)), tCrA);
  copy(CopyB{}, CopyB{}.get_slice(static_cast<int>(threadIdx.x)).partition_S(make_smem_tensor<kB>(sb)), tCrB);
  // ldmatrix fills the same fragments: exactly the same values.
  MMA::FragmentA<kA> tLrA;
  MMA::FragmentB<kB> tLrB;
  using LdsmA = TiledLdsmA<bf16, MMA>;
  using LdsmB = TiledLdsmB<bf16, MMA>;
  copy(LdsmA{}, LdsmA{}.get_slice(static_cast<int>(threadIdx.x)).partition_S(make_smem_tensor<kAk>(sak)), tLrA);
  copy(LdsmB{}, LdsmB{}.get_slice(static_cast<int>(threadIdx.x)).partition_S(make_smem_tensor<kBk>(sbk)), tLrB);
  for (int v = 0; v < tCrA.kValues; ++v)
    if (__bfloat16_as_ushort(*tLrA.addr(v)) != __bfloat16_as_ushort(*tCrA.addr(v))) atomicAdd(ldsm_mismatches, 1);
  for (int v = 0; v < tCrB.kValues; ++v)
    if (__bfloat16_as_ushort(*tLrB.addr(v)) != __bfloat16_as_ushort(*tCrB.addr(v))) atomicAdd(ldsm_mismatches, 1);
  // ...and they agree with partition_A/B value by value.
  for (int v = 0; v < tCrA.kValues; ++v)
    if (*tCrA.addr(v) != *tCsA.addr(v)) __trap();
  for (int v = 0; v < tCrB.kValues; ++v)
    if (*tCrB.addr(v) != *tCsB.addr(v)) __trap();
  clear(tCrC);
  gemm(mma, tCrA, tCrB, tCrC);

  const auto gC = make_global_tensor(C, {index_t{BM}, index_t{BN}}, {index_t{ldc}, index_t{1}});
  using CopyC = TiledCopyC<UniversalCopy<float, 32>, MMA>;
  auto tCgC = CopyC{}.get_slice(static_cast<int>(threadIdx.x)).partition_D(local_tile<CTile>(gC, 0, 0));
  copy_if(CopyC{}, tCrC, tCgC);  // the same values as partition_C's:
  const auto tCgC_mma = thr.partition_C(local_tile<CTile>(gC, 0, 0));
  for (int v = 0; v < tCrC.kValues; ++v)
    if (tCgC.addr(v) != tCgC_mma.addr(v)) __trap();
}

}  // namespace

TEST(TiledMma, PartitionsAndGemmMatchHost) {
  REQUIRE_GPU();
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> d(-4, 4);
  std::vector<float> a(BM * BK), b(BN * BK);
  std::vector<bf16> ha(a.size()), hb(b.size());
  for (std::size_t i = 0; i < a.size(); ++i) ha[i] = __float2bfloat16(a[i] = static_cast<float>(d(rng)));
  for (std::size_t i = 0; i < b.size(); ++i) hb[i] = __float2bfloat16(b[i] = static_cast<float>(d(rng)));
  bf16 *da, *db;
  float* dc;
  int* dbad;
  CUDA_CHECK(cudaMalloc(&dbad, sizeof(int)));
  CUDA_CHECK(cudaMemset(dbad, 0, sizeof(int)));
  CUDA_CHECK(cudaMalloc(&da, ha.size() * sizeof(bf16)));
  CUDA_CHECK(cudaMalloc(&db, hb.size() * sizeof(bf16)));
  CUDA_CHECK(cudaMalloc(&dc, BM * BN * sizeof(float)));
  CUDA_CHECK(cudaMemcpy(da, ha.data(), ha.size() * sizeof(bf16), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(db, hb.data(), hb.size() * sizeof(bf16), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemset(dc, 0xFF, BM * BN * sizeof(float)));  // NaN poison
  tiled_mma_kernel<<<1, MMA::kThreads>>>(da, db, dc, BN, dbad);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<float> c(BM * BN);
  CUDA_CHECK(cudaMemcpy(c.data(), dc, c.size() * sizeof(float), cudaMemcpyDeviceToHost));
  int bad = 0, nonzero = 0;
  for (int m = 0; m < BM; ++m)
    for (int n = 0; n < BN; ++n) {
      float ref = 0;
      for (int k = 0; k < BK; ++k) ref += a[m * BK + k] * b[n * BK + k];
      nonzero += ref != 0;
      if (c[m * BN + n] != ref && bad++ < 5)
        ADD_FAILURE() << "C(" << m << "," << n << ") = " << c[m * BN + n] << ", expected " << ref;
    }
  EXPECT_EQ(bad, 0);
  int ldsm_bad = -1;
  CUDA_CHECK(cudaMemcpy(&ldsm_bad, dbad, sizeof(int), cudaMemcpyDeviceToHost));
  EXPECT_EQ(ldsm_bad, 0) << "ldmatrix fragments differ from the element-wise ones";
  cudaFree(dbad);
  EXPECT_GT(nonzero, BM * BN / 2);  // the reference is not trivially zero
  cudaFree(da);
  cudaFree(db);
  cudaFree(dc);
}
