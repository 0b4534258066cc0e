// Measured tuning (GemmTuning::tune, TESSEL_TUNE=1): the first call of a
// problem times the configurations of tessel/gemm_tune.hpp and keeps the
// fastest in memory and in the on-disk cache (src/jit/tune_cache.hpp); later
// calls, in this process or another, run it at once.
//
// How a configuration is timed: into a scratch D from tessel's pool (the
// caller's D, which may also be C, stays untouched until the chosen run),
// once to warm up, then 3..15 launches each after a read of twice the L2
// (the operands come from DRAM, as in the benchmark protocol) between CUDA
// events; the median wins.  The flush also gives the host time to enqueue
// the launch, so the events measure the device, not the host's call.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "src/jit/tune_cache.hpp"
#include "src/kernels/gemm/launch.hpp"
#include "src/kernels/gemm/workspace.hpp"
#include "src/kernels/gemm_tune.hpp"
#include "tessel/gemm_tune.hpp"

namespace tessel::gemm_launch {

namespace {

constexpr int kFlushThreads = 256;
constexpr unsigned kImpossibleSum = 0x9E3779B9u;

/// Reads n 16-byte words (the L2 flush); stores only in the unlikely case
/// that the sum equals the sentinel, so the loads cannot be dropped.
__global__ void __launch_bounds__(kFlushThreads)
    tune_flush(const uint4* __restrict__ w, std::size_t n, unsigned* sink) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  unsigned sum = 0;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    const uint4 a = w[i];
    sum += a.x ^ a.y ^ a.z ^ a.w;
  }
  if (sum == kImpossibleSum) *sink = sum;
}

bool env_on(const char* name) {
  const char* v = std::getenv(name);
  if (v == nullptr) return false;
  const std::string s(v);
  return s == "1" || s == "on" || s == "ON" || s == "true" || s == "yes";
}

/// The device's name through the driver's cuDeviceGetName (a fixed buffer,
/// no struct whose layout changes between runtime versions); "unknown" where
/// the driver cannot say.
std::string driver_device_name(int device) {
  using GetFn = int (*)(int*, int);
  using NameFn = int (*)(char*, int, int);
  void* get = nullptr;
  void* name = nullptr;
  cudaDriverEntryPointQueryResult q1 = cudaDriverEntryPointSymbolNotFound, q2 = q1;
  if (cudaGetDriverEntryPointByVersion("cuDeviceGet", &get, 12000, cudaEnableDefault, &q1) != cudaSuccess ||
      cudaGetDriverEntryPointByVersion("cuDeviceGetName", &name, 12000, cudaEnableDefault, &q2) != cudaSuccess ||
      q1 != cudaDriverEntryPointSuccess || q2 != cudaDriverEntryPointSuccess || get == nullptr || name == nullptr) {
    (void)cudaGetLastError();
    return "unknown";
  }
  int dev = 0;
  char buf[256] = {};
  if (reinterpret_cast<GetFn>(get)(&dev, device) != 0 ||
      reinterpret_cast<NameFn>(name)(buf, static_cast<int>(sizeof buf) - 1, dev) != 0)
    return "unknown";
  return std::string(buf, strnlen(buf, sizeof buf - 1));
}

/// The device's name, read once per device (the key's first field).
std::string device_name(int device) {
  static std::mutex mu;
  static std::map<int, std::string> names;
  const std::lock_guard<std::mutex> lock(mu);
  auto it = names.find(device);
  if (it != names.end()) return it->second;
  std::string n = driver_device_name(device);
  for (char& c : n)
    if (c == ';' || c == '\n') c = ' ';
  return names[device] = n;
}

struct Memo {
  std::mutex mu;
  std::map<std::string, GemmCandidate> choices;
  std::map<std::string, std::string> notes;  // key -> why (for gemm_plan's words)
};
Memo& memo() {
  static Memo m;
  return m;
}

void warn_once(const std::string& what) {
  static std::mutex mu;
  static std::vector<std::string> said;
  const std::lock_guard<std::mutex> lock(mu);
  if (std::find(said.begin(), said.end(), what) != said.end()) return;
  said.push_back(what);
  std::fprintf(stderr, "tessel: %s\n", what.c_str());
}

/// TESSEL_TUNE_LOG=FILE: one line per timed configuration (key, choice,
/// median us, launches), appended; what docs/heuristics.md's model is fitted to.
void log_line(const std::string& key, const std::string& choice, double us, int launches) {
  static const char* path = std::getenv("TESSEL_TUNE_LOG");
  if (path == nullptr || *path == '\0') return;
  static std::mutex mu;
  const std::lock_guard<std::mutex> lock(mu);
  if (FILE* f = std::fopen(path, "a")) {
    std::fprintf(f, "%s\t%s\t%.3f\t%d\n", key.c_str(), choice.c_str(), us, launches);
    std::fclose(f);
  }
}

GemmArgs with_candidate(const GemmArgs& args, const GemmCandidate& c) {
  GemmArgs g = args;
  const GemmTuning t = c.tuning();
  g.tuning.tile_n = t.tile_n;
  g.tuning.tile_m = t.tile_m;
  g.tuning.splits = t.splits;
  g.tuning.swap_ab = t.swap_ab;
  g.tuning.tune = false;
  return g;
}

/// Events, scratch D and the flush buffer of one tuning session.
struct Session {
  cudaEvent_t ev[32] = {};
  int events = 0;
  void* scratch = nullptr;
  void* flush = nullptr;
  std::size_t flush_bytes = 0;
  cudaStream_t stream = nullptr;
  ~Session() {
    for (int i = 0; i < events; ++i) (void)cudaEventDestroy(ev[i]);
    (void)workspace_free(scratch, stream);
    (void)workspace_free(flush, stream);
    (void)cudaGetLastError();
  }
};

void flush_l2(const Session& s) {
  const std::size_t words = s.flush_bytes / 16;
  tune_flush<<<1024, kFlushThreads, 0, s.stream>>>(static_cast<const uint4*>(s.flush), words,
                                                   static_cast<unsigned*>(s.flush) + 1);
}

}  // namespace

bool tune_wanted(const GemmArgs& args) {
  static const bool env = env_on("TESSEL_TUNE");
  return args.tuning.tune || env;
}

std::string tune_key(const GemmArgs& a) {
  int device = 0;
  (void)cudaGetDevice(&device);
  (void)cudaGetLastError();
  const jit::Configured& cfg = jit::configured();
  const auto al = [](const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0 ? '1' : '0'; };
  const bool c = a.c != nullptr && a.beta != 0.0f;
  std::string k = "dev=" + device_name(device) + "/" + std::to_string(device_sm_count()) + ";build=" + cfg.version +
                  "+" + cfg.headers_hash + ";" + name(a.ab_type) + "->" + name(a.cd_type) + ";" + name(a.layout) + ";" +
                  std::to_string(a.m) + "x" + std::to_string(a.n) + "x" + std::to_string(a.k) +
                  ";ld=" + std::to_string(a.lda) + "," + std::to_string(a.ldb) + "," + std::to_string(c ? a.ldc : 0) +
                  "," + std::to_string(a.ldd) + ";align=" + al(a.a) + al(a.b) + al(a.d) + ";beta=" + (c ? "1" : "0") +
                  ";epi=" + name(a.epilogue.act) + "," + name(a.epilogue.bias_kind) + "," +
                  (a.epilogue.aux != nullptr ? "aux" : "-");
  // The caller's fixed knobs narrow the candidates: part of the key.
  const GemmTuning& t = a.tuning;
  if (t.tile_n != 0 || t.tile_m != 0 || t.splits != 0 || t.swap_ab != SwapAB::plan)
    k += ";asked=" + std::to_string(t.tile_m) + "x" + std::to_string(t.tile_n) + ":s" + std::to_string(t.splits) + ":" +
         std::to_string(static_cast<int>(t.swap_ab));
  // Who sums the splits changes the splits' timings (the candidates are timed with the caller's).
  if (t.split_sum == SplitSum::second_kernel) k += ";sum=kernel";
  return k;
}

bool tuned_choice(const GemmArgs& args, GemmCandidate& out, std::string* why) {
  const std::string key = tune_key(args);
  Memo& m = memo();
  {
    const std::lock_guard<std::mutex> lock(m.mu);
    auto it = m.choices.find(key);
    if (it != m.choices.end()) {
      out = it->second;
      if (why != nullptr) *why = m.notes[key];
      return true;
    }
  }
  const std::string dir = tune::resolve_dir(jit::process_env);
  tune::Entry e;
  std::string because;
  const tune::Found f = tune::load(dir, key, e, because);
  if (f == tune::Found::corrupt || f == tune::Found::foreign) {
    warn_once("tuning cache file " + dir + "/" + tune::file_name(key) + " ignored (" + tune::name(f) + ": " + because +
              "); the problem is tuned again");
    return false;
  }
  if (f != tune::Found::hit) return false;
  const std::optional<GemmCandidate> c = parse_candidate(e.choice);
  if (!c || !gemm_check(c->impl, with_candidate(args, *c))) {
    warn_once("tuning cache file " + dir + "/" + tune::file_name(key) + " ignored (its choice '" + e.choice +
              "' does not serve the call); the problem is tuned again");
    return false;
  }
  out = *c;
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.1f", e.median_us);
  const std::string note = "tuned " + candidate_name(*c) + " (disk cache, " + std::to_string(e.timed) +
                           " configurations timed, " + buf + " us)";
  const std::lock_guard<std::mutex> lock(m.mu);
  m.choices[key] = out;
  m.notes[key] = note;
  if (why != nullptr) *why = note;
  return true;
}

Status tune(const GemmArgs& args, cudaStream_t stream, GemmCandidate& out, std::string& why) {
  const int sms = device_sm_count();
  std::vector<GemmCandidate> cands;
  for (const GemmCandidate& c : gemm_candidates(args.m, args.n, args.k, sms, args.epilogue.active(),
                                                args.c != nullptr && args.beta != 0.0f, args.layout.a == MajorA::k))
    if (candidate_matches(c, args.tuning) && gemm_check(c.impl, with_candidate(args, c))) cands.push_back(c);
  if (cands.empty()) return Status::failure(Status::unsupported, "tuning: no configuration serves the call");
  cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
  if (cudaStreamIsCapturing(stream, &capture) != cudaSuccess || capture != cudaStreamCaptureStatusNone) {
    (void)cudaGetLastError();
    return Status::failure(Status::unsupported, "tuning: the stream is being captured (no timing inside a graph)");
  }
  Session s;
  s.stream = stream;
  int device = 0, l2 = 0;
  if (cudaGetDevice(&device) != cudaSuccess ||
      cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device) != cudaSuccess)
    return launch_status("tuning (device attributes)");
  const std::size_t elem = static_cast<std::size_t>(size_bytes(args.cd_type));
  const std::size_t d_bytes = (static_cast<std::size_t>(args.m - 1) * args.ldd + args.n) * elem + 256;
  s.flush_bytes = std::max<std::size_t>(2 * static_cast<std::size_t>(l2), std::size_t{64} << 20);
  s.scratch = workspace_alloc(d_bytes, stream);
  s.flush = workspace_alloc(s.flush_bytes, stream);
  if (s.scratch == nullptr || s.flush == nullptr)
    return Status::failure(Status::unsupported, "tuning: cannot allocate its scratch D and L2 flush buffer");
  for (; s.events < 32; ++s.events)
    if (cudaEventCreate(&s.ev[s.events]) != cudaSuccess) return launch_status("tuning (events)");
  GemmArgs probe = args;
  // The scratch D keeps the caller's D's alignment modulo 256 bytes (the TMA store path depends on it).
  probe.d = static_cast<char*>(s.scratch) + reinterpret_cast<std::uintptr_t>(args.d) % 256;
  if (args.epilogue.aux != nullptr) probe.epilogue.aux = args.epilogue.aux;  // written again by the chosen run

  const std::string key = tune_key(args);
  double best = 0;
  int timed = 0;
  for (const GemmCandidate& c : cands) {
    const GemmArgs g = with_candidate(probe, c);
    // Warm-up (module load, maps, workspace), then one timed launch to size the loop.
    if (Status st = gemm(c.impl, g, stream); !st) {
      if (st.code == Status::cuda_error) return st;
      continue;
    }
    flush_l2(s);
    cudaEventRecord(s.ev[0], stream);
    Status st = gemm(c.impl, g, stream);
    cudaEventRecord(s.ev[1], stream);
    if (!st) return st;
    if (cudaEventSynchronize(s.ev[1]) != cudaSuccess) return launch_status("tuning (a timed launch)");
    float first = 0;
    cudaEventElapsedTime(&first, s.ev[0], s.ev[1]);
    const int launches = std::clamp(static_cast<int>(20.0f / std::max(first + 0.04f, 0.001f)), 3, 15);
    for (int i = 0; i < launches && st; ++i) {
      flush_l2(s);
      cudaEventRecord(s.ev[2 * i], stream);
      st = gemm(c.impl, g, stream);
      cudaEventRecord(s.ev[2 * i + 1], stream);
    }
    if (!st) return st;
    if (cudaEventSynchronize(s.ev[2 * launches - 1]) != cudaSuccess) return launch_status("tuning (a timed launch)");
    std::vector<float> ms(static_cast<std::size_t>(launches));
    for (int i = 0; i < launches; ++i)
      cudaEventElapsedTime(&ms[static_cast<std::size_t>(i)], s.ev[2 * i], s.ev[2 * i + 1]);
    std::nth_element(ms.begin(), ms.begin() + launches / 2, ms.end());
    const double us = 1000.0 * ms[static_cast<std::size_t>(launches / 2)];
    log_line(key, candidate_name(c), us, launches);
    ++timed;
    if (timed == 1 || us < best) {
      best = us;
      out = c;
    }
  }
  if (Status st = launch_status("tuning"); !st) return st;
  if (timed == 0) return Status::failure(Status::unsupported, "tuning: no configuration ran");
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.1f", best);
  why = "tuned " + candidate_name(out) + " (" + std::to_string(timed) + " configurations timed, " + buf + " us)";
  {
    Memo& m = memo();
    const std::lock_guard<std::mutex> lock(m.mu);
    m.choices[key] = out;
    m.notes[key] = why;
  }
  const std::string dir = tune::resolve_dir(jit::process_env);
  std::string error;
  if (dir.empty() || !tune::store(dir, tune::Entry{key, candidate_name(out), best, timed}, error))
    warn_once("tuning results are kept in memory only: " +
              (dir.empty() ? std::string("no cache directory (TESSEL_TUNE_CACHE, TESSEL_CACHE_DIR, XDG_CACHE_HOME "
                                         "and HOME are unset)")
                           : error));
  return Status::success();
}

GemmArgs tuned_args(const GemmArgs& args, const GemmCandidate& c) { return with_candidate(args, c); }

}  // namespace tessel::gemm_launch
