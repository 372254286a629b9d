// Condensed dispatch packet (src/cp/condensed.h): seed3 Table 6 exactly, random round trips,
// apply/diff, and every malformed-input error.
#include "cp/condensed.h"

#include <cstdint>
#include <random>
#include <string>

#include <gtest/gtest.h>

namespace xpusim::cp {
namespace {

std::uint16_t slot(const PacketBytes& b, std::size_t i) {
  return static_cast<std::uint16_t>(std::to_integer<unsigned>(b[2 + 2 * i]) |
                                    std::to_integer<unsigned>(b[3 + 2 * i]) << 8);
}

void set_slot(PacketBytes& b, std::size_t i, std::uint16_t v) {
  b[2 + 2 * i] = static_cast<std::byte>(v & 0xFF);
  b[3 + 2 * i] = static_cast<std::byte>(v >> 8);
}

DispatchPacket random_packet(std::mt19937_64& rng) {
  DispatchPacket p;
  p.header = {PacketType::kKernelDispatch, (rng() & 1) != 0, static_cast<FenceScope>(rng() % 3),
              static_cast<FenceScope>(rng() % 3)};
  p.setup = static_cast<std::uint16_t>(rng());
  for (auto& w : p.workgroup_size)
    w = static_cast<std::uint16_t>(rng());
  for (auto& g : p.grid_size)
    g = static_cast<std::uint32_t>(rng());
  p.private_segment_size = static_cast<std::uint32_t>(rng());
  p.group_segment_size = static_cast<std::uint32_t>(rng());
  p.kernel_object = rng();
  p.kernarg_address = rng();
  p.completion_signal = rng();
  return p;
}

// Target = reference with the fields in `mask` replaced by fresh random values (which may
// coincide with the reference's only with negligible probability for wide fields).
DispatchPacket mutate(const DispatchPacket& ref, std::uint16_t mask, std::mt19937_64& rng) {
  DispatchPacket t = ref;
  const DispatchPacket other = random_packet(rng);
  for (std::uint32_t bit = 0; bit < kDiffFields; ++bit) {
    if ((mask >> bit) & 1) {
      const auto f = static_cast<DiffField>(bit);
      set_field(t, f, field_value(other, f));
    }
  }
  return t;
}

CondensedPacket table6() {
  CondensedPacket p;
  p.kernels.push_back({4, 0x1000, {0xdead, 0xbeef, 0xfeed, 0x0bad}});
  p.kernels.push_back({6, 0x0800, {0x1234, 0x5678, 0xdeed, 0xface}});
  return p;
}

TEST(Condensed, DiffHeaderPacking) {
  // Table 5 bit-fields, little-endian allocation: ref_num bits 0-2, diff_vector bits 3-15.
  EXPECT_EQ(pack_diff_header(4, 0x1000), 0x8004);
  EXPECT_EQ(pack_diff_header(6, 0x0800), 0x4006);
  EXPECT_EQ(pack_diff_header(7, 0x1FFF), 0xFFFF);
  EXPECT_EQ(pack_diff_header(0, 0x0001), 0x0008);
}

TEST(Condensed, Table6ExactSlots) {
  auto b = encode(table6());
  ASSERT_TRUE(b.ok()) << b.error().message;
  EXPECT_EQ((*b)[0], std::byte{6});  // CONDENSED_DISPATCH
  EXPECT_EQ((*b)[1], std::byte{2});  // num_kernels
  const std::uint16_t want[10] = {0x8004, 0xdead, 0xbeef, 0xfeed, 0x0bad,
                                  0x4006, 0x1234, 0x5678, 0xdeed, 0xface};
  for (std::size_t i = 0; i < 10; ++i)
    EXPECT_EQ(slot(*b, i), want[i]) << "diff[" << i << "]";
  for (std::size_t i = 10; i < kDiffSlots; ++i)
    EXPECT_EQ(slot(*b, i), 0) << i;
  // Byte level: diff[0] = 0x8004 little-endian at bytes 2-3.
  EXPECT_EQ((*b)[2], std::byte{0x04});
  EXPECT_EQ((*b)[3], std::byte{0x80});

  auto d = decode_condensed(*b);
  ASSERT_TRUE(d.ok()) << d.error().message;
  EXPECT_EQ(*d, table6());

  // Kernel 1 = ref #4 with a new completion signal; kernel 2 = ref #6 with new kernargs.
  std::mt19937_64 rng(6);
  DispatchPacket ref4 = random_packet(rng);
  DispatchPacket ref6 = random_packet(rng);
  const DispatchPacket k1 = apply(ref4, d->kernels[0]);
  const DispatchPacket k2 = apply(ref6, d->kernels[1]);
  EXPECT_EQ(k1.completion_signal, 0x0badfeedbeefdeadu);  // low word first
  EXPECT_EQ(k2.kernarg_address, 0xfacedeed56781234u);
  ref4.completion_signal = k1.completion_signal;
  ref6.kernarg_address = k2.kernarg_address;
  EXPECT_EQ(k1, ref4);
  EXPECT_EQ(k2, ref6);
}

TEST(Condensed, Table6FromDiff) {
  std::mt19937_64 rng(60);
  const DispatchPacket ref4 = random_packet(rng);
  const DispatchPacket ref6 = random_packet(rng);
  DispatchPacket t1 = ref4;
  t1.completion_signal = 0x0badfeedbeefdead;
  DispatchPacket t2 = ref6;
  t2.kernarg_address = 0xfacedeed56781234;
  CondensedPacket p;
  p.kernels = {diff(4, ref4, t1), diff(6, ref6, t2)};
  EXPECT_EQ(p, table6());
}

TEST(Condensed, ZeroDiffIsOneSlotAndTheReference) {
  std::mt19937_64 rng(1);
  DispatchPacket ref = random_packet(rng);
  ref.is_reference = true;
  ref.ref_num = 3;
  const KernelDiff d = diff(3, ref, ref);
  EXPECT_EQ(d.diff_vector, 0);
  EXPECT_TRUE(d.values.empty());
  EXPECT_EQ(packet_slots(d), 1u);
  DispatchPacket launched = apply(ref, d);
  EXPECT_FALSE(launched.is_reference);  // launching from a diff never rewrites the RST
  EXPECT_EQ(launched.ref_num, 0);
  launched.is_reference = true;
  launched.ref_num = 3;
  EXPECT_EQ(launched, ref);
}

TEST(Condensed, EveryFieldAloneRoundTrips) {
  std::mt19937_64 rng(2);
  for (std::uint32_t bit = 0; bit < kDiffFields; ++bit) {
    const DispatchPacket ref = random_packet(rng);
    DispatchPacket t = ref;
    const auto f = static_cast<DiffField>(bit);
    // A value differing from the reference and using every slot of the field.
    const std::uint64_t v =
        f == DiffField::kSynchScopes
            ? (field_value(ref, f) == 0x15 ? 0x0A : 0x15)
            : (field_value(ref, f) ^ ~0ull) &
                  (field_slots(f) == 4 ? ~0ull : (1ull << (16 * field_slots(f))) - 1);
    set_field(t, f, v);
    const KernelDiff d = diff(static_cast<std::uint8_t>(bit % 8), ref, t);
    EXPECT_EQ(d.diff_vector, 1u << bit) << to_string(f);
    EXPECT_EQ(d.values.size(), field_slots(f)) << to_string(f);
    CondensedPacket p;
    p.kernels = {d};
    auto b = encode(p);
    ASSERT_TRUE(b.ok()) << b.error().message;
    auto back = decode_condensed(*b);
    ASSERT_TRUE(back.ok()) << back.error().message;
    ASSERT_EQ(back->kernels.size(), 1u);
    EXPECT_EQ(apply(ref, back->kernels[0]), t) << to_string(f);
  }
}

TEST(Condensed, ValuesAscendingBitOrderLowWordFirst) {
  DispatchPacket ref;
  DispatchPacket t = ref;
  t.setup = 0x0002;                      // bit 1
  t.grid_size[1] = 0xAAAABBBB;           // bit 6
  t.kernel_object = 0x1111222233334444;  // bit 10
  const KernelDiff d = diff(1, ref, t);
  EXPECT_EQ(d.diff_vector, (1u << 1) | (1u << 6) | (1u << 10));
  EXPECT_EQ(d.values,
            (std::vector<std::uint16_t>{0x0002, 0xBBBB, 0xAAAA, 0x4444, 0x3333, 0x2222, 0x1111}));
  EXPECT_EQ(apply(ref, d), t);
}

TEST(Condensed, RandomDiffsRoundTrip) {
  std::mt19937_64 rng(0x5EED3);
  int packets = 0;
  int kernels_total = 0;
  std::uint32_t fields_seen = 0;
  for (int iter = 0; iter < 1500; ++iter) {
    std::vector<DispatchPacket> refs;
    std::vector<DispatchPacket> targets;
    CondensedPacket p;
    std::uint32_t used = 0;
    const int want = 1 + static_cast<int>(rng() % 8);
    for (int k = 0; k < want; ++k) {
      const DispatchPacket ref = random_packet(rng);
      // Sparse masks most of the time so several kernels fit; sometimes all 13 bits.
      std::uint16_t mask = static_cast<std::uint16_t>(rng() & rng() & kDiffVectorMask);
      if (rng() % 10 == 0) mask = kDiffVectorMask;
      const DispatchPacket t = mutate(ref, mask, rng);
      const KernelDiff d = diff(static_cast<std::uint8_t>(rng() % 8), ref, t);
      ASSERT_EQ(apply(ref, d), t);
      ASSERT_EQ(d.diff_vector & ~mask, 0);  // minimal: only fields that changed
      if (used + packet_slots(d) > kDiffSlots) break;
      used += packet_slots(d);
      fields_seen |= d.diff_vector;
      refs.push_back(ref);
      targets.push_back(t);
      p.kernels.push_back(d);
    }
    if (p.kernels.empty()) continue;
    auto b = encode(p);
    ASSERT_TRUE(b.ok()) << b.error().message;
    auto back = decode_condensed(*b);
    ASSERT_TRUE(back.ok()) << back.error().message;
    ASSERT_EQ(*back, p);
    for (std::size_t k = 0; k < p.kernels.size(); ++k) {
      ASSERT_EQ(apply(refs[k], back->kernels[k]), targets[k]);
    }
    ++packets;
    kernels_total += static_cast<int>(p.kernels.size());
  }
  EXPECT_GE(packets, 1000);
  EXPECT_GE(kernels_total, 1000);
  EXPECT_EQ(fields_seen, kDiffVectorMask);  // every field, 64-bit ones included
}

TEST(Condensed, CapacityLimits) {
  EXPECT_EQ(value_slots(kDiffVectorMask), 27u);  // 5x1 + 5x2 + 3x4
  EXPECT_EQ(value_slots(0x1000), 4u);
  // 31 zero-diff kernels fill the packet exactly; 32 do not fit.
  CondensedPacket p;
  for (int k = 0; k < 31; ++k)
    p.kernels.push_back({static_cast<std::uint8_t>(k % 8), 0, {}});
  auto ok = encode(p);
  ASSERT_TRUE(ok.ok()) << ok.error().message;
  auto back = decode_condensed(*ok);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->kernels.size(), 31u);
  p.kernels.push_back({0, 0, {}});
  auto bad = encode(p);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("needs 32 diff slots"), std::string::npos)
      << bad.error().message;
  // 3 kernels with completion signal + kernarg diffs (9 slots each) fit; 4 do not.
  CondensedPacket q;
  for (int k = 0; k < 4; ++k)
    q.kernels.push_back({0, 0x1800, std::vector<std::uint16_t>(8, 1)});
  EXPECT_FALSE(encode(q).ok());
  q.kernels.pop_back();
  EXPECT_TRUE(encode(q).ok());
}

TEST(Condensed, EncodeErrors) {
  auto expect_error = [](const CondensedPacket& p, const std::string& needle) {
    auto b = encode(p);
    ASSERT_FALSE(b.ok()) << needle;
    EXPECT_NE(b.error().message.find(needle), std::string::npos) << b.error().message;
    EXPECT_EQ(b.error().message.find('\n'), std::string::npos);
  };
  CondensedPacket p = table6();
  p.kernels[0].ref_num = 8;
  expect_error(p, "ref_num 8");
  p = table6();
  p.kernels[1].diff_vector = 0x2800;
  expect_error(p, "diff_vector 0x2800");
  p = table6();
  p.kernels[1].values.pop_back();
  expect_error(p, "3 slots given");
  p = table6();
  p.kernels[0] = {0, 0x0001, {0x0020}};  // synch_scopes with header bit 13
  expect_error(p, "synch_scopes");
  p.kernels[0] = {0, 0x0001, {0x0113}};  // a valid low byte, but the field is 8 bits (fuzzer)
  expect_error(p, "wider than the header's high byte");
  p = table6();
  p.kernels.clear();
  expect_error(p, "num_kernels 0");
  p = table6();
  p.header.barrier = true;
  expect_error(p, "no barrier or fences");
  p = table6();
  p.header.type = PacketType::kKernelDispatch;
  expect_error(p, "must be CONDENSED_DISPATCH");
}

TEST(Condensed, DecodeErrors) {
  const PacketBytes good = *encode(table6());
  auto expect_error = [](const PacketBytes& b, const std::string& needle) {
    auto d = decode_condensed(b);
    ASSERT_FALSE(d.ok()) << needle;
    EXPECT_NE(d.error().message.find(needle), std::string::npos) << d.error().message;
    EXPECT_EQ(d.error().message.find('\n'), std::string::npos);
  };
  PacketBytes b = good;
  b[0] = std::byte{2};
  expect_error(b, "type 2");
  b = good;
  b[1] = std::byte{0};
  expect_error(b, "num_kernels 0");
  b = good;
  b[1] = std::byte{3};  // a third kernel header would be slot 10 (zero = ref 0, no diff): ok...
  ASSERT_TRUE(decode_condensed(b).ok());
  b[1] = std::byte{32};  // ...but 32 kernels need headers past the 31 slots
  expect_error(b, "past the 31 slots");
  b = good;
  set_slot(b, 10, pack_diff_header(0, 0x1FFF));  // 27 value slots from slot 11: 11+27 > 31
  b[1] = std::byte{3};
  expect_error(b, "past the 31 slots");
  b = good;
  set_slot(b, 0, 0x0004 | 0x0001 << 3);  // kernel 0 now diffs synch_scopes = 0xdead: too wide
  expect_error(b, "synch_scopes");
  b = good;
  set_slot(b, 30, 0x0001);
  expect_error(b, "unused slots must be 0");
}

}  // namespace
}  // namespace xpusim::cp
