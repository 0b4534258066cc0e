// f06 — M/N-major shared tiles read with 128-bit loads; cp.async loads.
//
// The seed's last step stores B column-major so that the inner loop reads
// it along its contiguous index.  The Hopper form of that idea: f05's
// threads read 4 consecutive rows of A (and of B) per k, so lay both tiles
// out with M (N) contiguous, (128,8):(1,132), and each thread's 4 values
// are one 16-byte vector: one LDS.128 instead of four LDS.32.  Per k a
// thread issues 2 + 2 shared loads for 64 FFMAs (f05: 8 + 8), so nearly
// every issue slot goes to an FFMA.  Per warp a 128-bit read of A is 8
// distinct vectors (128 contiguous bytes, one wavefront) and of B 4.
//
// The loads become cp.async (global to shared without registers, so the
// register-staged values and their STS go away):
//  * an M/N-contiguous operand (A:m, B:n) whose rows are 16-byte aligned
//    (pointer and leading dimension a multiple of 4 floats): one 16-byte
//    cp.async per thread per k-tile, 4 floats down M (N); partial vectors
//    at the edges read only their valid bytes and zero-fill the rest;
//  * otherwise 4-byte cp.async, one element each: for K-contiguous operands
//    (A:k, B:k) this is the transpose into the M-major tile, 8 threads
//    along K reading one 32-byte sector per row.
// The pad of 4 words per k-row keeps the vectors 16-byte aligned and makes
// the transposing stores conflict-free: element (m, k) is in bank
// (132k + m) % 32 = (4k + m) % 32, and a warp stores 4 rows x 8 k, banks
// 0..31 once each (checked below).
#pragma once

#include "tessel/kernels/gemm/f05_warp_tiling.cuh"

namespace tessel::gemm_kernels::f06 {

using f04::kBK;
using f04::kBM;
using f04::kBN;
using f04::kThreads;

/// Words of padding after each k-row of 128 floats (a multiple of 4: 16-byte vectors).
inline constexpr int kPad = 4;

/// M/N-major (128,8) tiles, k-rows of 128 + 4 floats.
struct SmemMNMajor {
  static constexpr Layout a = make_layout(make_shape(kBM, kBK), make_stride(1, kBM + kPad));
  static constexpr Layout b = make_layout(make_shape(kBN, kBK), make_stride(1, kBN + kPad));
};

/// cp.async of a (128,8) tile: f04's 4-byte copies (K contiguous: thread t
/// at (t/2, 4*(t%2)); M/N contiguous: thread t at (4*(t%32), t/32)), and for
/// M/N-contiguous operands with 16-byte rows the same threads with one
/// 16-byte copy each.
using AsyncLoadMN16 = MakeTiledCopy<SM80_CpAsync<float, 16>, f04::kLoadThrMN, f04::kLoadValMN>;

struct Config {
  using Mma = f05::WarpTiledMma;
  using Smem = SmemMNMajor;
  using FragAtom = UniversalCopy<float, 128>;
  using Epilogue = SmemEpilogue<kThreads>;
  static constexpr int kMinBlocks = 1;  // as f05: at 128 registers ptxas spills (64..88 bytes)

  /// A (128,8) tile of A or B (global tile `tile` of the matrix at `base`
  /// with leading dimension `ld`) into the stage at `s`, by cp.async.
  template <OperandMajor Major, class G>
  __device__ static void load_async(const G& tile, float* s, int thread, const float* base, index_t ld) {
    static_assert(Smem::a == Smem::b, "tessel: A and B stages share one layout");
    const auto sX = make_smem_tensor<Smem::a>(s);  // (128,8)
    using Scalar = f04::AsyncLoad<Major>;
    if constexpr (Major == OperandMajor::mn) {
      if (f04::rows_aligned16_f32(base, ld)) {
        f04::load_tile<AsyncLoadMN16>(tile, AsyncLoadMN16{}.get_slice(thread).partition_D(sX), thread);
        return;
      }
    }
    f04::load_tile<Scalar>(tile, Scalar{}.get_slice(thread).partition_D(sX), thread);
  }
};

// The transposing stores of K-contiguous operands are conflict-free, and so
// are the MMA's reads (counted per 4-byte value of the vectors).  The 4-byte
// copies of an M/N-contiguous operand without 16-byte rows are 4-way (a
// warp's value v is rows 4*lane + v); its 16-byte copies write 512
// consecutive bytes per warp, four conflict-free wavefronts.
static_assert(bank_conflict_ways(f04::AsyncLoad<OperandMajor::k>::kPartition<SmemMNMajor::a>, 4) == 1);
static_assert(bank_conflict_ways(f04::AsyncLoad<OperandMajor::mn>::kPartition<SmemMNMajor::a>, 4) == 4);
static_assert(bank_conflict_ways(f05::WarpTiledMma::kPartA<SmemMNMajor::a>, 4) == 1);
static_assert(bank_conflict_ways(f05::WarpTiledMma::kPartB<SmemMNMajor::b>, 4) == 1);

}  // namespace tessel::gemm_kernels::f06
