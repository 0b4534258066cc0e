// TmaTile (atom/copy_sm90.hpp) on the GPU: TMA as a copy of whole tiles.
// A tile (i, j) is loaded into shared memory laid out by the kernel's layout
// (K-major swizzled, the M-major layout of two TMA boxes, the fp32 epilogue
// chunk), read back element by element *through that layout* (so the box
// plan and the swizzle are checked, not just the bytes), and stored again by
// TMA into a poisoned matrix, which must change exactly inside the matrix.
// The multicast variant splits the boxes between the two CTAs of a cluster;
// the rank-4 maps of attention load a tile at any element of any matrix.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "gpu_test.hpp"
#include "tessel/atom/copy_sm90.hpp"

using namespace tessel;

namespace {

constexpr std::uint32_t kPoison = 0xA5A5A5A5u;

/// Thread 0 arms barrier `bar` (shared) for `bytes` and issues `load(bar)`;
/// every thread returns once the bytes have landed.
template <class Load>
__device__ void load_and_wait(std::uint64_t& full, std::uint32_t bytes, const Load& load) {
  const std::uint32_t bar = arch::smem_addr(&full);
  if (threadIdx.x == 0) {
    arch::sm90::mbarrier_init(bar, 1);
    arch::sm90::fence_mbarrier_init();
    arch::sm90::mbarrier_arrive_expect_tx(bar, bytes);
    load(bar);
  }
  __syncthreads();
  arch::sm90::mbarrier_wait_parity(bar, 0);
}

/// One CTA: tile (ti, tj) of `src` into shared memory, dumped through L into
/// `dump` (row-major BM x BN), then stored by TMA to tile (ti, tj) of `dst`.
template <class T, int BM, int BN, class LayoutOf>  // LayoutOf::value: kernels take no class-type template arguments
__global__ void load_dump_store(const __grid_constant__ CUtensorMap src, const __grid_constant__ CUtensorMap dst,
                                int ti, int tj, T* dump) {
  constexpr SwizzledLayout L = LayoutOf::value;
  using Tma = TmaTile<T, make_shape(BM, BN), L>;
  extern __shared__ __align__(1024) unsigned char smem_raw[];
  T* smem = reinterpret_cast<T*>(smem_raw);
  __shared__ alignas(8) std::uint64_t full;
  load_and_wait(full, Tma::kBytes, [&](std::uint32_t bar) { Tma::load(&src, smem, bar, ti, tj); });
  for (int e = threadIdx.x; e < BM * BN; e += blockDim.x) dump[e] = smem[StaticSwizzledLayout<L>{}(e / BN, e % BN)];
  __syncthreads();
  if (threadIdx.x == 0) {
    Tma::store(&dst, smem, ti, tj);
    arch::sm90::bulk_commit_group();
    arch::sm90::bulk_wait_group<0>();
  }
}

/// A matrix of 32-bit words (T of 2 or 4 bytes): rows x cols, row stride ld
/// elements, with the given mode contiguous ((rows, cols) as the tile sees it).
template <class T, int BM, int BN, class LayoutOf>
void round_trip(index_t rows, index_t cols, index_t ld, bool mode0_contiguous, int ti, int tj) {
  using Tma = TmaTile<T, make_shape(BM, BN), LayoutOf::value>;
  static_assert(sizeof(T) == 2 || sizeof(T) == 4);
  const index_t outer = mode0_contiguous ? cols : rows;  // lines of ld elements
  const std::size_t n = static_cast<std::size_t>(outer * ld);
  std::vector<T> host(n), poison(n);
  for (std::size_t i = 0; i < n; ++i) {
    host[i] = static_cast<T>(i * 2654435761u + 12345u);
    std::memcpy(&poison[i], &kPoison, sizeof(T));
  }
  const auto at = [&](index_t r, index_t c) { return mode0_contiguous ? r + c * ld : r * ld + c; };
  tessel::testing::DeviceArray<T> dsrc(n), ddst(n), ddump(BM * BN);
  ASSERT_TRUE(dsrc.ptr && ddst.ptr && ddump.ptr);
  CUDA_CHECK(cudaMemcpy(dsrc.ptr, host.data(), n * sizeof(T), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(ddst.ptr, poison.data(), n * sizeof(T), cudaMemcpyHostToDevice));
  const index_t stride[2] = {mode0_contiguous ? 1 : ld, mode0_contiguous ? ld : 1};
  CUtensorMap ms, md;
  auto st = Tma::make_map(ms, make_global_tensor(static_cast<const T*>(dsrc.ptr), {rows, cols}, stride), TmaUse::load);
  ASSERT_TRUE(st.ok()) << st.message;
  // A store map needs rows of whole 16-byte granules (TMA stores clip at that
  // granularity): where they are not, the map is refused and only the load runs.
  const index_t inner = mode0_contiguous ? rows : cols;
  const bool can_store = inner * static_cast<index_t>(sizeof(T)) % 16 == 0;
  st = Tma::make_map(md, make_global_tensor(static_cast<const T*>(ddst.ptr), {rows, cols}, stride), TmaUse::store);
  ASSERT_EQ(st.ok(), can_store) << st.message;
  if (!can_store) {
    EXPECT_NE(st.message.find("whole 16-byte granules"), std::string::npos) << st.message;
    md = ms;  // the kernel's store then writes the source onto itself, unchanged inside the matrix
  }
  const int smem = BM * BN * static_cast<int>(sizeof(T));
  auto* kernel = load_dump_store<T, BM, BN, LayoutOf>;
  CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  kernel<<<1, 128, smem>>>(ms, md, ti, tj, ddump.ptr);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<T> dump(BM * BN), out(n);
  CUDA_CHECK(cudaMemcpy(dump.data(), ddump.ptr, dump.size() * sizeof(T), cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaMemcpy(out.data(), ddst.ptr, n * sizeof(T), cudaMemcpyDeviceToHost));
  int bad = 0;
  for (index_t r = 0; r < BM; ++r)
    for (index_t c = 0; c < BN; ++c) {
      const index_t gr = ti * BM + r, gc = tj * BN + c;
      const T want = gr < rows && gc < cols ? host[static_cast<std::size_t>(at(gr, gc))] : T{0};
      if (dump[static_cast<std::size_t>(r * BN + c)] != want && bad++ < 5)
        ADD_FAILURE() << "load: tile element (" << r << "," << c << ")";
    }
  if (!can_store) {
    EXPECT_EQ(bad, 0) << rows << "x" << cols << " ld " << ld << " (load only)";
    return;
  }
  for (index_t o = 0; o < outer; ++o)
    for (index_t e = 0; e < ld; ++e) {
      const index_t r = mode0_contiguous ? e : o, c = mode0_contiguous ? o : e;
      const bool in_tile = r / BM == ti && c / BN == tj && r < rows && c < cols;
      const std::size_t i = static_cast<std::size_t>(o * ld + e);
      const T want = in_tile ? host[i] : poison[i];
      if (out[i] != want && bad++ < 10)
        ADD_FAILURE() << "store: element (" << r << "," << c << ")" << (r >= rows || c >= cols ? " (padding)" : "");
    }
  EXPECT_EQ(bad, 0) << rows << "x" << cols << " ld " << ld << " tile (" << ti << "," << tj << ")";
}

constexpr SwizzledLayout kKMajor{
    Swizzle{3, 3, 3}, tile_to_shape(make_layout(make_shape(8, 64), LayoutRight{}), make_shape(128, 64)).value()};
constexpr SwizzledLayout kMMajor{Swizzle{3, 3, 3},
                                 make_layout(make_shape(make_shape(64, 2), 64), make_stride(make_stride(1, 4096), 64))};
constexpr SwizzledLayout kChunkF32{Swizzle{3, 2, 3}, make_layout(make_shape(128, 32), LayoutRight{})};
struct KMajor {
  static constexpr SwizzledLayout value = kKMajor;
};
struct MMajor {
  static constexpr SwizzledLayout value = kMMajor;
};
struct ChunkF32 {
  static constexpr SwizzledLayout value = kChunkF32;
};

// ---------------------------------------------------------------- multicast

template <int Parts>
__global__ void __cluster_dims__(2, 1, 1)
    multicast_dump(const __grid_constant__ CUtensorMap src, int ti, int tj, std::uint16_t* dump) {
  using Tma = TmaTile<std::uint16_t, make_shape(128, 64), kKMajor, Parts>;
  __shared__ alignas(1024) std::uint16_t smem[128 * 64];
  __shared__ alignas(8) std::uint64_t full;
  const std::uint32_t bar = arch::smem_addr(&full);
  const int rank = static_cast<int>(arch::sm90::cluster_ctarank());
  if (threadIdx.x == 0) {
    arch::sm90::mbarrier_init(bar, 1);
    arch::sm90::fence_mbarrier_init();
  }
  arch::sm90::cluster_sync();  // the peer's multicast finds an initialized barrier
  if (threadIdx.x == 0) {
    arch::sm90::mbarrier_arrive_expect_tx(bar, Tma::kBytes);  // both CTAs' shares land here
    Tma::load_multicast(&src, smem, bar, 0x3, rank, ti, tj);
  }
  arch::sm90::mbarrier_wait_parity(bar, 0);
  for (int e = threadIdx.x; e < 128 * 64; e += blockDim.x)
    dump[rank * 128 * 64 + e] = smem[StaticSwizzledLayout<kKMajor>{}(e / 64, e % 64)];
  arch::sm90::cluster_sync();  // no CTA leaves while its peer may still write into it
}

/// One CTA: the tile at element (e0, e1) of tensor (b1, b2) of a rank-4 map
/// (make_batched_map2, load_at), dumped through L into `dump` (BM x BN).
template <int BM, int BN, class LayoutOf>
__global__ void load_at_dump(const __grid_constant__ CUtensorMap src, int e0, int e1, int b1, int b2,
                             std::uint16_t* dump) {
  constexpr SwizzledLayout L = LayoutOf::value;
  using Tma = TmaTile<std::uint16_t, make_shape(BM, BN), L>;
  extern __shared__ __align__(1024) unsigned char smem_raw[];
  auto* smem = reinterpret_cast<std::uint16_t*>(smem_raw);
  __shared__ alignas(8) std::uint64_t full;
  load_and_wait(full, Tma::kBytes, [&](std::uint32_t bar) { Tma::load_at(&src, smem, bar, e0, e1, b1, b2); });
  for (int e = threadIdx.x; e < BM * BN; e += blockDim.x) dump[e] = smem[StaticSwizzledLayout<L>{}(e / BN, e % BN)];
}

/// A (batch 3, heads 4) stack of rows x cols matrices (row stride ld; head and
/// batch strides with gaps), the tile at element (e0, e1) of matrix (h, b):
/// every element, zeros past the matrix's rows and columns.  `mode0_contiguous`:
/// the tile's mode 0 is the matrix's contiguous one (attention's V).
template <class LayoutOf>
void load_at_round_trip(index_t rows, index_t cols, index_t ld, bool mode0_contiguous, int e0, int e1, int h, int b) {
  constexpr int BM = 128, BN = 64;
  using Tma = TmaTile<std::uint16_t, make_shape(BM, BN), LayoutOf::value>;
  const index_t lines = mode0_contiguous ? cols : rows, head = lines * ld + 64, batch = 4 * head + 128;
  std::vector<std::uint16_t> host(static_cast<std::size_t>(3 * batch));
  for (std::size_t i = 0; i < host.size(); ++i) host[i] = static_cast<std::uint16_t>(i * 40503u + 11u);
  tessel::testing::DeviceArray<std::uint16_t> dsrc(host.size()), ddump(BM * BN);
  ASSERT_TRUE(dsrc.ptr && ddump.ptr);
  CUDA_CHECK(cudaMemcpy(dsrc.ptr, host.data(), host.size() * 2, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemset(ddump.ptr, 0x5A, BM * BN * 2));
  const index_t stride[2] = {mode0_contiguous ? 1 : ld, mode0_contiguous ? ld : 1};
  CUtensorMap map;
  const auto st = Tma::make_batched_map2(
      map, make_global_tensor(static_cast<const std::uint16_t*>(dsrc.ptr), {rows, cols}, stride), 4, head, 3, batch);
  ASSERT_TRUE(st.ok()) << st.message;
  const int smem = BM * BN * 2;
  auto* kernel = load_at_dump<BM, BN, LayoutOf>;
  CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  kernel<<<1, 128, smem>>>(map, e0, e1, h, b, ddump.ptr);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<std::uint16_t> dump(BM * BN);
  CUDA_CHECK(cudaMemcpy(dump.data(), ddump.ptr, dump.size() * 2, cudaMemcpyDeviceToHost));
  int bad = 0;
  for (index_t r = 0; r < BM; ++r)
    for (index_t c = 0; c < BN; ++c) {
      const index_t gr = e0 + r, gc = e1 + c;
      const index_t at = b * batch + h * head + (mode0_contiguous ? gr + gc * ld : gr * ld + gc);
      const std::uint16_t want = gr < rows && gc < cols ? host[static_cast<std::size_t>(at)] : 0;
      if (dump[static_cast<std::size_t>(r * BN + c)] != want && bad++ < 5)
        ADD_FAILURE() << "element (" << r << "," << c << ") of the tile at (" << e0 << "," << e1 << ")";
    }
  EXPECT_EQ(bad, 0);
}

}  // namespace

TEST(TmaTile, BoxPlansOfTheKernelsLayouts) {
  // Static facts, checked here too so that a failure names the layout.
  using K = TmaTile<std::uint16_t, make_shape(128, 64), kKMajor>;
  static_assert(K::kBoxes == 1 && K::kInner == 1 && K::kPlan.box[0] == 128 && K::kPlan.box[1] == 64);
  using M = TmaTile<std::uint16_t, make_shape(128, 64), kMMajor>;
  static_assert(M::kBoxes == 2 && M::kInner == 0 && M::kPlan.offset[1] == 4096);
  using K2 = TmaTile<std::uint16_t, make_shape(128, 64), kKMajor, 2>;  // two 64-row boxes, one per CTA
  static_assert(K2::kBoxes == 2 && K2::kPlan.origin[1][0] == 64 && K2::kPlan.offset[1] == 64 * 64);
  // An M-major tile 160 wide in 16-column blocks under the 32-byte swizzle (a width fitted to a thin N):
  // one 16 x 64 box a block, 2 KB apart.
  using N160 = TmaTile<std::uint16_t, make_shape(160, 64),
                       SwizzledLayout{Swizzle{1, 3, 3}, make_layout(make_shape(make_shape(16, 10), 64),
                                                                    make_stride(make_stride(1, 16 * 64), 16))}>;
  static_assert(N160::kBoxes == 10 && N160::kInner == 0 && N160::kPlan.box[0] == 16 && N160::kPlan.box[1] == 64 &&
                N160::kPlan.offset[1] == 16 * 64);
  SUCCEED();
}

TEST(TmaTile, KMajorLoadsThroughTheSwizzledLayoutAndStoresClipped) {
  REQUIRE_SM90();
  round_trip<std::uint16_t, 128, 64, KMajor>(300, 200, 208, false, 0, 0);
  round_trip<std::uint16_t, 128, 64, KMajor>(300, 200, 208, false, 2, 3);  // partial in both modes
  round_trip<std::uint16_t, 128, 64, KMajor>(1, 8, 8, false, 0, 0);        // one row
  round_trip<std::uint16_t, 128, 64, KMajor>(1, 8, 16, false, 0, 0);       // one row, padded: zeros, not padding
  round_trip<std::uint16_t, 128, 64, KMajor>(2, 8, 16, false, 0, 0);
}

TEST(TmaTile, MMajorTileIsTwoBoxes) {
  REQUIRE_SM90();
  round_trip<std::uint16_t, 128, 64, MMajor>(200, 100, 208, true, 1, 1);
  round_trip<std::uint16_t, 128, 64, MMajor>(256, 64, 256, true, 1, 0);
}

TEST(TmaTile, Fp32EpilogueChunkStoresOnlyInsideTheMatrix) {
  REQUIRE_SM90();
  round_trip<std::uint32_t, 128, 32, ChunkF32>(300, 40, 44, false, 2, 1);
  round_trip<std::uint32_t, 128, 32, ChunkF32>(2, 1, 4, false, 0, 0);
  round_trip<std::uint32_t, 128, 32, ChunkF32>(1, 17, 20, false, 0, 0);  // one row, padded
  round_trip<std::uint32_t, 128, 32, ChunkF32>(1, 1, 4, false, 0, 0);
  round_trip<std::uint32_t, 128, 32, ChunkF32>(3, 4, 8, false, 0, 0);  // 16-byte rows: stored
}

TEST(TmaTile, LoadsZeroFillExactlyPastTheEndOfARow) {
  REQUIRE_SM90();
  // Rows of 5 bf16 (10 bytes) in rows of 8: elements 5..7 hold data that
  // must not appear in the tile (the store map is refused: 10 bytes).
  round_trip<std::uint16_t, 128, 64, KMajor>(4, 5, 8, false, 0, 0);
  round_trip<std::uint16_t, 128, 64, MMajor>(5, 3, 8, true, 0, 0);
}

TEST(TmaTile, MulticastSplitsTheBoxesBetweenTheCluster) {
  REQUIRE_SM90();
  const index_t rows = 300, cols = 200, ld = 208;
  std::vector<std::uint16_t> host(static_cast<std::size_t>(rows * ld));
  for (std::size_t i = 0; i < host.size(); ++i) host[i] = static_cast<std::uint16_t>(i * 40503u + 7u);
  tessel::testing::DeviceArray<std::uint16_t> dsrc(host.size()), ddump(2 * 128 * 64);
  ASSERT_TRUE(dsrc.ptr && ddump.ptr);
  CUDA_CHECK(cudaMemcpy(dsrc.ptr, host.data(), host.size() * 2, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemset(ddump.ptr, 0x5A, 2 * 128 * 64 * 2));
  CUtensorMap map;
  const auto st = TmaTile<std::uint16_t, make_shape(128, 64), kKMajor, 2>::make_map(
      map, make_global_tensor(static_cast<const std::uint16_t*>(dsrc.ptr), {rows, cols}, {ld, index_t{1}}));
  ASSERT_TRUE(st.ok()) << st.message;
  multicast_dump<2><<<2, 128>>>(map, 2, 3, ddump.ptr);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<std::uint16_t> dump(2 * 128 * 64);
  CUDA_CHECK(cudaMemcpy(dump.data(), ddump.ptr, dump.size() * 2, cudaMemcpyDeviceToHost));
  int bad = 0;
  for (int cta = 0; cta < 2; ++cta)
    for (index_t r = 0; r < 128; ++r)
      for (index_t c = 0; c < 64; ++c) {
        const index_t gr = 2 * 128 + r, gc = 3 * 64 + c;
        const std::uint16_t want = gr < rows && gc < cols ? host[static_cast<std::size_t>(gr * ld + gc)] : 0;
        if (dump[static_cast<std::size_t>(cta * 128 * 64 + r * 64 + c)] != want && bad++ < 5)
          ADD_FAILURE() << "CTA " << cta << " element (" << r << "," << c << ")";
      }
  EXPECT_EQ(bad, 0);
}

TEST(TmaTile, RankFourMapLoadsATileAtAnyRowOfAnyMatrix) {
  REQUIRE_SM90();
  load_at_round_trip<KMajor>(300, 128, 136, false, 37, 64, 3, 2);  // rows from 37: packed sequences start anywhere
  load_at_round_trip<KMajor>(300, 128, 136, false, 250, 0, 0, 1);  // past the last row: zeros
  load_at_round_trip<MMajor>(128, 300, 136, true, 0, 101, 2, 0);   // d contiguous (V), keys from 101
}

TEST(TmaTile, MapsNameTheRuleBroken) {
  using K = TmaTile<std::uint16_t, make_shape(128, 64), kKMajor>;
  CUtensorMap map;
  std::uint16_t* fake = reinterpret_cast<std::uint16_t*>(std::uintptr_t{1} << 20);
  // K-major tile over an M-major matrix: the contiguous modes disagree.
  auto st = K::make_map(map, make_global_tensor(static_cast<const std::uint16_t*>(fake), {index_t{256}, index_t{64}},
                                                {index_t{1}, index_t{256}}));
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.message.find("mode 1 is contiguous in shared memory"), std::string::npos) << st.message;
  // Rows of 100 elements (200 bytes) are not a multiple of 16 bytes.
  st = K::make_map(map, make_global_tensor(static_cast<const std::uint16_t*>(fake), {index_t{256}, index_t{64}},
                                           {index_t{100}, index_t{1}}));
  EXPECT_FALSE(st.ok());
}
