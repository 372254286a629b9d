// Result<T>: a value or one-or-more user-facing errors (bad config, bad descriptor, bad flag).
// Internal invariant failures are not Results; they abort through XPUSIM_CHECK.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace xpusim {

// One line, no "error:" prefix: it names the item, the value and the rule it broke.
struct Error {
  std::string message;
};

template <class T>
class [[nodiscard]] Result {
 public:
  // By reference, not by value: hot paths return large plans and reports, and a by-value
  // parameter costs one more copy of them.
  Result(const T& value) : v_(std::in_place_index<0>, value) {}        // NOLINT
  Result(T&& value) : v_(std::in_place_index<0>, std::move(value)) {}  // NOLINT
  Result(Error e) : v_(std::vector<Error>{std::move(e)}) {}            // NOLINT
  Result(std::vector<Error> es) : v_(std::move(es)) {                  // NOLINT
    if (std::get<1>(v_).empty()) std::get<1>(v_).push_back(Error{"unknown error"});
  }

  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }

  T& value() & { return std::get<0>(v_); }
  const T& value() const& { return std::get<0>(v_); }
  T&& value() && { return std::get<0>(std::move(v_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

  const std::vector<Error>& errors() const { return std::get<1>(v_); }
  const Error& error() const { return errors().front(); }

 private:
  std::variant<T, std::vector<Error>> v_;
};

// Result<void> spelled as Result<Ok>.
struct Ok {};
using Status = Result<Ok>;

// Cheap invariant check that stays on in release builds (DESIGN.md "Errors").
[[noreturn]] inline void check_failed(const char* expr, const char* file, int line,
                                      const char* msg) {
  std::fprintf(stderr, "internal error: %s:%d: check `%s` failed: %s\n", file, line, expr, msg);
  std::abort();
}

}  // namespace xpusim

#define XPUSIM_CHECK(cond, msg) \
  ((cond) ? (void)0 : ::xpusim::check_failed(#cond, __FILE__, __LINE__, (msg)))
