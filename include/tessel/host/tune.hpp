// tessel/host/tune.hpp — the on-disk cache of measured tuning
// (GemmTuning::tune, TESSEL_TUNE=1; tessel/gemm_tune.hpp): where it is, what
// it holds, and emptying it.  No CUDA.
//
//   TESSEL_TUNE=1        every tessel::gemm(auto) call of a single 16-bit
//                        problem on sm_90 is tuned (as GemmTuning::tune)
//   TESSEL_TUNE_CACHE    the directory (else $TESSEL_CACHE_DIR/tune, else
//                        $XDG_CACHE_HOME/tessel/tune, else
//                        $HOME/.cache/tessel/tune)
//   TESSEL_TUNE_LOG      a file to which every timed configuration is
//                        appended (key, configuration, median us, launches)
// One file per tuned problem, named by a hash of its key (device, library
// build, types, layout, extents, leading dimensions, alignment, epilogue);
// delete the directory, or run `tessel tune --clear`, to forget every choice.
#pragma once

#include <string>
#include <vector>

#include "tessel/host/status.hpp"

namespace tessel {

/// The directory measured tuning keeps its choices in; "" when none can be
/// named (choices then stay in the process's memory).
std::string tune_cache_dir();

/// One kept choice: the problem's key, the configuration (k13:128x192:s1,
/// k14:64x128, k15:128x128, ...), its median time and how many
/// configurations were timed.
struct TuneCacheEntry {
  std::string key, choice;
  double median_us = 0;
  int timed = 0;
};
/// The kept choices (files that do not parse are counted in `skipped`).
Status tune_cache_list(std::vector<TuneCacheEntry>& out, int* skipped = nullptr);
/// Deletes the kept choices (the directory's other files stay).
Status tune_cache_clear(int* removed = nullptr);

}  // namespace tessel
