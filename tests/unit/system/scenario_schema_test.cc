// `xpusim schema scenario` against the scenario reader and the shipped scenarios.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "../schema_probe.h"
#include "sched/policy.h"
#include "system/scenario.h"
#include "system/scenario_keys.h"

namespace xpusim::system {
namespace {

std::vector<std::string> errors_of(const std::string& yaml) {
  auto s = load_scenario_string(yaml, "s.yaml");
  std::vector<std::string> out;
  if (!s) {
    for (const Error& e : s.errors())
      out.push_back(e.message);
  }
  return out;
}

TEST(ScenarioSchema, EveryKeyOfTheShippedScenariosIsDeclared) {
  const test::Schema schema = scenario_schema();
  const auto files = test::files_in(std::filesystem::path(XPUSIM_CONFIG_DIR) / "scenarios");
  ASSERT_GT(files.size(), 10u);
  for (const auto& f : files) {
    EXPECT_EQ(test::undeclared_keys(YAML::LoadFile(f.string()), schema), std::vector<std::string>{})
        << f;
  }
}

// Each mapping's valid keys, as the reader's unknown-key error lists them, are the schema's.
TEST(ScenarioSchema, TheReaderAcceptsExactlyTheDeclaredKeysOfEveryMapping) {
  const test::Schema schema = scenario_schema();
  const auto all = test::mappings(schema);
  std::size_t probed = 0;
  for (const test::Mapping& m : all) {
    // A document that reaches the mapping: a kernel launch's keys need `kernel:`, a graph's
    // entries no workload.
    std::string base = "chip: tiny\nworkload: w\n";
    if (m.path.starts_with("launch") || m.path.starts_with("buffers") ||
        m.path.starts_with("args")) {
      base = "chip: tiny\nkernel: k\nlaunch: {grid: 1, block: 1}\n";
    } else if (m.path.starts_with("kernels")) {
      base = "chip: tiny\n";
    }
    const std::string doc = test::probe_doc(base, m.path);
    EXPECT_EQ(test::valid_keys_in(errors_of(doc)), m.keys) << "at '" << m.path << "':\n" << doc;
    ++probed;
  }
  // The top level, launch (twice), buffers.*, args (twice), runs, queues (twice), sm_timing,
  // cp_timing, kernels.
  EXPECT_EQ(probed, 12u);
}

TEST(ScenarioSchema, NamesTheRegisteredChoicesAndDefaults) {
  const test::Schema schema = scenario_schema();
  const auto& p = schema["properties"];
  EXPECT_EQ(schema["$schema"], "https://json-schema.org/draft/2020-12/schema");
  EXPECT_EQ(schema["required"], test::Schema::array({"chip"}));
  EXPECT_EQ(schema["additionalProperties"], false);
  EXPECT_EQ(p["mode"]["enum"], test::Schema::array({"functional", "timing-only"}));
  EXPECT_EQ(p["mode"]["default"], "functional");
  EXPECT_EQ(p["policy"]["enum"].size(), sched::policy_names().size());
  EXPECT_EQ(p["trace_max_events"]["default"], sim::kDefaultTraceMaxEvents);
  EXPECT_EQ(p["trace_window"]["type"], "string");
  EXPECT_EQ(p["launch"]["required"], test::Schema::array({"grid", "block"}));
  EXPECT_EQ(p["launch"]["properties"]["grid"]["type"], test::Schema::array({"integer", "array"}));
  EXPECT_EQ(p["buffers"]["additionalProperties"]["properties"]["fill"]["enum"],
            test::Schema::array({"zero", "iota32", "random32"}));
  // A run's params and a graph entry's launch repeat the top level's.
  EXPECT_EQ(p["runs"]["items"]["properties"]["params"]["additionalProperties"],
            p["params"]["additionalProperties"]);
  EXPECT_EQ(p["kernels"]["items"]["properties"]["launch"]["properties"], p["launch"]["properties"]);
  EXPECT_EQ(p["sm_timing"]["properties"]["sub_partitions"]["maximum"], 16);
  EXPECT_EQ(p["cp_timing"]["properties"]["skip_unneeded_cleanup"]["type"], "boolean");
}

}  // namespace
}  // namespace xpusim::system
