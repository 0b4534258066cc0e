// tessel/host/jit.hpp — run-time compilation of GEMM kernels outside the
// ahead-of-time set (docs/design.md §6, "Compile time"), what it did, and
// its disk cache.  No CUDA: host code includes it without the toolkit.
//
// Opt in per call with GemmTuning::jit (tessel/gemm_types.hpp; the command
// line: `tessel bench gemm --jit` or TESSEL_JIT=1).  Today one kernel is
// compiled at run time: k13's fused epilogue with the activation, bias kind,
// C (beta != 0) and aux as compile-time constants, so that calls with C or
// aux are fused too (the ahead-of-time instance would spill there and sends
// them to the unfused path).  The compiler is nvcc, run as a subprocess:
//   TESSEL_NVCC         the nvcc to run (else the CUDA compiler the library
//                       was configured with, else `nvcc` on PATH)
//   TESSEL_INCLUDE_DIR  the directory holding tessel/ (else the source tree's
//                       include/, else the installed one)
//   TESSEL_CACHE_DIR    the disk cache (else $XDG_CACHE_HOME/tessel/kernels,
//                       else $HOME/.cache/tessel/kernels)
//   TESSEL_JIT_TIMEOUT  seconds a compile may take (default 600)
// The cache holds <key>.cubin and its manifest <key>.cu (the source and the
// key's other inputs); delete the directory, or run `tessel jit --clear`, to
// empty it.  A cache directory that cannot be written is only read: new
// kernels are compiled in a private temporary directory, kept in memory for
// the process, and jit_last_message() says so.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tessel/host/status.hpp"

namespace tessel {

/// What run-time compilation did in this process.
struct JitStats {
  std::uint64_t compiled = 0;     // kernels compiled by nvcc (first calls of a configuration)
  std::uint64_t disk_hits = 0;    // kernels loaded from the disk cache
  std::uint64_t memory_hits = 0;  // calls served by a kernel already loaded in this process
  std::uint64_t fallbacks = 0;    // calls that asked for a compiled kernel and ran the ahead-of-time path
};
JitStats jit_stats();

/// The last event of run-time compilation in words ("" before the first):
/// what was compiled (and how long nvcc took) or loaded from the disk
/// cache, or why a call fell back to the ahead-of-time path; a cache
/// directory that could not be written is named here.  Calls that reuse a
/// loaded kernel change nothing here (jit_stats counts them).  A call that
/// fell back also returns these words as its Status's message, with code ok.
std::string jit_last_message();

/// The disk cache's directory as the environment names it ("" when
/// TESSEL_CACHE_DIR, XDG_CACHE_HOME and HOME are all unset).
std::string jit_cache_dir();

/// The nvcc run-time compilation would run, "" when there is none (`why`
/// then says what is missing: no nvcc, no headers, `nvcc --version` failed).
/// Found once per process.
std::string jit_compiler(std::string* why = nullptr);

/// One kernel in the disk cache.
struct JitCacheEntry {
  std::string file;  // <key>.cubin
  std::uint64_t bytes = 0;
  std::string what;  // the kernel, in words (from its manifest)
};
/// The kernels cached in jit_cache_dir() (none when it does not exist).
Status jit_cache_list(std::vector<JitCacheEntry>& out);
/// Deletes the cache's files (<key>.cubin, <key>.cu and leftover
/// temporaries; nothing else), and the directory if that leaves it empty.
/// Kernels already loaded by running processes stay loaded there.
Status jit_cache_clear(int* removed = nullptr);

}  // namespace tessel
