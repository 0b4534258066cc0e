// Measured tuning's on-disk cache (src/jit/tune_cache.hpp): where it lives,
// round trips, corrupt and foreign files ignored, concurrent writers.
#include "src/jit/tune_cache.hpp"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>

namespace {

using namespace tessel;
namespace fs = std::filesystem;

struct TempDir {
  fs::path path;
  TempDir() {
    std::string error;
    path = jit::make_temp_dir(error);
    EXPECT_FALSE(path.empty()) << error;
  }
  ~TempDir() { fs::remove_all(path); }
};

jit::EnvFn env_of(std::map<std::string, std::string> vars) {
  return [vars](const char* n) -> const char* {
    const auto it = vars.find(n);
    return it == vars.end() ? nullptr : it->second.c_str();
  };
}

const std::string kKey =
    "dev=NVIDIA H200/132/9.0;build=0.1.0+abc;bf16->bf16;A:k,B:n;3000x5000x7000;ld=7000,5000,0,5000";

TEST(TuneCache, DirectoryFollowsTheEnvironment) {
  EXPECT_EQ(tune::resolve_dir(env_of({{"TESSEL_TUNE_CACHE", "/x/t"}, {"HOME", "/h"}})), "/x/t");
  EXPECT_EQ(tune::resolve_dir(env_of({{"TESSEL_CACHE_DIR", "/c"}, {"HOME", "/h"}})), "/c/tune");
  EXPECT_EQ(tune::resolve_dir(env_of({{"XDG_CACHE_HOME", "/x/"}, {"HOME", "/h"}})), "/x/tessel/tune");
  EXPECT_EQ(tune::resolve_dir(env_of({{"HOME", "/h"}})), "/h/.cache/tessel/tune");
  EXPECT_EQ(tune::resolve_dir(env_of({{"HOME", ""}})), "");  // empty counts as unset
}

TEST(TuneCache, RoundTrip) {
  TempDir t;
  const std::string dir = (t.path / "sub" / "tune").string();  // made on the first store
  tune::Entry e{kKey, "k13:128x192:s1", 512.25, 23};
  std::string error, why;
  ASSERT_TRUE(tune::store(dir, e, error)) << error;
  tune::Entry back;
  ASSERT_EQ(tune::load(dir, kKey, back, why), tune::Found::hit) << why;
  EXPECT_EQ(back.key, kKey);
  EXPECT_EQ(back.choice, "k13:128x192:s1");
  EXPECT_DOUBLE_EQ(back.median_us, 512.25);
  EXPECT_EQ(back.timed, 23);
  EXPECT_EQ(tune::load(dir, kKey + "x", back, why), tune::Found::miss);
  EXPECT_EQ(tune::load("", kKey, back, why), tune::Found::miss);  // no directory: memory only
  std::vector<tune::Entry> all;
  int skipped = -1;
  ASSERT_TRUE(tune::list(dir, all, skipped, error)) << error;
  ASSERT_EQ(all.size(), 1u);
  EXPECT_EQ(all[0].choice, "k13:128x192:s1");
  EXPECT_EQ(skipped, 0);
  int removed = 0;
  ASSERT_TRUE(tune::clear(dir, removed, error)) << error;
  EXPECT_EQ(removed, 1);
  EXPECT_FALSE(fs::exists(dir));  // emptied, then removed
}

TEST(TuneCache, CorruptAndForeignFilesAreNotHits) {
  TempDir t;
  const std::string dir = t.path.string();
  const fs::path file = t.path / tune::file_name(kKey);
  const std::string good = tune::serialize({kKey, "k14:64x128", 10, 3});
  const auto put = [&](const std::string& text) { std::ofstream(file, std::ios::binary) << text; };
  struct Case {
    std::string text;
    tune::Found want;
  };
  const Case cases[] = {
      {"", tune::Found::corrupt},
      {"garbage\n", tune::Found::corrupt},
      {good.substr(0, good.size() - 1), tune::Found::corrupt},  // truncated: no final line end
      {good.substr(0, good.find("\nmedian_us")) + "\n", tune::Found::corrupt},
      {std::string("tessel-tune 2\n") + good.substr(good.find('\n') + 1), tune::Found::foreign},
      {tune::serialize({kKey + "!", "k14:64x128", 10, 3}), tune::Found::foreign},  // another key under this name
      {tune::serialize({kKey, "", 10, 3}), tune::Found::corrupt},
      {good.substr(0, good.find("median_us")) + "median_us fast\ntimed 3\n", tune::Found::corrupt},
      {good.substr(0, good.find("timed")) + "timed 0\n", tune::Found::corrupt},
      {good, tune::Found::hit},
  };
  for (const Case& c : cases) {
    put(c.text);
    tune::Entry e;
    std::string why;
    EXPECT_EQ(tune::load(dir, kKey, e, why), c.want) << "text: " << c.text;
    if (c.want != tune::Found::hit) {
      EXPECT_FALSE(why.empty());
    }
  }
  // A corrupt file is replaced by the next store.
  put("garbage\n");
  std::string error, why;
  ASSERT_TRUE(tune::store(dir, {kKey, "k15:128x128", 5, 2}, error)) << error;
  tune::Entry e;
  ASSERT_EQ(tune::load(dir, kKey, e, why), tune::Found::hit) << why;
  EXPECT_EQ(e.choice, "k15:128x128");
  // list() skips what does not parse as its own entry.
  std::ofstream(t.path / "0123456789abcdef.tune") << "garbage\n";
  std::vector<tune::Entry> all;
  int skipped = 0;
  ASSERT_TRUE(tune::list(dir, all, skipped, error));
  EXPECT_EQ(all.size(), 1u);
  EXPECT_EQ(skipped, 1);
}

TEST(TuneCache, ConcurrentProcessesLeaveWholeFiles) {
  // Eight processes store the same key and a key of their own, 200 times
  // each; every file read afterwards (and by a reader during the run) is a
  // whole entry.
  TempDir t;
  const std::string dir = (t.path / "tune").string();
  constexpr int kProcs = 8, kRounds = 200;
  pid_t pids[kProcs + 1];
  for (int p = 0; p <= kProcs; ++p) {
    pids[p] = ::fork();
    ASSERT_GE(pids[p], 0);
    if (pids[p] != 0) continue;
    int bad = 0;
    for (int r = 0; r < kRounds; ++r) {
      std::string error, why;
      tune::Entry e;
      if (p == kProcs) {  // the reader
        const tune::Found f = tune::load(dir, kKey, e, why);
        bad += f == tune::Found::corrupt || f == tune::Found::foreign;
        continue;
      }
      const std::string choice = "k13:128x" + std::to_string(64 * (1 + p % 4)) + ":s1";
      bad += !tune::store(dir, {kKey, choice, 1.0 + p, r + 1}, error);
      bad += !tune::store(dir, {kKey + std::to_string(p), choice, 1.0, r + 1}, error);
    }
    std::_Exit(bad == 0 ? 0 : 1);
  }
  for (pid_t pid : pids) {
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  std::vector<tune::Entry> all;
  int skipped = 0;
  std::string error;
  ASSERT_TRUE(tune::list(dir, all, skipped, error)) << error;
  EXPECT_EQ(all.size(), static_cast<std::size_t>(kProcs + 1));
  EXPECT_EQ(skipped, 0);
  for (const auto& f : fs::directory_iterator(dir)) EXPECT_EQ(f.path().extension(), ".tune");  // no temporaries left
}

}  // namespace
