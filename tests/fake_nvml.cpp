// A stand-in for libnvidia-ml.so.1, for tests/nvml_sampler_test.cpp: the
// entry points NvmlDevice resolves, with fixed answers the test can set.
// Built as a loadable module and opened by path (no GPU, no driver needed).
//
//   device   index 0, or PCI bus id "0000:65:00.0"; any other: NOT_FOUND (6)
//   clock    NVML_CLOCK_SM (1) only; other types: NOT_SUPPORTED (3)
//   setters  fake_nvml_set(sm_mhz, milliwatts, init_rc, power_rc)
//   probe    fake_nvml_inits(): nvmlInit_v2 calls not yet shut down
#include <cstring>

namespace {
int g_inits = 0;
unsigned g_mhz = 1755, g_mw = 612500;
int g_init_rc = 0, g_power_rc = 0;
int g_device = 0;  // the address is the handle
}  // namespace

extern "C" {

__attribute__((visibility("default"))) void fake_nvml_set(unsigned mhz, unsigned mw, int init_rc, int power_rc) {
  g_mhz = mhz;
  g_mw = mw;
  g_init_rc = init_rc;
  g_power_rc = power_rc;
}
__attribute__((visibility("default"))) int fake_nvml_inits() { return g_inits; }

__attribute__((visibility("default"))) int nvmlInit_v2() {
  if (g_init_rc != 0) return g_init_rc;
  ++g_inits;
  return 0;
}
__attribute__((visibility("default"))) int nvmlShutdown() {
  --g_inits;
  return 0;
}
__attribute__((visibility("default"))) const char* nvmlErrorString(int rc) {
  return rc == 6 ? "Not Found" : rc == 3 ? "Not Supported" : "Unknown Error";
}
__attribute__((visibility("default"))) int nvmlDeviceGetHandleByIndex_v2(unsigned index, void** device) {
  if (index != 0) return 6;
  *device = &g_device;
  return 0;
}
__attribute__((visibility("default"))) int nvmlDeviceGetHandleByPciBusId_v2(const char* id, void** device) {
  if (std::strcmp(id, "0000:65:00.0") != 0) return 6;
  *device = &g_device;
  return 0;
}
__attribute__((visibility("default"))) int nvmlDeviceGetClockInfo(void* device, int type, unsigned* clock) {
  if (device != &g_device) return 2;  // NVML_ERROR_INVALID_ARGUMENT
  if (type != 1) return 3;
  *clock = g_mhz;
  return 0;
}
__attribute__((visibility("default"))) int nvmlDeviceGetPowerUsage(void* device, unsigned* mw) {
  if (device != &g_device) return 2;
  if (g_power_rc != 0) return g_power_rc;
  *mw = g_mw;
  return 0;
}
}
