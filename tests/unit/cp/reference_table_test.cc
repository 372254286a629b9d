// Reference State Table (src/cp/reference_table.h, seed3 ¶90, ¶93).
#include "cp/reference_table.h"

#include <string>

#include <gtest/gtest.h>

namespace xpusim::cp {
namespace {

DispatchPacket reference(std::uint16_t slot, std::uint64_t kernel_object) {
  DispatchPacket p;
  p.is_reference = true;
  p.ref_num = slot;
  p.kernel_object = kernel_object;
  p.completion_signal = 0x100 + kernel_object;
  return p;
}

TEST(ReferenceTable, StartsEmptyAndLookupOfEmptySlotIsError) {
  ReferenceTable t;
  for (std::uint8_t i = 0; i < ReferenceTable::kSlots; ++i)
    EXPECT_FALSE(t.occupied(i));
  auto r = t.lookup(5);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("RST slot 5: empty"), std::string::npos) << r.error().message;
  EXPECT_EQ(r.error().message.find('\n'), std::string::npos);
}

TEST(ReferenceTable, StoreAndLookup) {
  ReferenceTable t;
  for (std::uint8_t i = 0; i < ReferenceTable::kSlots; ++i)
    t.store(i, reference(i, 10 + i));
  for (std::uint8_t i = 0; i < ReferenceTable::kSlots; ++i) {
    ASSERT_TRUE(t.occupied(i));
    auto r = t.lookup(i);
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(*r, reference(i, 10 + i));
  }
}

TEST(ReferenceTable, NewReferenceOverwrites) {
  ReferenceTable t;
  t.store(4, reference(4, 1));
  t.store(4, reference(4, 2));
  auto r = t.lookup(4);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->kernel_object, 2u);
  EXPECT_EQ(r->completion_signal, 0x102u);
  EXPECT_FALSE(t.occupied(3));
  EXPECT_FALSE(t.occupied(5));
}

TEST(ReferenceTable, OutOfRangeRefNum) {
  ReferenceTable t;
  EXPECT_FALSE(t.occupied(8));
  auto r = t.lookup(8);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("ref_num 8"), std::string::npos) << r.error().message;
}

TEST(ReferenceTable, Clear) {
  ReferenceTable t;
  t.store(0, reference(0, 1));
  t.clear();
  EXPECT_FALSE(t.occupied(0));
  EXPECT_FALSE(t.lookup(0).ok());
}

}  // namespace
}  // namespace xpusim::cp
