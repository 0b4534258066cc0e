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
  /// The stages of the ring.
  TESSEL_HD static constexpr int size() { return Stages; }
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

/// Position in a ring whose size is chosen at run time, from 1 to `MaxStages`
/// (the stages the shared memory holds): PipelineState's walk over the first
/// `size` of them.  A pipeline keeps at most `size` stages in flight, so a
/// kernel can fill fewer stages where many CTAs stream at once and more where
/// few do, from one instance.
/// C++ example: RingState<8>(3) after 4 increments: index() == 1, phase() == 1.
template <int MaxStages>
struct RingState {
  static_assert(MaxStages >= 1, "a pipeline needs at least one stage");
  int stage = 0;
  std::uint32_t parity = 0;
  int stages = MaxStages;

  constexpr RingState() = default;
  /// A ring of `n` stages, n clamped to 1..MaxStages.
  TESSEL_HD constexpr explicit RingState(int n) : stages(n < 1 ? 1 : n > MaxStages ? MaxStages : n) {}

  TESSEL_HD constexpr int index() const { return stage; }
  TESSEL_HD constexpr std::uint32_t phase() const { return parity; }
  TESSEL_HD constexpr int size() const { return stages; }
  TESSEL_HD constexpr RingState previous() const {
    RingState p = *this;
    if (p.stage == 0) {
      p.stage = stages - 1;
      p.parity ^= 1u;
    } else {
      --p.stage;
    }
    return p;
  }
  TESSEL_HD constexpr RingState& advance(int n) {
    const int s = stage + n;
    stage = s % stages;
    parity ^= static_cast<std::uint32_t>((s / stages) & 1);
    return *this;
  }
  TESSEL_HD constexpr RingState& operator++() {
    if (++stage == stages) {
      stage = 0;
      parity ^= 1u;
    }
    return *this;
  }
};

}  // namespace tessel::blocks
