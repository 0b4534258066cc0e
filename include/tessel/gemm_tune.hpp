// tessel/gemm_tune.hpp — measured tuning (GemmTuning::tune, TESSEL_TUNE=1):
// the configurations a tuned call times on its first call, and their names in
// the on-disk cache.  Pure host arithmetic, no CUDA, tested on the CPU
// (tests/gemm_plan_test.cpp).  The timing and the cache are in
// src/kernels/gemm_tune.cu and src/jit/tune_cache.hpp; docs/heuristics.md
// says when to use it.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tessel/gemm_plan.hpp"

namespace tessel {

/// One configuration a tuned call may run: a kernel and its knobs.
struct GemmCandidate {
  GemmImpl impl = GemmImpl::k13_wgmma_in_flight;
  int tile_m = 128, tile_n = 256, splits = 1;
  bool swap = false;
  constexpr bool operator==(const GemmCandidate&) const = default;
  /// The GemmTuning that runs it (the raster group and jit left to the plan).
  constexpr GemmTuning tuning() const {
    return GemmTuning{tile_n, splits, swap ? SwapAB::on : SwapAB::off, 0, GemmJit::off, tile_m};
  }
};

/// "k13:128x192:s1", "k13:64x32:s2:swap", "k14:64x128", "k14:64x128:s3" (k14
/// split), "k15:128x128": the cache's spelling, read back by parse_candidate.
/// C++ example: candidate_name({GemmImpl::k13_wgmma_in_flight, 64, 32, 2, true}) == "k13:64x32:s2:swap".
inline std::string candidate_name(const GemmCandidate& c) {
  std::string s = std::string(short_name(c.impl)) + ":" + std::to_string(c.tile_m) + "x" + std::to_string(c.tile_n);
  if (c.impl == GemmImpl::k13_wgmma_in_flight) s += ":s" + std::to_string(c.splits) + (c.swap ? ":swap" : "");
  if (c.impl == GemmImpl::k14_cluster_multicast && c.splits > 1) s += ":s" + std::to_string(c.splits);
  return s;
}

namespace tune_detail {
/// The decimal number at the front of `s` (1..9999), consumed; 0 if none.
constexpr int take_number(std::string_view& s) {
  int v = 0;
  std::size_t i = 0;
  while (i < s.size() && i < 4 && s[i] >= '0' && s[i] <= '9') v = v * 10 + (s[i++] - '0');
  if (i == 0 || (i < s.size() && s[i] >= '0' && s[i] <= '9')) return 0;
  s.remove_prefix(i);
  return v;
}
constexpr bool take(std::string_view& s, std::string_view word) {
  if (s.substr(0, word.size()) != word) return false;
  s.remove_prefix(word.size());
  return true;
}
}  // namespace tune_detail

/// candidate_name's inverse for the configurations gemm_candidates can list;
/// nullopt for any other text (a corrupt or foreign cache entry).
inline std::optional<GemmCandidate> parse_candidate(std::string_view s) {
  using namespace tune_detail;
  GemmCandidate c;
  if (take(s, "k13:"))
    c.impl = GemmImpl::k13_wgmma_in_flight;
  else if (take(s, "k14:"))
    c.impl = GemmImpl::k14_cluster_multicast;
  else if (take(s, "k15:"))
    c.impl = GemmImpl::k15_pingpong;
  else
    return std::nullopt;
  c.tile_m = take_number(s);
  if (!take(s, "x")) return std::nullopt;
  c.tile_n = take_number(s);
  if (c.impl == GemmImpl::k13_wgmma_in_flight) {
    if (!take(s, ":s")) return std::nullopt;
    c.splits = take_number(s);
    c.swap = take(s, ":swap");
  } else if (c.impl == GemmImpl::k14_cluster_multicast && take(s, ":s")) {
    c.splits = take_number(s);
    if (c.splits < 2 || c.tile_n != 128) return std::nullopt;  // split k14: 64 x 128 and 128 x 128 (check_k14)
  }
  if (!s.empty() || c.splits < 1 || c.splits > 64 || (c.tile_m != 64 && c.tile_m != 128)) return std::nullopt;
  const int w = c.tile_n;
  const bool k13_ok = c.swap ? (w == 16 || w == 32 || w == 64 || (c.tile_m == 64 && swapped_only_width(w)) ||
                                (c.tile_m == 128 && swapped_wide_width(w)))
                      : c.tile_m == 64
                          ? w == 128
                          : (w == 64 || w == 128 || w == 192 || w == 256 || (kFittedVerified && fitted_width(w)));
  if (c.impl == GemmImpl::k13_wgmma_in_flight && !k13_ok) return std::nullopt;
  if (c.impl == GemmImpl::k14_cluster_multicast &&
      !(c.tile_m == 64 ? w == 128 : (w == 64 || w == 128 || w == 192 || w == 256)))
    return std::nullopt;
  if (c.impl == GemmImpl::k15_pingpong && (c.tile_m != 128 || w != 128)) return std::nullopt;
  return c;
}

/// The configurations worth timing for an M x N x K problem on `sms` SMs,
/// each one a call gemm_check accepts for a problem TMA can read:
///  - k13 unswapped, 128 rows by 64, 128, 192 or 256 columns, and 64 x 128
///    (one consumer warpgroup); each unsplit, and split 2, 3, 4, 6 or 8 ways
///    where the unsplit tiles fill less than the SMs and each split keeps at
///    least 8 k-tiles of 64;
///  - k13 swapped (D^T = B^T A^T) where M <= 128: 128 or 64 rows of N by 16,
///    32 or 64 of M, the widths that hold M in at most 4 tiles, split as above;
///    where M > 128 and 2 M N K < 10^10, 64 rows of N by 64 of M, split as above;
///    and where A is K-major, M > 32 and 2 M N K < 10^10, 64 rows of N by 48,
///    80 or 96 of M (the widths between, which fill the SMs more evenly);
///  - k13 swapped on 128 rows of N by W of M where A is K-major and M > 128,
///    unsplit, W a multiple of 16 from 80 to 256: for each count of tile
///    columns ceil(M / W), the narrowest W that gives it;
///  - once kFittedVerified, k13 unswapped on 128 rows of M by W of N where
///    N > 64, W a multiple of 16 from 80 to 240 but 128 and 192: for each
///    count of tile columns ceil(N / W), the narrowest W that gives it,
///    where that is none of 128, 192 and 256; split as k13's tiles above;
///  - k14 (2-CTA clusters multicasting B) on 64 x 128, 128 x 128, 128 x 192 and 128 x 256,
///    where M spans at least two tile rows (the cluster pairs M-neighbours);
///    on 64 x 128 and 128 x 128 also split as k13's are, where the tile rows
///    pair evenly;
///  - k15 (pingpong on 128 x 128) where beta = 0.
/// `fused`: the call has an epilogue; only k13's fused instances (unswapped
/// 128 x 64, 128, 256) and k15 keep it fused, so only those are listed.
/// C++ example: gemm_candidates(4096, 4096, 4096, 132, false, false).size() == 22 (k13's five tiles
/// unsplit: even 128 x 256 makes 512 tiles; the twelve swapped 128 x W; k14's four; k15; 31 once kFittedVerified
/// adds the nine unswapped).
inline std::vector<GemmCandidate> gemm_candidates(index_t m, index_t n, index_t k, int sms, bool fused, bool reads_c,
                                                  bool a_k_major = true) {
  using plan_detail::ceil_div;
  std::vector<GemmCandidate> out;
  const index_t k_tiles = ceil_div(k, 64);
  // The splits of a grid of `tiles` that fills less than the SMs: each split keeps 8 k-tiles, at most two waves.
  const auto split = [&](GemmImpl impl, int tile_m, int tile_n, bool swap, index_t tiles) {
    if (tiles >= sms) return;
    for (int s : {2, 3, 4, 6, 8, 12, 16})
      if (tiles * s <= 2 * static_cast<index_t>(sms) && k_tiles >= 8 * static_cast<index_t>(s))
        out.push_back({impl, tile_m, tile_n, s, swap});
  };
  const auto k13 = [&](int tile_m, int tile_n, bool swap) {
    // Swapped, the tile's rows run along N and its columns along M.
    const index_t tiles = swap ? ceil_div(n, tile_m) * ceil_div(m, tile_n) : ceil_div(m, tile_m) * ceil_div(n, tile_n);
    out.push_back({GemmImpl::k13_wgmma_in_flight, tile_m, tile_n, 1, swap});
    split(GemmImpl::k13_wgmma_in_flight, tile_m, tile_n, swap, tiles);
  };
  for (int w : {64, 128, 192, 256})
    if (!fused || w != 192) k13(128, w, false);
  if (fused) return out;
  k13(64, 128, false);
  const bool model_domain = plan_detail::flops(m, n, k) < 1e10;  // below gemm_model.hpp's kModelMaxFlops
  if (m <= 128) {
    for (int w : {16, 32, 64})
      if ((w == 16 || 2 * m > w) && ceil_div(m, w) <= 4) {
        k13(128, w, true);
        k13(64, w, true);
      }
  } else if (model_domain) {  // 64 rows of N by 64 of M: a thin N's CTAs without split K
    k13(64, 64, true);
  }
  if (a_k_major && m > 32 && model_domain)
    for (int w : {48, 80, 96}) k13(64, w, true);
  if (a_k_major && m > 128)  // two tile columns or more: with one, a 128-row tile or a narrow swapped one holds M
    for (int w = 80; w <= 256; w += 16)
      if (w == 80 || ceil_div(m, index_t{w}) < ceil_div(m, index_t{w - 16}))  // the narrowest for its tile columns
        out.push_back({GemmImpl::k13_wgmma_in_flight, 128, w, 1, true});
  if (kFittedVerified && n > 64)  // the unswapped widths between the powers of two, fitted to N likewise
    for (int w = 80; w <= 240; w += 16)
      if (fitted_width(w) && (w == 80 || ceil_div(n, index_t{w}) < ceil_div(n, index_t{w - 16}))) k13(128, w, false);
  // k14 pairs each tile with its M-neighbour: with one tile row the partner has nothing to compute.
  for (auto [tm, tn] : {std::pair{64, 128}, std::pair{128, 128}, std::pair{128, 192}, std::pair{128, 256}})
    if (m > tm) {
      out.push_back({GemmImpl::k14_cluster_multicast, tm, tn, 1, false});
      // Split on pairs where the tile rows pair evenly: with a partner outside M, split pairs took 1.17x k13's
      // time on the same tiles (56 random problems below 10^10 flops, docs/heuristics.md).
      if (tn == 128 && ceil_div(m, tm) % 2 == 0)
        split(GemmImpl::k14_cluster_multicast, tm, tn, false, ceil_div(m, tm) * ceil_div(n, tn));
    }
  if (!reads_c) out.push_back({GemmImpl::k15_pingpong, 128, 128, 1, false});
  return out;
}

/// Does `c` agree with every knob the caller fixed in `asked` (tile_n,
/// tile_m, splits, swap_ab other than 0 / plan)?  A tuned call times only those.
/// C++ example: candidate_matches({GemmImpl::k13_wgmma_in_flight, 128, 192, 1, false}, {192}) == true.
constexpr bool candidate_matches(const GemmCandidate& c, const GemmTuning& asked) {
  if (asked.tile_n != 0 && asked.tile_n != c.tile_n) return false;
  if (asked.tile_m != 0 && asked.tile_m != c.tile_m) return false;
  if (asked.splits != 0 && asked.splits != c.splits) return false;
  if (asked.swap_ab == SwapAB::on && !c.swap) return false;
  if (asked.swap_ab == SwapAB::off && c.swap) return false;
  return true;
}

}  // namespace tessel
