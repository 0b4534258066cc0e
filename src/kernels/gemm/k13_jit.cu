// k13's run-time compiled fused instances (docs/design.md §6, "Compile
// time"; GemmJit): the source of gk::SpecializedConfig<BN, StaticEpilogue<...>>
// for a call's configuration (src/jit/k13_source.cpp), nvcc or the disk
// cache for its cubin (src/jit/jit.cpp), the cubin loaded from memory with
// the runtime's library API (cudaLibraryLoadData: context-independent, so
// one load serves every device), its single kernel found by enumeration,
// and the launch through launch_tiles_with, the ahead-of-time instances'
// own launch.  This unit instantiates no kernel: it compiles in seconds.
//
// In-process cache: one entry per configuration (input type, layout, tile
// width, activation, bias kind, C, aux), created on the first call and never
// removed; the libraries stay loaded until the process exits (unloading
// them from static destructors would race the runtime's own teardown).
// A configuration that failed keeps its failure: later calls fall back at
// once instead of running nvcc again.
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include "src/jit/jit.hpp"
#include "src/kernels/gemm/k13_tiles.hpp"

namespace tessel::gemm_launch::k13 {

namespace {

/// The configuration a call needs, as a number (the in-process map's key).
std::uint32_t config_code(const jit::K13Spec& s) {
  std::uint32_t c = static_cast<std::uint32_t>(s.ab);
  c = c * 2 + (s.layout.a == MajorA::k ? 0u : 1u);
  c = c * 2 + (s.layout.b == MajorB::n ? 0u : 1u);
  c = c * 512 + static_cast<std::uint32_t>(s.tile_n);
  c = c * 8 + static_cast<std::uint32_t>(s.act);
  c = c * 4 + static_cast<std::uint32_t>(s.bias);
  c = c * 2 + (s.with_c ? 1u : 0u);
  return c * 2 + (s.with_aux ? 1u : 0u);
}

struct Entry {
  std::mutex mu;  // held while the kernel is compiled or loaded: a second caller waits for it
  bool done = false;
  std::string error;  // done and failed: why
  cudaLibrary_t library = nullptr;
  const void* kernel = nullptr;
};

struct Entries {
  std::mutex mu;
  std::unordered_map<std::uint32_t, std::unique_ptr<Entry>> map;
};
Entries& entries() {
  static Entries* e = new Entries;  // never destroyed: kernels may be launched until exit
  return *e;
}

/// Shared memory and parameter bytes of the generic fused instance of
/// g's types and width, which the specialized one must equal.
template <int BN>
void sizes_of(const GemmArgs& g, int& smem, int& params) {
  (void)with_types(g, [&]<class T, MajorA MA, MajorB MB>() {
    smem = gk::Tiles<T, MA, MB, gk::Config<BN, true>>::kSmemBytes;
    params = static_cast<int>(sizeof(gemm_kernels::FusedParams<T>));
    return Status::success();
  });
}

/// The cubin's kernel: the library's only one, named gemm_wgmma_in_flight.
Status load(const std::string& bytes, Entry& e, const std::string& what) {
  cudaLibrary_t lib = nullptr;
  cudaError_t err = cudaLibraryLoadData(&lib, bytes.data(), nullptr, nullptr, 0, nullptr, nullptr, 0);
  if (err != cudaSuccess) {
    (void)cudaGetLastError();  // not this call's launch error
    return Status::failure(Status::cuda_error, "cannot load " + what + ": " + cudaGetErrorString(err));
  }
  unsigned count = 0;
  cudaKernel_t k = nullptr;
  err = cudaLibraryGetKernelCount(&count, lib);
  if (err == cudaSuccess && count == 1) err = cudaLibraryEnumerateKernels(&k, 1, lib);
  const char* kname = nullptr;
  if (err == cudaSuccess && count == 1 && k != nullptr &&
      cudaFuncGetName(&kname, reinterpret_cast<const void*>(k)) == cudaSuccess && kname != nullptr &&
      std::string(kname).find("gemm_wgmma_in_flight") != std::string::npos) {
    e.library = lib;
    e.kernel = reinterpret_cast<const void*>(k);
    return Status::success();
  }
  (void)cudaGetLastError();
  (void)cudaLibraryUnload(lib);
  return Status::failure(Status::cuda_error,
                         "the cubin of " + what + " holds " + std::to_string(count) +
                             " kernels, not one gemm_wgmma_in_flight" +
                             (err != cudaSuccess ? std::string(": ") + cudaGetErrorString(err) : ""));
}

std::string seconds(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f s", s);
  return buf;
}

}  // namespace

Status jit_kernel(const GemmArgs& g, const void*& kernel) {
  jit::K13Spec spec;
  spec.ab = g.ab_type;
  spec.layout = g.layout;
  spec.tile_n = g.tuning.tile_n;
  spec.act = g.epilogue.act;
  spec.bias = g.epilogue.bias_kind;
  spec.with_c = g.beta != 0.0f;
  spec.with_aux = g.epilogue.aux != nullptr;
  if (spec.tile_n != 64 && spec.tile_n != 128 && spec.tile_n != 256)
    return Status::failure(Status::unsupported, "k13: no run-time compiled instance of tile 128 x " +
                                                    std::to_string(spec.tile_n) + " (64, 128 or 256)");
  Entry* e = nullptr;
  {
    Entries& all = entries();
    std::lock_guard<std::mutex> lock(all.mu);
    auto& slot = all.map[config_code(spec)];
    if (!slot) slot = std::make_unique<Entry>();
    e = slot.get();
  }
  std::lock_guard<std::mutex> lock(e->mu);
  if (e->done) {
    if (e->kernel == nullptr) return Status::failure(Status::unsupported, e->error);
    jit::counters().memory_hits.fetch_add(1, std::memory_order_relaxed);
    kernel = e->kernel;
    return Status::success();
  }
  switch (spec.tile_n) {
    case 64:
      sizes_of<64>(g, spec.smem_bytes, spec.params_bytes);
      break;
    case 128:
      sizes_of<128>(g, spec.smem_bytes, spec.params_bytes);
      break;
    default:
      sizes_of<256>(g, spec.smem_bytes, spec.params_bytes);
      break;
  }
  const std::string what = jit::describe(spec);
  const jit::Toolchain& tc = jit::toolchain();
  const std::string dir = jit::resolve_cache_dir(jit::process_env);
  const std::string source = jit::k13_epilogue_source(spec);
  jit::Cubin c = jit::obtain_cubin(tc, dir, source, what);
  Status s = c.ok ? load(c.bytes, *e, what) : Status::failure(Status::unsupported, c.error);
  if (!s && c.ok && c.origin == jit::Origin::disk) {
    // A cached file the driver refuses (another driver's, a damaged disk):
    // compiled again, and the cache's copy replaced.
    c = jit::obtain_cubin(tc, dir, source, what, true);
    s = c.ok ? load(c.bytes, *e, what) : Status::failure(Status::unsupported, c.error);
  }
  e->done = true;
  if (!s) {
    e->error = "run-time compilation of " + what + " failed: " + s.message;
    return Status::failure(Status::unsupported, e->error);
  }
  std::string msg;
  switch (c.origin) {
    case jit::Origin::disk:
      jit::counters().disk_hits.fetch_add(1, std::memory_order_relaxed);
      msg = "jit: " + what + " loaded from the cache, " + c.path;
      break;
    case jit::Origin::compiled_and_kept:
      jit::counters().compiled.fetch_add(1, std::memory_order_relaxed);
      msg = "jit: " + what + " compiled by nvcc in " + seconds(c.compile_seconds) + ", cached as " + c.path;
      break;
    case jit::Origin::compiled_not_kept:
      jit::counters().compiled.fetch_add(1, std::memory_order_relaxed);
      msg = "jit: " + what + " compiled by nvcc in " + seconds(c.compile_seconds);
      break;
  }
  if (!c.note.empty()) msg += "; " + c.note;
  jit::set_last_message(msg);
  kernel = e->kernel;
  return Status::success();
}

Status launch_jit_tiles(const GemmArgs& g, cudaStream_t stream, const void* kernel) {
  const auto kernel_of = [kernel]<class T, MajorA MA, MajorB MB>() { return kernel; };
  switch (g.tuning.tile_n) {
    case 64:
      return launch_tiles_with<64, true>(g, stream, false, kernel_of);
    case 128:
      return launch_tiles_with<128, true>(g, stream, false, kernel_of);
    case 256:
      return launch_tiles_with<256, true>(g, stream, false, kernel_of);
    default:
      return Status::failure(Status::unsupported,
                             "k13: no run-time compiled instance of tile 128 x " + std::to_string(g.tuning.tile_n));
  }
}

}  // namespace tessel::gemm_launch::k13
