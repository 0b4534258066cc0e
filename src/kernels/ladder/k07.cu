// Launcher of ladder step k07 (include/tessel/kernels/gemm/k07_three_stages.cuh).
#include "src/kernels/gemm/multistage_launch.hpp"
#include "tessel/kernels/gemm/k07_three_stages.cuh"

namespace tessel::gemm_launch {

Status check_k07(const GemmArgs& a) { return check_multistage<gemm_kernels::k07::Config>(a, "k07"); }
Status launch_k07(const GemmArgs& a, cudaStream_t stream) {
  return launch_multistage<gemm_kernels::k07::Config>(a, stream, "k07");
}

}  // namespace tessel::gemm_launch
