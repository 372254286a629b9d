// libFuzzer target: raw bytes -> the AQL packet decoders (src/cp/packets.h, condensed.h).
//
// The input is a stream of 64-byte packets (the last one zero-padded), processed like the
// kernel agent does: reference packets fill an RST, condensed packets replay kernels from it.
// Every decoder must return a value or errors with messages; a decoded packet must re-encode
// to the very bytes it came from (each format has one encoding of a valid packet); a diff
// applied to a reference must give a valid packet that diff() reproduces.
#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "cp/condensed.h"
#include "cp/packets.h"
#include "cp/reference_table.h"
#include "fuzz_check.h"
#include "sim/result.h"

namespace xpusim::cp {
namespace {

using fuzz::check_errors;

std::uint16_t le16(const PacketBytes& b, std::size_t o) {
  return static_cast<std::uint16_t>(std::to_integer<unsigned>(b[o]) |
                                    std::to_integer<unsigned>(b[o + 1]) << 8);
}

// Any 64 bytes forced into a valid dispatch packet, so that every condensed packet has a
// fuzzer-chosen reference even when no reference packet came before it.
DispatchPacket as_dispatch(PacketBytes b) {
  b[0] = std::byte{static_cast<std::uint8_t>(PacketType::kKernelDispatch)};
  unsigned hi = std::to_integer<unsigned>(b[1]) & 0x1F;  // header bits 13-15 are reserved
  if (((hi >> 1) & 3) == 3) hi &= ~2u;                   // fence scope 3 is reserved
  if (((hi >> 3) & 3) == 3) hi &= ~8u;
  b[1] = std::byte{static_cast<std::uint8_t>(hi)};
  const std::uint16_t reserved0 = le16(b, 10);
  const std::uint16_t fixed = (reserved0 & kReferenceFlag) ? (kReferenceFlag | (reserved0 & 7)) : 0;
  b[10] = std::byte{static_cast<std::uint8_t>(fixed & 0xFF)};
  b[11] = std::byte{static_cast<std::uint8_t>(fixed >> 8)};
  auto p = decode_dispatch(b);
  FUZZ_CHECK(p.ok());
  return *p;
}

// Value slots of `d`, field by field, as apply() reads them (low word first).
std::uint64_t field_from_slots(const KernelDiff& d, DiffField f) {
  std::uint32_t i = 0;
  for (std::uint32_t bit = 0; bit < static_cast<std::uint32_t>(f); ++bit) {
    if ((d.diff_vector >> bit) & 1) i += field_slots(static_cast<DiffField>(bit));
  }
  std::uint64_t v = 0;
  for (std::uint32_t s = 0; s < field_slots(f); ++s)
    v |= std::uint64_t{d.values[i + s]} << (16 * s);
  return v;
}

// One kernel of a condensed packet launched from `reference`; returns the minimal diff.
KernelDiff check_apply(const DispatchPacket& reference, const KernelDiff& d) {
  FUZZ_CHECK(validate(d).ok());
  const DispatchPacket applied = apply(reference, d);
  FUZZ_CHECK(validate(applied).ok());
  FUZZ_CHECK(!applied.is_reference && applied.ref_num == 0);  // a diff never rewrites the RST
  FUZZ_CHECK(applied.header.type == reference.header.type);
  FUZZ_CHECK(applied.reserved2 == reference.reserved2);
  for (std::uint32_t bit = 0; bit < kDiffFields; ++bit) {
    const auto f = static_cast<DiffField>(bit);
    const std::uint64_t got = field_value(applied, f);
    if (((d.diff_vector >> bit) & 1) == 0) {
      FUZZ_CHECK(got == field_value(reference, f));
    } else {
      FUZZ_CHECK(got == field_from_slots(d, f));
    }
  }
  const auto round = decode_dispatch(encode(applied));
  FUZZ_CHECK(round.ok() && *round == applied);

  // diff() need not re-emit a field equal to the reference's, so compare what it rebuilds.
  const KernelDiff minimal = diff(d.ref_num, reference, applied);
  FUZZ_CHECK(validate(minimal).ok());
  FUZZ_CHECK((minimal.diff_vector & ~d.diff_vector) == 0);
  FUZZ_CHECK(packet_slots(minimal) <= packet_slots(d));
  FUZZ_CHECK(apply(reference, minimal) == applied);
  return minimal;
}

void check_condensed(const PacketBytes& bytes, const CondensedPacket& p, const ReferenceTable& rst,
                     const DispatchPacket& fallback) {
  FUZZ_CHECK(p.header == PacketHeader{PacketType::kCondensedDispatch});
  FUZZ_CHECK(!p.kernels.empty() && p.kernels.size() == std::to_integer<unsigned>(bytes[1]));
  const auto re = encode(p);
  FUZZ_CHECK(re.ok() && *re == bytes);

  CondensedPacket minimal;
  for (const KernelDiff& d : p.kernels) {
    auto entry = rst.lookup(d.ref_num);
    check_errors(entry);
    FUZZ_CHECK(entry.ok() == rst.occupied(d.ref_num));
    minimal.kernels.push_back(check_apply(entry.ok() ? *entry : fallback, d));
  }
  // The minimal diffs take no more slots than the originals, so they still fit one packet.
  const auto packed = encode(minimal);
  FUZZ_CHECK(packed.ok());
  const auto back = decode_condensed(*packed);
  FUZZ_CHECK(back.ok() && *back == minimal);
}

void check_packet(const PacketBytes& bytes, ReferenceTable& rst, DispatchPacket& fallback) {
  const auto type = packet_type(bytes);
  check_errors(type);
  FUZZ_CHECK(type.ok() == (std::to_integer<unsigned>(bytes[0]) <= kMaxPacketType));
  const auto header = decode_header(le16(bytes, 0));
  check_errors(header);
  if (header.ok()) {
    FUZZ_CHECK(encode_header(*header) == le16(bytes, 0));
    FUZZ_CHECK(type.ok() && *type == header->type);
  }

  const auto dispatch = decode_dispatch(bytes);
  const auto barrier = decode_barrier(bytes);
  const auto condensed = decode_condensed(bytes);
  check_errors(dispatch);
  check_errors(barrier);
  check_errors(condensed);
  // The type byte picks at most one decoder.
  FUZZ_CHECK(int{dispatch.ok()} + int{barrier.ok()} + int{condensed.ok()} <= 1);

  if (dispatch.ok()) {
    FUZZ_CHECK(type.ok() && *type == PacketType::kKernelDispatch);
    FUZZ_CHECK(validate(*dispatch).ok());
    FUZZ_CHECK(encode(*dispatch) == bytes);
    const auto again = decode_dispatch(encode(*dispatch));
    FUZZ_CHECK(again.ok() && *again == *dispatch);
    if (dispatch->is_reference) rst.store(dispatch->ref_num, *dispatch);
  }
  if (barrier.ok()) {
    FUZZ_CHECK(type.ok() && (*type == PacketType::kBarrierAnd || *type == PacketType::kBarrierOr));
    FUZZ_CHECK(encode(*barrier) == bytes);
    const auto again = decode_barrier(encode(*barrier));
    FUZZ_CHECK(again.ok() && *again == *barrier);
  }
  if (condensed.ok()) {
    FUZZ_CHECK(type.ok() && *type == PacketType::kCondensedDispatch);
    check_condensed(bytes, *condensed, rst, fallback);
  }
  fallback = as_dispatch(bytes);
}

}  // namespace
}  // namespace xpusim::cp

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace xpusim::cp;
  ReferenceTable rst;
  DispatchPacket fallback;  // the reference for empty RST slots: the previous packet
  for (std::size_t at = 0; at < size; at += kPacketBytes) {
    PacketBytes bytes{};
    const std::size_t n = std::min(kPacketBytes, size - at);
    std::transform(data + at, data + at + n, bytes.begin(),
                   [](std::uint8_t v) { return std::byte{v}; });
    check_packet(bytes, rst, fallback);
  }
  return 0;
}
