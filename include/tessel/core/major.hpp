// tessel/core/major.hpp — which index of an operand tile is contiguous.
//
// One type for the whole library (CuTe has one too, GMMA::Major): the GEMM
// layouts' A:k / A:m / B:n / B:k (gemm_types.hpp, `major_of`), the kernels'
// shared tiles, ldmatrix's `.trans` (an MN-major tile) and wgmma's tA/tB
// immediates (arch/sm90_desc.hpp names it GmmaMajor; the values are the
// immediates': K-major 0, MN-major 1).
#pragma once

#include <cstdint>

namespace tessel {

/// K: each row (one m or n) stores its K elements contiguously; MN: each
/// column (one k) stores its M or N elements contiguously.
enum class OperandMajor : std::uint8_t { k = 0, mn = 1 };

}  // namespace tessel
