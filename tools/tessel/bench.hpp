// `tessel bench`: options shared between the command line (main.cpp, plain
// C++) and the benchmarks (CUDA translation units).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "bench_gemm_args.hpp"
#include "tessel/core/config.hpp"
#include "tessel/host/attention.hpp"

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

/// `tessel bench attention` (bench_attention.cu): every combination of the
/// lists, (batch, heads, seq, dim) tensors or (batch, seq, heads, dim) with
/// seq_major, inputs uniform in [-1, 1].
struct AttentionBenchOptions {
  std::vector<index_t> seqs{8192};
  index_t seq_kv = 0;                           // 0: each problem's seq
  index_t batch = 1, heads = 32, kv_heads = 0;  // kv_heads 0: as many as heads
  std::vector<index_t> lengths;                 // packed sequences (cu_seqlens) of these lengths; replaces seqs
  std::vector<index_t> dims{128};
  std::vector<bool> causal{false};
  DType dtype = DType::bf16;
  bool seq_major = false;
  std::vector<AttentionImpl> impls{AttentionImpl::a01, AttentionImpl::a02, AttentionImpl::a03, AttentionImpl::a04};
  int warmup = 10, iterations = 50, repeat = 1;
  int verify_rows = 64;      // sampled query rows checked against fp64
  bool verify_only = false;  // time nothing (compute-sanitizer runs)
  std::string csv;           // "" or "-": standard output
};

/// Runs the attention benchmark; exit codes as run_gemm_bench's.
int run_attention_bench(const AttentionBenchOptions& options);

}  // namespace tessel::bench
