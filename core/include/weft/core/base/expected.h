#pragma once
// Errors as values: Expected<T> holds a T or an Error (kind + message naming the problem and where).
//
// The one error rule: a recoverable failure (input, environment, device) returns an Error, and
// callers pass it on with WEFT_TRY / WEFT_TRY_ASSIGN; a broken invariant is a WEFT_CHECK (see
// check.h), on in every build. Core returns InvalidInput, Runtime or Internal, never Usage: only
// a front end knows that a value came from its command line.
#include <string>
#include <utility>
#include <variant>

#include "weft/core/base/check.h"

namespace weft::core {

/// Error categories; the CLI maps each to its exit code (see exit_code()).
enum class ErrorKind {
  Usage = 1,         ///< bad command line or option (front ends only; core never returns it)
  InvalidInput = 2,  ///< unreadable, hostile or inconsistent model / schedule / file / name
  Runtime = 3,       ///< device or environment failure (no GPU, out of memory, I/O)
  Internal = 4,      ///< a bug: an invariant that should have held did not
};

struct Error {
  ErrorKind kind = ErrorKind::Internal;
  std::string message;
};

inline int exit_code(ErrorKind kind) { return static_cast<int>(kind); }

inline Error make_error(ErrorKind kind, std::string message) { return Error{kind, std::move(message)}; }

/// Minimal std::expected stand-in (C++23's is not in GCC 12). Accessing the wrong alternative
/// (value() of an error, error() of a value) is an invariant violation: it aborts with file:line
/// in every build type.
template <class T>
class [[nodiscard]] Expected {
 public:
  Expected(T value) : m_v(std::in_place_index<0>, std::move(value)) {}  // NOLINT(implicit)
  Expected(Error error) : m_v(std::in_place_index<1>, std::move(error)) {}  // NOLINT(implicit)

  bool has_value() const { return m_v.index() == 0; }
  explicit operator bool() const { return has_value(); }

  T& value() & {
    WEFT_CHECK_MSG(has_value(), "Expected::value() of an error");
    return std::get<0>(m_v);
  }
  const T& value() const& {
    WEFT_CHECK_MSG(has_value(), "Expected::value() of an error");
    return std::get<0>(m_v);
  }
  T&& value() && {
    WEFT_CHECK_MSG(has_value(), "Expected::value() of an error");
    return std::get<0>(std::move(m_v));
  }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T&& operator*() && { return std::move(*this).value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

  const Error& error() const {
    WEFT_CHECK_MSG(!has_value(), "Expected::error() of a value");
    return std::get<1>(m_v);
  }

 private:
  std::variant<T, Error> m_v;
};

/// Expected<void>: success or an Error.
template <>
class [[nodiscard]] Expected<void> {
 public:
  Expected() = default;
  Expected(Error error) : m_error(std::move(error)), m_ok(false) {}  // NOLINT(implicit)
  bool has_value() const { return m_ok; }
  explicit operator bool() const { return m_ok; }
  const Error& error() const {
    WEFT_CHECK_MSG(!m_ok, "Expected::error() of a value");
    return m_error;
  }

 private:
  Error m_error;
  bool m_ok = true;
};

using Status = Expected<void>;

}  // namespace weft::core

#define WEFT_CONCAT_INNER_(a, b) a##b
#define WEFT_CONCAT_(a, b) WEFT_CONCAT_INNER_(a, b)

/// Evaluates `expr` (an Expected<T> or Status); on error returns that error from the enclosing
/// function (which returns an Expected<U> or Status). The value, if any, is dropped.
#define WEFT_TRY(expr)                                         \
  do {                                                         \
    if (auto&& weft_try_result_ = (expr); !weft_try_result_) { \
      return weft_try_result_.error();                         \
    }                                                          \
  } while (false)

/// `WEFT_TRY_ASSIGN(auto x, f());` or `WEFT_TRY_ASSIGN(x, f());`: evaluates `f()`; on error
/// returns it from the enclosing function, else moves the value into the declaration or
/// variable `lhs`. One statement; it declares a hidden temporary in the enclosing scope.
#define WEFT_TRY_ASSIGN(lhs, expr) WEFT_TRY_ASSIGN_IMPL_(WEFT_CONCAT_(weft_try_value_, __LINE__), lhs, expr)
#define WEFT_TRY_ASSIGN_IMPL_(tmp, lhs, expr)       \
  auto tmp = (expr);                                \
  if (!tmp) return tmp.error();                     \
  lhs = std::move(*tmp)
