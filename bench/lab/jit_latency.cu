// bench/lab/jit_latency.cu — the first-call latency of a run-time compiled
// k13 fused epilogue (GemmTuning::jit; docs/design.md §6), in a fresh cache
// directory of its own:
//   cold    the first call of the configuration: nvcc, load, launch
//   memory  later calls in the same process (a lookup), median of 20
//   disk    the first call in a fresh process (this program run again with
//           --disk): the toolchain's probe (nvcc --version), the cubin read
//           from the cache, the load, the launch; after a warm-up call that
//           creates the CUDA context and loads the library's own kernels
// beside two references on the same problem, warm, median of 20: the
// unfused path (the same call, jit off: plain GEMM reading C, then the
// elementwise epilogue writing aux) and the ahead-of-time fused instance
// (beta = 0, no aux).  Each latency is the host's wall time of tessel::gemm
// and a cudaDeviceSynchronize, so the GPU time of the GEMM is inside every
// number: the problem is small by default (256^3) to keep it a few us.
// bf16 in and out, A:k, B:n, column bias, the tanh GELU, beta = 1, aux.
//
// Build (after `cmake --build build/sm90a --target tessel_kernels`):
//   mkdir -p build/lab && nvcc -std=c++20 -O2 --expt-relaxed-constexpr -gencode=arch=compute_90a,code=sm_90a \
//     -I. -Iinclude bench/lab/jit_latency.cu build/sm90a/libtessel_kernels.a build/sm90a/libtessel_jit.a \
//     -o build/lab/jit_latency
//   build/lab/jit_latency [M N K] [--tile-n 64|128|256]
#include <cuda_runtime.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "tessel/host/gemm.hpp"
#include "tessel/host/jit.hpp"

extern char** environ;

namespace {

#define CHECK_CUDA(x)                                                                          \
  do {                                                                                         \
    const cudaError_t e_ = (x);                                                                \
    if (e_ != cudaSuccess) {                                                                   \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
      std::exit(2);                                                                            \
    }                                                                                          \
  } while (0)

struct Problem {
  tessel::index_t m = 256, n = 256, k = 256;
  int tile_n = 128;
  void *a = nullptr, *b = nullptr, *c = nullptr, *d = nullptr, *aux = nullptr, *bias = nullptr;

  void allocate() {
    const auto alloc = [](void** p, std::size_t elems) {
      CHECK_CUDA(cudaMalloc(p, elems * 2));
      CHECK_CUDA(cudaMemset(*p, 0, elems * 2));  // zeros: the latency does not depend on the values
    };
    alloc(&a, static_cast<std::size_t>(m * k));
    alloc(&b, static_cast<std::size_t>(k * n));
    alloc(&c, static_cast<std::size_t>(m * n));
    alloc(&d, static_cast<std::size_t>(m * n));
    alloc(&aux, static_cast<std::size_t>(m * n));
    alloc(&bias, static_cast<std::size_t>(n));
  }
  /// The measured call: C, aux, bias, GELU; `jit` as given.
  tessel::GemmArgs args(tessel::GemmJit jit, bool with_c_and_aux) const {
    tessel::GemmArgs g;
    g.m = m, g.n = n, g.k = k;
    g.a = a, g.lda = k, g.b = b, g.ldb = n, g.d = d, g.ldd = n;
    g.c = with_c_and_aux ? c : nullptr, g.ldc = n;
    g.beta = with_c_and_aux ? 1.0f : 0.0f;
    g.tuning = tessel::GemmTuning{tile_n, 1, tessel::SwapAB::off, 8, jit};
    g.epilogue.act = tessel::Activation::gelu_tanh;
    g.epilogue.bias_kind = tessel::BiasKind::col;
    g.epilogue.bias = bias;
    g.epilogue.aux = with_c_and_aux ? aux : nullptr;
    g.epilogue.ldaux = with_c_and_aux ? n : 0;
    return g;
  }
};

/// Wall seconds of one call and a device synchronization; exits on failure.
double timed_call(const tessel::GemmArgs& g, const char* what) {
  const auto t0 = std::chrono::steady_clock::now();
  const tessel::Status s = tessel::gemm(tessel::GemmImpl::k13_wgmma_in_flight, g);
  CHECK_CUDA(cudaDeviceSynchronize());
  const double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (!s) {
    std::fprintf(stderr, "%s: %s: %s\n", what, tessel::to_string(s.code), s.message.c_str());
    std::exit(1);
  }
  if (!s.message.empty()) std::printf("  note (%s): %s\n", what, s.message.c_str());
  return t;
}

double median_of(const tessel::GemmArgs& g, const char* what, int n = 20) {
  std::vector<double> t;
  for (int i = 0; i < n; ++i) t.push_back(timed_call(g, what));
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

void print_stats(const char* when) {
  const tessel::JitStats s = tessel::jit_stats();
  std::printf("  jit_stats %s: compiled %llu, disk %llu, memory %llu, fallbacks %llu\n", when,
              static_cast<unsigned long long>(s.compiled), static_cast<unsigned long long>(s.disk_hits),
              static_cast<unsigned long long>(s.memory_hits), static_cast<unsigned long long>(s.fallbacks));
}

}  // namespace

int main(int argc, char** argv) {
  Problem p;
  bool disk_child = false;
  std::vector<std::string> extents;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--disk") {
      disk_child = true;
    } else if (arg == "--tile-n" && i + 1 < argc) {
      p.tile_n = std::atoi(argv[++i]);
    } else {
      extents.push_back(arg);
    }
  }
  if (extents.size() == 3) {
    p.m = std::atoll(extents[0].c_str()), p.n = std::atoll(extents[1].c_str()), p.k = std::atoll(extents[2].c_str());
  } else if (!extents.empty()) {
    std::fprintf(stderr, "usage: jit_latency [M N K] [--tile-n 64|128|256]\n");
    return 2;
  }
  CHECK_CUDA(cudaFree(nullptr));  // the context
  p.allocate();
  // Warm: the context, the library's kernels, the maps' cache.
  const double aot_first = timed_call(p.args(tessel::GemmJit::off, false), "warm-up (aot fused)");

  if (disk_child) {
    const double disk = timed_call(p.args(tessel::GemmJit::on, true), "disk");
    std::printf("disk    (fresh process, cache hit): %10.3f ms\n", disk * 1e3);
    std::printf("  %s\n", tessel::jit_last_message().c_str());
    print_stats("in the fresh process");
    const tessel::JitStats s = tessel::jit_stats();
    return s.disk_hits == 1 && s.compiled == 0 ? 0 : 1;
  }

  char dir[] = "/tmp/tessel-jit-latency-XXXXXX";
  if (mkdtemp(dir) == nullptr) {
    std::perror("mkdtemp");
    return 2;
  }
  ::setenv("TESSEL_CACHE_DIR", dir, 1);
  std::string why;
  const std::string nvcc = tessel::jit_compiler(&why);
  std::printf("problem %lld x %lld x %lld bf16, tile 128 x %d, tanh GELU + column bias, beta = 1, aux\n",
              static_cast<long long>(p.m), static_cast<long long>(p.n), static_cast<long long>(p.k), p.tile_n);
  std::printf("compiler: %s; cache: %s\n", nvcc.empty() ? ("none: " + why).c_str() : nvcc.c_str(), dir);
  if (nvcc.empty()) return 1;
  std::printf("first aot call of the process (warm-up): %.3f ms\n", aot_first * 1e3);

  const double cold = timed_call(p.args(tessel::GemmJit::on, true), "cold");
  std::printf("cold    (nvcc + load + launch):      %10.3f ms\n", cold * 1e3);
  std::printf("  %s\n", tessel::jit_last_message().c_str());
  const double memory = median_of(p.args(tessel::GemmJit::on, true), "memory");
  std::printf("memory  (in-process hit), median:    %10.3f ms\n", memory * 1e3);
  print_stats("after the cold and memory calls");

  std::fflush(stdout);
  std::string self = "/proc/self/exe", disk_flag = "--disk", tile_flag = "--tile-n", tile = std::to_string(p.tile_n);
  std::string m = std::to_string(p.m), n = std::to_string(p.n), k = std::to_string(p.k);
  char* child_argv[] = {self.data(), disk_flag.data(), m.data(),    n.data(),
                        k.data(),    tile_flag.data(), tile.data(), nullptr};
  pid_t pid = 0;
  int status = -1;
  if (posix_spawn(&pid, self.c_str(), nullptr, nullptr, child_argv, environ) == 0) waitpid(pid, &status, 0);
  const bool child_ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;

  const double unfused = median_of(p.args(tessel::GemmJit::off, true), "unfused");
  const double aot = median_of(p.args(tessel::GemmJit::off, false), "aot fused");
  std::printf("unfused (jit off, C + aux), median:  %10.3f ms\n", unfused * 1e3);
  std::printf("aot fused (beta 0, no aux), median:  %10.3f ms\n", aot * 1e3);

  int removed = 0;
  (void)tessel::jit_cache_clear(&removed);
  ::rmdir(dir);
  if (!child_ok) std::printf("the fresh process did not load the kernel from the disk cache (see above)\n");
  return child_ok ? 0 : 1;
}
