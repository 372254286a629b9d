// `xpusim schema chip` (the JSON Schema of chip_fields) against the chip reader and the shipped
// chips.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "../schema_probe.h"
#include "config/chip_schema.h"
#include "config/chip_spec.h"

namespace xpusim::config {
namespace {

TEST(ChipJsonSchema, EveryKeyOfTheShippedChipsIsDeclared) {
  const test::Schema schema = chip_json_schema();
  const auto files = test::files_in(std::filesystem::path(XPUSIM_CONFIG_DIR) / "chips");
  ASSERT_GE(files.size(), 3u);
  for (const auto& f : files) {
    EXPECT_EQ(test::undeclared_keys(YAML::LoadFile(f.string()), schema), std::vector<std::string>{})
        << f;
  }
}

TEST(ChipJsonSchema, TheReaderAcceptsExactlyTheDeclaredKeysOfEverySection) {
  const test::Schema schema = chip_json_schema();
  std::size_t probed = 0;
  for (const test::Mapping& m : test::mappings(schema)) {
    auto r = load_chip_string(test::probe_doc("name: x\n", m.path), "c.yaml");
    ASSERT_FALSE(r.ok());
    std::vector<std::string> errors;
    for (const Error& e : r.errors())
      errors.push_back(e.message);
    EXPECT_EQ(test::valid_keys_in(errors), m.keys) << "at '" << m.path << "'";
    ++probed;
  }
  EXPECT_GT(probed, 10u);
}

TEST(ChipJsonSchema, CarriesTypesRangesUnitsAndDefaults) {
  const test::Schema schema = chip_json_schema();
  const auto& p = schema["properties"];
  EXPECT_EQ(p["clocks"]["properties"]["sm"]["type"], "string");
  EXPECT_EQ(p["clocks"]["properties"]["sm"]["x-unit"], "Hz");
  EXPECT_EQ(p["clocks"]["properties"]["sm"]["x-range"], "[1 MHz, 10 GHz]");
  EXPECT_EQ(p["clocks"]["required"], test::Schema::array({"sm", "l2"}));
  EXPECT_EQ(p["description"]["default"], "");
  EXPECT_EQ(schema["additionalProperties"], false);
}

}  // namespace
}  // namespace xpusim::config
