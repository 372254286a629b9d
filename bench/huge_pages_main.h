// The memory-heavy benchmarks' main(): Google Benchmark's, after re-executing with huge pages
// as xpusim does (sim/huge_pages.h), so that their figures are the tool's.
#pragma once

#include <benchmark/benchmark.h>

#include "sim/huge_pages.h"

namespace xpusim::bench {

inline int main_with_huge_pages(int argc, char** argv) {
  sim::reexec_with_huge_pages(argv);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}

}  // namespace xpusim::bench
