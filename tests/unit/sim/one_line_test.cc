#include "sim/one_line.h"

#include <gtest/gtest.h>

namespace xpusim::sim {
namespace {

TEST(OneLine, EscapesControlCharactersOnly) {
  EXPECT_EQ(one_line("plain text, 'quoted' \"too\""), "plain text, 'quoted' \"too\"");
  EXPECT_EQ(one_line("a\nb\rc\td"), "a\\nb\\rc\\td");
  EXPECT_EQ(one_line(std::string("x\0y\x1f\x7f", 5)), "x\\x00y\\x1f\\x7f");
  EXPECT_EQ(one_line("caf\xc3\xa9"), "caf\xc3\xa9");  // UTF-8 kept
  EXPECT_EQ(one_line(""), "");
}

}  // namespace
}  // namespace xpusim::sim
