// tests/cuda/sm90_test_util.hpp — what the tests of the Hopper wrappers
// (arch_sm90_*_test.cu, one executable each) share, beside gpu_test.hpp (the
// skips, CUDA_CHECK, the device array): the golden atom
// layouts of tests/data/atom_layouts.tsv, the §7.2/§7.3 ownership formulas and
// a bounded mbarrier wait.  Functions are inline so that a file that uses only
// some of them compiles without unused-function warnings; the golden-TSV
// reader needs TESSEL_ATOM_TSV, which arch_sm90.cmake defines for every
// executable.
#pragma once

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "gpu_test.hpp"
#include "tessel/arch/sm90.hpp"
#include "tessel/arch/sm90_tensor_map.hpp"
#include "tessel/host/calc.hpp"
#include "tessel/tessel.hpp"

// The shorthand of every arch_sm90_*_test.cu (this header is their common
// preamble and is included by nothing else).
using namespace tessel;
namespace sm90 = tessel::arch::sm90;
using sm90::GmmaMajor;
using sm90::GmmaSwizzle;
using sm90::WgmmaType;
using tessel::arch::sm90::TensorMapErrc;
using tessel::arch::sm90::TensorMapSpec;
using tessel::arch::sm90::TensorMapStatus;

using tessel::testing::DeviceArray;

// ---------------------------------------------------------------- the golden TSV

/// tests/data/atom_layouts.tsv: the compile-time path, else the path relative
/// to the repository root (where the device machine runs the binary).
inline std::string atom_tsv_path() {
  for (const char* p : {TESSEL_ATOM_TSV, "tests/data/atom_layouts.tsv"}) {
    std::ifstream f(p);
    if (f) return p;
  }
  return {};
}

/// "instruction|role" -> layout, for every line of the TSV.
inline const std::map<std::string, SwizzledLayout>& golden_atoms() {
  static const std::map<std::string, SwizzledLayout> atoms = [] {
    std::map<std::string, SwizzledLayout> m;
    std::ifstream f(atom_tsv_path());
    std::string line;
    while (std::getline(f, line)) {
      std::istringstream fields(line);
      std::string instr, role, tile, layout;
      if (!std::getline(fields, instr, '\t') || !std::getline(fields, role, '\t') ||
          !std::getline(fields, tile, '\t') || !std::getline(fields, layout, '\t'))
        continue;
      calc::Literal lit;
      Error err;
      if (calc::parse_literal(layout, lit, err) && lit.kind == calc::Literal::kLayout)
        m[instr + "|" + role] = lit.layout;
    }
    return m;
  }();
  return atoms;
}

inline const SwizzledLayout* golden(const std::string& instr, const std::string& role) {
  const auto& m = golden_atoms();
  const auto it = m.find(instr + "|" + role);
  return it == m.end() ? nullptr : &it->second;
}

inline std::string smem_atom_name(GmmaMajor major, GmmaSwizzle sw) {
  const char* s = sw == GmmaSwizzle::none   ? "INTER"
                  : sw == GmmaSwizzle::sw32 ? "SW32"
                  : sw == GmmaSwizzle::sw64 ? "SW64"
                                            : "SW128";
  return std::string("gmma.smem.") + (major == GmmaMajor::k ? "K." : "MN.") + s + ".bf16";
}

// ---------------------------------------------------------------- ownership formulas (§7.2, §7.3)
//
// The wgmma kernels use these; Sm90Golden.WgmmaFragmentFormulasMatchGolden
// checks them against the TSV.
TESSEL_HD constexpr int acc_row(int t, int i) { return 16 * (t / 32) + (t % 32) / 4 + 8 * ((i >> 1) & 1); }
TESSEL_HD constexpr int acc_col(int t, int i) { return 8 * (i >> 2) + 2 * (t % 4) + (i & 1); }
TESSEL_HD constexpr int afrag_row(int t, int i) { return 16 * (t / 32) + (t % 32) / 4 + 8 * ((i >> 1) & 1); }
TESSEL_HD constexpr int afrag_col(int t, int i) { return 2 * (t % 4) + (i & 1) + 8 * (i >> 2); }

// ---------------------------------------------------------------- exact wgmma results

/// n integers uniform in [-4, 4]: every 16- and 8-bit input type holds them
/// exactly, and sums of up to a few thousand of their products stay exact.
inline std::vector<int> random_ints(std::size_t n, std::mt19937& rng) {
  std::uniform_int_distribution<int> dist(-4, 4);
  std::vector<int> v(n);
  for (int& x : v) x = dist(rng);
  return v;
}

/// Checks a 64 x n row-major result against [C +] scale_a * A B^T with A 64 x k
/// and B n x k row-major (as (n, k)), exactly; reports the first mismatches.
inline void expect_exact_gemm(const std::vector<float>& got, const std::vector<int>& a, const std::vector<int>& b,
                              const std::vector<int>& c, int n, int k, int scale_a, bool accumulate) {
  int mismatches = 0;
  for (int m = 0; m < 64; ++m)
    for (int j = 0; j < n; ++j) {
      int want = accumulate ? c[static_cast<std::size_t>(m * n + j)] : 0;
      for (int kk = 0; kk < k; ++kk)
        want += scale_a * a[static_cast<std::size_t>(m * k + kk)] * b[static_cast<std::size_t>(j * k + kk)];
      const float g = got[static_cast<std::size_t>(m * n + j)];
      if (g != static_cast<float>(want) && mismatches++ < 5)
        ADD_FAILURE() << "D(" << m << "," << j << ") = " << g << ", expected " << want;
    }
  EXPECT_EQ(mismatches, 0) << "mismatching elements of the 64 x " << n << " result";
}

// ---------------------------------------------------------------- mbarrier wait

/// try_wait in a bounded loop: a wrong transaction count fails the test
/// instead of hanging the GPU.
__device__ inline bool wait_bounded(std::uint32_t bar, std::uint32_t parity) {
  for (int i = 0; i < (1 << 20); ++i)
    if (sm90::mbarrier_try_wait_parity(bar, parity)) return true;
  return false;
}
