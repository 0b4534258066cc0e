// Launchers of the ladder steps, one translation unit each (src/kernels/gemm/
// kNN.cu, fNN.cu), called by tessel::gemm after the common checks of src/kernels/gemm.cu.
// Each may add its own `unsupported` rules in its check function; launch_*
// is only called after check_* returned ok.
#pragma once

#include "tessel/host/gemm.hpp"

namespace tessel::gemm_launch {

#define TESSEL_GEMM_STEP(step)               \
  Status check_##step(const GemmArgs& args); \
  Status launch_##step(const GemmArgs& args, cudaStream_t stream);
TESSEL_GEMM_STEP(k01)
TESSEL_GEMM_STEP(k02)
TESSEL_GEMM_STEP(k03)
TESSEL_GEMM_STEP(k04)
TESSEL_GEMM_STEP(k05)
TESSEL_GEMM_STEP(k06)
TESSEL_GEMM_STEP(k07)
TESSEL_GEMM_STEP(k08)
TESSEL_GEMM_STEP(k09)
TESSEL_GEMM_STEP(k10)
TESSEL_GEMM_STEP(k11)
TESSEL_GEMM_STEP(k12)
TESSEL_GEMM_STEP(k13)
TESSEL_GEMM_STEP(k14)
TESSEL_GEMM_STEP(f01)
TESSEL_GEMM_STEP(f02)
TESSEL_GEMM_STEP(f03)
TESSEL_GEMM_STEP(f04)
TESSEL_GEMM_STEP(f05)
TESSEL_GEMM_STEP(f06)
TESSEL_GEMM_STEP(f07)
/// GemmArgs::tuning's rules (tile_n, splits): checked by k13 and by `auto`
/// on every device, so that a bad tuning fails the same way everywhere.
Status check_k13_tuning(const GemmArgs& args);
#undef TESSEL_GEMM_STEP

/// The unfused epilogue over D (epilogue.cu; what gemm_epilogue_apply
/// launches after its checks): nothing when args.epilogue is not active().
Status launch_epilogue(const GemmArgs& args, cudaStream_t stream);

/// The error of the last launch as a Status (cuda_error naming the kernel).
Status launch_status(const char* kernel);
/// The current device's SM count, read once per device (0 if it cannot be read).
int device_sm_count();

}  // namespace tessel::gemm_launch
