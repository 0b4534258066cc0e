// The padded copy of the TMA steps' unaligned operands (src/kernels/gemm/
// pad_copy.cu) against the host: random 16-bit patterns (never zero, never
// the poison), a poisoned destination with a guard after its end, source
// leading dimensions odd and even and source pointers 0..7 elements past a
// 16-byte boundary, one copy and two copies in one launch.  Every element of
// every destination row is compared bit for bit: columns [0, cols) with the
// source, the pad columns [cols, dst_ld) with zero (pad_copy.hpp's promise),
// and the guard must keep its poison.  The source allocations end exactly at
// the matrix's last element, so a read past it is a memcheck error under
// compute-sanitizer.  The GPU tests skip where no GPU is present; the
// argument checks run everywhere (they fail before any CUDA call).
#include <gtest/gtest.h>

#include "gpu_test.hpp"

#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "src/kernels/gemm/pad_copy.hpp"

using namespace tessel;
using tessel::gemm_launch::pad_copy;
using tessel::gemm_launch::PadCopy;
using tessel::testing::DeviceArray;

namespace {

constexpr std::uint16_t kPoison = 0xA5A5;  // cudaMemset(0xA5) of the destination; no source element has it
constexpr index_t kGuard = 64;             // poisoned elements after each destination's end

/// One copy to test: dst_ld 0 means cols rounded up to a multiple of 8 (what
/// the launchers use).
struct Case {
  index_t rows, cols, src_ld, src_off, dst_ld = 0;
};

std::string describe(const Case& c) {
  return std::to_string(c.rows) + "x" + std::to_string(c.cols) + " src_ld " + std::to_string(c.src_ld) + " src+" +
         std::to_string(c.src_off) + " dst_ld " + std::to_string(c.dst_ld);
}

/// A case's buffers: the source from the start of a cudaMalloc'ed block
/// (16-byte aligned) plus src_off elements, its allocation ending at the
/// last element; the destination with kGuard elements after it.
struct Prepared {
  Case c;
  std::vector<std::uint16_t> src;  // host copy of the source allocation
  DeviceArray<std::uint16_t> d_src, d_dst;
  explicit Prepared(const Case& k)
      : c(k),
        src(static_cast<std::size_t>(k.src_off + (k.rows - 1) * k.src_ld + k.cols)),
        d_src(src.size()),
        d_dst(static_cast<std::size_t>(k.rows * k.dst_ld + kGuard)) {}
  PadCopy copy() const { return PadCopy{d_src.ptr + c.src_off, d_dst.ptr, c.rows, c.cols, c.src_ld, c.dst_ld}; }
};

/// Runs `cases` (one or two) as one pad_copy launch and checks every
/// destination element of each.
void run(std::vector<Case> cases) {
  std::vector<std::unique_ptr<Prepared>> bufs;
  std::vector<PadCopy> copies;
  for (Case& c : cases) {
    if (c.dst_ld == 0) c.dst_ld = (c.cols + 7) / 8 * 8;
    bufs.push_back(std::make_unique<Prepared>(c));
    Prepared& b = *bufs.back();
    ASSERT_NE(b.d_src.ptr, nullptr) << describe(c);
    ASSERT_NE(b.d_dst.ptr, nullptr) << describe(c);
    std::mt19937 rng(static_cast<unsigned>(c.rows * 7919 + c.cols * 131 + c.src_ld * 17 + c.src_off));
    for (auto& x : b.src) {
      x = static_cast<std::uint16_t>(1 + rng() % 0xFFFF);  // 1 .. 0xFFFF: every bit pattern but zero
      if (x == kPoison) x = 0x5A5A;
    }
    CUDA_CHECK(b.d_src.upload(b.src));
    CUDA_CHECK(b.d_dst.fill_bytes(0xA5));
    copies.push_back(b.copy());
  }
  cudaStream_t stream = nullptr;
  CUDA_CHECK(cudaStreamCreate(&stream));
  const Status s = pad_copy(copies.data(), static_cast<int>(copies.size()), stream);
  const cudaError_t sync = cudaStreamSynchronize(stream);
  CUDA_CHECK(cudaStreamDestroy(stream));
  ASSERT_TRUE(s.is_ok()) << s.message;
  CUDA_CHECK(sync);
  for (const auto& bp : bufs) {
    const Prepared& b = *bp;
    const Case& c = b.c;
    std::vector<std::uint16_t> dst;
    CUDA_CHECK(b.d_dst.download(dst));
    index_t bad = 0;
    for (index_t r = 0; r < c.rows; ++r)
      for (index_t col = 0; col < c.dst_ld; ++col) {
        const std::uint16_t got = dst[static_cast<std::size_t>(r * c.dst_ld + col)];
        const std::uint16_t want = col < c.cols ? b.src[static_cast<std::size_t>(c.src_off + r * c.src_ld + col)] : 0;
        if (got != want && bad++ < 5)
          ADD_FAILURE() << describe(c) << " (" << copies.size() << " copies): dst(" << r << "," << col << ") = 0x"
                        << std::hex << got << ", expected 0x" << want << std::dec
                        << (col < c.cols ? "" : " (a pad column)");
      }
    for (index_t i = 0; i < kGuard; ++i) {
      const std::uint16_t got = dst[static_cast<std::size_t>(c.rows * c.dst_ld + i)];
      if (got != kPoison && bad++ < 10)
        ADD_FAILURE() << describe(c) << ": element " << i << " after the destination's end was written";
    }
    EXPECT_EQ(bad, 0) << describe(c) << " (" << copies.size() << " copies)";
  }
}

TEST(PadCopy, OneCopySmallShapes) {
  REQUIRE_GPU();
  const index_t shapes[][2] = {{1, 1},  {1, 9},   {1, 7},    {1, 8},   {2, 3},      {3, 16},    {5, 17},
                               {9, 31}, {64, 64}, {33, 255}, {7, 257}, {100, 1000}, {4097, 33}, {7, 4095}};
  for (const auto& sh : shapes)
    for (index_t extra : {0, 1, 3, 8})  // src_ld = cols + extra: odd and even
      for (index_t off : {0, 1, 2, 7}) {
        run({Case{sh[0], sh[1], sh[1] + extra, off}});
        if (::testing::Test::HasFailure()) return;  // one failing case is enough to read
      }
}

TEST(PadCopy, WideDestinationPadsAreZero) {
  // dst_ld beyond the next multiple of 8: whole pad chunks, and pad tiles
  // (more than 32 chunks past the data).
  REQUIRE_GPU();
  run({Case{3, 250, 251, 1, 512}});
  run({Case{5, 9, 9, 0, 24}});
  run({Case{1, 1, 1, 3, 8 * 70}});
  run({Case{40, 4095, 4095, 1, 4096 + 8}});
}

TEST(PadCopy, OneCopy4095) {
  REQUIRE_GPU();
  run({Case{4095, 4095, 4095, 0}});  // odd src_ld: the offset in a granule changes with every row
  run({Case{4095, 4095, 4095, 1}});
  run({Case{4095, 4095, 4096, 1}});  // even, aligned src_ld, odd pointer: every row at offset 1
  run({Case{4095, 4095, 4100, 0}});
}

TEST(PadCopy, OneCopy4097) {
  REQUIRE_GPU();
  run({Case{4097, 4097, 4097, 0}});
  run({Case{4097, 4097, 4097, 1}});
}

TEST(PadCopy, AlignedSourceToo) {
  // Rows that need no copy still copy right (the granule-aligned path alone).
  REQUIRE_GPU();
  run({Case{17, 64, 64, 0}});
  run({Case{17, 64, 72, 0}});
  run({Case{1000, 4096, 4096, 0}});
}

TEST(PadCopy, TwoCopiesInOneLaunch) {
  REQUIRE_GPU();
  run({Case{4095, 4095, 4095, 0}, Case{4095, 4095, 4095, 1}});
  run({Case{1, 1, 1, 0}, Case{4097, 33, 33, 1}});
  run({Case{4097, 33, 40, 3}, Case{1, 1, 1, 1}});
  run({Case{7, 4095, 4096, 1}, Case{1, 9, 9, 3}});
  run({Case{4097, 4097, 4097, 1}, Case{300, 4095, 4103, 0, 4104}});
}

TEST(PadCopy, RejectsInvalidArguments) {
  // No CUDA call happens before these checks: no GPU needed, and the
  // pointers are never dereferenced.
  auto* src = reinterpret_cast<const void*>(std::uintptr_t{0x10000});
  auto* dst = reinterpret_cast<void*>(std::uintptr_t{0x20000});
  const PadCopy good{src, dst, 4, 9, 9, 16};
  const auto code = [](std::vector<PadCopy> v, int count = -1) {
    return pad_copy(v.data(), count < 0 ? static_cast<int>(v.size()) : count, nullptr).code;
  };
  EXPECT_EQ(code({good}, 0), Status::invalid_argument);
  EXPECT_EQ(code({good, good, good}), Status::invalid_argument);
  EXPECT_EQ(pad_copy(nullptr, 1, nullptr).code, Status::invalid_argument);
  const auto bad = [&](auto change) {
    PadCopy c = good;
    change(c);
    return c;
  };
  const std::vector<PadCopy> wrong = {
      bad([](PadCopy& c) { c.src = nullptr; }),
      bad([](PadCopy& c) { c.dst = nullptr; }),
      bad([](PadCopy& c) { c.src = static_cast<const char*>(c.src) + 1; }),  // odd address
      bad([](PadCopy& c) { c.dst = static_cast<char*>(c.dst) + 2; }),        // dst not 16-byte aligned
      bad([](PadCopy& c) { c.rows = 0; }),
      bad([](PadCopy& c) { c.cols = 0; }),
      bad([](PadCopy& c) { c.src_ld = 8; }),   // < cols
      bad([](PadCopy& c) { c.dst_ld = 8; }),   // < cols
      bad([](PadCopy& c) { c.dst_ld = 12; }),  // not a multiple of 8
  };
  for (std::size_t i = 0; i < wrong.size(); ++i) {
    EXPECT_EQ(code({wrong[i]}), Status::invalid_argument) << "case " << i;
    const Status two = pad_copy(std::vector<PadCopy>{good, wrong[i]}.data(), 2, nullptr);
    EXPECT_EQ(two.code, Status::invalid_argument) << "case " << i << " as the second copy";
    EXPECT_NE(two.message.find("copy 1"), std::string::npos) << two.message;
  }
}

}  // namespace
