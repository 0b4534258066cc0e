// NVML through dlopen/dlsym, and the background sampler (nvml_sampler.hpp).
#include "nvml_sampler.hpp"

#include <dlfcn.h>

#include <system_error>
#include <utility>

namespace tessel::bench {
namespace {

// The parts of NVML's C API used here, declared from its documentation
// instead of nvml.h: every entry point returns an nvmlReturn_t (an int enum,
// 0 = NVML_SUCCESS), a device is an opaque pointer (nvmlDevice_t), and the
// clock type is an int enum in which NVML_CLOCK_SM is 1.
constexpr int kNvmlSuccess = 0;
constexpr int kNvmlClockSm = 1;

using NvmlInit = int (*)();
using NvmlHandleByIndex = int (*)(unsigned index, void** device);
using NvmlHandleByPciBusId = int (*)(const char* pci_bus_id, void** device);
using NvmlErrorString = const char* (*)(int result);

/// A symbol of `lib` as a function pointer of type F (null when absent).
template <class F>
F symbol(void* lib, const char* name) {
  return reinterpret_cast<F>(dlsym(lib, name));
}

}  // namespace

// ------------------------------------------------------------------ NvmlAverager

void NvmlAverager::add(const NvmlSample& s) {
  ++samples_;
  if (s.sm_clock_mhz) clock_sum_ += *s.sm_clock_mhz, ++clock_n_;
  if (s.power_w) power_sum_ += *s.power_w, ++power_n_;
}

NvmlMeans NvmlAverager::means() const {
  NvmlMeans m;
  m.samples = samples_;
  if (clock_n_ > 0) m.sm_clock_mhz = clock_sum_ / clock_n_;
  if (power_n_ > 0) m.power_w = power_sum_ / power_n_;
  return m;
}

// ------------------------------------------------------------------ NvmlDevice

NvmlDevice::NvmlDevice(const std::string& pci_bus_id, unsigned index, const std::string& library) {
  lib_ = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!lib_) {
    const char* why = dlerror();
    description_ = "unavailable: cannot load " + library + (why ? std::string(" (") + why + ")" : std::string());
    return;
  }
  const auto init = symbol<NvmlInit>(lib_, "nvmlInit_v2");
  const auto shutdown = symbol<Fn0>(lib_, "nvmlShutdown");
  const auto by_index = symbol<NvmlHandleByIndex>(lib_, "nvmlDeviceGetHandleByIndex_v2");
  const auto by_pci = symbol<NvmlHandleByPciBusId>(lib_, "nvmlDeviceGetHandleByPciBusId_v2");
  const auto error_string = symbol<NvmlErrorString>(lib_, "nvmlErrorString");  // optional: messages only
  get_clock_ = symbol<GetClock>(lib_, "nvmlDeviceGetClockInfo");
  get_power_ = symbol<GetPower>(lib_, "nvmlDeviceGetPowerUsage");
  const char* missing = !init                             ? "nvmlInit_v2"
                        : !shutdown                       ? "nvmlShutdown"
                        : pci_bus_id.empty() && !by_index ? "nvmlDeviceGetHandleByIndex_v2"
                        : !pci_bus_id.empty() && !by_pci  ? "nvmlDeviceGetHandleByPciBusId_v2"
                        : !get_clock_                     ? "nvmlDeviceGetClockInfo"
                        : !get_power_                     ? "nvmlDeviceGetPowerUsage"
                                                          : nullptr;
  auto nvml_error = [&](int rc) {
    const char* text = error_string ? error_string(rc) : nullptr;
    return "error " + std::to_string(rc) + (text ? std::string(": ") + text : std::string());
  };
  if (missing) {
    description_ = "unavailable: " + library + " has no " + missing;
  } else if (const int rc = init(); rc != kNvmlSuccess) {
    description_ = "unavailable: nvmlInit_v2 failed (" + nvml_error(rc) + ")";
  } else {
    shutdown_ = shutdown;
    void* dev = nullptr;
    const int found = pci_bus_id.empty() ? by_index(index, &dev) : by_pci(pci_bus_id.c_str(), &dev);
    const std::string which = pci_bus_id.empty() ? "index " + std::to_string(index) : "PCI " + pci_bus_id;
    if (found != kNvmlSuccess || !dev) {
      description_ = "unavailable: NVML has no device " + which + " (" + nvml_error(found) + ")";
    } else {
      device_ = dev;
      description_ = "NVML (" + library + ", " + which + ")";
      return;
    }
  }
  // Unavailable: release what was taken.
  if (shutdown_) shutdown_();
  shutdown_ = nullptr;
  dlclose(lib_);
  lib_ = nullptr;
}

NvmlDevice::~NvmlDevice() {
  if (shutdown_) shutdown_();
  if (lib_) dlclose(lib_);
}

NvmlSample NvmlDevice::sample() const {
  NvmlSample s;
  if (!device_) return s;
  unsigned mhz = 0, mw = 0;
  if (get_clock_(device_, kNvmlClockSm, &mhz) == kNvmlSuccess) s.sm_clock_mhz = mhz;
  if (get_power_(device_, &mw) == kNvmlSuccess) s.power_w = mw / 1000.0;
  return s;
}

// ------------------------------------------------------------------ NvmlSampler

NvmlSampler::NvmlSampler(const NvmlDevice& device, std::chrono::microseconds period)
    : device_(device), period_(period) {}

NvmlSampler::~NvmlSampler() { stop(); }

void NvmlSampler::start() {
  stop();
  acc_ = NvmlAverager{};
  if (!device_.available()) return;
  stopping_ = false;
  try {
    thread_ = std::thread([this] { run(); });
  } catch (const std::system_error&) {
    // No thread to be had: this average stays empty (no samples) rather than
    // the benchmark stopping over a measurement that is only recorded.
  }
}

NvmlMeans NvmlSampler::stop() {
  if (thread_.joinable()) {
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
    }
    wake_.notify_all();
    thread_.join();
  }
  return acc_.means();
}

void NvmlSampler::run() {
  // A sample at once (even when stop() came first), then one every period
  // until stop(); none after stop() is asked for (the GPU is idle by then).
  // NVML is called without the lock held.
  std::unique_lock<std::mutex> lock(mutex_);
  do {
    lock.unlock();
    const NvmlSample s = device_.sample();
    lock.lock();
    acc_.add(s);
  } while (!wake_.wait_for(lock, period_, [this] { return stopping_; }));
}

}  // namespace tessel::bench
