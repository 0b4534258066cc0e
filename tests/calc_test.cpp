// The calculator's contract through its C++ entry points (tessel/host/calc.hpp):
// what it prints it reads back, and its errors name their real cause.
#include <gtest/gtest.h>

#include <string>

#include "tessel/host/calc.hpp"

using namespace tessel;

namespace {
std::string nested(int depth, const std::string& leaf) {
  return std::string(static_cast<std::size_t>(depth), '(') + leaf + std::string(static_cast<std::size_t>(depth), ')');
}
}  // namespace

TEST(Calc, EveryDepthAValueHoldsReadsBack) {
  // Two tokens a level and one leaf: kMaxTokens bounds the depth of any value.
  const int deepest = (kMaxTokens - 1) / 2;
  calc::Literal lit;
  Error e;
  ASSERT_TRUE(calc::parse_literal(nested(deepest, "2"), lit, e)) << e.message();
  EXPECT_EQ(depth(lit.tuple), deepest);
  EXPECT_FALSE(calc::parse_literal(nested(deepest + 1, "2"), lit, e));
  EXPECT_EQ(e.code, Errc::capacity);
  // A result deeper than its arguments prints and reads back as itself.
  const calc::Outcome r = calc::evaluate("logical_product(" + nested(30, "2") + ":" + nested(30, "1") + ",2:1)");
  ASSERT_TRUE(r.ok) << r.text;
  EXPECT_EQ(depth(r.layout.layout), 31);
  const calc::Outcome back = calc::evaluate(r.text);
  ASSERT_TRUE(back.ok) << back.text;
  EXPECT_EQ(back.text, r.text);
}
