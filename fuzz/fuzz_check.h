// Shared by the fuzz targets: checks that stay on in every build.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "sim/result.h"

// Like assert(), but never compiled out; abort() makes libFuzzer save the input as a crash.
#define FUZZ_CHECK(cond)                                                                  \
  do {                                                                                    \
    if (!(cond)) {                                                                        \
      std::fprintf(stderr, "fuzz check failed: %s (%s:%d)\n", #cond, __FILE__, __LINE__); \
      std::abort();                                                                       \
    }                                                                                     \
  } while (0)

namespace xpusim::fuzz {

// A failed Result must say why: at least one error, none with an empty message.
template <class T>
void check_errors(const Result<T>& r) {
  if (r.ok()) return;
  FUZZ_CHECK(!r.errors().empty());
  for (const Error& e : r.errors())
    FUZZ_CHECK(!e.message.empty());
}

// A reader's errors, as its header promises them: at least one, each a non-empty single line
// (no '\n' or '\r', whatever the input holds) that starts with `prefix` (the source name and
// its ':' for the file readers). The message goes to stderr first, so a crash report shows it.
template <class T>
void check_reader_errors(const Result<T>& r, std::string_view prefix) {
  if (r.ok()) return;
  FUZZ_CHECK(!r.errors().empty());
  for (const Error& e : r.errors()) {
    const std::string_view m = e.message;
    const bool one_line = m.find_first_of("\r\n") == std::string_view::npos;
    if (!one_line || !m.starts_with(prefix) || m.size() <= prefix.size()) {
      std::fprintf(stderr, "bad error message: \"%.*s\"\n", static_cast<int>(m.size()), m.data());
    }
    FUZZ_CHECK(one_line);
    FUZZ_CHECK(m.starts_with(prefix));
    FUZZ_CHECK(m.size() > prefix.size());
  }
}

inline std::string_view as_text(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

}  // namespace xpusim::fuzz
