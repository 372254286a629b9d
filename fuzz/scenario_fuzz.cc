// libFuzzer target: text -> the scenario reader (system::load_scenario_string).
//
// The reader returns a Scenario or errors, each one line starting with the source name. A
// scenario it accepts must be what its header (src/system/scenario.h) promises, checked here
// independently, for the file and each of its runs:
// - exactly one of workload, kernel and kernel graph; a chip; runs have no runs of their own,
//   unique names and indices in order, and no two runs write the same stats file;
// - buffers placed in order from kBufferBase, each on a kBufferAlign boundary, none
//   overlapping the one before and none running past 2^64;
// - every ptr argument names a buffer and carries its address;
// - graph entries have unique names and come after the entries they wait for (launch order),
//   at most five `after_any`; every queue named exists; 1 to kMaxQueues queues;
// - set_sampling >= 1 and wave_sampling within [0, kMaxWaveSamplingPercent].
#include <bit>
#include <cstddef>
#include <cstdint>
#include <map>
#include <set>
#include <string>

#include "fuzz_check.h"
#include "system/command_processor.h"
#include "system/scenario.h"

namespace {

using namespace xpusim;
using system::Scenario;

void check_args(const std::vector<system::ScenarioArg>& args,
                const std::map<std::string, std::uint64_t, std::less<>>& buffers) {
  for (const system::ScenarioArg& a : args) {
    // Range-checked at load: the bits fit the argument's kernarg bytes.
    FUZZ_CHECK(kernel::arg_bytes(a.kind) == 8 || a.bits >> (8 * kernel::arg_bytes(a.kind)) == 0);
    if (a.kind != kernel::ArgKind::kPtr) continue;
    const auto it = buffers.find(a.buffer);
    FUZZ_CHECK(it != buffers.end());
    FUZZ_CHECK(a.bits == it->second);
  }
}

void check_run(const Scenario& s) {
  const int kinds = int{s.is_workload()} + int{!s.kernel.empty()} + int{s.is_graph()};
  FUZZ_CHECK(kinds == 1);
  FUZZ_CHECK(!s.chip.empty());
  FUZZ_CHECK(s.set_sampling >= 1);
  FUZZ_CHECK(s.wave_sampling >= 0 && s.wave_sampling <= system::kMaxWaveSamplingPercent);
  FUZZ_CHECK(!s.queues.empty() && s.queues.size() <= system::kMaxQueues);
  for (const system::QueueSpec& q : s.queues)
    FUZZ_CHECK(std::has_single_bit(q.size));

  std::map<std::string, std::uint64_t, std::less<>> buffers;
  unsigned __int128 next = system::kBufferBase;
  for (const system::ScenarioBuffer& b : s.buffers) {
    FUZZ_CHECK(b.address % system::kBufferAlign == 0);
    FUZZ_CHECK(b.address >= next);
    next = static_cast<unsigned __int128>(b.address) + b.bytes;
    FUZZ_CHECK(next <= ~std::uint64_t{0});
    FUZZ_CHECK(buffers.emplace(b.name, b.address).second);
  }
  for (const system::ScenarioOutput& o : s.outputs)
    FUZZ_CHECK(buffers.contains(o.buffer));
  FUZZ_CHECK(s.outputs.empty() || s.mode == system::RunMode::kFunctional);
  if (!s.kernel.empty()) {
    FUZZ_CHECK(s.launch_queue < s.queues.size());
    check_args(s.args, buffers);
  }
  std::set<std::string, std::less<>> launched;
  for (const system::ScenarioKernel& k : s.graph) {
    FUZZ_CHECK(k.kernel.empty() != k.workload.empty());
    FUZZ_CHECK(k.queue < s.queues.size());
    FUZZ_CHECK(k.after_any.size() <= 5);
    for (const std::string& a : k.after)
      FUZZ_CHECK(launched.contains(a));
    for (const std::string& a : k.after_any)
      FUZZ_CHECK(launched.contains(a));
    FUZZ_CHECK(launched.insert(k.name).second);
    check_args(k.args, buffers);
  }
}

void check_scenario(const Scenario& s) {
  FUZZ_CHECK(s.source == "fuzz.yaml");
  const std::vector<Scenario> runs = system::scenario_runs(s);
  FUZZ_CHECK(!runs.empty());
  std::set<std::string> names, stats;
  for (std::size_t i = 0; i < s.runs.size(); ++i) {
    const Scenario& r = s.runs[i];
    FUZZ_CHECK(r.runs.empty() && r.index == i);
    FUZZ_CHECK(!r.name.empty() && names.insert(r.name).second);
    if (!r.stats_path.empty()) FUZZ_CHECK(stats.insert(r.stats_path).second);
  }
  for (const Scenario& r : runs)
    check_run(r);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto s = system::load_scenario_string(fuzz::as_text(data, size), "fuzz.yaml");
  fuzz::check_reader_errors(s, "fuzz.yaml:");
  if (s) check_scenario(*s);
  return 0;
}
