// `xpusim schema KIND`: each kind prints a JSON Schema (--markdown: a table); no kind or an
// unknown one is a one-line error listing the kinds (exit 2).
#include <nlohmann/json.hpp>

#include "cli_harness.h"

namespace xpusim::test {
namespace {

class SchemaCli : public CliTest {};

TEST_F(SchemaCli, EachKindPrintsAJsonSchema) {
  for (const char* kind : {"chip", "scenario", "pod", "tensor-map"}) {
    const CliRun r = run(fmt::format("schema {}", kind));
    ASSERT_EQ(r.code, 0) << kind << r.err;
    EXPECT_EQ(r.err, "");
    const auto schema = nlohmann::json::parse(r.out);
    EXPECT_EQ(schema["$schema"], "https://json-schema.org/draft/2020-12/schema") << kind;
    EXPECT_EQ(schema["type"], "object") << kind;
    EXPECT_EQ(schema["additionalProperties"], false) << kind;
    EXPECT_GT(schema["properties"].size(), 3u) << kind;
  }
  EXPECT_TRUE(
      nlohmann::json::parse(run("schema scenario").out)["properties"].contains("trace_window"));
}

TEST_F(SchemaCli, MarkdownIsATable) {
  const CliRun chip = run("schema chip --markdown");
  ASSERT_EQ(chip.code, 0) << chip.err;
  EXPECT_EQ(chip.out.find("| Key | Type | Unit | Range | Default | Description |\n"), 0u);
  const CliRun scenario = run("schema scenario --markdown");
  ASSERT_EQ(scenario.code, 0) << scenario.err;
  EXPECT_EQ(scenario.out.find("| Key | Type | Default | Description |\n"), 0u);
  EXPECT_NE(scenario.out.find("\n| `chip` | string | required | "), std::string::npos)
      << scenario.out;
  EXPECT_NE(scenario.out.find("\n| `runs[].name` | string |  | "), std::string::npos);
}

TEST_F(SchemaCli, NoKindOrAnUnknownOneIsAOneLineError) {
  const CliRun none = run("schema");
  EXPECT_EQ(none.code, 2);
  EXPECT_EQ(none.err, "error: schema: name a config kind: chip, scenario, pod, tensor-map\n");
  const CliRun bad = run("schema scenaro");
  EXPECT_EQ(bad.code, 2);
  EXPECT_EQ(bad.err,
            "error: schema: config kind 'scenaro' is unknown (did you mean 'scenario'?); known "
            "config kinds: chip, scenario, pod, tensor-map\n");
  const CliRun out = run("--stats s.json schema chip");
  EXPECT_EQ(out.code, 2);
}

}  // namespace
}  // namespace xpusim::test
