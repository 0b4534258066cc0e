// Launcher of ladder step k08 (include/tessel/kernels/gemm/k08_smem_epilogue.cuh).
#include "src/kernels/gemm/multistage_launch.hpp"
#include "tessel/kernels/gemm/k08_smem_epilogue.cuh"

namespace tessel::gemm_launch {

Status check_k08(const GemmArgs& a) { return check_multistage<gemm_kernels::k08::Config>(a, "k08"); }
Status launch_k08(const GemmArgs& a, cudaStream_t stream) {
  return launch_multistage<gemm_kernels::k08::Config>(a, stream, "k08");
}

}  // namespace tessel::gemm_launch
