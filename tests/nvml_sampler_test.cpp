// `tessel bench gemm`'s NVML reader without a GPU (tools/tessel/nvml_sampler.hpp):
// it fails gracefully where NVML is missing or incomplete, and, against a
// fake NVML (tests/fake_nvml.cpp, opened by path), it finds the device by PCI
// bus id or index, reads clock and power, and averages in a background thread.
#include "nvml_sampler.hpp"

#include <dlfcn.h>
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>

namespace {

using namespace tessel::bench;

bool starts_with(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }

/// The fake's controls, through its own handle (dlopen counts references:
/// the NvmlDevice under test sees the same globals).
struct Fake {
  Fake() : lib(dlopen(FAKE_NVML_PATH, RTLD_NOW | RTLD_LOCAL)) {
    if (!lib) return;
    set = reinterpret_cast<void (*)(unsigned, unsigned, int, int)>(dlsym(lib, "fake_nvml_set"));
    inits = reinterpret_cast<int (*)()>(dlsym(lib, "fake_nvml_inits"));
    set(1755, 612500, 0, 0);
  }
  ~Fake() {
    if (lib) {
      set(1755, 612500, 0, 0);
      dlclose(lib);
    }
  }
  void* lib;
  void (*set)(unsigned mhz, unsigned mw, int init_rc, int power_rc) = nullptr;
  int (*inits)() = nullptr;
};

// ------------------------------------------------------------------ unavailable

TEST(NvmlUnavailable, NoSuchLibrary) {
  NvmlDevice dev("0000:65:00.0", 0, "libnvidia-ml-tessel-does-not-exist.so.1");
  EXPECT_FALSE(dev.available());
  EXPECT_TRUE(starts_with(dev.description(), "unavailable: cannot load libnvidia-ml-tessel-does-not-exist.so.1"))
      << dev.description();
  const NvmlSample s = dev.sample();
  EXPECT_FALSE(s.sm_clock_mhz);
  EXPECT_FALSE(s.power_w);
  // The sampler starts no thread and returns empty means: the CSV cells stay empty.
  NvmlSampler sampler(dev);
  sampler.start();
  const NvmlMeans m = sampler.stop();
  EXPECT_FALSE(m.sm_clock_mhz);
  EXPECT_FALSE(m.power_w);
  EXPECT_EQ(m.samples, 0);
}

TEST(NvmlUnavailable, LibraryWithoutNvml) {
  // A library that loads but is not NVML (the C math library).
  NvmlDevice dev("", 0, "libm.so.6");
  EXPECT_FALSE(dev.available());
  EXPECT_EQ(dev.description(), "unavailable: libm.so.6 has no nvmlInit_v2");
  EXPECT_FALSE(dev.sample().sm_clock_mhz);
}

TEST(NvmlUnavailable, TheRealLibraryNeverThrows) {
  // Wherever this runs (with or without a driver), constructing and sampling
  // must not fail: either NVML answers or the device says why not.
  NvmlDevice dev("", 0);
  if (dev.available()) {
    EXPECT_TRUE(starts_with(dev.description(), "NVML (")) << dev.description();
  } else {
    EXPECT_TRUE(starts_with(dev.description(), "unavailable: ")) << dev.description();
    EXPECT_FALSE(dev.sample().power_w);
  }
}

// ------------------------------------------------------------------ the fake NVML

TEST(NvmlFake, ByPciBusIdAndIndex) {
  Fake fake;
  ASSERT_TRUE(fake.lib) << dlerror();
  {
    NvmlDevice dev("0000:65:00.0", 7, FAKE_NVML_PATH);  // the id wins over the index
    ASSERT_TRUE(dev.available()) << dev.description();
    EXPECT_EQ(dev.description(), std::string("NVML (") + FAKE_NVML_PATH + ", PCI 0000:65:00.0)");
    EXPECT_EQ(fake.inits(), 1);
    const NvmlSample s = dev.sample();
    EXPECT_EQ(s.sm_clock_mhz, 1755.0);  // NVML_CLOCK_SM asked for (the fake refuses other types)
    EXPECT_EQ(s.power_w, 612.5);        // milliwatts -> watts
  }
  EXPECT_EQ(fake.inits(), 0) << "nvmlShutdown when the device goes";
  {
    NvmlDevice dev("", 0, FAKE_NVML_PATH);
    ASSERT_TRUE(dev.available()) << dev.description();
    EXPECT_EQ(dev.description(), std::string("NVML (") + FAKE_NVML_PATH + ", index 0)");
  }
  {
    NvmlDevice dev("0000:17:00.0", 0, FAKE_NVML_PATH);  // not this machine's GPU: no fallback to an index
    EXPECT_FALSE(dev.available());
    EXPECT_EQ(dev.description(), "unavailable: NVML has no device PCI 0000:17:00.0 (error 6: Not Found)");
    EXPECT_EQ(fake.inits(), 0) << "nvmlShutdown after a failed lookup";
  }
}

TEST(NvmlFake, InitFailsOrPowerNotSupported) {
  Fake fake;
  ASSERT_TRUE(fake.lib) << dlerror();
  fake.set(1755, 612500, 9, 0);  // NVML_ERROR_DRIVER_NOT_LOADED
  {
    NvmlDevice dev("", 0, FAKE_NVML_PATH);
    EXPECT_FALSE(dev.available());
    EXPECT_EQ(dev.description(), "unavailable: nvmlInit_v2 failed (error 9: Unknown Error)");
    EXPECT_EQ(fake.inits(), 0);
  }
  fake.set(1980, 0, 0, 3);  // the board does not report its power: the clock alone
  NvmlDevice dev("", 0, FAKE_NVML_PATH);
  ASSERT_TRUE(dev.available());
  const NvmlSample s = dev.sample();
  EXPECT_EQ(s.sm_clock_mhz, 1980.0);
  EXPECT_FALSE(s.power_w);
}

TEST(NvmlFake, SamplerAveragesInTheBackground) {
  Fake fake;
  ASSERT_TRUE(fake.lib) << dlerror();
  fake.set(1500, 400000, 0, 0);
  NvmlDevice dev("", 0, FAKE_NVML_PATH);
  ASSERT_TRUE(dev.available());
  NvmlSampler sampler(dev, std::chrono::milliseconds(1));
  sampler.start();
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  NvmlMeans m = sampler.stop();
  EXPECT_GE(m.samples, 2);  // one at once, then one a millisecond
  EXPECT_EQ(m.sm_clock_mhz, 1500.0);
  EXPECT_EQ(m.power_w, 400.0);
  // A second run starts a fresh average.
  fake.set(1200, 300000, 0, 0);
  sampler.start();
  m = sampler.stop();  // stopped at once: still the first sample
  EXPECT_GE(m.samples, 1);
  EXPECT_EQ(m.sm_clock_mhz, 1200.0);
  EXPECT_EQ(m.power_w, 300.0);
}

// ------------------------------------------------------------------ averaging

TEST(NvmlAverage, MeansOverTheSamplesThatHaveAValue) {
  NvmlAverager a;
  EXPECT_EQ(a.means().samples, 0);
  EXPECT_FALSE(a.means().sm_clock_mhz);
  a.add({1700.0, 600.0});
  a.add({1800.0, std::nullopt});  // power not read this time
  a.add({std::nullopt, 700.0});
  const NvmlMeans m = a.means();
  EXPECT_EQ(m.samples, 3);
  EXPECT_EQ(m.sm_clock_mhz, 1750.0);
  EXPECT_EQ(m.power_w, 650.0);
}

}  // namespace
