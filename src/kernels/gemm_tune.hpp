// Measured tuning's device side (gemm_tune.cu), called by tessel::gemm and
// tessel::gemm_plan for GemmImpl::automatic.
#pragma once

#include <string>

#include "tessel/gemm_tune.hpp"
#include "tessel/host/gemm.hpp"

namespace tessel::gemm_launch {

/// args.tuning.tune, or TESSEL_TUNE=1 (on, true, yes) in the environment (read once).
bool tune_wanted(const GemmArgs& args);

/// What decides a tuned choice, as one line: device name and SM count, the
/// library's version and header hash, types, layout, extents, leading
/// dimensions, 16-byte alignment of A, B and D, whether C is read, the
/// epilogue, and the knobs the caller fixed.
std::string tune_key(const GemmArgs& args);

/// The tuned choice for `args`, from this process's memory or the disk
/// cache (a corrupt or foreign file, or a choice that no longer serves the
/// call, is ignored with a warning on standard error); `why` gets the words
/// for gemm_plan.  false: not tuned yet.
bool tuned_choice(const GemmArgs& args, GemmCandidate& out, std::string* why);

/// Times every candidate that serves checked `args` (gemm_candidates,
/// candidate_matches, gemm_check) on `stream` and records the fastest in
/// memory and on disk.  Nothing of the caller's is written.  unsupported
/// (the caller then runs the plan) under graph capture, when scratch memory
/// cannot be had, or when no candidate runs; cuda_error on a device error.
Status tune(const GemmArgs& args, cudaStream_t stream, GemmCandidate& out, std::string& why);

/// `args` with candidate `c`'s knobs (tune cleared).
GemmArgs tuned_args(const GemmArgs& args, const GemmCandidate& c);

}  // namespace tessel::gemm_launch
