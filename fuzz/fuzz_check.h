// Shared by the fuzz targets: checks that stay on in every build.
#pragma once

#include <cstdio>
#include <cstdlib>

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

}  // namespace xpusim::fuzz
