// `tessel bench`: options shared between the command line (main.cpp, plain
// C++) and the benchmarks (CUDA translation units).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "tessel/core/config.hpp"

namespace tessel {
enum class CopyKernel;
}

namespace tessel::bench {

struct CopyBenchOptions {
  std::vector<std::size_t> sizes_mib;   // bytes of one matrix, in MiB
  std::vector<CopyKernel> kernels;      // which tile copy kernels
  index_t cols = 0;                     // row length of the bf16 matrix (0: near-square)
  std::string csv;                      // output file ("" = standard output)
};

/// Runs the copy benchmark; returns the process exit code.
int run_copy_bench(const CopyBenchOptions& options);

}  // namespace tessel::bench
