// Launcher of fp32 ladder step f06 (include/tessel/kernels/gemm/f06_vector_smem.cuh):
// f05 with M/N-major shared tiles, 128-bit fragment loads and cp.async.
#include "src/kernels/gemm/fp32_launch.hpp"
#include "tessel/kernels/gemm/f06_vector_smem.cuh"

namespace tessel::gemm_launch {

Status check_f06(const GemmArgs& a) { return check_fp32_pipelined(a, "f06"); }

Status launch_f06(const GemmArgs& a, cudaStream_t stream) {
  return launch_fp32_pipelined<gemm_kernels::f06::Config>(a, stream, "f06");
}

}  // namespace tessel::gemm_launch
