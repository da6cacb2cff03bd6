#pragma once
// Invariant checks that stay on in every build type (Release included): a broken invariant is a
// bug, and a bug must stop the program where it is found, naming the file, line and condition,
// instead of running on into undefined behaviour (plain assert is compiled out with NDEBUG).
#include <cstdio>
#include <cstdlib>

namespace weft::core::detail {

/// Prints "<file>:<line>: weft invariant failed: <condition>" (and `what` when given) to stderr
/// and aborts. Never returns.
[[noreturn, gnu::cold, gnu::noinline]] inline void check_failed(const char* file, int line, const char* condition,
                                                                  const char* what = nullptr) {
  std::fprintf(stderr, "%s:%d: weft invariant failed: %s%s%s\n", file, line, condition, what ? ": " : "",
               what ? what : "");
  std::fflush(stderr);
  std::abort();
}

}  // namespace weft::core::detail

/// Aborts with file:line and the condition's text when `cond` is false. On in every build type;
/// use it for invariants (a caller's broken precondition, a pass's broken postcondition), never
/// for bad input, which returns an Error.
#define WEFT_CHECK(cond) \
  (static_cast<bool>(cond) ? static_cast<void>(0) : ::weft::core::detail::check_failed(__FILE__, __LINE__, #cond))

/// WEFT_CHECK with a message (a string literal or const char*) saying what went wrong.
#define WEFT_CHECK_MSG(cond, what) \
  (static_cast<bool>(cond) ? static_cast<void>(0) : ::weft::core::detail::check_failed(__FILE__, __LINE__, #cond, what))

/// For verifications that re-derive a whole result independently (as costly as computing it):
/// on in Debug builds only. Cheap invariants use WEFT_CHECK.
#ifdef NDEBUG
#define WEFT_DEBUG_CHECK(cond) static_cast<void>(sizeof(static_cast<bool>(cond)))  // not evaluated
#else
#define WEFT_DEBUG_CHECK(cond) WEFT_CHECK(cond)
#endif
