#include <gtest/gtest.h>
#include "tessel/tessel.hpp"
TEST(Placeholder, static_algebra_test) { GTEST_SKIP() << "being written"; }
