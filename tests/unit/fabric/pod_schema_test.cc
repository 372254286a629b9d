// `xpusim schema pod` against the pod reader and the shipped pods.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "../schema_probe.h"
#include "fabric/pod_keys.h"
#include "fabric/pod_spec.h"

namespace xpusim::fabric {
namespace {

std::vector<std::string> errors_of(const std::string& yaml) {
  auto s = load_pod_string(yaml, "p.yaml");
  std::vector<std::string> out;
  if (!s) {
    for (const Error& e : s.errors())
      out.push_back(e.message);
  }
  return out;
}

TEST(PodSchema, EveryKeyOfTheShippedPodsIsDeclared) {
  const test::Schema schema = pod_schema();
  const auto files = test::files_in(std::filesystem::path(XPUSIM_CONFIG_DIR) / "pods");
  ASSERT_GT(files.size(), 5u);
  for (const auto& f : files) {
    EXPECT_EQ(test::undeclared_keys(YAML::LoadFile(f.string()), schema), std::vector<std::string>{})
        << f;
  }
}

// Each mapping's valid keys, as the reader's unknown-key error lists them, are the schema's.
TEST(PodSchema, TheReaderAcceptsExactlyTheDeclaredKeysOfEveryMapping) {
  const test::Schema schema = pod_schema();
  std::size_t probed = 0;
  for (const test::Mapping& m : test::mappings(schema)) {
    const std::string base = m.path.starts_with("links") ? "name: p\nshape: explicit\ndims: [4]\n"
                                                         : "name: p\nshape: ring\ndims: [4]\n";
    const std::string doc = test::probe_doc(base, m.path);
    EXPECT_EQ(test::valid_keys_in(errors_of(doc)), m.keys) << "at '" << m.path << "':\n" << doc;
    ++probed;
  }
  // The top level, media and its three media, router, buffer, slice, failed_links, links.
  EXPECT_EQ(probed, 10u);
}

TEST(PodSchema, NamesTheShapesAndDefaults) {
  const test::Schema schema = pod_schema();
  const auto& p = schema["properties"];
  EXPECT_EQ(schema["required"], test::Schema::array({"name", "shape", "dims"}));
  EXPECT_EQ(p["shape"]["enum"].size(), topologies().names().size());
  EXPECT_EQ(p["rtt"]["enum"], test::Schema::array({"table", "measured"}));
  EXPECT_EQ(p["buffer"]["properties"]["vcs"]["default"], 2);
  EXPECT_EQ(p["media"]["properties"]["optical"]["properties"],
            p["media"]["properties"]["pcb"]["properties"]);
  EXPECT_EQ(p["links"]["items"]["required"], test::Schema::array({"a", "b"}));
}

}  // namespace
}  // namespace xpusim::fabric
