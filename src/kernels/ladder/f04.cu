// Launcher of fp32 ladder step f04 (include/tessel/kernels/gemm/f04_double_buffer.cuh):
// two shared stages filled through registers, fragments one k ahead.
#include "src/kernels/gemm/fp32_launch.hpp"
#include "tessel/kernels/gemm/f04_double_buffer.cuh"

namespace tessel::gemm_launch {

Status check_f04(const GemmArgs& a) { return check_fp32_pipelined(a, "f04"); }

Status launch_f04(const GemmArgs& a, cudaStream_t stream) {
  return launch_fp32_pipelined<gemm_kernels::f04::Config>(a, stream, "f04");
}

}  // namespace tessel::gemm_launch
