// `tessel bench`: options shared between the command line (main.cpp, plain
// C++) and the benchmarks (CUDA translation units).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "bench_gemm_args.hpp"
#include "tessel/core/config.hpp"

namespace tessel {
enum class CopyKernel;
}

namespace tessel::bench {

struct CopyBenchOptions {
  std::vector<std::size_t> sizes_mib;  // bytes of one matrix, in MiB
  std::vector<CopyKernel> kernels;     // which tile copy kernels
  index_t cols = 0;                    // row length of the bf16 matrix (0: near-square)
  std::string csv;                     // output file ("" = standard output)
};

/// Runs the copy benchmark; returns the process exit code.
int run_copy_bench(const CopyBenchOptions& options);

/// Runs the GEMM benchmark (bench_gemm.cu) on options validated by
/// parse_gemm_bench_args (GemmBenchOptions: bench_gemm_args.hpp).  Returns
/// the process exit code: 0 done (whatever the rows' dispositions), 1 an
/// output file cannot be written, 3 a CUDA error that
/// stopped the run, 4 no CUDA device (the README's exit-status table).
int run_gemm_bench(const GemmBenchOptions& options);

}  // namespace tessel::bench
