// tessel/tessel.hpp — everything generic in tessel (no architecture headers).
#pragma once

#include "tessel/core/algebra.hpp"
#include "tessel/core/config.hpp"
#include "tessel/core/int_tuple.hpp"
#include "tessel/core/integer.hpp"
#include "tessel/core/layout.hpp"
#include "tessel/core/print.hpp"
#include "tessel/core/static_layout.hpp"
#include "tessel/core/status.hpp"
#include "tessel/core/swizzle.hpp"
