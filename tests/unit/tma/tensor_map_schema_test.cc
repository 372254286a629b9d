// `xpusim schema tensor-map` against the tensor map reader and the shipped examples.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "../schema_probe.h"
#include "tma/tensor_map_io.h"

namespace xpusim::tma {
namespace {

TEST(TensorMapSchema, EveryKeyOfTheShippedExamplesIsDeclared) {
  const test::Schema schema = tensor_map_schema();
  const auto files = test::files_in(std::filesystem::path(XPUSIM_CONFIG_DIR) / "examples");
  ASSERT_GE(files.size(), 2u);
  for (const auto& f : files) {
    EXPECT_EQ(test::undeclared_keys(YAML::LoadFile(f.string()), schema), std::vector<std::string>{})
        << f;
  }
}

// The reader's valid keys for each mode are the schema's keys of that mode ("x-modes").
TEST(TensorMapSchema, TheReaderAcceptsExactlyTheDeclaredKeysOfEachMode) {
  const test::Schema schema = tensor_map_schema();
  for (const std::string mode : {"tiled", "im2col"}) {
    std::vector<std::string> declared;
    for (const auto& [key, node] : schema["properties"].items()) {
      const auto& modes = node["x-modes"];
      if (std::find(modes.begin(), modes.end(), test::Schema(mode)) != modes.end()) {
        declared.push_back(key);
      }
    }
    auto r = parse_tensor_map_yaml(test::probe_doc("mode: " + mode + "\n", ""), "m.yaml");
    ASSERT_FALSE(r.ok());
    std::vector<std::string> errors;
    for (const Error& e : r.errors())
      errors.push_back(e.message);
    EXPECT_EQ(test::valid_keys_in(errors), declared) << mode;
  }
  EXPECT_EQ(schema["required"],
            test::Schema::array({"dataType", "rank", "globalAddress", "globalDim"}));
  EXPECT_EQ(schema["properties"]["swizzle"]["default"], "NONE");
  EXPECT_EQ(schema["properties"]["dataType"]["enum"].size(), 16u);
}

// A map written by to_yaml (every key) reads back, and every key it writes is declared.
TEST(TensorMapSchema, TheWritersKeysAreDeclared) {
  const auto files = test::files_in(std::filesystem::path(XPUSIM_CONFIG_DIR) / "examples");
  for (const auto& f : files) {
    auto map = load_tensor_map_file(f);
    ASSERT_TRUE(map.ok()) << f;
    EXPECT_EQ(test::undeclared_keys(YAML::Load(to_yaml(*map)), tensor_map_schema()),
              std::vector<std::string>{})
        << f;
  }
}

}  // namespace
}  // namespace xpusim::tma
