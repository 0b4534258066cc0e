// The ladder's teaching steps in a build configured with
// TESSEL_BUILD_LADDER=OFF (the default of a plain build and of `pip install
// .`): each step's check and launcher are defined here and refuse the call by
// name, so that tessel::gemm links and a call naming such a step gets a
// status, not a missing symbol.  CMakeLists.txt compiles this file instead of
// the steps' own translation units; `auto` never picks these steps and no
// other step falls back to them (tessel/gemm_types.hpp, kTeachingGemmImpls).
#include <string>

#include "src/kernels/gemm/launch.hpp"

namespace tessel::gemm_launch {

namespace {

Status not_built(const char* step) {
  return Status::failure(Status::unsupported,
                         std::string(step) +
                             " is not built: configure with -DTESSEL_BUILD_LADDER=ON (the ladder's teaching steps, "
                             "which `auto` never picks, are left out of this build)");
}

}  // namespace

#define TESSEL_GEMM_ABSENT_STEP(step)                               \
  Status check_##step(const GemmArgs&) { return not_built(#step); } \
  Status launch_##step(const GemmArgs&, cudaStream_t) { return not_built(#step); }
TESSEL_GEMM_ABSENT_STEP(k01)
TESSEL_GEMM_ABSENT_STEP(k02)
TESSEL_GEMM_ABSENT_STEP(k03)
TESSEL_GEMM_ABSENT_STEP(k04)
TESSEL_GEMM_ABSENT_STEP(k05)
TESSEL_GEMM_ABSENT_STEP(k06)
TESSEL_GEMM_ABSENT_STEP(k07)
TESSEL_GEMM_ABSENT_STEP(k09)
TESSEL_GEMM_ABSENT_STEP(k10)
TESSEL_GEMM_ABSENT_STEP(k11)
TESSEL_GEMM_ABSENT_STEP(k12)
TESSEL_GEMM_ABSENT_STEP(f01)
TESSEL_GEMM_ABSENT_STEP(f02)
TESSEL_GEMM_ABSENT_STEP(f03)
TESSEL_GEMM_ABSENT_STEP(f04)
TESSEL_GEMM_ABSENT_STEP(f05)
TESSEL_GEMM_ABSENT_STEP(f06)
TESSEL_GEMM_ABSENT_STEP(f09)
#undef TESSEL_GEMM_ABSENT_STEP

}  // namespace tessel::gemm_launch
