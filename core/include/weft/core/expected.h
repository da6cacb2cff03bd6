#pragma once
// Errors as values: Expected<T> holds a T or an Error (kind + message naming the problem and where).
#include <cassert>
#include <string>
#include <utility>
#include <variant>

namespace weft::core {

/// Error categories; the CLI maps each to its exit code (see exit_code()).
enum class ErrorKind {
  Usage = 1,         ///< bad command line or option
  InvalidInput = 2,  ///< unreadable, hostile or inconsistent model / schedule / file
  Runtime = 3,       ///< device or environment failure (no GPU, out of memory, I/O)
  Internal = 4,      ///< a bug: an invariant that should have held did not
};

struct Error {
  ErrorKind kind = ErrorKind::Internal;
  std::string message;
};

inline int exit_code(ErrorKind kind) { return static_cast<int>(kind); }

inline Error make_error(ErrorKind kind, std::string message) { return Error{kind, std::move(message)}; }

/// Minimal std::expected stand-in (C++23's is not in GCC 12). Accessing the wrong
/// alternative is an invariant violation and asserts.
template <class T>
class [[nodiscard]] Expected {
 public:
  Expected(T value) : m_v(std::in_place_index<0>, std::move(value)) {}  // NOLINT(implicit)
  Expected(Error error) : m_v(std::in_place_index<1>, std::move(error)) {}  // NOLINT(implicit)

  bool has_value() const { return m_v.index() == 0; }
  explicit operator bool() const { return has_value(); }

  T& value() & { assert(has_value()); return std::get<0>(m_v); }
  const T& value() const& { assert(has_value()); return std::get<0>(m_v); }
  T&& value() && { assert(has_value()); return std::get<0>(std::move(m_v)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T&& operator*() && { return std::move(*this).value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

  const Error& error() const { assert(!has_value()); return std::get<1>(m_v); }

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
  const Error& error() const { assert(!m_ok); return m_error; }

 private:
  Error m_error;
  bool m_ok = true;
};

using Status = Expected<void>;

}  // namespace weft::core
