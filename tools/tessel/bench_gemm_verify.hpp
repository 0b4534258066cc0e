// `tessel bench gemm`: the verification of docs/bench-protocol.md §1, run
// once per problem before anything is timed (bench_gemm_verify.cu): random
// inputs, the fp64 reference GEMM and its tier-2 error bound on the device,
// and the comparison of a D with them (tier 1: bit-exact on small integers;
// tier 2: within the bound).
#pragma once

#include <cuda_runtime.h>

#include <string>

#include "bench_gemm_device.hpp"

namespace tessel::bench::gemm_detail {

/// Fills A, B (and C when beta != 0) with random data: integers in [-4, 4]
/// when `small_integers` (tier 1), otherwise uniform in [-1, 1).
void fill_inputs(ProblemData& d, bool small_integers, int sms, cudaStream_t s);

/// Computes the fp64 reference and the tier-2 bound into d.ref and d.bound.
void launch_reference(ProblemData& d, cudaStream_t s);

struct Verdict {
  bool passed = false;
  double max_err = 0;
  std::string note;  // why it failed (empty when passed)
};

/// Verifies `out` (the D just written) against the reference.
Verdict verify_output(ProblemData& d, const DeviceBuffer& out, VerifyTier tier, int sms, cudaStream_t s);

}  // namespace tessel::bench::gemm_detail
