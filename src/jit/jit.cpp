// Run-time compilation: the toolchain, the key, the disk cache and the nvcc
// subprocess (src/jit/jit.hpp; docs/design.md §6).  POSIX only.
#include "src/jit/jit.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <mutex>
#include <sstream>
#include <thread>

#include "tessel_jit_headers_hash.hpp"  // TESSEL_JIT_HEADERS_HASH, generated at build time (CMakeLists.txt)

extern char** environ;

// What CMake configured (CMakeLists.txt, tessel_jit); empty where it did not.
#ifndef TESSEL_JIT_NVCC
#define TESSEL_JIT_NVCC ""
#endif
#ifndef TESSEL_JIT_HOST_COMPILER
#define TESSEL_JIT_HOST_COMPILER ""
#endif
#ifndef TESSEL_JIT_SOURCE_INCLUDE
#define TESSEL_JIT_SOURCE_INCLUDE ""
#endif
#ifndef TESSEL_JIT_INSTALL_INCLUDE
#define TESSEL_JIT_INSTALL_INCLUDE ""
#endif
#ifndef TESSEL_JIT_VERSION
#define TESSEL_JIT_VERSION "unknown"
#endif

namespace tessel::jit {

namespace {

std::string errno_text(int e) { return std::strerror(e); }

bool is_executable(const std::string& path) {
  struct stat st {};
  return !path.empty() && ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(path.c_str(), X_OK) == 0;
}

bool is_dir(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

/// Is `name` a cache entry's file: 16 hex digits, then ".cubin" or ".cu"?
bool is_entry_name(const std::string& name, const char* suffix) {
  const std::size_t n = std::strlen(suffix);
  if (name.size() != 16 + n || name.compare(16, n, suffix) != 0) return false;
  return std::all_of(name.begin(), name.begin() + 16,
                     [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

/// A stray temporary of publish(): ".<name>.<pid>.<n>.tmp".
bool is_temp_name(const std::string& name) {
  return name.size() > 5 && name[0] == '.' && name.compare(name.size() - 4, 4, ".tmp") == 0;
}

/// The last `n` characters of a log (compile errors are at the end).
std::string tail(const std::string& s, std::size_t n) { return s.size() <= n ? s : "..." + s.substr(s.size() - n); }

}  // namespace

// ------------------------------------------------------------------ hashing

void Fnv1a::add(std::string_view s) {
  for (char c : s) {
    h ^= static_cast<unsigned char>(c);
    h *= 0x100000001b3ull;
  }
}

void Fnv1a::add_field(std::string_view s) {
  const std::uint64_t n = s.size();
  char len[8];
  for (int i = 0; i < 8; ++i) len[i] = static_cast<char>((n >> (8 * i)) & 0xFF);
  add(std::string_view(len, 8));
  add(s);
}

std::string join(const std::string& dir, const std::string& name) {
  if (dir.empty() || dir.back() == '/') return dir + name;
  return dir + "/" + name;
}

std::string hex64(std::uint64_t x) {
  static const char* digits = "0123456789abcdef";
  std::string s(16, '0');
  for (int i = 15; i >= 0; --i, x >>= 4) s[static_cast<std::size_t>(i)] = digits[x & 0xF];
  return s;
}

// ------------------------------------------------------------------ where things are

const char* process_env(const char* name) { return std::getenv(name); }

std::string resolve_cache_dir(const EnvFn& env) {
  const auto get = [&](const char* n) -> std::string {
    const char* v = env(n);
    return v == nullptr ? std::string() : std::string(v);
  };
  if (std::string d = get("TESSEL_CACHE_DIR"); !d.empty()) return d;
  if (std::string x = get("XDG_CACHE_HOME"); !x.empty()) return join(x, "tessel/kernels");
  if (std::string h = get("HOME"); !h.empty()) return join(h, ".cache/tessel/kernels");
  return "";
}

const Configured& configured() {
  static const Configured c{TESSEL_JIT_NVCC,           TESSEL_JIT_HOST_COMPILER,
                            TESSEL_JIT_SOURCE_INCLUDE, TESSEL_JIT_INSTALL_INCLUDE,
                            TESSEL_JIT_VERSION,        TESSEL_JIT_HEADERS_HASH};
  return c;
}

std::string find_nvcc(const EnvFn& env, const std::string& configured_nvcc, std::string& why) {
  if (const char* v = env("TESSEL_NVCC"); v != nullptr && *v != '\0') {
    if (is_executable(v)) return v;
    why = std::string("TESSEL_NVCC=") + v + " is not an executable file";
    return "";
  }
  if (is_executable(configured_nvcc)) return configured_nvcc;
  const char* path = env("PATH");
  std::string dirs = path == nullptr ? "" : path;
  std::size_t at = 0;
  while (at <= dirs.size()) {
    const std::size_t end = std::min(dirs.find(':', at), dirs.size());
    const std::string dir = dirs.substr(at, end - at);
    if (const std::string p = join(dir.empty() ? "." : dir, "nvcc"); is_executable(p)) return p;
    at = end + 1;
  }
  why = "no nvcc: TESSEL_NVCC is unset, " +
        (configured_nvcc.empty() ? std::string("no CUDA compiler was configured") : configured_nvcc + " is missing") +
        ", and none is on PATH";
  return "";
}

std::string find_include_dir(const EnvFn& env, const std::vector<std::string>& candidates, std::string& why) {
  constexpr const char* kProbe = "tessel/kernels/gemm/k13_wgmma_in_flight.cuh";
  if (const char* v = env("TESSEL_INCLUDE_DIR"); v != nullptr && *v != '\0') {
    if (::access(join(v, kProbe).c_str(), R_OK) == 0) return v;
    why = std::string("TESSEL_INCLUDE_DIR=") + v + " has no " + kProbe;
    return "";
  }
  for (const std::string& c : candidates)
    if (!c.empty() && ::access(join(c, kProbe).c_str(), R_OK) == 0) return c;
  why = "tessel's headers are not found (set TESSEL_INCLUDE_DIR to the directory that holds tessel/)";
  return "";
}

std::vector<std::string> nvcc_flags(const std::string& include_dir, const std::string& host_compiler) {
  std::vector<std::string> f = {"-cubin",
                                "-arch=sm_90a",
                                "-std=c++20",
                                "--expt-relaxed-constexpr",
                                "-O3",
                                "-DNDEBUG",
                                "-Xptxas=-warn-spills,-warn-lmem-usage",
                                "-I" + include_dir};
  if (!host_compiler.empty()) {
    f.push_back("-ccbin");
    f.push_back(host_compiler);
  }
  return f;
}

Toolchain make_toolchain(const EnvFn& env, const Configured& cfg) {
  Toolchain tc;
  tc.nvcc = find_nvcc(env, cfg.nvcc, tc.why);
  if (tc.nvcc.empty()) return tc;
  tc.include_dir = find_include_dir(env, {cfg.source_include, cfg.install_include}, tc.why);
  if (tc.include_dir.empty()) return tc;
  tc.flags = nvcc_flags(tc.include_dir, cfg.host_compiler);
  std::string err;
  const std::string work = make_temp_dir(err);
  if (work.empty()) {
    tc.why = "cannot make a temporary directory: " + err;
    return tc;
  }
  const RunResult r = run_process({tc.nvcc, "--version"}, work, 60);
  remove_temp_dir(work);
  tc.probe_seconds = r.seconds;
  if (r.status != 0) {
    tc.why = tc.nvcc + " --version failed" + (r.error.empty() ? "" : ": " + r.error) + " " + tail(r.output, 400);
    return tc;
  }
  tc.nvcc_version = r.output;
  tc.ok = true;
  return tc;
}

const Toolchain& toolchain() {
  static const Toolchain tc = make_toolchain(process_env, configured());
  return tc;
}

// ------------------------------------------------------------------ the key

std::uint64_t cache_key(const KeyInputs& in) {
  Fnv1a h;
  h.add_field("tessel-jit-key-1");
  h.add_field(in.source);
  const std::size_t nflags = in.flags == nullptr ? 0 : in.flags->size();
  h.add_field(std::to_string(nflags));
  for (std::size_t i = 0; i < nflags; ++i) h.add_field((*in.flags)[i]);
  h.add_field(in.nvcc_version);
  h.add_field(in.tessel_version);
  h.add_field(in.headers_hash);
  return h.h;
}

std::string manifest(const KeyInputs& in) {
  std::string m(in.source);
  if (!m.empty() && m.back() != '\n') m += '\n';
  m += "// ---- the rest of this kernel's cache key (src/jit/jit.hpp)\n// flags:";
  if (in.flags != nullptr)
    for (const std::string& f : *in.flags) m += " " + f;
  m += "\n// tessel " + std::string(in.tessel_version) + ", headers " + std::string(in.headers_hash) + "\n";
  std::istringstream v{std::string(in.nvcc_version)};
  for (std::string line; std::getline(v, line);) m += "// nvcc: " + line + "\n";
  return m;
}

// ------------------------------------------------------------------ files

bool read_file(const std::string& path, std::string& out) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return false;
  std::ostringstream s;
  s << f.rdbuf();
  if (f.bad()) return false;
  out = s.str();
  return true;
}

bool make_dirs(const std::string& dir, std::string& error) {
  if (dir.empty()) {
    error = "no directory named";
    return false;
  }
  std::size_t at = 0;
  while (at != std::string::npos) {
    at = dir.find('/', at + 1);
    const std::string part = dir.substr(0, at);
    if (part.empty() || is_dir(part)) continue;
    if (::mkdir(part.c_str(), 0755) != 0 && errno != EEXIST) {
      error = "cannot create " + part + ": " + errno_text(errno);
      return false;
    }
    if (!is_dir(part)) {
      error = part + " is not a directory";
      return false;
    }
  }
  return true;
}

bool publish(const std::string& dir, const std::string& name, std::string_view bytes, std::string& error) {
  static std::atomic<unsigned> serial{0};
  const std::string tmp =
      join(dir, "." + name + "." + std::to_string(::getpid()) + "." + std::to_string(serial.fetch_add(1)) + ".tmp");
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) {
    error = "cannot write in " + dir + ": " + errno_text(errno);
    return false;
  }
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t w = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) {
      error = "cannot write " + tmp + ": " + errno_text(errno);
      ::close(fd);
      ::unlink(tmp.c_str());
      return false;
    }
    done += static_cast<std::size_t>(w);
  }
  // Flushed before the rename: after a crash the name holds the old file or the whole new one.
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    error = "cannot flush " + tmp + ": " + errno_text(errno);
    ::unlink(tmp.c_str());
    return false;
  }
  if (::rename(tmp.c_str(), join(dir, name).c_str()) != 0) {
    error = "cannot rename " + tmp + " to " + name + ": " + errno_text(errno);
    ::unlink(tmp.c_str());
    return false;
  }
  return true;
}

std::string make_temp_dir(std::string& error) {
  const char* t = std::getenv("TMPDIR");
  std::string pattern = join(t != nullptr && *t != '\0' ? t : "/tmp", "tessel-jit-XXXXXX");
  std::vector<char> buf(pattern.begin(), pattern.end());
  buf.push_back('\0');
  if (::mkdtemp(buf.data()) == nullptr) {
    error = "mkdtemp(" + pattern + "): " + errno_text(errno);
    return "";
  }
  return buf.data();
}

void remove_temp_dir(const std::string& dir) {
  if (dir.empty()) return;
  if (DIR* d = ::opendir(dir.c_str())) {
    std::vector<std::string> names;
    while (const dirent* e = ::readdir(d)) {
      const std::string n = e->d_name;
      if (n != "." && n != "..") names.push_back(n);
    }
    ::closedir(d);
    for (const std::string& n : names) ::unlink(join(dir, n).c_str());
  }
  ::rmdir(dir.c_str());
}

// ------------------------------------------------------------------ running nvcc

RunResult run_process(const std::vector<std::string>& argv, const std::string& work_dir, double timeout_seconds) {
  RunResult r;
  const std::string log = join(work_dir, "output.log");
  posix_spawn_file_actions_t files;
  posix_spawnattr_t attr;
  posix_spawn_file_actions_init(&files);
  posix_spawnattr_init(&attr);
  posix_spawn_file_actions_addopen(&files, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&files, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_adddup2(&files, 1, 2);
  // Its own process group: a timeout kills nvcc and the tools it started.
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attr, 0);
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const auto start = std::chrono::steady_clock::now();
  pid_t pid = 0;
  const int rc = ::posix_spawn(&pid, args[0], &files, &attr, args.data(), environ);
  posix_spawn_file_actions_destroy(&files);
  posix_spawnattr_destroy(&attr);
  if (rc != 0) {
    r.error = "cannot run " + argv[0] + ": " + errno_text(rc);
    return r;
  }
  int status = 0;
  for (;;) {
    const pid_t w = ::waitpid(pid, &status, WNOHANG);
    if (w == pid) break;
    if (w < 0 && errno != EINTR) {
      r.error = "waitpid: " + errno_text(errno);
      break;
    }
    const double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (t > timeout_seconds) {
      ::kill(-pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      r.timed_out = true;
      r.error = argv[0] + " ran past " + std::to_string(static_cast<int>(timeout_seconds)) +
                " s (TESSEL_JIT_TIMEOUT) and was stopped";
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(t < 1.0 ? 2 : 20));
  }
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  read_file(log, r.output);
  if (r.error.empty() && WIFEXITED(status)) r.status = WEXITSTATUS(status);
  if (r.error.empty() && WIFSIGNALED(status))
    r.error = argv[0] + " was killed by signal " + std::to_string(WTERMSIG(status));
  return r;
}

double compile_timeout() {
  if (const char* v = std::getenv("TESSEL_JIT_TIMEOUT"); v != nullptr && *v != '\0') {
    char* end = nullptr;
    const double t = std::strtod(v, &end);
    if (end != v && t > 0) return t;
  }
  return 600;
}

Compiled compile(const Toolchain& tc, std::string_view source, const std::string& work_dir) {
  Compiled c;
  const std::string src = join(work_dir, "kernel.cu"), out = join(work_dir, "kernel.cubin");
  std::string err;
  if (!publish(work_dir, "kernel.cu", source, err)) {
    c.error = err;
    return c;
  }
  std::vector<std::string> argv = {tc.nvcc};
  argv.insert(argv.end(), tc.flags.begin(), tc.flags.end());
  argv.insert(argv.end(), {"-o", out, src});
  const RunResult r = run_process(argv, work_dir, compile_timeout());
  c.seconds = r.seconds;
  c.log = r.output;
  if (!r.error.empty() || r.status != 0) {
    c.error = (r.error.empty() ? "nvcc exited with status " + std::to_string(r.status) : r.error) + ": " +
              tail(r.output, 2000);
    return c;
  }
  // As cmake/ptxas_guard.sh for the library: serialized wgmma is a silent 2-3x slowdown.
  if (r.output.find("C7511") != std::string::npos ||
      r.output.find("wgmma.mma_async instructions are serialized") != std::string::npos) {
    c.error = "ptxas serialized wgmma (C7511): " + tail(r.output, 1000);
    return c;
  }
  c.spilled = r.output.find("spill") != std::string::npos || r.output.find("Local memory") != std::string::npos ||
              r.output.find("local memory") != std::string::npos;
  if (!read_file(out, c.cubin) || c.cubin.empty()) {
    c.error = "nvcc succeeded but wrote no " + out;
    return c;
  }
  c.ok = true;
  return c;
}

// ------------------------------------------------------------------ the cache

Cubin obtain_cubin(const Toolchain& tc, const std::string& cache_dir, std::string_view source, std::string_view what,
                   bool skip_disk) {
  Cubin out;
  if (!tc.ok) {
    out.error = tc.why;
    return out;
  }
  const Configured& cfg = configured();
  const KeyInputs in{source, &tc.flags, tc.nvcc_version, cfg.version, cfg.headers_hash};
  out.key = hex64(cache_key(in));
  const std::string man = manifest(in);
  const std::string cubin_name = out.key + ".cubin", manifest_name = out.key + ".cu";
  if (!cache_dir.empty()) out.path = join(cache_dir, cubin_name);
  if (!cache_dir.empty() && !skip_disk) {
    std::string stored;
    if (read_file(join(cache_dir, manifest_name), stored) && stored == man && read_file(out.path, out.bytes) &&
        !out.bytes.empty()) {
      out.ok = true;
      out.origin = Origin::disk;
      return out;
    }
    out.bytes.clear();
  }
  std::string err;
  const std::string work = make_temp_dir(err);
  if (work.empty()) {
    out.error = "cannot compile " + std::string(what) + ": " + err;
    return out;
  }
  Compiled c = compile(tc, source, work);
  remove_temp_dir(work);
  out.compile_seconds = c.seconds;
  if (!c.ok) {
    out.error = "nvcc could not compile " + std::string(what) + ": " + c.error;
    return out;
  }
  out.ok = true;
  out.bytes = std::move(c.cubin);
  if (c.spilled) out.note = "ptxas reported local memory in " + std::string(what) + " (slower, still correct)";
  // Kept: the manifest first, then the cubin, each atomically; a reader needs both to match.
  std::string why;
  const bool kept = !cache_dir.empty() && make_dirs(cache_dir, why) && publish(cache_dir, manifest_name, man, why) &&
                    publish(cache_dir, cubin_name, out.bytes, why);
  out.origin = kept ? Origin::compiled_and_kept : Origin::compiled_not_kept;
  if (!kept) {
    const std::string msg =
        (cache_dir.empty() ? std::string("no cache directory (TESSEL_CACHE_DIR, XDG_CACHE_HOME and HOME are unset)")
                           : "cache directory " + cache_dir + " is not writable (" + why + ")") +
        ": " + std::string(what) + " was compiled in a private temporary directory and is kept in memory only";
    out.note = out.note.empty() ? msg : msg + "; " + out.note;
  }
  return out;
}

bool list_cache(const std::string& dir, std::vector<CacheFile>& out, std::string& error) {
  out.clear();
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) {
    if (errno == ENOENT) return true;  // nothing cached yet
    error = "cannot read " + dir + ": " + errno_text(errno);
    return false;
  }
  while (const dirent* e = ::readdir(d)) {
    const std::string n = e->d_name;
    if (!is_entry_name(n, ".cubin")) continue;
    CacheFile f;
    f.name = n;
    struct stat st {};
    if (::stat(join(dir, n).c_str(), &st) == 0) f.bytes = static_cast<std::uint64_t>(st.st_size);
    std::ifstream m(join(dir, n.substr(0, 16) + ".cu"));
    std::string line;
    while (std::getline(m, line))
      if (line.rfind("// kernel: ", 0) == 0) {
        f.what = line.substr(11);
        break;
      }
    out.push_back(f);
  }
  ::closedir(d);
  std::sort(out.begin(), out.end(), [](const CacheFile& a, const CacheFile& b) { return a.name < b.name; });
  return true;
}

bool clear_cache(const std::string& dir, int& removed, std::string& error) {
  removed = 0;
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) {
    if (errno == ENOENT) return true;
    error = "cannot read " + dir + ": " + errno_text(errno);
    return false;
  }
  std::vector<std::string> names;
  while (const dirent* e = ::readdir(d)) {
    const std::string n = e->d_name;
    if (is_entry_name(n, ".cubin") || is_entry_name(n, ".cu") || is_temp_name(n)) names.push_back(n);
  }
  ::closedir(d);
  for (const std::string& n : names) {
    if (::unlink(join(dir, n).c_str()) != 0) {
      error = "cannot remove " + join(dir, n) + ": " + errno_text(errno);
      return false;
    }
    ++removed;
  }
  ::rmdir(dir.c_str());  // only if empty: the user's other files stay
  return true;
}

// ------------------------------------------------------------------ what happened

Counters& counters() {
  static Counters c;
  return c;
}

namespace {
std::mutex& message_mutex() {
  static std::mutex m;
  return m;
}
std::string& message_text() {
  static std::string s;
  return s;
}
}  // namespace

void set_last_message(std::string msg) {
  std::lock_guard<std::mutex> lock(message_mutex());
  message_text() = std::move(msg);
}

std::string last_message() {
  std::lock_guard<std::mutex> lock(message_mutex());
  return message_text();
}

}  // namespace tessel::jit
