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
TESSEL_GEMM_STEP(k15)
TESSEL_GEMM_STEP(f01)
TESSEL_GEMM_STEP(f02)
TESSEL_GEMM_STEP(f03)
TESSEL_GEMM_STEP(f04)
TESSEL_GEMM_STEP(f05)
TESSEL_GEMM_STEP(f06)
TESSEL_GEMM_STEP(f07)
TESSEL_GEMM_STEP(f08)
TESSEL_GEMM_STEP(f09)
TESSEL_GEMM_STEP(f10)
TESSEL_GEMM_STEP(f11)
TESSEL_GEMM_STEP(f12)
TESSEL_GEMM_STEP(small_m)
/// Does f10's TMA kernel (and f11's) take `a` (B:n, A and B rows TMA can
/// read)?  Else those steps run f08's kernel (f10.cu).
bool f10_kernel_applies(const GemmArgs& a);
/// f11's TMA kernel's own rules for `a` (its grid), errors naming `step`
/// (f11.cu; f12 runs that kernel on its copies).
Status check_f11_kernel(const GemmArgs& a, const char* step);
/// Which operands f12 copies for `a` (f12.cu): A where it is K-major or its
/// rows TMA cannot read, B likewise.
void f12_copies(const GemmArgs& a, bool& copy_a, bool& copy_b);
/// GemmArgs::tuning's rules (tile_n, splits): checked by k13 and by `auto`
/// on every device, so that a bad tuning fails the same way everywhere.
Status check_k13_tuning(const GemmArgs& args);
#undef TESSEL_GEMM_STEP

/// The problem D^T = B^T A^T that k13 runs for `args` swapped (k13.cu): the
/// kernel's A is B, its B is A, M and N exchanged; D and C keep their
/// pointers and leading dimensions (the kernel writes and reads them transposed).
GemmArgs k13_swapped(const GemmArgs& args);
/// k13 on FP8 A and B (k13_fp8.cu): the rules beyond check_k13_tuning's
/// (check_k13 calls it), the plan's tuning on `sms` SMs, `args` with the
/// tuning the caller left to the plan filled in, and the launch (launch_k13
/// calls it).
Status check_k13_fp8(const GemmArgs& args);
GemmTuning plan_k13_fp8(const GemmArgs& args, int sms);
GemmArgs k13_fp8_tuned(const GemmArgs& args);
Status launch_k13_fp8(const GemmArgs& args, cudaStream_t stream);

/// Compiles or loads the run-time compiled kernel launch_k13(args) would
/// launch (k13_jit.cu), without launching; ok when it needs none.
Status prepare_k13_jit(const GemmArgs& args);

/// The unfused epilogue over D (epilogue.cu; what gemm_epilogue_apply
/// launches after its checks): nothing when args.epilogue is not active().
Status launch_epilogue(const GemmArgs& args, cudaStream_t stream);
/// Split K summed apart (epilogue.cu): D = alpha x (the sum of `splits`
/// planes of `plane` floats at `partials`, rows of `ld` floats, in D's
/// orientation) + beta x C, on args' D (m x n, or n x m where `transposed`:
/// args is then the swapped problem), launched as a programmatic dependent of
/// the GEMM just launched on `stream`, which wrote the planes.
Status launch_split_sum(const GemmArgs& args, bool transposed, const float* partials, index_t plane, int ld, int splits,
                        cudaStream_t stream);
// k13's batched and grouped kernel (k13_grouped.cuh; launchers in k13_grouped.cu).
/// Does `t` fit the batched kernel: tile_n 0, 128 or 256, splits 0 or 1, no swap?
bool k13_batched_tuning(const GemmTuning& t);
/// Can the batched kernel serve checked `args` (batch > 1): its tuning, A
/// and B rows and batch strides TMA can read (16-byte multiples, aligned
/// bases), the work units in 31 bits; FP8: tile_n 0 or 128, no scales in
/// memory, no epilogue.  Where not, k13 runs one launch per batch.
bool k13_batched_applies(const GemmArgs& args);
/// Every batch of `args` in one persistent launch of the batched kernel.
Status launch_k13_batched(const GemmArgs& args, cudaStream_t stream);
/// The rows of the tiles of an FP8 group or batch (`count` problems, batches
/// counted) in one launch: a tuning.tile_m that a problem names, else 128 or
/// 64 by fp8_group_tile_rows on `sms` SMs.
int k13_fp8_group_rows(const GemmArgs* problems, int count, int sms);
/// Can k15's batched kernel (k15_grouped.cuh) serve checked `args` (batch >
/// 1): what k13_batched_applies asks, with tile_n 0 or 128, beta = 0 and no
/// epilogue.  Where not, k15 runs one launch per batch.
bool k15_batched_applies(const GemmArgs& args);
/// Every batch of `args` in one persistent launch of k15's batched kernel.
Status launch_k15_batched(const GemmArgs& args, cudaStream_t stream);
/// The most problems gemm_grouped takes (the descriptors' count is an int
/// on the device, and a group beyond this is better served as a batch).
inline constexpr int kMaxGroups = 1 << 16;
/// Can the grouped kernel serve the checked group: 16-bit or FP8 inputs whose
/// A and B rows TMA can read, the work units in 31 bits.
bool k13_grouped_applies(const GemmArgs* problems, int count);
/// The group in one persistent launch of the grouped kernel, tile
/// tiles.tile_m (FP8: 128 or 64; else 128) x tiles.tile_n (FP8: 128).
Status launch_k13_grouped(const GemmArgs* problems, int count, const GemmTuning& tiles, cudaStream_t stream);

/// The most workspace bytes the launch of checked `args` takes
/// (gemm_workspace_size): k13's padded copies and split K's partial tiles
/// and counters; k14's and k15's padded copies (with their launchers' tile);
/// f11's stream-K partials; f12's copies and f11's partials.
std::size_t k13_workspace_bytes(const GemmArgs& args);
std::size_t k14_workspace_bytes(const GemmArgs& args);
std::size_t k15_workspace_bytes(const GemmArgs& args);
std::size_t f11_workspace_bytes(const GemmArgs& args);
std::size_t f12_workspace_bytes(const GemmArgs& args);
std::size_t small_m_workspace_bytes(const GemmArgs& args);
/// The splits of K a small-M launch of `args` runs (no split empty).
int small_m_launch_splits(const GemmArgs& args);

/// The error of the last launch as a Status (cuda_error naming the kernel).
Status launch_status(const char* kernel);
/// The current device's SM count, read once per device (0 if it cannot be read).
int device_sm_count();

}  // namespace tessel::gemm_launch
