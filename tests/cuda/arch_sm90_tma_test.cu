// GPU tests of the TMA wrappers (tessel/arch/sm90.hpp) with tensor maps from
// tessel/arch/sm90_tensor_map.hpp (docs/hardware.md §10, §12), skipped with a
// message where no sm_90 device is present: load/store round trips of 2-D and
// 3-D boxes in every swizzle mode, boxes crossing the tensor's far end,
// stores of thread-written shared memory, inner boxes narrower than the
// swizzle span, and loads at negative coordinates (zero fill).
#include <gtest/gtest.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "sm90_test_util.hpp"

// ================================================================ TMA (§10)
//
// What the H200 did where the PTX ISA is silent (docs/hardware.md §10.2 and
// §16 item 14; tma_probe runs, 2026-11-22; see the TMA comment in tessel/arch/sm90.hpp):
//  * the innermost coordinate c0 times the element size must be a multiple of
//    16 bytes, for loads and stores ("illegal instruction" at c0 = 4 or 196
//    bf16; never at multiples of 8);
//  * stores must not start at a negative coordinate in any dimension
//    ("illegal instruction" at (0,-1), (-8,0), (-16,-5)); loads may;
//  * a store clips dimension 0 at 16-byte granularity: the 16-byte chunk
//    holding the last element of a row is written whole, so elements
//    [dim0, round_up(dim0 * 2 B, 16 B) / 2 B) of the row padding are written
//    (here 196..199 of the 2-D rows and 76..79 of the 3-D rows); loads zero-fill
//    exactly from dim0 on.
// Every case respects the first two; the expectations encode the third.

namespace {

constexpr std::uint16_t kSmemPoison = 0xBEEF;  // shared memory before a load: bytes the load must not touch
constexpr std::uint16_t kGmemPoison = 0xDEAD;  // the output tensor before stores
constexpr std::uint16_t kPadding = 0x7777;     // input row padding (never inside the tensor)
constexpr int kMaxPositions = 3;

struct TmaArgs {
  int rank;
  int npos;        // boxes loaded one after the other through one mbarrier
  int store_back;  // 1: TMA-store each loaded box to `out` at the same coordinates
  int coord[kMaxPositions][3];
  std::uint32_t box_bytes;    // the whole box, out-of-bounds part included
  std::uint32_t image_elems;  // shared-memory footprint of the box
  std::uint16_t* dump;        // npos x image_elems
  int* completed;             // per position: 1 when the load's mbarrier phase completed
};

/// For each position: poison the buffer, TMA-load the box (one mbarrier, the
/// parity flipping 0, 1, 0), dump the buffer, and (store_back) TMA-store it to
/// `out` at the same coordinates.
__global__ void __launch_bounds__(128)
    tma_round_trip(const __grid_constant__ CUtensorMap in, const __grid_constant__ CUtensorMap out, TmaArgs args) {
  __shared__ alignas(8) std::uint64_t bar_storage;
  extern __shared__ std::uint8_t smem_raw[];
  const std::uint32_t raw = sm90::smem_addr(smem_raw);
  auto* buf = reinterpret_cast<std::uint16_t*>(smem_raw + (((raw + 1023u) & ~1023u) - raw));
  const std::uint32_t dst = sm90::smem_addr(buf);
  const std::uint32_t bar = sm90::smem_addr(&bar_storage);
  const int t = static_cast<int>(threadIdx.x);
  if (t == 0) {
    sm90::prefetch_tensormap(&in);
    sm90::prefetch_tensormap(&out);
    sm90::mbarrier_init(bar, 1);
    sm90::fence_mbarrier_init();
  }
  __syncthreads();
  std::uint32_t phase = 0;
  for (int p = 0; p < args.npos; ++p) {
    for (std::uint32_t i = static_cast<std::uint32_t>(t); i < args.image_elems; i += 128) buf[i] = kSmemPoison;
    // Generic writes, then async-proxy writes of the same bytes with no
    // mbarrier handshake in between: §12.3.
    sm90::fence_proxy_async_shared_cta();
    __syncthreads();
    const int* c = args.coord[p];
    if (t < 32 && sm90::elect_one_sync()) {
      sm90::mbarrier_arrive_expect_tx(bar, args.box_bytes);
      if (args.rank == 2)
        sm90::tma_load(dst, &in, bar, c[0], c[1]);
      else
        sm90::tma_load(dst, &in, bar, c[0], c[1], c[2]);
    }
    const bool done = wait_bounded(bar, phase);
    phase ^= 1;
    if (t == 0) args.completed[p] = done ? 1 : 0;
    for (std::uint32_t i = static_cast<std::uint32_t>(t); i < args.image_elems; i += 128)
      args.dump[static_cast<std::size_t>(p) * args.image_elems + i] = buf[i];
    __syncthreads();
    // The box was written by the async proxy and is read by it again: no
    // proxy fence.  The store must have read it before the next poisoning.
    if (args.store_back != 0 && t < 32 && sm90::elect_one_sync()) {
      if (args.rank == 2)
        sm90::tma_store(&out, dst, c[0], c[1]);
      else
        sm90::tma_store(&out, dst, c[0], c[1], c[2]);
      sm90::bulk_commit_group();
      sm90::bulk_wait_group_read<0>();
      sm90::bulk_wait_group<0>();
    }
    __syncthreads();
  }
}

struct StoreArgs {
  int rank;
  int coord[3];
  int box[3];
  int pitch;      // elements from one box row to the next in shared memory
  int swizzle_b;  // B of the element-unit swizzle Sw<B,3,3>
};

/// Threads write a code into every box element at its swizzled place, then
/// one thread TMA-stores the box: the store's reading of the image is checked
/// independently of the load.
__global__ void __launch_bounds__(128) tma_store_from_threads(const __grid_constant__ CUtensorMap out, StoreArgs args) {
  extern __shared__ std::uint8_t smem_raw[];
  const std::uint32_t raw = sm90::smem_addr(smem_raw);
  auto* buf = reinterpret_cast<std::uint16_t*>(smem_raw + (((raw + 1023u) & ~1023u) - raw));
  const int t = static_cast<int>(threadIdx.x);
  const int n = args.box[0] * args.box[1] * args.box[2];
  const Swizzle sw{args.swizzle_b, 3, 3};
  for (int i = t; i < n; i += 128) {
    const int x = i % args.box[0], y = (i / args.box[0]) % args.box[1], z = i / (args.box[0] * args.box[1]);
    buf[sw((z * args.box[1] + y) * args.pitch + x)] = static_cast<std::uint16_t>(0x8000 | i);
  }
  // Generic writes read by a TMA store: fence, barrier, then one thread (§12.1).
  sm90::fence_proxy_async_shared_cta();
  __syncthreads();
  if (t < 32 && sm90::elect_one_sync()) {
    if (args.rank == 2)
      sm90::tma_store(&out, sm90::smem_addr(buf), args.coord[0], args.coord[1]);
    else
      sm90::tma_store(&out, sm90::smem_addr(buf), args.coord[0], args.coord[1], args.coord[2]);
    sm90::bulk_commit_group();
    sm90::bulk_wait_group<0>();
  }
}

/// A global bf16 tensor (rank 2 or 3) with padded rows.  The inner extents
/// (196, 76) are not multiples of 8 elements, so that a box starting on a
/// 16-byte-aligned coordinate can still cross the far end.
struct TensorShape {
  int rank;
  std::int64_t dim[3];
  std::int64_t stride[3];  // elements
  std::size_t elems() const { return static_cast<std::size_t>(stride[rank - 1] * dim[rank - 1]); }
  bool inside(std::int64_t x, std::int64_t y, std::int64_t z) const {
    return x >= 0 && x < dim[0] && y >= 0 && y < dim[1] && z >= 0 && z < (rank == 3 ? dim[2] : 1);
  }
  std::size_t offset(std::int64_t x, std::int64_t y, std::int64_t z) const {
    return static_cast<std::size_t>(x + y * stride[1] + (rank == 3 ? z * stride[2] : 0));
  }
  /// Whether a TMA store of a box element at (x, y, z) writes memory: inside
  /// in dimensions 1 and 2, and in dimension 0 below the 16-byte boundary
  /// after the row's last element (the padding up to it is written).
  bool store_writes(std::int64_t x, std::int64_t y, std::int64_t z) const {
    const std::int64_t dim0_chunks = (dim[0] * 2 + 15) / 16 * 8;  // elements, bf16
    return x >= 0 && x < dim0_chunks && y >= 0 && y < dim[1] && z >= 0 && z < (rank == 3 ? dim[2] : 1);
  }
  /// The value of an element: never 0 (the zero fill), never a poison.
  std::uint16_t code(std::int64_t x, std::int64_t y, std::int64_t z) const {
    return static_cast<std::uint16_t>(1 + x + dim[0] * (y + dim[1] * z));
  }
};
// 196 x 100 (rows of 392 B, 400 B apart) and 76 x 40 x 6 (rows 160 B apart, planes 6416 B apart).
constexpr TensorShape kTensor2{2, {196, 100, 1}, {1, 200, 0}};
constexpr TensorShape kTensor3{3, {76, 40, 6}, {1, 80, 3208}};

struct TmaCase {
  const TensorShape* tensor;
  int box[3];
  CUtensorMapSwizzle swizzle;
};
using Position = std::array<int, 3>;

int swizzle_b(CUtensorMapSwizzle s) {
  return s == CU_TENSOR_MAP_SWIZZLE_32B    ? 1
         : s == CU_TENSOR_MAP_SWIZZLE_64B  ? 2
         : s == CU_TENSOR_MAP_SWIZZLE_128B ? 3
                                           : 0;
}
const char* swizzle_name(CUtensorMapSwizzle s) {
  return s == CU_TENSOR_MAP_SWIZZLE_32B    ? "32B"
         : s == CU_TENSOR_MAP_SWIZZLE_64B  ? "64B"
         : s == CU_TENSOR_MAP_SWIZZLE_128B ? "128B"
                                           : "none";
}

/// Rows of the box in shared memory are `pitch` elements apart: the inner
/// extent without swizzle; a whole swizzle span with one, also when the inner
/// extent is narrower (§10.2, observed on the H200).
int image_pitch(const TmaCase& c) {
  const int b = swizzle_b(c.swizzle);
  return b == 0 ? c.box[0] : (16 << b) / 2;
}

/// The expected shared-memory image: element (x, y, z) of the box at
/// Sw<B,3,3>((z * box1 + y) * pitch + x), zero outside the tensor, poison in
/// the bytes the box does not cover.
std::vector<std::uint16_t> expected_image(const TmaCase& c, const Position& at) {
  const int pitch = image_pitch(c);
  const int rows = c.box[1] * c.box[2];
  const SwizzledLayout img =
      compose(Swizzle{swizzle_b(c.swizzle), 3, 3},
              make_layout(make_shape(c.box[0], c.box[1], c.box[2]), make_stride(1, pitch, pitch * c.box[1])));
  std::vector<std::uint16_t> e(static_cast<std::size_t>(rows * pitch), kSmemPoison);
  const TensorShape& ts = *c.tensor;
  for (int z = 0; z < c.box[2]; ++z)
    for (int y = 0; y < c.box[1]; ++y)
      for (int x = 0; x < c.box[0]; ++x) {
        const std::int64_t gx = at[0] + x, gy = at[1] + y, gz = at[2] + z;
        e[static_cast<std::size_t>(img(index_t{x}, index_t{y}, index_t{z}))] =
            ts.inside(gx, gy, gz) ? ts.code(gx, gy, gz) : std::uint16_t{0};
      }
  return e;
}

TensorMapSpec tma_spec(const TmaCase& c, const void* base) {
  TensorMapSpec s;
  s.dtype = CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
  s.rank = c.tensor->rank;
  s.global_address = base;
  for (int d = 0; d < s.rank; ++d) {
    s.global_dim[static_cast<std::size_t>(d)] = static_cast<std::uint64_t>(c.tensor->dim[d]);
    s.global_stride_bytes[static_cast<std::size_t>(d)] = static_cast<std::uint64_t>(2 * c.tensor->stride[d]);
    s.box_dim[static_cast<std::size_t>(d)] = static_cast<std::uint32_t>(c.box[d]);
  }
  s.swizzle = c.swizzle;
  return s;
}

int round_down8(int x) { return x >= 0 ? x / 8 * 8 : -((-x + 7) / 8 * 8); }

/// The round-trip positions: the origin, a box half past the far end in every
/// dimension (c0 rounded down to a 16-byte boundary), and an interior box
/// (the third use of the mbarrier, parity 0 again).
std::vector<Position> round_trip_positions(const TmaCase& c) {
  const TensorShape& ts = *c.tensor;
  Position far{}, inner{};
  for (int d = 0; d < ts.rank; ++d) {
    const int extent = static_cast<int>(ts.dim[d]);
    far[static_cast<std::size_t>(d)] = extent - c.box[d] / 2;
    inner[static_cast<std::size_t>(d)] = d == 0 ? 8 : 1;
  }
  far[0] = round_down8(far[0]);
  return {Position{0, 0, 0}, far, inner};
}

/// Loads at negative coordinates: before the origin in every dimension, and
/// in one dimension only.
std::vector<Position> negative_positions(const TmaCase& c) {
  const TensorShape& ts = *c.tensor;
  Position all{}, outer{}, inner{};
  for (int d = 0; d < ts.rank; ++d) all[static_cast<std::size_t>(d)] = -(c.box[d] / 2);
  all[0] = round_down8(all[0]);
  outer[1] = -1;
  inner[0] = -8;
  return {all, outer, inner};
}

/// Loads the box of case `c` at each position (checking every shared-memory
/// image), stores it back when `store_back` (checking the output tensor), and
/// stores a thread-written box at the second position when `store_back`.
void run_tma_case(const TmaCase& c, const std::vector<Position>& positions, bool store_back) {
  const TensorShape& ts = *c.tensor;
  SCOPED_TRACE(::testing::Message() << ts.rank << "-D box (" << c.box[0] << "," << c.box[1] << "," << c.box[2]
                                    << ") swizzle " << swizzle_name(c.swizzle));
  ASSERT_LE(positions.size(), static_cast<std::size_t>(kMaxPositions));
  const int npos = static_cast<int>(positions.size());

  std::vector<std::uint16_t> in_host(ts.elems(), kPadding);
  for (std::int64_t z = 0; z < (ts.rank == 3 ? ts.dim[2] : 1); ++z)
    for (std::int64_t y = 0; y < ts.dim[1]; ++y)
      for (std::int64_t x = 0; x < ts.dim[0]; ++x) in_host[ts.offset(x, y, z)] = ts.code(x, y, z);
  const int pitch = image_pitch(c);
  const std::uint32_t image_elems = static_cast<std::uint32_t>(c.box[1] * c.box[2] * pitch);

  DeviceArray<std::uint16_t> d_in(ts.elems()), d_out(ts.elems()), d_out2(ts.elems()),
      d_dump(static_cast<std::size_t>(npos) * image_elems);
  DeviceArray<int> d_completed(static_cast<std::size_t>(npos));
  ASSERT_TRUE(d_in.ptr && d_out.ptr && d_out2.ptr && d_dump.ptr && d_completed.ptr);
  CUDA_CHECK(d_in.upload(in_host));
  const std::vector<std::uint16_t> poison(ts.elems(), kGmemPoison);
  CUDA_CHECK(d_out.upload(poison));
  CUDA_CHECK(d_out2.upload(poison));
  CUDA_CHECK(d_dump.fill_bytes(0x11));
  CUDA_CHECK(d_completed.fill_bytes(0));

  CUtensorMap in_map, out_map, out2_map;
  for (auto [map, ptr] :
       {std::pair{&in_map, d_in.ptr}, std::pair{&out_map, d_out.ptr}, std::pair{&out2_map, d_out2.ptr}}) {
    const TensorMapStatus st = arch::sm90::encode_tiled(*map, tma_spec(c, ptr));
    ASSERT_TRUE(st.ok()) << st.message;
  }

  TmaArgs args{};
  args.rank = ts.rank;
  args.npos = npos;
  args.store_back = store_back ? 1 : 0;
  for (int p = 0; p < npos; ++p)
    for (int d = 0; d < 3; ++d) args.coord[p][d] = positions[static_cast<std::size_t>(p)][static_cast<std::size_t>(d)];
  args.box_bytes = static_cast<std::uint32_t>(2 * c.box[0] * c.box[1] * c.box[2]);
  args.image_elems = image_elems;
  args.dump = d_dump.ptr;
  args.completed = d_completed.ptr;
  const std::size_t smem = 1024 + 2 * std::size_t{image_elems};
  tma_round_trip<<<1, 128, smem>>>(in_map, out_map, args);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaDeviceSynchronize());

  if (store_back) {
    StoreArgs sargs{};
    sargs.rank = ts.rank;
    for (int d = 0; d < 3; ++d) {
      sargs.coord[d] = positions[1][static_cast<std::size_t>(d)];
      sargs.box[d] = c.box[d];
    }
    sargs.pitch = pitch;
    sargs.swizzle_b = swizzle_b(c.swizzle);
    tma_store_from_threads<<<1, 128, smem>>>(out2_map, sargs);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaDeviceSynchronize());
  }

  std::vector<int> completed;
  std::vector<std::uint16_t> dump, out_host, out2_host;
  CUDA_CHECK(d_completed.download(completed));
  CUDA_CHECK(d_dump.download(dump));
  CUDA_CHECK(d_out.download(out_host));
  CUDA_CHECK(d_out2.download(out2_host));

  // 1. Shared-memory image of every load (zero fill, swizzle, untouched padding).
  for (int p = 0; p < npos; ++p) {
    const Position& at = positions[static_cast<std::size_t>(p)];
    EXPECT_EQ(completed[static_cast<std::size_t>(p)], 1)
        << "load " << p << ": the mbarrier phase (expecting the whole box, " << args.box_bytes
        << " bytes) did not complete";
    const std::vector<std::uint16_t> want = expected_image(c, at);
    int bad = 0;
    for (std::uint32_t i = 0; i < image_elems; ++i) {
      const std::uint16_t g = dump[static_cast<std::size_t>(p) * image_elems + i];
      if (g != want[i] && bad++ < 5)
        ADD_FAILURE() << "load at (" << at[0] << "," << at[1] << "," << at[2] << "): smem element " << i << " (row "
                      << i / static_cast<std::uint32_t>(pitch) << ", slot " << i % static_cast<std::uint32_t>(pitch)
                      << ") = 0x" << std::hex << g << ", expected 0x" << want[i] << std::dec;
    }
    EXPECT_EQ(bad, 0) << "mismatching smem elements after the load at (" << at[0] << "," << at[1] << "," << at[2]
                      << ")";
  }

  // 2. Round trip: the output holds the input exactly on the union of the boxes
  //    inside the tensor, the loads' zero fill on the row padding up to the
  //    16-byte boundary (store_writes), and poison everywhere else (the rest
  //    of the padding included); without store_back it is untouched.
  // 3. Store from thread-written smem: codes exactly where box 1 is stored.
  std::vector<std::uint16_t> want_out(ts.elems(), kGmemPoison), want_out2(ts.elems(), kGmemPoison);
  for (int p = 0; store_back && p < npos; ++p) {
    const Position& at = positions[static_cast<std::size_t>(p)];
    for (int z = 0; z < c.box[2]; ++z)
      for (int y = 0; y < c.box[1]; ++y)
        for (int x = 0; x < c.box[0]; ++x) {
          const std::int64_t gx = at[0] + x, gy = at[1] + y, gz = at[2] + z;
          if (!ts.store_writes(gx, gy, gz)) continue;
          want_out[ts.offset(gx, gy, gz)] = ts.inside(gx, gy, gz) ? ts.code(gx, gy, gz) : std::uint16_t{0};
          if (p == 1)
            want_out2[ts.offset(gx, gy, gz)] = static_cast<std::uint16_t>(0x8000 | (x + c.box[0] * (y + c.box[1] * z)));
        }
  }
  for (int which = 0; which < 2; ++which) {
    const auto& got = which == 0 ? out_host : out2_host;
    const auto& want = which == 0 ? want_out : want_out2;
    const char* what = which == 0 ? "round trip" : "store from threads";
    int bad = 0;
    for (std::size_t i = 0; i < got.size(); ++i)
      if (got[i] != want[i] && bad++ < 5)
        ADD_FAILURE() << what << ": global element " << i << " = 0x" << std::hex << got[i] << ", expected 0x" << want[i]
                      << std::dec;
    EXPECT_EQ(bad, 0) << what << ": mismatching global elements";
  }
}

const TmaCase kCases2D[] = {
    {&kTensor2, {64, 32, 1}, CU_TENSOR_MAP_SWIZZLE_NONE}, {&kTensor2, {8, 16, 1}, CU_TENSOR_MAP_SWIZZLE_NONE},
    {&kTensor2, {16, 32, 1}, CU_TENSOR_MAP_SWIZZLE_32B},  {&kTensor2, {32, 32, 1}, CU_TENSOR_MAP_SWIZZLE_64B},
    {&kTensor2, {64, 32, 1}, CU_TENSOR_MAP_SWIZZLE_128B},
};
// 6 rows per plane: the swizzle phase runs on across planes (it acts on the
// linear shared-memory address).
const TmaCase kCases3D[] = {
    {&kTensor3, {32, 6, 4}, CU_TENSOR_MAP_SWIZZLE_NONE},
    {&kTensor3, {16, 6, 4}, CU_TENSOR_MAP_SWIZZLE_32B},
    {&kTensor3, {32, 6, 4}, CU_TENSOR_MAP_SWIZZLE_64B},
    {&kTensor3, {64, 6, 4}, CU_TENSOR_MAP_SWIZZLE_128B},
};
// §10.2: each box row still occupies a whole span (observed for 64 B rows
// with 128B swizzle); checked here for every swizzle and in 3-D.
const TmaCase kCasesNarrow[] = {
    {&kTensor2, {32, 32, 1}, CU_TENSOR_MAP_SWIZZLE_128B},
    {&kTensor2, {16, 16, 1}, CU_TENSOR_MAP_SWIZZLE_64B},
    {&kTensor2, {8, 16, 1}, CU_TENSOR_MAP_SWIZZLE_32B},
    {&kTensor3, {32, 6, 4}, CU_TENSOR_MAP_SWIZZLE_128B},
};

}  // namespace

TEST(Tma, Load2DStore2DEverySwizzle) {
  REQUIRE_SM90();
  for (const TmaCase& c : kCases2D) run_tma_case(c, round_trip_positions(c), true);
}

TEST(Tma, Load3DStore3DEverySwizzle) {
  REQUIRE_SM90();
  for (const TmaCase& c : kCases3D) run_tma_case(c, round_trip_positions(c), true);
}

TEST(Tma, InnerBoxNarrowerThanTheSwizzleSpan) {
  REQUIRE_SM90();
  for (const TmaCase& c : kCasesNarrow) run_tma_case(c, round_trip_positions(c), true);
}

// Last, so that a fault here cannot take the other TMA tests' context with it
// (the other arch_sm90_*_test executables run in processes of their own):
// loads whose box starts before the origin (zero fill; §10.2).  Loads only:
// stores at negative coordinates fault (see the comment at the top of the TMA
// tests).
TEST(TmaNegativeCoordinates, LoadsZeroFill) {
  REQUIRE_SM90();
  for (const TmaCase& c : kCases2D) run_tma_case(c, negative_positions(c), false);
  for (const TmaCase& c : kCases3D) run_tma_case(c, negative_positions(c), false);
}
