// Launcher of fp32 ladder step f05 (include/tessel/kernels/gemm/f05_warp_tiling.cuh):
// f04 with warp tiling (4x4 blocks per lane) and the epilogue through shared memory.
#include "src/kernels/gemm/fp32_launch.hpp"
#include "tessel/kernels/gemm/f05_warp_tiling.cuh"

namespace tessel::gemm_launch {

Status check_f05(const GemmArgs& a) { return check_fp32_pipelined(a, "f05"); }

Status launch_f05(const GemmArgs& a, cudaStream_t stream) {
  return launch_fp32_pipelined<gemm_kernels::f05::Config>(a, stream, "f05");
}

}  // namespace tessel::gemm_launch
