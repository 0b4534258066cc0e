// tessel/core/status.hpp — the error model of the layout algebra.
//
// Every algebra function returns `Result<T>`: a value, or an `Error` naming the
// rule that the input broke (the keywords of docs/algebra.md §13).  Nothing
// throws inside the algebra, so the same code runs in constant expressions
// and on the GPU.
// `Result::value()` is the single place where a failure becomes fatal:
//   * in a constant expression it calls a non-constexpr function named after
//     the rule (e.g. `tessel_rule_stride_divisibility`), so the compiler's
//     diagnostic names the broken rule;
//   * on the host it throws `tessel::AlgebraError` with the full message;
//   * in device code it traps.
#pragma once

#include <type_traits>

#include "tessel/core/config.hpp"

#include <stdexcept>
#include <string>

namespace tessel {

enum class Errc : std::uint8_t {
  ok = 0,
  syntax,
  arity,
  type,
  congruence,
  coordinate_rank,
  coordinate_range,
  stride_divisibility,
  shape_divisibility,
  inexact_division,
  overlap,
  non_injective,
  tiler_rank,
  tile_divisibility,
  swizzle,
  left_inverse_divisibility,
  value_range,  // zero extent, negative value, or a value too large to be safe
  capacity,     // more leaves/tokens/modes than the value representation holds
};

/// The keyword printed after `error:` for each code (docs/algebra.md §1.3, §13).
TESSEL_HD constexpr const char* errc_keyword(Errc e) {
  switch (e) {
    case Errc::ok:
      return "ok";
    case Errc::syntax:
      return "syntax";
    case Errc::arity:
      return "arity";
    case Errc::type:
      return "type";
    case Errc::congruence:
      return "congruence";
    case Errc::coordinate_rank:
      return "coordinate-rank";
    case Errc::coordinate_range:
      return "coordinate-range";
    case Errc::stride_divisibility:
      return "stride-divisibility";
    case Errc::shape_divisibility:
      return "shape-divisibility";
    case Errc::inexact_division:
      return "inexact-division";
    case Errc::overlap:
      return "overlap";
    case Errc::non_injective:
      return "non-injective";
    case Errc::tiler_rank:
      return "tiler-rank";
    case Errc::tile_divisibility:
      return "tile-divisibility";
    case Errc::swizzle:
      return "swizzle";
    case Errc::left_inverse_divisibility:
      return "left-inverse-divisibility";
    case Errc::value_range:
      return "value-range";
    case Errc::capacity:
      return "capacity";
  }
  return "unknown";
}

/// A failed rule.  `what` is a string literal in which `{0}`, `{1}`, `{2}`
/// stand for `arg[0..2]`; formatting is deferred to the host (`message()`), so
/// an Error can be built in a constant expression and in device code.
struct Error {
  Errc code = Errc::ok;
  const char* what = "";
  index_t arg[3] = {0, 0, 0};

  /// "stride-divisibility: ..." with the placeholders filled in (host only).
  std::string message() const {
    std::string out = errc_keyword(code);
    if (what != nullptr && *what != '\0') {
      out += ": ";
      for (const char* p = what; *p != '\0'; ++p) {
        if (p[0] == '{' && p[1] >= '0' && p[1] <= '2' && p[2] == '}') {
          out += std::to_string(arg[p[1] - '0']);
          p += 2;
        } else {
          out += *p;
        }
      }
    }
    return out;
  }
};

TESSEL_HD constexpr Error make_error(Errc code, const char* what, index_t a0 = 0, index_t a1 = 0, index_t a2 = 0) {
  Error e;
  e.code = code;
  e.what = what;
  e.arg[0] = a0;
  e.arg[1] = a1;
  e.arg[2] = a2;
  return e;
}

/// Thrown on the host by `Result::value()` when the result holds an error.
class AlgebraError : public std::runtime_error {
 public:
  explicit AlgebraError(const Error& e) : std::runtime_error(e.message()), error_(e) {}
  const Error& error() const { return error_; }

 private:
  Error error_;
};

namespace detail {
// Not constexpr on purpose: reaching one of these in a constant expression is
// a compile error whose text names the rule that was broken.
// clang-format off
TESSEL_HD inline void tessel_rule_syntax() {}
TESSEL_HD inline void tessel_rule_arity() {}
TESSEL_HD inline void tessel_rule_type() {}
TESSEL_HD inline void tessel_rule_congruence() {}
TESSEL_HD inline void tessel_rule_coordinate_rank() {}
TESSEL_HD inline void tessel_rule_coordinate_range() {}
TESSEL_HD inline void tessel_rule_stride_divisibility() {}
TESSEL_HD inline void tessel_rule_shape_divisibility() {}
TESSEL_HD inline void tessel_rule_inexact_division() {}
TESSEL_HD inline void tessel_rule_overlap() {}
TESSEL_HD inline void tessel_rule_non_injective() {}
TESSEL_HD inline void tessel_rule_tiler_rank() {}
TESSEL_HD inline void tessel_rule_tile_divisibility() {}
TESSEL_HD inline void tessel_rule_swizzle() {}
TESSEL_HD inline void tessel_rule_left_inverse_divisibility() {}
TESSEL_HD inline void tessel_rule_value_range() {}
TESSEL_HD inline void tessel_rule_capacity() {}
// clang-format on

[[noreturn]] TESSEL_HD inline void fail_at_run_time(const Error& e) {
#if TESSEL_IN_DEVICE_CODE
  (void)e;
  __trap();
#else
  throw AlgebraError(e);
#endif
}

TESSEL_HD constexpr void fail(const Error& e) {
  if (std::is_constant_evaluated()) {
    switch (e.code) {
      // clang-format off
      case Errc::syntax: tessel_rule_syntax(); break;
      case Errc::arity: tessel_rule_arity(); break;
      case Errc::type: tessel_rule_type(); break;
      case Errc::congruence: tessel_rule_congruence(); break;
      case Errc::coordinate_rank: tessel_rule_coordinate_rank(); break;
      case Errc::coordinate_range: tessel_rule_coordinate_range(); break;
      case Errc::stride_divisibility: tessel_rule_stride_divisibility(); break;
      case Errc::shape_divisibility: tessel_rule_shape_divisibility(); break;
      case Errc::inexact_division: tessel_rule_inexact_division(); break;
      case Errc::overlap: tessel_rule_overlap(); break;
      case Errc::non_injective: tessel_rule_non_injective(); break;
      case Errc::tiler_rank: tessel_rule_tiler_rank(); break;
      case Errc::tile_divisibility: tessel_rule_tile_divisibility(); break;
      case Errc::swizzle: tessel_rule_swizzle(); break;
      case Errc::left_inverse_divisibility: tessel_rule_left_inverse_divisibility(); break;
      case Errc::value_range: tessel_rule_value_range(); break;
      case Errc::capacity: tessel_rule_capacity(); break;
      case Errc::ok: break;
        // clang-format on
    }
  } else {
    fail_at_run_time(e);
  }
}
}  // namespace detail

/// A value or the error that prevented it.
template <class T>
struct Result {
  T val{};
  Error err{};

  constexpr Result() = default;
  TESSEL_HD constexpr Result(const T& v) : val(v) {}      // NOLINT: implicit success
  TESSEL_HD constexpr Result(const Error& e) : err(e) {}  // NOLINT: implicit failure

  TESSEL_HD constexpr bool ok() const { return err.code == Errc::ok; }
  TESSEL_HD constexpr explicit operator bool() const { return ok(); }
  TESSEL_HD constexpr Errc code() const { return err.code; }
  TESSEL_HD constexpr const Error& error() const { return err; }

  /// The value; a failure here is fatal (see the file comment).
  TESSEL_HD constexpr const T& value() const {
    if (!ok()) detail::fail(err);
    return val;
  }
};

/// Propagate the error of a `Result` expression to the enclosing function.
#define TESSEL_TRY(var, expr)                        \
  auto var##_result_ = (expr);                       \
  if (!var##_result_.ok()) return var##_result_.err; \
  const auto& var = var##_result_.val

}  // namespace tessel
