// tests/cuda/atom_reference.hpp — the tests' name for the atom layouts of
// include/tessel/atom/layouts_sm80.hpp (the library's traits are what is tested).
#pragma once

#include "tessel/atom/layouts_sm80.hpp"

namespace ref = tessel::atom_layouts;
