// The padded copy of a 16-bit matrix whose rows TMA cannot describe
// (src/kernels/gemm/pad_copy.cu): the launchers of the TMA steps
// (tma_warp_specialized_launch.hpp) copy such an A or B into a temporary
// whose rows are 16-byte aligned, both operands in one launch.
#pragma once

#include <cuda_runtime.h>

#include "tessel/core/config.hpp"
#include "tessel/host/status.hpp"

namespace tessel::gemm_launch {

/// One copy: the row-major (rows x cols) matrix of 16-bit elements at `src`
/// (row stride src_ld elements, src_ld >= cols; any 2-byte aligned address)
/// into `dst` (row stride dst_ld elements: a multiple of 8, dst_ld >= cols;
/// a 16-byte aligned address).
///
/// Every element of the (rows x dst_ld) destination is written: columns
/// [0, cols) with the source's bit patterns, the pad columns [cols, dst_ld)
/// with zeros.  Nothing outside the source's rows (its columns [cols,
/// src_ld)) is read.
struct PadCopy {
  const void* src = nullptr;
  void* dst = nullptr;
  index_t rows = 0, cols = 0, src_ld = 0, dst_ld = 0;
};

/// The most copies one launch makes (A and B).
inline constexpr int kMaxPadCopies = 2;

/// Enqueues `count` (1 or 2) copies on `stream` as one kernel launch.
/// invalid_argument (and nothing enqueued) when a copy breaks the rules
/// above or the grid would be too large; cuda_error naming the kernel when
/// the launch fails.  The copies must not overlap each other.
Status pad_copy(const PadCopy* copies, int count, cudaStream_t stream);

}  // namespace tessel::gemm_launch
