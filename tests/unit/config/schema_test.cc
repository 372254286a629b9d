#include "config/schema.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "config/chip_schema.h"
#include "config/yaml_reader.h"
#include "sim/suggest.h"

namespace xpusim::config {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// A schema unrelated to chips, to show the reader is driven by the declaration alone.
constexpr FieldDecl kLinkFields[] = {
    {.path = "link.latency", .kind = ValueKind::kTime, .min = 1, .max = 1'000'000'000'000},
    {.path = "link.width",
     .kind = ValueKind::kInteger,
     .min = 1,
     .max = 64,
     .power_of_two = true,
     .required = false,
     .default_yaml = "16"},
    {.path = "link.lanes", .kind = ValueKind::kIntegerList, .min = 0, .max = 3},
};

TEST(Schema, ReaderIsDrivenByTheDeclaration) {
  Diagnostics diag("link.yaml");
  const FieldValues v =
      read_yaml_fields("link:\n  latency: 1.5ns\n  lanes: [0, 3]\n", kLinkFields, diag);
  EXPECT_TRUE(diag.empty());
  EXPECT_EQ(v.at("link.latency").number, 1'500u);
  EXPECT_EQ(v.at("link.width").number, 16u);
  EXPECT_TRUE(v.at("link.width").defaulted);
  EXPECT_EQ(v.at("link.width").key_pos.line, 2);  // a default sits at its enclosing mapping
  EXPECT_THAT(v.at("link.lanes").list, ElementsAre(0u, 3u));
}

TEST(Schema, ReaderCollectsEveryErrorSortedByPosition) {
  Diagnostics diag("link.yaml");
  const FieldValues v =
      read_yaml_fields("link:\n  lanes: [4, x]\n  width: 12\n", kLinkFields, diag);
  EXPECT_EQ(v.at("link.width").state, FieldValue::State::kInvalid);
  EXPECT_EQ(v.at("link.lanes").state, FieldValue::State::kInvalid);
  std::vector<std::string> lines;
  for (const Error& e : diag.take())
    lines.push_back(e.message);
  EXPECT_THAT(lines,
              ElementsAre("link.yaml:2:3: link.latency: missing required key 'latency' (time)",
                          "link.yaml:2:11: link.lanes[0]: 4 is out of range [0, 3]",
                          "link.yaml:2:14: link.lanes[1]: expected an integer, got \"x\"",
                          "link.yaml:3:10: link.width: 12 is not a power of two"));
}

TEST(Schema, MarkdownHasOneRowPerKeyWithUnitsRangesAndDefaults) {
  const std::string md = chip_schema_markdown();
  EXPECT_THAT(md, HasSubstr("| Key | Type | Unit | Range | Default | Description |\n"));
  EXPECT_THAT(md, HasSubstr("| `clocks.sm` | frequency | Hz | [1 MHz, 10 GHz] | required |"));
  EXPECT_THAT(md, HasSubstr("| `sm.sub_partitions` | integer |  | [1, 16] | required |"));
  EXPECT_THAT(md, HasSubstr("| `sm.shared_memory_banks` | integer |  | [1, 256], power of 2 | "
                            "`32` |"));
  EXPECT_THAT(md, HasSubstr("| `hbm.generation` | string |  | one of HBM2, HBM2e, HBM3, HBM3e |"));
  EXPECT_THAT(md, HasSubstr("| `sm.shared_memory_bytes` | `sm.shared_memory_bytes` <= "
                            "`sm.l1_shared_bytes` | shared memory is carved out of the L1/shared "
                            "array |"));
  for (const FieldDecl& f : chip_fields()) {
    EXPECT_THAT(md, HasSubstr("| `" + std::string(f.path) + "` |"));
  }
}

TEST(Schema, DocsCarryTheGeneratedReferenceVerbatim) {
  const std::filesystem::path doc = std::filesystem::path(XPUSIM_TEST_DATA_DIR) / ".." / ".." /
                                    ".." / ".." / "docs" / "config.md";
  std::ifstream in(doc);
  ASSERT_TRUE(in) << doc;
  std::ostringstream text;
  text << in.rdbuf();
  EXPECT_THAT(text.str(), HasSubstr("<!-- BEGIN chip_schema_markdown() -->\n" +
                                    chip_schema_markdown() + "<!-- END chip_schema_markdown() -->"))
      << "docs/config.md is stale: paste chip_schema_markdown() between the markers";
}

TEST(Suggest, EditDistanceAndClosestMatch) {
  EXPECT_EQ(sim::edit_distance("kitten", "sitting"), 3u);
  EXPECT_EQ(sim::edit_distance("", "abc"), 3u);
  const std::vector<std::string> keys{"shared_memory_bytes", "shared_memory_banks", "max_warps"};
  EXPECT_EQ(sim::closest_match("shared_mem_bytes", keys), "shared_memory_bytes");
  EXPECT_EQ(sim::closest_match("max_warp", keys), "max_warps");
  EXPECT_EQ(sim::closest_match("frobnicate", keys), "");
  EXPECT_EQ(sim::did_you_mean("max_wraps", keys), " (did you mean 'max_warps'?)");
}

}  // namespace
}  // namespace xpusim::config
