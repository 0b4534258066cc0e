// tessel/host/jit.hpp over src/jit/jit.hpp.
#include "tessel/host/jit.hpp"

#include "src/jit/jit.hpp"
#include "src/jit/tune_cache.hpp"
#include "tessel/host/tune.hpp"

namespace tessel {

JitStats jit_stats() {
  const jit::Counters& c = jit::counters();
  return JitStats{c.compiled.load(), c.disk_hits.load(), c.memory_hits.load(), c.fallbacks.load()};
}

std::string jit_last_message() { return jit::last_message(); }

std::string jit_cache_dir() { return jit::resolve_cache_dir(jit::process_env); }

std::string jit_compiler(std::string* why) {
  const jit::Toolchain& tc = jit::toolchain();
  if (why != nullptr) *why = tc.ok ? "" : tc.why;
  return tc.ok ? tc.nvcc : "";
}

Status jit_cache_list(std::vector<JitCacheEntry>& out) {
  out.clear();
  const std::string dir = jit_cache_dir();
  if (dir.empty())
    return Status::failure(Status::unsupported,
                           "no cache directory: TESSEL_CACHE_DIR, XDG_CACHE_HOME and HOME are unset");
  std::vector<jit::CacheFile> files;
  std::string error;
  if (!jit::list_cache(dir, files, error)) return Status::failure(Status::invalid_argument, error);
  for (const jit::CacheFile& f : files) out.push_back(JitCacheEntry{f.name, f.bytes, f.what});
  return Status::success();
}

Status jit_cache_clear(int* removed) {
  const std::string dir = jit_cache_dir();
  if (dir.empty())
    return Status::failure(Status::unsupported,
                           "no cache directory: TESSEL_CACHE_DIR, XDG_CACHE_HOME and HOME are unset");
  int n = 0;
  std::string error;
  const bool ok = jit::clear_cache(dir, n, error);
  if (removed != nullptr) *removed = n;
  if (!ok) return Status::failure(Status::invalid_argument, error);
  return Status::success();
}

std::string tune_cache_dir() { return tune::resolve_dir(jit::process_env); }

Status tune_cache_list(std::vector<TuneCacheEntry>& out, int* skipped) {
  out.clear();
  std::vector<tune::Entry> entries;
  int bad = 0;
  std::string error;
  if (!tune::list(tune_cache_dir(), entries, bad, error)) return Status::failure(Status::invalid_argument, error);
  for (const tune::Entry& e : entries) out.push_back(TuneCacheEntry{e.key, e.choice, e.median_us, e.timed});
  if (skipped != nullptr) *skipped = bad;
  return Status::success();
}

Status tune_cache_clear(int* removed) {
  const std::string dir = tune_cache_dir();
  if (dir.empty())
    return Status::failure(Status::unsupported,
                           "no tuning cache directory: TESSEL_TUNE_CACHE, TESSEL_CACHE_DIR, XDG_CACHE_HOME and HOME "
                           "are unset");
  int n = 0;
  std::string error;
  const bool ok = tune::clear(dir, n, error);
  if (removed != nullptr) *removed = n;
  if (!ok) return Status::failure(Status::invalid_argument, error);
  return Status::success();
}

}  // namespace tessel
