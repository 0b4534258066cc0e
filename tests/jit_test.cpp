// Run-time compilation's host side (src/jit/jit.hpp; docs/design.md §6), on
// the CPU: the cache directory's resolution, the key's stability and what
// changes it, the atomic publish, the read-only and uncreatable cache
// directories, the compile pipeline against fake compilers (shell scripts),
// and one real compile of a specialized k13 instance through nvcc (skipped
// with a message where there is no nvcc): the compile half of a first call's
// latency, printed, with its SASS checked for local memory where cuobjdump
// is found.
#include <dirent.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "src/jit/jit.hpp"
#include "tessel/host/jit.hpp"

using namespace tessel;
using namespace tessel::jit;

namespace {

/// A directory of the test's own under the build tree's temporary space,
/// removed with its files (one level of subdirectories) at the end.
struct TempDir {
  std::string path;
  TempDir() {
    std::string err;
    path = make_temp_dir(err);
    EXPECT_FALSE(path.empty()) << err;
  }
  ~TempDir() {
    if (path.empty()) return;
    ::chmod(path.c_str(), 0755);
    const std::string cmd = "rm -rf '" + path + "'";
    if (std::system(cmd.c_str()) != 0) std::fprintf(stderr, "could not remove %s\n", path.c_str());
  }
  std::string operator/(const std::string& name) const { return path + "/" + name; }
};

EnvFn env_of(std::map<std::string, std::string> vars) {
  auto shared = std::make_shared<std::map<std::string, std::string>>(std::move(vars));
  return [shared](const char* n) -> const char* {
    auto it = shared->find(n);
    return it == shared->end() ? nullptr : it->second.c_str();
  };
}

void write_script(const std::string& path, const std::string& body) {
  std::ofstream(path) << "#!/bin/sh\n" << body;
  ASSERT_EQ(::chmod(path.c_str(), 0755), 0);
}

/// A fake nvcc: `--version` prints a version; a compile writes "CUBIN" and
/// the input file (its last argument) to the -o file, after `extra` (shell).
std::string fake_nvcc(const TempDir& d, const std::string& name, const std::string& extra = "") {
  const std::string p = d / name;
  write_script(p,
               "if [ \"$1\" = --version ]; then echo 'fake nvcc 1.0'; exit 0; fi\n"
               "out=; prev=; for a in \"$@\"; do [ \"$prev\" = -o ] && out=$a; prev=$a; last=$a; done\n" +
                   extra + "{ echo CUBIN; cat \"$last\"; } > \"$out\"\n");
  return p;
}

Toolchain toolchain_with(const std::string& nvcc) {
  Toolchain tc;
  tc.ok = true;
  tc.nvcc = nvcc;
  tc.include_dir = "/nonexistent/include";
  tc.flags = nvcc_flags(tc.include_dir, "");
  tc.nvcc_version = "fake nvcc 1.0\n";
  return tc;
}

std::vector<std::string> files_in(const std::string& dir) {
  std::vector<std::string> out;
  if (DIR* d = ::opendir(dir.c_str())) {
    while (const dirent* e = ::readdir(d)) {
      const std::string n = e->d_name;
      if (n != "." && n != "..") out.push_back(n);
    }
    ::closedir(d);
  }
  return out;
}

/// Points TMPDIR at `dir` for the test's lifetime (the compile's temporary
/// directories are made there, so the test sees them removed).
struct TmpdirScope {
  std::string old;
  bool had = false;
  explicit TmpdirScope(const std::string& dir) {
    if (const char* v = std::getenv("TMPDIR")) old = v, had = true;
    ::setenv("TMPDIR", dir.c_str(), 1);
  }
  ~TmpdirScope() {
    if (had)
      ::setenv("TMPDIR", old.c_str(), 1);
    else
      ::unsetenv("TMPDIR");
  }
};

// ------------------------------------------------------------------ the directory

TEST(JitCacheDir, EnvironmentOrder) {
  EXPECT_EQ(resolve_cache_dir(env_of({{"TESSEL_CACHE_DIR", "/c"}, {"XDG_CACHE_HOME", "/x"}, {"HOME", "/h"}})), "/c");
  EXPECT_EQ(resolve_cache_dir(env_of({{"XDG_CACHE_HOME", "/x"}, {"HOME", "/h"}})), "/x/tessel/kernels");
  EXPECT_EQ(resolve_cache_dir(env_of({{"XDG_CACHE_HOME", "/x/"}})), "/x/tessel/kernels");
  EXPECT_EQ(resolve_cache_dir(env_of({{"HOME", "/h"}})), "/h/.cache/tessel/kernels");
  // Empty variables count as unset.
  EXPECT_EQ(resolve_cache_dir(env_of({{"TESSEL_CACHE_DIR", ""}, {"XDG_CACHE_HOME", ""}, {"HOME", "/h"}})),
            "/h/.cache/tessel/kernels");
  EXPECT_EQ(resolve_cache_dir(env_of({})), "");
  EXPECT_EQ(resolve_cache_dir(env_of({{"TESSEL_CACHE_DIR", "rel/dir"}})), "rel/dir");
}

TEST(JitToolchain, FindsNvccAndHeaders) {
  TempDir d;
  const std::string nvcc = fake_nvcc(d, "nvcc");
  std::string why;
  EXPECT_EQ(find_nvcc(env_of({{"TESSEL_NVCC", nvcc}}), "/configured/nvcc", why), nvcc);
  EXPECT_EQ(find_nvcc(env_of({{"PATH", "/nonexistent:" + d.path}}), "/configured/nvcc", why), nvcc);
  EXPECT_EQ(find_nvcc(env_of({{"PATH", "/nonexistent"}}), nvcc, why), nvcc);  // the configured one first
  EXPECT_EQ(find_nvcc(env_of({{"TESSEL_NVCC", d / "missing"}, {"PATH", d.path}}), "", why), "");
  EXPECT_NE(why.find("TESSEL_NVCC"), std::string::npos) << why;
  EXPECT_EQ(find_nvcc(env_of({{"PATH", "/nonexistent"}}), "", why), "");
  EXPECT_NE(why.find("no nvcc"), std::string::npos) << why;
  // Headers: TESSEL_INCLUDE_DIR, else the first candidate holding tessel's k13 header.
  const std::string src = configured().source_include;
  ASSERT_FALSE(src.empty());
  EXPECT_EQ(find_include_dir(env_of({}), {"/nonexistent", src}, why), src);
  EXPECT_EQ(find_include_dir(env_of({{"TESSEL_INCLUDE_DIR", src}}), {}, why), src);
  EXPECT_EQ(find_include_dir(env_of({{"TESSEL_INCLUDE_DIR", d.path}}), {src}, why), "");
  EXPECT_NE(why.find("TESSEL_INCLUDE_DIR"), std::string::npos) << why;
  // A whole toolchain from an environment, with `nvcc --version` run.
  const Toolchain tc = make_toolchain(env_of({{"TESSEL_NVCC", nvcc}, {"TESSEL_INCLUDE_DIR", src}}), configured());
  ASSERT_TRUE(tc.ok) << tc.why;
  EXPECT_EQ(tc.nvcc_version, "fake nvcc 1.0\n");
  EXPECT_NE(std::find(tc.flags.begin(), tc.flags.end(), "-I" + src), tc.flags.end());
  EXPECT_NE(std::find(tc.flags.begin(), tc.flags.end(), "-arch=sm_90a"), tc.flags.end());
}

// ------------------------------------------------------------------ the key

TEST(JitKey, Fnv1aKnownAnswers) {
  Fnv1a e;
  EXPECT_EQ(e.h, 0xcbf29ce484222325ull);
  Fnv1a a;
  a.add("a");
  EXPECT_EQ(a.h, 0xaf63dc4c8601ec8cull);
  Fnv1a f;
  f.add("foobar");
  EXPECT_EQ(f.h, 0x85944171f73967e8ull);
  EXPECT_EQ(hex64(0x0123456789abcdefull), "0123456789abcdef");
  EXPECT_EQ(hex64(0), "0000000000000000");
}

TEST(JitKey, StableAndSensitive) {
  const std::vector<std::string> flags = nvcc_flags("/inc", "");
  const KeyInputs base{"source", &flags, "nvcc 13.0", "0.1.0", "headers"};
  const std::uint64_t k = cache_key(base);
  EXPECT_EQ(cache_key(base), k);  // a function of its inputs only
  // The key of fixed inputs is part of the cache's format: a change of the
  // hashing would orphan every cached kernel (harmless) and should be deliberate.
  const std::vector<std::string> fixed = {"-a", "-b"};
  // (The value was computed independently, in Python, from the definition:
  // FNV-1a over each field's 8-byte little-endian length and bytes.)
  EXPECT_EQ(hex64(cache_key(KeyInputs{"src", &fixed, "v", "1", "h"})), "64f0a31f2eb93e8c");
  auto differs = [&](KeyInputs in, const char* what) { EXPECT_NE(cache_key(in), k) << what; };
  KeyInputs x = base;
  x.source = "source ";
  differs(x, "source");
  x = base;
  x.nvcc_version = "nvcc 13.1";
  differs(x, "nvcc --version");
  x = base;
  x.tessel_version = "0.1.1";
  differs(x, "tessel's version");
  x = base;
  x.headers_hash = "headers2";
  differs(x, "the header tree's hash");
  const std::vector<std::string> other_include = nvcc_flags("/inc2", "");
  x = base;
  x.flags = &other_include;
  differs(x, "the include directory (a flag)");
  std::vector<std::string> reordered = flags;
  std::swap(reordered[0], reordered[1]);
  x = base;
  x.flags = &reordered;
  differs(x, "the flags' order");
  const std::vector<std::string> with_ccbin = nvcc_flags("/inc", "/usr/bin/g++");
  x = base;
  x.flags = &with_ccbin;
  differs(x, "the host compiler");
  // Fields cannot run into each other.
  const std::vector<std::string> f1 = {"ab", "c"}, f2 = {"a", "bc"};
  EXPECT_NE(cache_key(KeyInputs{"s", &f1, "v", "t", "h"}), cache_key(KeyInputs{"s", &f2, "v", "t", "h"}));
  EXPECT_NE(cache_key(KeyInputs{"sv", &f1, "", "t", "h"}), cache_key(KeyInputs{"s", &f1, "v", "t", "h"}));
}

TEST(JitKey, K13SourceNamesTheConfiguration) {
  K13Spec s;
  s.ab = DType::f16;
  s.layout = GemmLayout{MajorA::m, MajorB::k};
  s.tile_n = 256;
  s.act = Activation::gelu_tanh;
  s.bias = BiasKind::col;
  s.with_c = true;
  s.with_aux = true;
  const std::string src = k13_epilogue_source(s);
  EXPECT_NE(src.find("// kernel: k13 128x256 fp16 A:m,B:k gelu_tanh bias col +C +aux\n"), std::string::npos) << src;
  EXPECT_NE(src.find("StaticEpilogue<::tessel::Activation::gelu_tanh, ::tessel::BiasKind::col, true, true>"),
            std::string::npos);
  EXPECT_NE(src.find("gemm_wgmma_in_flight<__half, ::tessel::MajorA::m, ::tessel::MajorB::k"), std::string::npos);
  EXPECT_EQ(src.find("== 0,"), std::string::npos);  // sizes 0: not asserted
  s.smem_bytes = 1234, s.params_bytes = 56;
  const std::string checked = k13_epilogue_source(s);
  EXPECT_NE(checked.find("X::kSmemBytes == 1234"), std::string::npos);
  EXPECT_NE(checked.find("FusedParams<T>) == 56"), std::string::npos);
  // Every constant is in the source, so in the key.
  K13Spec t = s;
  t.with_aux = false;
  EXPECT_NE(k13_epilogue_source(t), checked);
  t = s;
  t.act = Activation::silu;
  EXPECT_NE(k13_epilogue_source(t), checked);
  t = s;
  t.bias = BiasKind::row;
  EXPECT_NE(k13_epilogue_source(t), checked);
  t = s;
  t.tile_n = 128;
  EXPECT_NE(k13_epilogue_source(t), checked);
}

// ------------------------------------------------------------------ files

TEST(JitCache, PublishIsAtomicAndLeavesNoTemporaries) {
  TempDir d;
  std::string err;
  ASSERT_TRUE(publish(d.path, "0123456789abcdef.cubin", "first", err)) << err;
  std::string got;
  ASSERT_TRUE(read_file(d / "0123456789abcdef.cubin", got));
  EXPECT_EQ(got, "first");
  // Replaced whole: a reader sees the old file or the new one (rename).
  ASSERT_TRUE(publish(d.path, "0123456789abcdef.cubin", std::string(100000, 'x'), err)) << err;
  ASSERT_TRUE(read_file(d / "0123456789abcdef.cubin", got));
  EXPECT_EQ(got, std::string(100000, 'x'));
  EXPECT_EQ(files_in(d.path), std::vector<std::string>{"0123456789abcdef.cubin"});
  // A writer that died left a temporary: ignored by the listing, removed by clear.
  std::ofstream(d / ".0123456789abcdef.cubin.999.0.tmp") << "partial";
  std::ofstream(d / "notes.txt") << "the user's";
  std::vector<CacheFile> list;
  ASSERT_TRUE(list_cache(d.path, list, err)) << err;
  ASSERT_EQ(list.size(), 1u);
  EXPECT_EQ(list[0].name, "0123456789abcdef.cubin");
  EXPECT_EQ(list[0].bytes, 100000u);
  int removed = 0;
  ASSERT_TRUE(clear_cache(d.path, removed, err)) << err;
  EXPECT_EQ(removed, 2);
  EXPECT_EQ(files_in(d.path), std::vector<std::string>{"notes.txt"});  // only the cache's own files go
  // A directory that does not exist lists as empty and clears as nothing.
  ASSERT_TRUE(list_cache(d / "none", list, err));
  EXPECT_TRUE(list.empty());
  ASSERT_TRUE(clear_cache(d / "none", removed, err));
  EXPECT_EQ(removed, 0);
  // Writing into a directory that is a file fails cleanly.
  EXPECT_FALSE(publish(d / "notes.txt", "x.cubin", "y", err));
  EXPECT_FALSE(err.empty());
  EXPECT_FALSE(make_dirs(d / "notes.txt/sub", err));
  EXPECT_TRUE(make_dirs(d / "a/b/c", err)) << err;
}

// ------------------------------------------------------------------ the pipeline, with a fake nvcc

TEST(JitCache, CompilesOnceThenHitsTheDisk) {
  TempDir d;
  TmpdirScope tmp(d.path);
  const Toolchain tc = toolchain_with(fake_nvcc(d, "nvcc"));
  const std::string cache = d / "cache/kernels";
  Cubin a = obtain_cubin(tc, cache, "// kernel: test one\nsource one\n", "test one");
  ASSERT_TRUE(a.ok) << a.error;
  EXPECT_EQ(a.origin, Origin::compiled_and_kept);
  EXPECT_EQ(a.bytes, "CUBIN\n// kernel: test one\nsource one\n");
  EXPECT_EQ(a.path, cache + "/" + a.key + ".cubin");
  EXPECT_TRUE(a.note.empty()) << a.note;
  Cubin b = obtain_cubin(tc, cache, "// kernel: test one\nsource one\n", "test one");
  ASSERT_TRUE(b.ok) << b.error;
  EXPECT_EQ(b.origin, Origin::disk);
  EXPECT_EQ(b.bytes, a.bytes);
  EXPECT_EQ(b.key, a.key);
  // Another source: another key, another compile.
  Cubin c = obtain_cubin(tc, cache, "// kernel: test two\nsource two\n", "test two");
  ASSERT_TRUE(c.ok);
  EXPECT_EQ(c.origin, Origin::compiled_and_kept);
  EXPECT_NE(c.key, a.key);
  std::vector<CacheFile> list;
  std::string err;
  ASSERT_TRUE(list_cache(cache, list, err));
  ASSERT_EQ(list.size(), 2u);
  for (const CacheFile& f : list) EXPECT_TRUE(f.what == "test one" || f.what == "test two") << f.what;
  // A manifest that does not match (a collision, a stray file): a miss, compiled again.
  std::ofstream(cache + "/" + a.key + ".cu") << "something else";
  Cubin e = obtain_cubin(tc, cache, "// kernel: test one\nsource one\n", "test one");
  ASSERT_TRUE(e.ok);
  EXPECT_EQ(e.origin, Origin::compiled_and_kept);
  EXPECT_EQ(obtain_cubin(tc, cache, "// kernel: test one\nsource one\n", "test one").origin, Origin::disk);
  // skip_disk (a cached file the driver refused): compiled again.
  EXPECT_EQ(obtain_cubin(tc, cache, "// kernel: test one\nsource one\n", "test one", true).origin,
            Origin::compiled_and_kept);
  // Every compile's private directory is gone.
  for (const std::string& n : files_in(d.path)) EXPECT_EQ(n.rfind("tessel-jit-", 0), std::string::npos) << n;
}

TEST(JitCache, UnwritableDirectoryCompilesInMemoryOnly) {
  TempDir d;
  TmpdirScope tmp(d.path);
  const Toolchain tc = toolchain_with(fake_nvcc(d, "nvcc"));
  // A cache "directory" below a regular file cannot be created, even by root.
  std::ofstream(d / "file") << "x";
  Cubin a = obtain_cubin(tc, d / "file/kernels", "src", "kernel A");
  ASSERT_TRUE(a.ok) << a.error;
  EXPECT_EQ(a.origin, Origin::compiled_not_kept);
  EXPECT_EQ(a.bytes, "CUBIN\nsrc");
  EXPECT_NE(a.note.find("not writable"), std::string::npos) << a.note;
  EXPECT_NE(a.note.find("kept in memory only"), std::string::npos) << a.note;
  // No cache directory at all: the same.
  Cubin b = obtain_cubin(tc, "", "src", "kernel A");
  ASSERT_TRUE(b.ok);
  EXPECT_EQ(b.origin, Origin::compiled_not_kept);
  EXPECT_NE(b.note.find("no cache directory"), std::string::npos) << b.note;
  for (const std::string& n : files_in(d.path)) EXPECT_EQ(n.rfind("tessel-jit-", 0), std::string::npos) << n;
}

TEST(JitCache, ReadOnlyDirectoryIsReadNotWritten) {
  TempDir d;
  TmpdirScope tmp(d.path);
  const Toolchain tc = toolchain_with(fake_nvcc(d, "nvcc"));
  const std::string cache = d / "ro";
  ASSERT_TRUE(obtain_cubin(tc, cache, "kept before", "K").ok);  // written while writable
  ASSERT_EQ(::chmod(cache.c_str(), 0555), 0);
  if (::access(cache.c_str(), W_OK) == 0) {
    ::chmod(cache.c_str(), 0755);
    GTEST_SKIP() << "running as root (or with CAP_DAC_OVERRIDE): chmod 0555 does not deny writing here; "
                    "JitCache.UnwritableDirectoryCompilesInMemoryOnly covers the same path";
  }
  const std::vector<std::string> before = files_in(cache);
  Cubin hit = obtain_cubin(tc, cache, "kept before", "K");
  ASSERT_TRUE(hit.ok);
  EXPECT_EQ(hit.origin, Origin::disk);  // a read-only cache still serves what it holds
  Cubin miss = obtain_cubin(tc, cache, "new kernel", "N");
  ASSERT_TRUE(miss.ok) << miss.error;
  EXPECT_EQ(miss.origin, Origin::compiled_not_kept);
  EXPECT_NE(miss.note.find("not writable"), std::string::npos) << miss.note;
  EXPECT_EQ(files_in(cache), before);
  ::chmod(cache.c_str(), 0755);
}

TEST(JitCompile, FailuresSayWhy) {
  TempDir d;
  TmpdirScope tmp(d.path);
  const std::string cache = d / "cache";
  Cubin f =
      obtain_cubin(toolchain_with(fake_nvcc(d, "fails", "echo 'kernel.cu(3): error: no such thing' >&2; exit 2\n")),
                   cache, "src", "kernel F");
  EXPECT_FALSE(f.ok);
  EXPECT_NE(f.error.find("nvcc could not compile kernel F"), std::string::npos) << f.error;
  EXPECT_NE(f.error.find("no such thing"), std::string::npos) << f.error;
  EXPECT_NE(f.error.find("status 2"), std::string::npos) << f.error;
  // ptxas's serialized-wgmma warning is an error, as in the library's build.
  Cubin w = obtain_cubin(toolchain_with(fake_nvcc(d, "c7511",
                                                  "echo 'ptxas warning : (C7511) Potential Performance Loss: "
                                                  "wgmma.mma_async instructions are serialized' >&2\n")),
                         cache, "src", "kernel W");
  EXPECT_FALSE(w.ok);
  EXPECT_NE(w.error.find("C7511"), std::string::npos) << w.error;
  // Spills: kept, and said.
  Cubin s = obtain_cubin(
      toolchain_with(fake_nvcc(d, "spills",
                               "echo \"ptxas warning : Registers are spilled to local memory in function 'k'\" >&2\n")),
      cache, "src", "kernel S");
  ASSERT_TRUE(s.ok) << s.error;
  EXPECT_NE(s.note.find("local memory"), std::string::npos) << s.note;
  // No toolchain: the reason.
  Toolchain none;
  none.why = "no nvcc: test";
  Cubin n = obtain_cubin(none, cache, "src", "kernel N");
  EXPECT_FALSE(n.ok);
  EXPECT_EQ(n.error, "no nvcc: test");
  // Failed compiles leave nothing in the cache.
  std::vector<CacheFile> list;
  std::string err;
  ASSERT_TRUE(list_cache(cache, list, err));
  EXPECT_EQ(list.size(), 1u);  // the spilled one only
}

TEST(JitCompile, RunProcessTimesOutAndKillsTheGroup) {
  TempDir d;
  write_script(d / "slow", "sleep 30 & wait\n");
  const RunResult r = run_process({d / "slow"}, d.path, 0.5);
  EXPECT_TRUE(r.timed_out);
  EXPECT_LT(r.seconds, 10.0);
  EXPECT_NE(r.error.find("TESSEL_JIT_TIMEOUT"), std::string::npos) << r.error;
  const RunResult missing = run_process({d / "missing"}, d.path, 5);
  EXPECT_EQ(missing.status, -1);
  EXPECT_FALSE(missing.error.empty());
  write_script(d / "echo", "echo out; echo err >&2; exit 3\n");
  const RunResult e = run_process({d / "echo"}, d.path, 5);
  EXPECT_EQ(e.status, 3);
  EXPECT_EQ(e.output, "out\nerr\n");
}

// ------------------------------------------------------------------ the real compiler

/// One specialized k13 instance (the heaviest: 128 x 256, C, aux, the tanh
/// GELU) through the nvcc a GEMM call would run: the compile half of a first
/// call's latency on this machine, then a disk hit.  Skipped without nvcc.
TEST(JitNvcc, CompilesASpecializedK13Instance) {
  std::string why;
  const Toolchain tc = make_toolchain(process_env, configured());
  if (!tc.ok) GTEST_SKIP() << "no toolchain for run-time compilation: " << tc.why;
  TempDir d;
  K13Spec spec;
  spec.tile_n = 256;
  spec.act = Activation::gelu_tanh;
  spec.bias = BiasKind::col;
  spec.with_c = spec.with_aux = true;
  const std::string src = k13_epilogue_source(spec);
  Cubin c = obtain_cubin(tc, d / "cache", src, describe(spec));
  ASSERT_TRUE(c.ok) << c.error;
  EXPECT_EQ(c.origin, Origin::compiled_and_kept);
  EXPECT_TRUE(c.note.empty()) << c.note;  // no local memory reported by ptxas
  std::printf("[ jit ] %s: nvcc %.2f s (nvcc --version %.3f s), cubin %zu bytes, key %s\n", describe(spec).c_str(),
              c.compile_seconds, tc.probe_seconds, c.bytes.size(), c.key.c_str());
  std::printf("[ jit ] nvcc: %s\n", tc.nvcc.c_str());
  Cubin again = obtain_cubin(tc, d / "cache", src, describe(spec));
  ASSERT_TRUE(again.ok);
  EXPECT_EQ(again.origin, Origin::disk);
  EXPECT_EQ(again.bytes, c.bytes);
#ifdef TESSEL_CUOBJDUMP
  // The SASS as CI's sass.gemm_mma checks k13's objects: one kernel, HGMMA,
  // TMA loads and stores, and no local memory.
  ASSERT_TRUE(publish(d.path, "k.cubin", c.bytes, why)) << why;
  const RunResult r = run_process({TESSEL_CUOBJDUMP, "-sass", d / "k.cubin"}, d.path, 300);
  ASSERT_EQ(r.status, 0) << r.error << r.output.substr(0, 2000);
  std::size_t functions = 0;
  for (std::size_t at = 0; (at = r.output.find("Function : ", at)) != std::string::npos; ++at) ++functions;
  EXPECT_EQ(functions, 1u);
  EXPECT_NE(r.output.find("gemm_wgmma_in_flight"), std::string::npos);
  for (const char* op : {"HGMMA", "UTMALDG", "UTMASTG", "SYNCS"}) EXPECT_NE(r.output.find(op), std::string::npos) << op;
  for (const char* op : {" LDL", " STL"}) EXPECT_EQ(r.output.find(op), std::string::npos) << op << ": local memory";
#else
  std::printf("[ jit ] cuobjdump not found at configure time: SASS not checked\n");
#endif
}

}  // namespace
