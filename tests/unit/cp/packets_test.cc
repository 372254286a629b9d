// AQL packet encode/decode (src/cp/packets.h): exact HSA byte offsets, header bits, the
// reference-packet marking in reserved0 (seed3 Table 2) and barrier packets.
#include "cp/packets.h"

#include <cstdint>
#include <random>
#include <string>

#include <gtest/gtest.h>

namespace xpusim::cp {
namespace {

std::uint64_t read_le(const PacketBytes& b, std::size_t offset, std::size_t n) {
  std::uint64_t v = 0;
  for (std::size_t i = 0; i < n; ++i)
    v |= std::to_integer<std::uint64_t>(b[offset + i]) << (8 * i);
  return v;
}

void write_le(PacketBytes& b, std::size_t offset, std::size_t n, std::uint64_t v) {
  for (std::size_t i = 0; i < n; ++i)
    b[offset + i] = static_cast<std::byte>(v >> (8 * i));
}

DispatchPacket sample() {
  DispatchPacket p;
  p.header = {PacketType::kKernelDispatch, true, FenceScope::kAgent, FenceScope::kSystem};
  p.setup = 0x0003;
  p.workgroup_size = {0x1101, 0x2202, 0x3303};
  p.grid_size = {0x44040404, 0x55050505, 0x66060606};
  p.private_segment_size = 0x77070707;
  p.group_segment_size = 0x88080808;
  p.kernel_object = 0x0102030405060708;
  p.kernarg_address = 0x1112131415161718;
  p.reserved2 = 0;
  p.completion_signal = 0x2122232425262728;
  return p;
}

TEST(PacketHeader, BitPositionsMatchHsa) {
  EXPECT_EQ(encode_header({PacketType::kKernelDispatch}), 0x0002);
  EXPECT_EQ(encode_header({PacketType::kInvalid, true}), 0x0101);
  EXPECT_EQ(encode_header({PacketType::kVendorSpecific, false, FenceScope::kAgent}), 0x0200);
  EXPECT_EQ(encode_header({PacketType::kVendorSpecific, false, FenceScope::kSystem}), 0x0400);
  EXPECT_EQ(
      encode_header({PacketType::kVendorSpecific, false, FenceScope::kNone, FenceScope::kAgent}),
      0x0800);
  EXPECT_EQ(
      encode_header({PacketType::kVendorSpecific, false, FenceScope::kNone, FenceScope::kSystem}),
      0x1000);
  EXPECT_EQ(encode_header({PacketType::kBarrierOr, true, FenceScope::kSystem, FenceScope::kSystem}),
            0x1505);
}

TEST(PacketHeader, EveryValidHeaderRoundTrips) {
  int n = 0;
  for (unsigned t = 0; t <= kMaxPacketType; ++t) {
    for (int barrier = 0; barrier < 2; ++barrier) {
      for (unsigned a = 0; a < 3; ++a) {
        for (unsigned r = 0; r < 3; ++r) {
          const PacketHeader h{static_cast<PacketType>(t), barrier != 0, static_cast<FenceScope>(a),
                               static_cast<FenceScope>(r)};
          auto d = decode_header(encode_header(h));
          ASSERT_TRUE(d.ok()) << d.error().message;
          EXPECT_EQ(*d, h);
          ++n;
        }
      }
    }
  }
  EXPECT_EQ(n, 7 * 2 * 3 * 3);
}

TEST(PacketHeader, ReservedBitsAreErrors) {
  for (unsigned bit = 13; bit < 16; ++bit) {
    auto d = decode_header(static_cast<std::uint16_t>(0x0002 | 1u << bit));
    ASSERT_FALSE(d.ok());
    EXPECT_NE(d.error().message.find("reserved bits 13-15"), std::string::npos)
        << d.error().message;
    EXPECT_EQ(d.error().message.find('\n'), std::string::npos);
  }
}

TEST(PacketHeader, UnknownTypeAndScope3AreErrors) {
  auto t = decode_header(0x0007);
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.error().message.find("type 7 is unknown"), std::string::npos) << t.error().message;
  auto t2 = decode_header(0x00FF);
  ASSERT_FALSE(t2.ok());
  auto acq = decode_header(0x0602);  // acquire = 3
  ASSERT_FALSE(acq.ok());
  EXPECT_NE(acq.error().message.find("acquire"), std::string::npos) << acq.error().message;
  auto rel = decode_header(0x1802);  // release = 3
  ASSERT_FALSE(rel.ok());
  EXPECT_NE(rel.error().message.find("release"), std::string::npos) << rel.error().message;
}

TEST(PacketType, ReadFromByteZero) {
  PacketBytes b{};
  b[0] = std::byte{6};
  b[1] = std::byte{0xFF};  // condensed: num_kernels, not header flags
  auto t = packet_type(b);
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(*t, PacketType::kCondensedDispatch);
  b[0] = std::byte{9};
  EXPECT_FALSE(packet_type(b).ok());
}

TEST(DispatchPacket, FieldsSitAtHsaOffsets) {
  const DispatchPacket p = sample();
  const PacketBytes b = encode(p);
  EXPECT_EQ(read_le(b, 0, 2), 0x1302u);  // type 2 | barrier | acquire agent | release system
  EXPECT_EQ(read_le(b, 2, 2), 0x0003u);
  EXPECT_EQ(read_le(b, 4, 2), 0x1101u);
  EXPECT_EQ(read_le(b, 6, 2), 0x2202u);
  EXPECT_EQ(read_le(b, 8, 2), 0x3303u);
  EXPECT_EQ(read_le(b, 10, 2), 0u);
  EXPECT_EQ(read_le(b, 12, 4), 0x44040404u);
  EXPECT_EQ(read_le(b, 16, 4), 0x55050505u);
  EXPECT_EQ(read_le(b, 20, 4), 0x66060606u);
  EXPECT_EQ(read_le(b, 24, 4), 0x77070707u);
  EXPECT_EQ(read_le(b, 28, 4), 0x88080808u);
  EXPECT_EQ(read_le(b, 32, 8), 0x0102030405060708u);
  EXPECT_EQ(read_le(b, 40, 8), 0x1112131415161718u);
  EXPECT_EQ(read_le(b, 48, 8), 0u);
  EXPECT_EQ(read_le(b, 56, 8), 0x2122232425262728u);
  // A few raw bytes by hand: little-endian, low byte first.
  EXPECT_EQ(b[0], std::byte{0x02});
  EXPECT_EQ(b[1], std::byte{0x13});
  EXPECT_EQ(b[12], std::byte{0x04});
  EXPECT_EQ(b[15], std::byte{0x44});
  EXPECT_EQ(b[32], std::byte{0x08});
  EXPECT_EQ(b[39], std::byte{0x01});
  EXPECT_EQ(b[63], std::byte{0x21});
}

TEST(DispatchPacket, HandWrittenBytesDecode) {
  PacketBytes b{};
  write_le(b, 0, 2, 0x0A02);  // release agent (bit 11), acquire agent (bit 9)
  write_le(b, 2, 2, 2);
  write_le(b, 4, 2, 256);
  write_le(b, 6, 2, 1);
  write_le(b, 8, 2, 1);
  write_le(b, 10, 2, 0x8005);
  write_le(b, 12, 4, 1 << 20);
  write_le(b, 16, 4, 7);
  write_le(b, 20, 4, 1);
  write_le(b, 24, 4, 0x10000);  // needs 32 bits: seed3's u16 could not hold it
  write_le(b, 28, 4, 4096);
  write_le(b, 32, 8, 0xAAAA0000BBBB0000);
  write_le(b, 40, 8, 0x7F0000001000);
  write_le(b, 48, 8, 0x55);
  write_le(b, 56, 8, 0xC0FFEE);
  auto d = decode_dispatch(b);
  ASSERT_TRUE(d.ok()) << d.error().message;
  EXPECT_EQ(d->header, (PacketHeader{PacketType::kKernelDispatch, false, FenceScope::kAgent,
                                     FenceScope::kAgent}));
  EXPECT_EQ(d->setup, 2);
  EXPECT_EQ(d->workgroup_size, (std::array<std::uint16_t, 3>{256, 1, 1}));
  EXPECT_TRUE(d->is_reference);
  EXPECT_EQ(d->ref_num, 5);
  EXPECT_EQ(d->grid_size, (std::array<std::uint32_t, 3>{1u << 20, 7, 1}));
  EXPECT_EQ(d->private_segment_size, 0x10000u);
  EXPECT_EQ(d->group_segment_size, 4096u);
  EXPECT_EQ(d->kernel_object, 0xAAAA0000BBBB0000u);
  EXPECT_EQ(d->kernarg_address, 0x7F0000001000u);
  EXPECT_EQ(d->reserved2, 0x55u);
  EXPECT_EQ(d->completion_signal, 0xC0FFEEu);
  EXPECT_EQ(encode(*d), b);
}

TEST(DispatchPacket, RandomPacketsRoundTrip) {
  std::mt19937_64 rng(0xC0DE);
  for (int i = 0; i < 2000; ++i) {
    DispatchPacket p;
    p.header = {PacketType::kKernelDispatch, (rng() & 1) != 0, static_cast<FenceScope>(rng() % 3),
                static_cast<FenceScope>(rng() % 3)};
    p.setup = static_cast<std::uint16_t>(rng());
    for (auto& w : p.workgroup_size)
      w = static_cast<std::uint16_t>(rng());
    p.is_reference = (rng() & 1) != 0;
    p.ref_num = p.is_reference ? static_cast<std::uint16_t>(rng() % 8) : 0;
    for (auto& g : p.grid_size)
      g = static_cast<std::uint32_t>(rng());
    p.private_segment_size = static_cast<std::uint32_t>(rng());
    p.group_segment_size = static_cast<std::uint32_t>(rng());
    p.kernel_object = rng();
    p.kernarg_address = rng();
    p.reserved2 = rng();
    p.completion_signal = rng();
    const PacketBytes b = encode(p);
    auto d = decode_dispatch(b);
    ASSERT_TRUE(d.ok()) << d.error().message;
    ASSERT_EQ(*d, p);
  }
}

TEST(DispatchPacket, ReferenceMarkingInReserved0) {
  DispatchPacket p = sample();
  p.is_reference = true;
  p.ref_num = 0;  // slot 0 is valid and must still read as a reference
  PacketBytes b = encode(p);
  EXPECT_EQ(read_le(b, 10, 2), 0x8000u);
  auto d = decode_dispatch(b);
  ASSERT_TRUE(d.ok());
  EXPECT_TRUE(d->is_reference);
  EXPECT_EQ(d->ref_num, 0);
  p.ref_num = 7;
  EXPECT_EQ(read_le(encode(p), 10, 2), 0x8007u);
}

TEST(DispatchPacket, BadReserved0IsError) {
  PacketBytes b = encode(sample());
  for (std::uint64_t bad : {0x0001u, 0x0004u, 0x8008u, 0x80FFu, 0x4000u}) {
    write_le(b, 10, 2, bad);
    auto d = decode_dispatch(b);
    ASSERT_FALSE(d.ok()) << bad;
    EXPECT_NE(d.error().message.find("reserved0"), std::string::npos) << d.error().message;
  }
}

TEST(DispatchPacket, WrongTypeOrBadHeaderIsError) {
  PacketBytes b = encode(sample());
  write_le(b, 0, 2, 0x0003);
  auto d = decode_dispatch(b);
  ASSERT_FALSE(d.ok());
  EXPECT_NE(d.error().message.find("must be KERNEL_DISPATCH"), std::string::npos);
  write_le(b, 0, 2, 0x8002);
  EXPECT_FALSE(decode_dispatch(b).ok());
}

TEST(DispatchPacket, ValidateRejectsBadRefNum) {
  DispatchPacket p = sample();
  p.is_reference = true;
  p.ref_num = 8;
  Status s = validate(p);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find("ref_num 8"), std::string::npos) << s.error().message;
  p.is_reference = false;
  p.ref_num = 3;
  EXPECT_FALSE(validate(p).ok());
  p = sample();
  p.header.type = PacketType::kBarrierAnd;
  EXPECT_FALSE(validate(p).ok());
  EXPECT_TRUE(validate(sample()).ok());
}

TEST(DispatchPacket, CleanupInfo) {
  DispatchPacket p = sample();
  EXPECT_TRUE(cleanup_info(p).needed());
  p.completion_signal = 0;
  p.header.release = FenceScope::kNone;
  EXPECT_FALSE(cleanup_info(p).needed());
}

TEST(BarrierPacket, LayoutAndRoundTrip) {
  BarrierPacket p;
  p.header = {PacketType::kBarrierOr, true, FenceScope::kNone, FenceScope::kSystem};
  p.dep_signal = {0x11, 0x2200, 0x330000, 0, 0x5500000000000000};
  p.completion_signal = 0xABCDEF;
  const PacketBytes b = encode(p);
  EXPECT_EQ(read_le(b, 0, 2), 0x1105u);
  EXPECT_EQ(read_le(b, 2, 2), 0u);
  EXPECT_EQ(read_le(b, 4, 4), 0u);
  EXPECT_EQ(read_le(b, 8, 8), 0x11u);
  EXPECT_EQ(read_le(b, 16, 8), 0x2200u);
  EXPECT_EQ(read_le(b, 24, 8), 0x330000u);
  EXPECT_EQ(read_le(b, 40, 8), 0x5500000000000000u);
  EXPECT_EQ(b[47], std::byte{0x55});
  EXPECT_EQ(read_le(b, 48, 8), 0u);
  EXPECT_EQ(read_le(b, 56, 8), 0xABCDEFu);
  auto d = decode_barrier(b);
  ASSERT_TRUE(d.ok()) << d.error().message;
  EXPECT_EQ(*d, p);
  p.header.type = PacketType::kBarrierAnd;
  auto d2 = decode_barrier(encode(p));
  ASSERT_TRUE(d2.ok());
  EXPECT_EQ(*d2, p);
}

TEST(BarrierPacket, BadInputIsError) {
  BarrierPacket p;
  PacketBytes good = encode(p);
  for (std::size_t offset : {2u, 4u, 48u, 55u}) {
    PacketBytes b = good;
    b[offset] = std::byte{1};
    auto d = decode_barrier(b);
    ASSERT_FALSE(d.ok()) << offset;
    EXPECT_NE(d.error().message.find("must be 0"), std::string::npos) << d.error().message;
  }
  PacketBytes b = encode(sample());  // a dispatch packet is not a barrier
  auto d = decode_barrier(b);
  ASSERT_FALSE(d.ok());
  EXPECT_NE(d.error().message.find("BARRIER_AND"), std::string::npos);
}

TEST(DiffField, SlotWidthsAndScopesByte) {
  EXPECT_EQ(field_slots(DiffField::kSynchScopes), 1u);
  EXPECT_EQ(field_slots(DiffField::kWorkgroupSizeZ), 1u);
  EXPECT_EQ(field_slots(DiffField::kGridSizeX), 2u);
  EXPECT_EQ(field_slots(DiffField::kPrivateSegmentSize), 2u);
  EXPECT_EQ(field_slots(DiffField::kKernargAddress), 4u);
  EXPECT_EQ(field_slots(DiffField::kCompletionSignal), 4u);
  const DispatchPacket p = sample();  // barrier, acquire agent, release system
  EXPECT_EQ(field_value(p, DiffField::kSynchScopes), 0x13u);
  EXPECT_FALSE(validate_field_value(DiffField::kSynchScopes, 0x20).ok());  // bit 13
  EXPECT_FALSE(validate_field_value(DiffField::kSynchScopes, 0x06).ok());  // acquire 3
  EXPECT_FALSE(validate_field_value(DiffField::kSetup, 0x10000).ok());
  EXPECT_FALSE(validate_field_value(DiffField::kGridSizeY, 0x100000000).ok());
  EXPECT_TRUE(validate_field_value(DiffField::kKernelObject, ~0ull).ok());
  DispatchPacket q = p;
  set_field(q, DiffField::kSynchScopes, 0x08);  // release agent only
  EXPECT_EQ(q.header, (PacketHeader{PacketType::kKernelDispatch, false, FenceScope::kNone,
                                    FenceScope::kAgent}));
}

}  // namespace
}  // namespace xpusim::cp
