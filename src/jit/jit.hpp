// Run-time compilation of kernels outside the ahead-of-time set
// (docs/design.md §6, "Compile time"): nvcc run as a subprocess on a
// generated translation unit, the cubin cached on disk under a hash of
// everything that decides its contents, loaded from memory by the caller
// (src/kernels/gemm/k13_jit.cu).  This part is host code without CUDA, so
// that the cache, the key and the compile are tested on the CPU
// (tests/jit_test.cpp).
//
// The steps, for one kernel:
//   1. toolchain(): nvcc (TESSEL_NVCC, else the CUDA compiler CMake
//      configured, else `nvcc` on PATH), tessel's headers (TESSEL_INCLUDE_DIR,
//      else the source tree's include/, else the installed one), the flags,
//      and `nvcc --version`'s text: found once per process.
//   2. cache_key(): FNV-1a (64 bits) of the source, the flags, nvcc's
//      version text, tessel's version and the hash of tessel's header tree
//      taken when the library was built.
//   3. obtain_cubin(): `<cache>/<key>.cubin` if present and its manifest
//      `<key>.cu` (the source and the key's other inputs) matches; else nvcc
//      in a private temporary directory, then both files published
//      atomically (written beside their final name, then renamed).  A cache
//      directory that cannot be created or written leaves the cubin in
//      memory only, and says so (Cubin::note).
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "tessel/gemm_types.hpp"

namespace tessel::jit {

// ------------------------------------------------------------------ hashing

/// 64-bit FNV-1a.  `add` feeds the bytes; `add_field` feeds a length, then
/// the bytes, so that the fields of a key cannot run into each other
/// ("ab" + "c" and "a" + "bc" differ).
struct Fnv1a {
  std::uint64_t h = 0xcbf29ce484222325ull;
  void add(std::string_view s);
  void add_field(std::string_view s);
};
/// The 16 lower-case hex digits of `x`.
std::string hex64(std::uint64_t x);
/// `dir`/`name` (no second '/' where `dir` ends in one; `name` alone where `dir` is empty).
std::string join(const std::string& dir, const std::string& name);

// ------------------------------------------------------------------ where things are

/// Reads an environment variable (a parameter, so tests can give their own).
using EnvFn = std::function<const char*(const char*)>;
/// The process's environment (std::getenv).
const char* process_env(const char* name);

/// The cache directory: $TESSEL_CACHE_DIR, else $XDG_CACHE_HOME/tessel/kernels,
/// else $HOME/.cache/tessel/kernels; empty variables count as unset; ""
/// when none is set.  Relative paths are taken as given (relative to the
/// working directory).
std::string resolve_cache_dir(const EnvFn& env);

/// What was configured into the library (CMake): the CUDA compiler, the host
/// compiler nvcc should use, the source tree's and the install's include
/// directories, tessel's version and the header tree's hash.  Empty where
/// not configured (a host-only build has no CUDA compiler).
struct Configured {
  std::string nvcc, host_compiler, source_include, install_include, version, headers_hash;
};
const Configured& configured();

/// The nvcc to run: $TESSEL_NVCC (which must then be executable), else
/// `configured_nvcc` if executable, else `nvcc` found on $PATH.  "" with
/// `why` set when there is none.
std::string find_nvcc(const EnvFn& env, const std::string& configured_nvcc, std::string& why);
/// tessel's include directory: $TESSEL_INCLUDE_DIR (which must hold tessel's
/// k13 header), else the first of `candidates` that does.  "" with `why`
/// set when none does.
std::string find_include_dir(const EnvFn& env, const std::vector<std::string>& candidates, std::string& why);

/// The compiler, its flags and its version, found once per process.
struct Toolchain {
  bool ok = false;
  std::string why;  // when !ok: what is missing
  std::string nvcc;
  std::string include_dir;
  std::vector<std::string> flags;  // everything but the input and output files
  std::string nvcc_version;        // `nvcc --version`'s output
  double probe_seconds = 0;        // the time `nvcc --version` took
};
/// Builds a toolchain from an environment (tests).
Toolchain make_toolchain(const EnvFn& env, const Configured& cfg);
/// The process's toolchain (make_toolchain(process_env, configured()) once).
const Toolchain& toolchain();
/// The flags for nvcc with tessel's headers in `include_dir` and host
/// compiler `host_compiler` ("" for nvcc's default): sm_90a cubin, C++20,
/// the library's -O3 -DNDEBUG --expt-relaxed-constexpr, spills reported.
std::vector<std::string> nvcc_flags(const std::string& include_dir, const std::string& host_compiler);

// ------------------------------------------------------------------ the key

/// The inputs of a kernel's cache key, and the key.
struct KeyInputs {
  std::string_view source;
  const std::vector<std::string>* flags = nullptr;
  std::string_view nvcc_version, tessel_version, headers_hash;
};
std::uint64_t cache_key(const KeyInputs& in);
/// The manifest stored beside a cubin as <key>.cu: the source, then the
/// key's other inputs as comments.  A disk hit requires it to match, so a
/// hash collision or a stray file is a miss, not a wrong kernel.
std::string manifest(const KeyInputs& in);

// ------------------------------------------------------------------ files

bool read_file(const std::string& path, std::string& out);
/// Writes `bytes` to `dir/name` atomically: a temporary file in `dir`
/// (".<name>.<pid>.<n>.tmp"), flushed, then renamed over `name`; readers see
/// the old file or the whole new one.  false with `error` set (nothing left
/// behind) when the directory cannot be written.
bool publish(const std::string& dir, const std::string& name, std::string_view bytes, std::string& error);
/// mkdir -p (mode 0755); false with `error` set when a component cannot be made.
bool make_dirs(const std::string& dir, std::string& error);
/// A private directory under $TMPDIR (else /tmp), mode 0700; "" on failure.
std::string make_temp_dir(std::string& error);
/// Removes `dir` and the files directly in it (the compile's temporaries).
void remove_temp_dir(const std::string& dir);

// ------------------------------------------------------------------ running nvcc

/// A finished subprocess: its exit status (-1 if it could not start or was
/// killed), its standard output and error together, and the wall time.
struct RunResult {
  int status = -1;
  bool timed_out = false;
  std::string output;
  double seconds = 0;
  std::string error;  // why it could not run
};
/// Runs argv[0] with argv (no shell: posix_spawn) in its own process group,
/// stdin from /dev/null, stdout and stderr into a file in `work_dir`; kills
/// the group after `timeout_seconds`.
RunResult run_process(const std::vector<std::string>& argv, const std::string& work_dir, double timeout_seconds);

/// The seconds a compile may take: $TESSEL_JIT_TIMEOUT, else 600.
double compile_timeout();

/// A compile of `source` (one translation unit) into `work_dir`/kernel.cubin.
struct Compiled {
  bool ok = false;
  std::string cubin;  // the bytes
  std::string log;    // nvcc's output
  std::string error;  // when !ok
  double seconds = 0;
  bool spilled = false;  // ptxas reported local memory (spills or a stack frame)
};
Compiled compile(const Toolchain& tc, std::string_view source, const std::string& work_dir);

// ------------------------------------------------------------------ the cache

/// Where a cubin came from.
enum class Origin { disk, compiled_and_kept, compiled_not_kept };

struct Cubin {
  bool ok = false;
  std::string bytes;
  Origin origin = Origin::disk;
  std::string key;    // 16 hex digits
  std::string path;   // where it is (or would be) kept; "" when no cache directory is named
  std::string note;   // for the caller's message: read-only cache, spills, ...
  std::string error;  // when !ok
  double compile_seconds = 0;
};
/// The cubin of `source` (described by `what` in messages): from the cache
/// directory `cache_dir` ("" if none), else compiled with `tc` and kept there
/// where possible.  `skip_disk`: compile even if a cached file exists (the
/// cached one failed to load).
Cubin obtain_cubin(const Toolchain& tc, const std::string& cache_dir, std::string_view source, std::string_view what,
                   bool skip_disk = false);

/// The files of a cache directory: each <key>.cubin with its manifest's
/// first comment line (what the kernel is).
struct CacheFile {
  std::string name;
  std::uint64_t bytes = 0;
  std::string what;
};
bool list_cache(const std::string& dir, std::vector<CacheFile>& out, std::string& error);
/// Removes the cache's <key>.cubin and <key>.cu files and stray temporaries
/// (nothing else), then the directory if it is empty.  `removed` counts files.
bool clear_cache(const std::string& dir, int& removed, std::string& error);

// ------------------------------------------------------------------ what happened

/// Counters behind tessel::jit_stats(), and the last event's words.
struct Counters {
  std::atomic<std::uint64_t> compiled{0}, disk_hits{0}, memory_hits{0}, fallbacks{0};
};
Counters& counters();
void set_last_message(std::string msg);
std::string last_message();

// ------------------------------------------------------------------ k13's specialized epilogue

/// One run-time compiled k13 fused instance: tile 128 x tile_n, input type
/// and layout, and the epilogue's constants (gemm_kernels::StaticEpilogue).
/// `smem_bytes` and `params_bytes` (0: not checked) are the launcher's
/// Tiles<...>::kSmemBytes and sizeof(FusedParams<T>), which the generated
/// source asserts, so headers that drifted from the library fail to compile
/// instead of running with another layout.
struct K13Spec {
  DType ab = DType::bf16;
  GemmLayout layout{};
  int tile_n = 128;
  Activation act = Activation::none;
  BiasKind bias = BiasKind::none;
  bool with_c = false, with_aux = false;
  int smem_bytes = 0, params_bytes = 0;
};
/// "k13 128x256 bf16 A:k,B:n gelu_tanh bias col +C +aux".
std::string describe(const K13Spec& s);
/// The translation unit: k13's header and one explicit instantiation of
/// gemm_wgmma_in_flight<T, MA, MB, SpecializedConfig<BN, StaticEpilogue<...>>>.
std::string k13_epilogue_source(const K13Spec& s);

}  // namespace tessel::jit
