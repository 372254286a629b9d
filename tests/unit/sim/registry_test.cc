// Registry<Factory>: add (empty and duplicate names refused), find (the one-line unknown-name
// error with did-you-mean and the list), listing order (by `order`, then by add()).
#include "sim/registry.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace xpusim::sim {
namespace {

using Reg = Registry<int (*)()>;
using Names = std::vector<std::string>;

Reg::Entry entry(
    std::string name, int order = 0, int (*make)() = [] { return 1; }) {
  return {.name = std::move(name), .description = "d", .make = make, .order = order};
}

TEST(Registry, AddThenFindReturnsTheEntryAndItsFactory) {
  Reg r("policy", "policies");
  ASSERT_TRUE(r.add({.name = "a", .description = "the a", .make = [] { return 7; }}).ok());
  auto e = r.find("a");
  ASSERT_TRUE(e.ok()) << e.error().message;
  EXPECT_EQ((*e)->name, "a");
  EXPECT_EQ((*e)->description, "the a");
  EXPECT_EQ((*e)->make(), 7);
  EXPECT_TRUE(r.contains("a"));
  EXPECT_FALSE(r.contains("b"));
  EXPECT_EQ(r.kind(), "policy");
}

TEST(Registry, EmptyAndDuplicateNamesAreRefused) {
  Reg r("policy", "policies");
  ASSERT_TRUE(r.add(entry("a")).ok());
  const Status dup = r.add(entry("a", 5, [] { return 2; }));
  ASSERT_FALSE(dup.ok());
  EXPECT_EQ(dup.error().message, "policy 'a' is registered twice; names must be unique");
  const Status empty = r.add(entry(""));
  ASSERT_FALSE(empty.ok());
  EXPECT_EQ(empty.error().message, "policy: an entry needs a name, got ''");
  // Neither refused entry got in: the first 'a' stays.
  EXPECT_EQ(r.names(), Names{"a"});
  EXPECT_EQ((*r.find("a"))->make(), 1);
}

TEST(Registry, UnknownNameIsOneLineWithDidYouMeanAndTheKnownNames) {
  Reg r("policy", "policies");
  for (const char* n : {"waterfill", "prior-art", "round-robin", "first-fit"})
    ASSERT_TRUE(r.add(entry(n)).ok());
  auto typo = r.find("waterfil");
  ASSERT_FALSE(typo.ok());
  EXPECT_EQ(typo.errors().size(), 1u);
  EXPECT_EQ(typo.error().message,
            "policy 'waterfil' is unknown (did you mean 'waterfill'?); known policies: "
            "waterfill, prior-art, round-robin, first-fit");
  auto far = r.find("zzzzzzzzzz");
  ASSERT_FALSE(far.ok());
  EXPECT_EQ(far.error().message,
            "policy 'zzzzzzzzzz' is unknown; known policies: waterfill, prior-art, round-robin, "
            "first-fit");
  EXPECT_EQ(far.error().message.find('\n'), std::string::npos);
}

TEST(Registry, EmptyRegistrySaysSo) {
  const Reg r("shape", "shapes");
  auto e = r.find("ring");
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.error().message, "shape 'ring' is unknown; known shapes: (none)");
  EXPECT_TRUE(r.names().empty());
  EXPECT_TRUE(r.entries().empty());
}

TEST(Registry, ListsByOrderThenByAdd) {
  Reg r("policy", "policies");
  // Added alphabetically, as the generated registration functions do.
  ASSERT_TRUE(r.add(entry("bdp", 3)).ok());
  ASSERT_TRUE(r.add(entry("count", 2)).ok());
  ASSERT_TRUE(r.add(entry("equal", 0)).ok());
  ASSERT_TRUE(r.add(entry("rtt", 1)).ok());
  EXPECT_EQ(r.names(), (Names{"equal", "rtt", "count", "bdp"}));
  // Equal orders keep the order of add().
  Reg s("policy", "policies");
  for (const char* n : {"zeta", "alpha", "mid"})
    ASSERT_TRUE(s.add(entry(n)).ok());
  ASSERT_TRUE(s.add(entry("first", -1)).ok());
  EXPECT_EQ(s.names(), (Names{"first", "zeta", "alpha", "mid"}));
  ASSERT_EQ(s.entries().size(), 4u);
  EXPECT_EQ(s.entries()[1].name, "zeta");
}

TEST(Registry, IsAValueEachOwnerFillsAlone) {
  Reg a("policy", "policies"), b("policy", "policies");
  ASSERT_TRUE(a.add(entry("x")).ok());
  EXPECT_TRUE(b.names().empty());  // no shared table
  Reg c = a;
  ASSERT_TRUE(c.add(entry("y")).ok());
  EXPECT_EQ(a.names(), Names{"x"});
  EXPECT_EQ(c.names(), (Names{"x", "y"}));
}

}  // namespace
}  // namespace xpusim::sim
