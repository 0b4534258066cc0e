// The on-disk cache of measured tuning (GemmTuning::tune, TESSEL_TUNE=1):
// one small text file per tuned problem, named by a hash of its key and
// holding the whole key, so that a collision or a stray file is a miss, never
// a wrong configuration.  Host code without CUDA, tested on the CPU
// (tests/tune_cache_test.cpp); the timing that fills it is
// src/kernels/gemm_tune.cu.
//
// Files are published atomically (jit::publish: written beside their name,
// flushed, renamed), so concurrent processes see an old file or a whole new
// one; two processes tuning the same problem both write a valid entry and
// the last rename wins.  A file that does not parse (corrupt) or was written
// by another format version or for another key (foreign) is ignored, said
// once per file on standard error, and replaced by the next tuning.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "src/jit/jit.hpp"

namespace tessel::tune {

/// The format's first line; another first line makes a file foreign.
inline constexpr std::string_view kMagic = "tessel-tune 1";

/// One tuned problem: its key (what decides the choice: device, library
/// build, types, layouts, extents, leading dimensions, epilogue), the chosen
/// configuration (candidate_name), its median time and how many
/// configurations were timed.
struct Entry {
  std::string key;
  std::string choice;
  double median_us = 0;
  int timed = 0;
};

/// The directory: $TESSEL_TUNE_CACHE, else $TESSEL_CACHE_DIR/tune, else
/// $XDG_CACHE_HOME/tessel/tune, else $HOME/.cache/tessel/tune; "" when none
/// is set (tuning then keeps its results in memory only).
std::string resolve_dir(const jit::EnvFn& env);

/// "<16 hex digits of the key's FNV-1a>.tune".
std::string file_name(std::string_view key);

/// The file's text: kMagic, then `key`, `choice`, `median_us`, `timed` lines.
std::string serialize(const Entry& e);

enum class Found { hit, miss, corrupt, foreign };
/// "hit", "miss", "corrupt", "foreign".
const char* name(Found f);

/// Parses a file's text for `key`: hit (out filled), foreign (another
/// version's magic, or another key: `why` says which), corrupt (anything
/// else malformed, `why` says what).
Found parse(std::string_view text, std::string_view key, Entry& out, std::string& why);

/// Looks `key` up in `dir`: miss when there is no file; else parse()'s verdict.
Found load(const std::string& dir, std::string_view key, Entry& out, std::string& why);

/// Publishes `e` under `dir` (made if missing).  false with `error` set when
/// the directory cannot be made or written.
bool store(const std::string& dir, const Entry& e, std::string& error);

/// The entries of `dir` that parse (their own key), for `tessel tune --list`;
/// `skipped` counts the files that do not.
bool list(const std::string& dir, std::vector<Entry>& out, int& skipped, std::string& error);

/// Removes the *.tune files (and stray temporaries) of `dir`; `removed` counts them.
bool clear(const std::string& dir, int& removed, std::string& error);

}  // namespace tessel::tune
