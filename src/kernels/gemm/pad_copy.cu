// The padded copy of a 16-bit matrix whose rows are not 16-byte aligned
// (pad_copy.hpp): what the TMA steps' launchers run before their kernel when
// lda or ldb is not a multiple of 8 (tma_warp_specialized_launch.hpp).  It
// replaces cudaMemcpy2DAsync, which took 52 us for one 4095 x 4095 bf16
// operand on an H100 (1.3 TB/s read + write).
//
// The work: every lane writes one 16-byte chunk (8 elements) of a
// destination row, an aligned 128-bit store; a warp writes 32 consecutive
// chunks (512 bytes) of one row.  The chunk's 8 source elements start at an
// element offset e = 0..7 within a 16-byte granule of the source (e is fixed
// for a row: the source row's address / 2 mod 8; with an odd src_ld it
// changes from row to row).  Each lane loads the one aligned source granule
// its chunk starts in (a 128-bit load; a warp's loads are 512 contiguous
// bytes), takes the next granule from the lane to its right by shuffles (lane
// 31 loads it: the first granule of the next 32 chunks), and shifts the pair
// of granules right by e elements with selects and funnel shifts.  So every
// source byte comes from DRAM once (the granule lane 31 loads twice is one in
// 32, and its second read is most likely an L2 hit), every destination byte is written
// once, and each lane issues one 128-bit load and one 128-bit store per 16
// bytes, like a device-to-device cudaMemcpy.
//
// Only granules that lie wholly inside a source row are loaded 128 bits at a
// time; the two granules at a row's ends that stick out of it (the row's
// first when e > 0, its last when the row does not end on a granule
// boundary) are read element by element, the elements outside the row not at
// all.  So the kernel reads nothing but the matrix's elements (no row gaps,
// nothing past the last element, for compute-sanitizer's memcheck and
// initcheck), at the price of a divergent path for one or two
// lanes per row.
//
// Measured on an H100 (the lab's pad_copy.cu): 32 us for one 4095 x 4095
// operand (2.1 TB/s read + write, at a same-size cudaMemcpyAsync's 33 us), 56
// us for A and B in one launch against 102 us for two cudaMemcpy2DAsync.
// Expected before it was measured: close to a device-to-device cudaMemcpyAsync
// of the same bytes, which reaches about 3 TB/s read + write on an H100, so
// roughly 2.5 - 3 TB/s, i.e. 22 - 27 us for one 4095 x 4095 operand (33.5 MB
// read, 33.5 MB written), against cudaMemcpy2DAsync's 52 us.  Why it should get
// there: the traffic
// is the minimum (above), each warp instruction touches whole 128-byte lines,
// and with 4 blocks of 256 threads per SM (61 registers a thread with nvcc
// 13.0; capping them at 32 or 40 for more blocks spills) and 4 rows per warp
// loaded before the first store, an SM has about 1024 x 4 x 16 bytes = 64 KB
// of loads in flight, more than twice what ~3 TB/s at ~1 us of DRAM latency
// needs (about 25 KB per SM).  The per-lane work besides the memory (one
// 32-bit division for the tile, ~20 integer operations for the shift, the
// bounds tests) is far from the issue limit.
// Source loads are ld.global.cs (evict first: the source is not read again),
// destination stores are plain, so that what L2 keeps of the copy is what
// the GEMM reads next.
//
// Two copies (A and B) run in one launch: the grid's blocks are those of the
// first copy followed by those of the second.
#include "src/kernels/gemm/pad_copy.hpp"

#include <cstdint>
#include <string>

#include "tessel/arch/sm90.hpp"

namespace tessel::gemm_launch {

namespace {

constexpr int kWarps = 8;                         // warps per block
constexpr int kRowsPerWarp = 4;                   // rows a warp copies, all loads before the first store
constexpr int kTileChunks = 32;                   // destination chunks across a tile: one per lane
constexpr int kTileRows = kWarps * kRowsPerWarp;  // rows of a tile (one block)
constexpr int kThreads = kWarps * 32;

/// One copy as the kernel sees it.
struct Job {
  const std::uint16_t* src;
  uint4* dst;  // chunks (8 elements) of the destination
  index_t rows, cols, src_ld;
  index_t chunks;    // per destination row: dst_ld / 8
  unsigned tiles_x;  // tiles across a row: ceil(chunks / 32)
};

struct Params {
  Job job[kMaxPadCopies];
  unsigned first_blocks;  // blocks of job[0]; blocks from there on are job[1]'s
};

/// The aligned source granule `i` of a row (16 bytes from `g`, a 16-byte
/// aligned address e elements before the row's first element): the row's
/// columns [8i - e, 8i - e + 8), with zeros for the columns outside [0, cols)
/// (which are not read).
__device__ __forceinline__ uint4 load_granule(std::uintptr_t g, index_t i, index_t e, index_t cols) {
  const index_t lo = 8 * i - e;
  const std::uintptr_t at = g + static_cast<std::uintptr_t>(i) * 16;
  if (lo >= 0 && lo + 8 <= cols) return __ldcs(reinterpret_cast<const uint4*>(at));
  std::uint32_t w[4] = {0, 0, 0, 0};
  if (lo < cols && lo + 8 > 0) {
    const auto* h = reinterpret_cast<const unsigned short*>(at);
#pragma unroll
    for (int k = 0; k < 8; ++k)
      if (lo + k >= 0 && lo + k < cols) w[k / 2] |= static_cast<std::uint32_t>(__ldcs(h + k)) << (16 * (k % 2));
  }
  return make_uint4(w[0], w[1], w[2], w[3]);
}

/// Elements [e, e + 8) of the 16 elements a, b (a first), e in 0..7: shifts
/// by 4, 2 and 1 elements, each taken or not, so that every register index
/// is static (no local memory).
__device__ __forceinline__ uint4 extract(uint4 a, uint4 b, unsigned e) {
  std::uint32_t w0 = a.x, w1 = a.y, w2 = a.z, w3 = a.w, w4 = b.x, w5 = b.y, w6 = b.z, w7 = b.w;
  if (e & 4u) {  // 4 elements: 2 words (words 0..5 are still needed)
    w0 = w2;
    w1 = w3;
    w2 = w4;
    w3 = w5;
    w4 = w6;
    w5 = w7;
  }
  if (e & 2u) {  // 2 elements: 1 word (words 0..4 are still needed)
    w0 = w1;
    w1 = w2;
    w2 = w3;
    w3 = w4;
    w4 = w5;
  }
  const unsigned s = (e & 1u) * 16;  // 1 element: the high half of word k, the low half of word k + 1
  return make_uint4(__funnelshift_r(w0, w1, s), __funnelshift_r(w1, w2, s), __funnelshift_r(w2, w3, s),
                    __funnelshift_r(w3, w4, s));
}

/// Block `b`'s tile of copy `j`: kTileRows rows x kTileChunks chunks, a warp
/// kRowsPerWarp rows of it.  A row is the same for all lanes of a warp, so
/// every branch on it (the row's existence, its offset e) is warp-uniform,
/// as the shuffles need.
__device__ __forceinline__ void copy_tile(const Job& j, unsigned b) {
  const unsigned tile_y = b / j.tiles_x, tile_x = b - tile_y * j.tiles_x;
  const int lane = static_cast<int>(threadIdx.x % 32), warp = static_cast<int>(threadIdx.x / 32);
  const index_t c = index_t{tile_x} * kTileChunks + lane;  // this lane's destination chunk
  const index_t r0 = index_t{tile_y} * kTileRows + index_t{warp} * kRowsPerWarp;
  uint4 own[kRowsPerWarp], right[kRowsPerWarp];
  unsigned off[kRowsPerWarp];
#pragma unroll
  for (int u = 0; u < kRowsPerWarp; ++u) {
    own[u] = right[u] = make_uint4(0, 0, 0, 0);
    off[u] = 0;
    const index_t r = r0 + u;
    if (r >= j.rows) continue;
    const auto row = reinterpret_cast<std::uintptr_t>(j.src + r * j.src_ld);
    off[u] = static_cast<unsigned>((row >> 1) & 7u);
    const std::uintptr_t g = row - 2 * std::uintptr_t{off[u]};
    own[u] = load_granule(g, c, off[u], j.cols);
    // Lane 31's right neighbour is the next tile's first granule.  With
    // e = 0 the chunk is its own granule and the neighbour is not needed.
    if (lane == 31 && off[u] != 0) right[u] = load_granule(g, c + 1, off[u], j.cols);
  }
#pragma unroll
  for (int u = 0; u < kRowsPerWarp; ++u) {
    const index_t r = r0 + u;
    if (r >= j.rows) break;  // warp-uniform: the rows below are beyond it too
    uint4 next;
    next.x = __shfl_down_sync(0xffffffffu, own[u].x, 1);
    next.y = __shfl_down_sync(0xffffffffu, own[u].y, 1);
    next.z = __shfl_down_sync(0xffffffffu, own[u].z, 1);
    next.w = __shfl_down_sync(0xffffffffu, own[u].w, 1);
    if (lane == 31) next = right[u];
    // Columns at or beyond `cols` were loaded as zeros: the pad is zero.
    if (c < j.chunks) j.dst[r * j.chunks + c] = extract(own[u], next, off[u]);
  }
}

__global__ void __launch_bounds__(kThreads) pad_copy_kernel(const __grid_constant__ Params p) {
  // The GEMM that reads the copies may be launched as this grid's programmatic dependent (k13, k14): its CTAs
  // then start on the SMs this grid leaves free, and wait for its end before their first load.
  arch::sm90::launch_dependents();
  if (blockIdx.x < p.first_blocks)
    copy_tile(p.job[0], blockIdx.x);
  else
    copy_tile(p.job[1], blockIdx.x - p.first_blocks);
}

Status invalid(int i, const std::string& why) {
  return Status::failure(Status::invalid_argument, "pad_copy: copy " + std::to_string(i) + ": " + why);
}

}  // namespace

Status pad_copy(const PadCopy* copies, int count, cudaStream_t stream) {
  if (copies == nullptr || count < 1 || count > kMaxPadCopies)
    return Status::failure(Status::invalid_argument,
                           "pad_copy: 1 or 2 copies per launch (got " + std::to_string(count) + ")");
  Params p{};
  index_t blocks = 0;
  for (int i = 0; i < count; ++i) {
    const PadCopy& c = copies[i];
    if (c.src == nullptr || c.dst == nullptr) return invalid(i, "src and dst must not be null");
    if (reinterpret_cast<std::uintptr_t>(c.src) % 2 != 0) return invalid(i, "src must be 2-byte aligned");
    if (reinterpret_cast<std::uintptr_t>(c.dst) % 16 != 0) return invalid(i, "dst must be 16-byte aligned");
    if (c.rows < 1 || c.cols < 1)
      return invalid(i,
                     "extents must be positive (got " + std::to_string(c.rows) + " x " + std::to_string(c.cols) + ")");
    if (c.src_ld < c.cols) return invalid(i, "src_ld must be at least cols");
    if (c.dst_ld < c.cols || c.dst_ld % 8 != 0) return invalid(i, "dst_ld must be at least cols and a multiple of 8");
    const index_t chunks = c.dst_ld / 8;
    const index_t tiles_x = (chunks + kTileChunks - 1) / kTileChunks;
    const index_t tiles_y = (c.rows + kTileRows - 1) / kTileRows;
    if (tiles_x > 0x7fffffff || tiles_y > 0x7fffffff / tiles_x || blocks + tiles_x * tiles_y > 0x7fffffff)
      return Status::failure(Status::unsupported, "pad_copy: more than 2^31 - 1 blocks in one launch");
    p.job[i] = Job{static_cast<const std::uint16_t*>(c.src),
                   static_cast<uint4*>(c.dst),
                   c.rows,
                   c.cols,
                   c.src_ld,
                   chunks,
                   static_cast<unsigned>(tiles_x)};
    blocks += tiles_x * tiles_y;
    if (i == 0) p.first_blocks = static_cast<unsigned>(blocks);
  }
  if (count == 1) p.job[1] = p.job[0];  // never used: every block is the first copy's
  pad_copy_kernel<<<static_cast<unsigned>(blocks), kThreads, 0, stream>>>(p);
  const cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess)
    return Status::failure(Status::cuda_error, std::string("pad_copy kernel launch: ") + cudaGetErrorString(e));
  return Status::success();
}

}  // namespace tessel::gemm_launch
