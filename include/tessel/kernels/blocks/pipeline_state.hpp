// tessel/kernels/blocks/pipeline_state.hpp — where a producer or a consumer
// stands in a ring of shared-memory stages: the stage index and the parity of
// the round (the mbarrier phase to wait for).  Host and device, so that its
// arithmetic is tested on the CPU (tests/blocks_test.cpp).
#pragma once

#include <cstdint>

#include "tessel/core/config.hpp"

namespace tessel::blocks {

/// Position in a ring of `Stages` stages: the stage index and the parity of
/// the round (how many times the ring has wrapped, mod 2).
/// C++ example: with Stages = 4, after 5 increments index() == 1, phase() == 1.
template <int Stages>
struct PipelineState {
  static_assert(Stages >= 1, "a pipeline needs at least one stage");
  int stage = 0;
  std::uint32_t parity = 0;

  TESSEL_HD constexpr int index() const { return stage; }
  TESSEL_HD constexpr std::uint32_t phase() const { return parity; }
  /// The position one step back: the stage used before this one.
  TESSEL_HD constexpr PipelineState previous() const {
    PipelineState p = *this;
    if (p.stage == 0) {
      p.stage = Stages - 1;
      p.parity ^= 1u;
    } else {
      --p.stage;
    }
    return p;
  }
  /// n steps forward at once (n >= 0): what n increments would do.  A
  /// pingpong consumer (k15) skips the stages of the other warpgroup's tile.
  /// C++ example: with Stages = 5, from (index 3, phase 0) advance(64) gives (index 2, phase 1).
  TESSEL_HD constexpr PipelineState& advance(int n) {
    const int s = stage + n;
    stage = s % Stages;
    parity ^= static_cast<std::uint32_t>((s / Stages) & 1);
    return *this;
  }
  TESSEL_HD constexpr PipelineState& operator++() {
    if (++stage == Stages) {
      stage = 0;
      parity ^= 1u;
    }
    return *this;
  }
};

}  // namespace tessel::blocks
