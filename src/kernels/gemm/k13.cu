// Launcher of ladder step k13 (include/tessel/kernels/gemm/k13_wgmma_in_flight.cuh):
// the checks, the tuning (the caller's, else the plan's), the padded copies
// of operands TMA cannot read (k11's launcher), the swap of A and B for
// small M, then the kernels of the chosen tile width (instances.cu's k13 units),
// or with an epilogue (GemmArgs::epilogue) the fused instance of that width,
// or where there is none the plain kernels and
// the elementwise epilogue (epilogue.cu); with GemmTuning::jit, a run-time
// compiled fused instance where the tuning asks for one (k13_jit.cu).
#include <string>

#include "src/jit/jit.hpp"
#include "src/kernels/gemm/instances.hpp"
#include "src/kernels/gemm/tma_warp_specialized_launch.hpp"

namespace tessel::gemm_launch {

namespace {

/// Does the call run swapped?  The plan's rule 4 where the caller left the
/// swap to it (it needs no SM count: gemm_plan.hpp).
bool runs_swapped(const GemmArgs& a) {
  return plan_k13(a.m, a.n, a.k, 1, a.tuning.tile_n, a.tuning.swap_ab, true, a.epilogue.active()).swap_ab == SwapAB::on;
}

}  // namespace

/// The problem D^T = B^T A^T that k13 computes for `a` swapped: the
/// kernel's A is B as an (N, K) operand (B:n, N contiguous, is an A:m; B:k
/// an A:k), its B is A as a (K, M) one (A:k is a B:k, A:m a B:n), and C and
/// D keep their pointers and leading dimensions: the kernel reads and writes
/// them transposed (the `transposed` argument of launch_tiles).
GemmArgs k13_swapped(const GemmArgs& a) {
  GemmArgs s = a;
  s.m = a.n;
  s.n = a.m;
  s.a = a.b;
  s.lda = a.ldb;
  s.b = a.a;
  s.ldb = a.lda;
  s.ab_type = b_type_of(a);  // FP8 A and B may differ in format
  s.b_type = a.ab_type;
  s.fp8_scale_a = a.fp8_scale_b;  // per channel: A's scales index M, the swapped problem's N
  s.fp8_scale_b = a.fp8_scale_a;
  s.layout.a = a.layout.b == MajorB::n ? MajorA::m : MajorA::k;
  s.layout.b = a.layout.a == MajorA::k ? MajorB::k : MajorB::n;
  return s;
}

Status check_k13_tuning(const GemmArgs& a) {
  const GemmTuning& t = a.tuning;
  if (t.swap_ab != SwapAB::plan && t.swap_ab != SwapAB::off && t.swap_ab != SwapAB::on)
    return Status::failure(Status::invalid_argument, "k13: tuning.swap_ab must be SwapAB::plan, off or on (got " +
                                                         std::to_string(static_cast<int>(t.swap_ab)) + ")");
  if (t.tile_n != 0 && t.tile_n != 16 && t.tile_n != 32 && t.tile_n != 64 && t.tile_n != 128 && t.tile_n != 192 &&
      t.tile_n != 256 && !swapped_only_width(t.tile_n) && !swapped_wide_width(t.tile_n))
    return Status::failure(Status::invalid_argument,
                           "k13: tuning.tile_n must be 0 (the plan's), 16, 32, 64, 128, 192 or 256, a multiple of "
                           "16 from 80 to 256 (128 rows, swapped or not), or swapped 48 (tile_m 64) (got " +
                               std::to_string(t.tile_n) + ")");
  if (!kFittedVerified && fitted_width(t.tile_n) && t.swap_ab != SwapAB::on && t.tile_m != 64)
    return Status::failure(
        Status::unsupported,
        "k13: the unswapped tile 128 x " + std::to_string(t.tile_n) +
            " (a width between the powers of two, fitted to a thin N) is built but off: with B N-major "
            "it ran at half the power-of-two widths' rate (kFittedVerified): use 64, 128, 192 or 256, or set "
            "tuning.swap_ab on for the swapped 128-row tile of that width along M");
  if (swapped_only_width(t.tile_n) && t.tile_n == 48 && (t.swap_ab != SwapAB::on || t.tile_m != 64))
    return Status::failure(Status::invalid_argument,
                           "k13: tuning.tile_n = 48 is a swapped one-warpgroup width: it needs tuning.swap_ab on and "
                           "tuning.tile_m 64");
  if ((t.tile_n == 16 || t.tile_n == 32) && t.swap_ab == SwapAB::off)
    return Status::failure(Status::invalid_argument,
                           "k13: tuning.tile_n = " + std::to_string(t.tile_n) +
                               " needs the swap of A and B (tuning.swap_ab on or the plan's, not off): unswapped "
                               "tiles are 64, 128, 192 or 256 wide");
  if (t.swap_ab == SwapAB::on && t.tile_n > 64 && !swapped_only_width(t.tile_n) && !swapped_wide_width(t.tile_n))
    return Status::failure(Status::invalid_argument,
                           "k13: with the swap of A and B (tuning.swap_ab on), tuning.tile_n (the tile's width "
                           "along M) must be 0 (the plan's), 16, 32, 64 or a multiple of 16 from 80 to 256 (got " +
                               std::to_string(t.tile_n) + ")");
  if (t.swap_ab == SwapAB::on && t.tile_m == 64 && t.tile_n > 64 && !swapped_only_width(t.tile_n))
    return Status::failure(Status::invalid_argument,
                           "k13: tuning.tile_m = 64 with the swap on (one consumer warpgroup) takes tile_n 16, 32, "
                           "48, 64, 80 or 96 (got tile_n " +
                               std::to_string(t.tile_n) + "; 128 rows take 80 to 256)");
  if (t.tile_m != 0 && t.tile_m != 64 && t.tile_m != 128)
    return Status::failure(Status::invalid_argument, "k13: tuning.tile_m must be 0 (the plan's), 64 or 128 (got " +
                                                         std::to_string(t.tile_m) + ")");
  // The one-warpgroup tiles: 64 x {16, 32, 64} swapped, 64 x 128 unswapped.
  if (t.tile_m == 64 && !swapped_only_width(t.tile_n) &&
      (t.tile_n > 128 || (t.swap_ab == SwapAB::off && t.tile_n != 0 && t.tile_n != 128)))
    return Status::failure(Status::invalid_argument,
                           "k13: tuning.tile_m = 64 (one consumer warpgroup) runs the swapped tiles 64 x 16, 32 or "
                           "64 and the unswapped 64 x 128: with tile_m 64, tile_n must be 0, 16, 32, 64 or 128, and "
                           "with the swap off 0 or 128 (got tile_n " +
                               std::to_string(t.tile_n) + ")");
  // A k-tile holds 128 bytes of K: 64 16-bit elements, 128 FP8 ones.
  const index_t k_tiles = ceil_div(a.k * size_bytes(a.ab_type), index_t{128});
  // The values some step takes (k13: 0, 1; k14: 0, 2, 4; k15: 0, 2); each step's own check refuses the others'.
  if (t.cluster != 0 && t.cluster != 1 && t.cluster != 2 && t.cluster != 4)
    return Status::failure(Status::invalid_argument,
                           "tuning.cluster must be 0, 1 (k13: split K through partials in global memory), 2 (k14, "
                           "k15: pairs) or 4 (k14: 2 x 2) (got " +
                               std::to_string(t.cluster) + ")");
  if (t.raster_group < 0 || t.raster_group > 65536)
    return Status::failure(
        Status::invalid_argument,
        "k13: tuning.raster_group must be in 0..65536, 0 for the plan's (got " + std::to_string(t.raster_group) + ")");
  if (t.splits < 0 || t.splits > 64)
    return Status::failure(Status::invalid_argument, "k13: tuning.splits must be in 0..64, 0 for the plan's (got " +
                                                         std::to_string(t.splits) + ")");
  if (t.stages < 0 || t.stages > 64)
    return Status::failure(Status::invalid_argument, "k13: tuning.stages must be in 0..64, 0 for the launch's (got " +
                                                         std::to_string(t.stages) + ")");
  if (t.split_tail && t.splits < 2)
    return Status::failure(Status::invalid_argument,
                           "k13: tuning.split_tail splits only the tiles past the grid's full waves, tuning.splits "
                           "ways: it needs tuning.splits >= 2 (got " +
                               std::to_string(t.splits) + ")");
  if (t.splits > k_tiles)
    return Status::failure(Status::invalid_argument, "k13: tuning.splits = " + std::to_string(t.splits) +
                                                         " exceeds K's " + std::to_string(k_tiles) +
                                                         " k-tiles of 128 bytes (K = " + std::to_string(a.k) +
                                                         "): a split would be empty");
  return Status::success();
}

Status check_k13(const GemmArgs& a) {
  if (Status s = check_k13_tuning(a); !s) return s;
  if (a.tuning.cluster_share != ClusterShare::plan || a.tuning.cluster > 1)
    return Status::failure(Status::unsupported,
                           "k13: tuning.cluster must be 0 (split K of the swapped 16- and 32-wide tiles inside "
                           "clusters, 2..8 splits) or 1 (split K through partials in global memory), and "
                           "tuning.cluster_share plan: pairs are k14's (got cluster " +
                               std::to_string(a.tuning.cluster) + ")");
  if (is_fp8(a.ab_type)) return check_k13_fp8(a);  // its own instances and rules (k13_fp8.cu)
  if (a.tuning.tile_m == 64 && !runs_swapped(a) && a.tuning.tile_n != 0 && a.tuning.tile_n != 128)
    return Status::failure(Status::invalid_argument,
                           "k13: tuning.tile_m = 64 on an unswapped problem is the 64 x 128 tile: tile_n must be 0 "
                           "or 128 (got " +
                               std::to_string(a.tuning.tile_n) +
                               "; the plan swaps M <= 64 with N >= 128, or set tuning.swap_ab on for 64 x 16, 32 "
                               "or 64)");
  if (runs_swapped(a) && a.tuning.tile_n > 64 && a.layout.a != MajorA::k)
    return Status::failure(Status::unsupported, "k13: the swapped tile " +
                                                    std::to_string(a.tuning.tile_m == 64 ? 64 : 128) + " x " +
                                                    std::to_string(a.tuning.tile_n) +
                                                    " reads A K-major only (A:k); with A:m the swapped widths are "
                                                    "16, 32 and 64");
  // The narrowest tile has the most tiles (128 x 64 unswapped, 128 of N x 16
  // of M swapped); times the splits (the plan's at most 16), the work units
  // must count in 31 bits, with room for a grid's stride past the last
  // (blocks::SplitKScheduler counts in int).
  const index_t tiles = runs_swapped(a) ? ceil_div(a.n, index_t{64}) * ceil_div(a.m, index_t{16})
                                        : ceil_div(a.m, index_t{128}) * ceil_div(a.n, index_t{64});
  const index_t units = tiles * (a.tuning.splits == 0 ? 16 : a.tuning.splits);
  if (units > tma::kMaxScheduledUnits || ceil_div(a.k, index_t{64}) > 0x7FFFFFFF)
    return Status::failure(Status::unsupported,
                           "k13: more than 2^31 - 2^20 work units (tiles of 128 x 64, or 64 x 16 swapped, times "
                           "splits) or 2^31 k-tiles");
  return tma::check(a, "k13");
}

namespace {

/// The 128-row tile 128 x w between the powers of two: swapped (swapped_wide_width; `g` the swapped problem) or
/// unswapped, fitted to N (fitted_width).
Status launch_between(const GemmArgs& g, cudaStream_t stream, int w, bool swapped) {
  const auto none = [&] {
    return Status::failure(Status::invalid_argument, std::string("k13: no ") + (swapped ? "swapped" : "unswapped") +
                                                         " tile 128 x " + std::to_string(w));
  };
  return with_wide_width(
      w,
      [&](auto width) {
        constexpr int W = decltype(width)::value;
        if (swapped) return k13::launch_tiles_wide<W>(g, stream);
        if constexpr (fitted_width(W))
          return k13::launch_tiles_fitted<W>(g, stream);
        else
          return none();
      },
      none);
}

/// `a` with every tuning field the caller left to the plan filled in (k13_tuning).
Status tuned(const GemmArgs& a, GemmArgs& g) {
  g = a;
  if (g.tuning.tile_n == 0 || g.tuning.splits == 0 || g.tuning.swap_ab == SwapAB::plan || g.tuning.raster_group == 0) {
    int sms = 0;
    if (Status s = tma::sm_count("k13", sms); !s) return s;
    g.tuning =
        k13_tuning(g.tuning, g.m, g.n, g.k, sms, rows_whole_lines(g.lda), g.epilogue.active(), rows_whole_lines(g.ldb));
  }
  return Status::success();
}

}  // namespace

std::size_t k13_workspace_bytes(const GemmArgs& a) {
  GemmArgs g;
  const bool fp8 = is_fp8(a.ab_type);  // FP8: no padded copies (check_k13_fp8)
  if (fp8)
    g = k13_fp8_tuned(a);
  else if (!tuned(a, g))
    return 0;  // the launch fails before it takes any
  std::size_t bytes = fp8 ? 0 : pads_of(g, true).bytes();
  const int splits = g.tuning.splits < 1 ? 1 : g.tuning.splits;
  if (splits > 1) {  // k13_tiles.hpp's Workspace: partial tiles, then the counters
    const bool swap = g.tuning.swap_ab == SwapAB::on;
    const index_t rows = swap ? g.n : g.m, cols = swap ? g.m : g.n;
    const index_t bm = g.tuning.tile_m == 64 ? 64 : 128, bn = g.tuning.tile_n;
    const index_t all = ceil_div(rows, bm) * ceil_div(cols, bn);
    const auto tiles =
        static_cast<std::size_t>(all - (g.tuning.split_tail ? split_tail_whole(all, device_sm_count()) : 0));
    bytes += split_k_bytes(tiles, splits, static_cast<int>(bm), static_cast<int>(bn));
  }
  return bytes;
}

Status prepare_k13_jit(const GemmArgs& a) {
  if (is_fp8(a.ab_type)) return Status::success();  // no epilogue to compile (check_k13_fp8)
  GemmArgs g;
  if (Status s = tuned(a, g); !s) return s;
  if (!g.epilogue.active() || !k13_wants_jit(g.tuning, g.beta, g.epilogue.aux != nullptr)) return Status::success();
  const void* kernel = nullptr;
  return k13::jit_kernel(g, kernel);
}

Status launch_k13(const GemmArgs& a, cudaStream_t stream) {
  if (is_fp8(a.ab_type)) return launch_k13_fp8(a, stream);  // no epilogue here (launch_step runs it after)
  GemmArgs g;
  if (Status s = tuned(a, g); !s) return s;
  const bool aux = g.epilogue.aux != nullptr;
  // Run-time compilation where the tuning asks for it (GemmJit,
  // k13_wants_jit): the specialized instance, else the ahead-of-time path
  // below, whose status then carries why (and jit_last_message()).
  std::string jit_note;
  if (g.epilogue.active() && k13_wants_jit(g.tuning, g.beta, aux)) {
    const void* kernel = nullptr;
    const Status j = k13::jit_kernel(g, kernel);
    if (j)
      return tma::launch<false>(
          g, stream, "k13", [stream, kernel](const GemmArgs& t) { return k13::launch_jit_tiles(t, stream, kernel); });
    jit_note = "jit: " + j.message + "; this call took the " +
               name(k13_fuses(g.tuning, g.beta, aux) ? EpiloguePath::aot_fused : EpiloguePath::unfused) + " instead";
    jit::counters().fallbacks.fetch_add(1, std::memory_order_relaxed);
    jit::set_last_message(jit_note);
  }
  const auto noted = [&jit_note](Status s) {
    if (s && !jit_note.empty()) s.message = jit_note;
    return s;
  };
  if (g.epilogue.active() && !k13_fuses(g.tuning, g.beta, aux)) {
    // No fused instance for this tuning (the caller's swap or width), or C
    // or aux to handle (k13_fuses): the plain kernels, then the elementwise
    // epilogue over D.
    GemmArgs plain = g;
    plain.epilogue = GemmEpilogue{};
    if (Status s = launch_k13(plain, stream); !s) return s;
    return noted(launch_epilogue(g, stream));
  }
  // The padded copies (tma::launch) are of the caller's A and B, and its
  // fallback (k08) computes the caller's problem: the swap is made after them.
  return noted(tma::launch<false>(g, stream, "k13", [stream](const GemmArgs& t) {
    if (t.epilogue.active()) {
      switch (t.tuning.tile_n) {  // k13_fused_instance: 64, 128 or 256, unswapped
        case 64:
          return k13::launch_fused_tiles<64>(t, stream);
        case 128:
          return k13::launch_fused_tiles<128>(t, stream);
        default:
          return k13::launch_fused_tiles<256>(t, stream);
      }
    }
    if (t.tuning.swap_ab == SwapAB::on) {
      const GemmArgs s = k13_swapped(t);
      if (t.tuning.tile_m == 64) {
        switch (t.tuning.tile_n) {
          case 16:
            return k13::launch_tiles_m64<16>(s, stream);
          case 32:
            return k13::launch_tiles_m64<32>(s, stream);
          case 48:
            return k13::launch_tiles_m64<48>(s, stream);
          case 80:
            return k13::launch_tiles_m64<80>(s, stream);
          case 96:
            return k13::launch_tiles_m64<96>(s, stream);
          default:
            return k13::launch_tiles_m64<64>(s, stream);
        }
      }
      switch (t.tuning.tile_n) {
        case 16:
          return k13::launch_tiles<16>(s, stream, true);
        case 32:
          return k13::launch_tiles<32>(s, stream, true);
        case 64:
          return k13::launch_tiles<64>(s, stream, true);
        default:
          return launch_between(s, stream, t.tuning.tile_n, true);
      }
    }
    if (t.tuning.tile_m == 64) return k13::launch_tiles_m64_n128(t, stream);  // 64 x 128 (check_k13)
    if (fitted_width(t.tuning.tile_n)) return launch_between(t, stream, t.tuning.tile_n, false);
    switch (t.tuning.tile_n) {
      case 64:
        return k13::launch_tiles<64>(t, stream, false);
      case 128:
        return k13::launch_tiles<128>(t, stream, false);
      case 192:
        return k13::launch_tiles<192>(t, stream, false);
      default:
        return k13::launch_tiles<256>(t, stream, false);
    }
  }));
}

}  // namespace tessel::gemm_launch
