// `tessel bench gemm`: the SM clock and the board power during the timed
// launches (docs/bench-protocol.md §4), read through NVML.
//
// NVML is loaded at run time (dlopen of libnvidia-ml.so.1, which the driver
// installs) rather than linked: the command line must start, and run, where
// there is no driver or no NVML (a container without the driver's user-space
// libraries, a CPU-only build machine); the clock and power columns are then
// empty.  No nvml.h either: the few types, constants and entry points used
// are declared in nvml_sampler.cpp.  Plain host C++: it builds and is tested
// without CUDA (tests/nvml_sampler_test.cpp, against tests/fake_nvml.cpp).
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

namespace tessel::bench {

/// The library's name as the driver installs it.
inline constexpr const char* kNvmlLibrary = "libnvidia-ml.so.1";

/// One reading; a quantity NVML did not give (not supported, an error) is empty.
struct NvmlSample {
  std::optional<double> sm_clock_mhz;  // nvmlDeviceGetClockInfo(NVML_CLOCK_SM), the current SM clock
  std::optional<double> power_w;       // nvmlDeviceGetPowerUsage, milliwatts / 1000
};

/// Means over samples.  Each quantity is averaged over the samples that have
/// it; it is empty when none has.
struct NvmlMeans {
  std::optional<double> sm_clock_mhz, power_w;
  int samples = 0;  // samples taken (with or without values)
};

/// Accumulates samples into NvmlMeans (the sampler's arithmetic, testable alone).
class NvmlAverager {
 public:
  void add(const NvmlSample& s);
  NvmlMeans means() const;

 private:
  double clock_sum_ = 0, power_sum_ = 0;
  int clock_n_ = 0, power_n_ = 0, samples_ = 0;
};

/// NVML, loaded at run time, and one device in it.  Never throws: whatever
/// fails (the library is missing, a symbol is missing, nvmlInit fails, the
/// device is not found) leaves it unavailable, with the reason in
/// description(), and sample() then returns empty readings.
class NvmlDevice {
 public:
  /// The device whose PCI bus id is `pci_bus_id` (as cudaDeviceGetPCIBusId
  /// writes it, "0000:65:00.0": NVML and CUDA may number devices
  /// differently, and CUDA_VISIBLE_DEVICES renumbers CUDA's only), or, when
  /// `pci_bus_id` is empty, NVML's device number `index`.  `library` is the
  /// name or path given to dlopen (injectable for tests).
  NvmlDevice(const std::string& pci_bus_id, unsigned index, const std::string& library = kNvmlLibrary);
  ~NvmlDevice();
  NvmlDevice(const NvmlDevice&) = delete;
  NvmlDevice& operator=(const NvmlDevice&) = delete;

  bool available() const { return device_ != nullptr; }
  /// "NVML (libnvidia-ml.so.1, PCI 0000:65:00.0)", or "unavailable: REASON".
  const std::string& description() const { return description_; }
  /// One reading of the SM clock and the board power (empty when unavailable).
  /// Safe to call from another thread (NVML is thread-safe).
  NvmlSample sample() const;

 private:
  using Fn0 = int (*)();
  using GetClock = int (*)(void* device, int type, unsigned* clock);
  using GetPower = int (*)(void* device, unsigned* milliwatts);

  void* lib_ = nullptr;     // dlopen handle
  void* device_ = nullptr;  // nvmlDevice_t (an opaque pointer)
  Fn0 shutdown_ = nullptr;  // set once nvmlInit_v2 succeeded
  GetClock get_clock_ = nullptr;
  GetPower get_power_ = nullptr;
  std::string description_;
};

/// Samples a device from a background thread, every `period`, from start()
/// until stop(), and averages.  The first sample is taken at once, so every
/// start/stop pair has at least one.  With an unavailable device no thread is
/// started and stop() returns empty means.
class NvmlSampler {
 public:
  explicit NvmlSampler(const NvmlDevice& device, std::chrono::microseconds period = std::chrono::milliseconds(5));
  ~NvmlSampler();
  NvmlSampler(const NvmlSampler&) = delete;
  NvmlSampler& operator=(const NvmlSampler&) = delete;

  /// Starts a fresh average (a running one is stopped and dropped first).
  /// Never throws: if no thread can be started, stop() returns no samples.
  void start();
  /// Stops the thread and returns the means since start() (empty if not started).
  NvmlMeans stop();

 private:
  void run();

  const NvmlDevice& device_;
  std::chrono::microseconds period_;
  std::thread thread_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  NvmlAverager acc_;
};

}  // namespace tessel::bench
