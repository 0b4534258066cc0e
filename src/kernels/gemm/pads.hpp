// Which operands the TMA steps' launcher (tma::launch) copies into rows of
// whole 128-byte lines before the kernel runs, and how many bytes the copies
// take: one decision for the launch and for gemm_workspace_size.  No CUDA.
#pragma once

#include <cstddef>
#include <cstdint>

#include "tessel/gemm_launch_model.hpp"
#include "tessel/host/gemm.hpp"

namespace tessel::gemm_launch {

/// TMA needs a 16-byte aligned base and 16-byte multiples between rows.
inline bool tma_ready(const void* p, index_t ld, int elem_bytes) {
  return reinterpret_cast<std::uintptr_t>(p) % 16 == 0 && (ld * elem_bytes) % 16 == 0;
}

/// The padded copy's row length: whole 128-byte lines of 16-bit elements.
constexpr index_t padded_ld(index_t cols) { return (cols + 63) / 64 * 64; }

/// The bytes of the padded copy of a (rows x cols) 16-bit matrix.
constexpr std::size_t padded_bytes(index_t rows, index_t cols) {
  return static_cast<std::size_t>(rows) * static_cast<std::size_t>(padded_ld(cols)) * 2;
}

/// The copies of A and B that the launch of `a` makes: an operand TMA cannot
/// read always; with `copy_straddled` (k13-k15) also one whose rows straddle
/// lines where straddled_copy_repays says the copy costs less than the
/// kernel's extra reads (A is read once per tile along N, B once per tile
/// along M).
struct Pads {
  bool a = false, b = false;
  bool a_ready = false, b_ready = false;  // TMA could read the operand as it is
  std::size_t a_bytes = 0, b_bytes = 0;
  std::size_t bytes() const { return (a ? a_bytes + 256 : 0) + (b ? b_bytes + 256 : 0); }
};

inline Pads pads_of(const GemmArgs& a, bool copy_straddled) {
  Pads p;
  p.a_ready = tma_ready(a.a, a.lda, 2);
  p.b_ready = tma_ready(a.b, a.ldb, 2);
  const bool ak = a.layout.a == MajorA::k, bk = a.layout.b == MajorB::k;
  const bool swap = a.tuning.swap_ab == SwapAB::on;
  const auto tile_or = [](int tile, index_t fallback) { return tile > 0 ? index_t{tile} : fallback; };
  const index_t along_m = tile_or(swap ? a.tuning.tile_n : a.tuning.tile_m, 128);
  const index_t along_n = tile_or(swap ? a.tuning.tile_m : a.tuning.tile_n, 128);
  const auto straddled = [&](const void* ptr, index_t ld, index_t elems, index_t rereads, bool mn_major) {
    return copy_straddled && straddled_copy_repays(reinterpret_cast<std::uintptr_t>(ptr), ld, elems, rereads, mn_major);
  };
  // k13's 128-row swapped tiles read each row of A N / 128 times: they take A in whole lines (wide_copies_a).
  const bool wide = copy_straddled && swap && ak && a.tuning.tile_m != 64 && swapped_wide_width(a.tuning.tile_n);
  p.a = !p.a_ready || straddled(a.a, a.lda, a.m * a.k, (a.n + along_n - 1) / along_n, !ak) ||
        (wide && wide_copies_a(reinterpret_cast<std::uintptr_t>(a.a), a.lda));
  p.b = !p.b_ready || straddled(a.b, a.ldb, a.n * a.k, (a.m + along_m - 1) / along_m, !bk);
  p.a_bytes = ak ? padded_bytes(a.m, a.k) : padded_bytes(a.k, a.m);
  p.b_bytes = bk ? padded_bytes(a.n, a.k) : padded_bytes(a.k, a.n);
  return p;
}

}  // namespace tessel::gemm_launch
