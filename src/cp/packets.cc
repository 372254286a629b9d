#include "cp/packets.h"

#include <fmt/format.h>

#include <cstddef>
#include <cstdint>

namespace xpusim::cp {
namespace {

// Little-endian field access (HSA packets are little-endian), independent of the host.
template <class T>
void put(PacketBytes& b, std::size_t offset, T v) {
  XPUSIM_CHECK(offset + sizeof(T) <= b.size(), "packet field past 64 bytes");
  for (std::size_t i = 0; i < sizeof(T); ++i) {
    b[offset + i] = static_cast<std::byte>((static_cast<std::uint64_t>(v) >> (8 * i)) & 0xFF);
  }
}

template <class T>
T get(const PacketBytes& b, std::size_t offset) {
  XPUSIM_CHECK(offset + sizeof(T) <= b.size(), "packet field past 64 bytes");
  std::uint64_t v = 0;
  for (std::size_t i = 0; i < sizeof(T); ++i) {
    v |= static_cast<std::uint64_t>(std::to_integer<std::uint8_t>(b[offset + i])) << (8 * i);
  }
  return static_cast<T>(v);
}

// HSA hsa_packet_header_t bit positions.
constexpr unsigned kBarrierBit = 8;
constexpr unsigned kAcquireShift = 9;
constexpr unsigned kReleaseShift = 11;
constexpr std::uint16_t kHeaderReservedMask = 0xE000;  // bits 13-15

bool is_barrier_type(PacketType t) {
  return t == PacketType::kBarrierAnd || t == PacketType::kBarrierOr;
}

}  // namespace

std::string_view to_string(PacketType t) {
  switch (t) {
    case PacketType::kVendorSpecific:
      return "VENDOR_SPECIFIC";
    case PacketType::kInvalid:
      return "INVALID";
    case PacketType::kKernelDispatch:
      return "KERNEL_DISPATCH";
    case PacketType::kBarrierAnd:
      return "BARRIER_AND";
    case PacketType::kAgentDispatch:
      return "AGENT_DISPATCH";
    case PacketType::kBarrierOr:
      return "BARRIER_OR";
    case PacketType::kCondensedDispatch:
      return "CONDENSED_DISPATCH";
  }
  return "?";
}

std::string_view to_string(FenceScope s) {
  switch (s) {
    case FenceScope::kNone:
      return "NONE";
    case FenceScope::kAgent:
      return "AGENT";
    case FenceScope::kSystem:
      return "SYSTEM";
  }
  return "?";
}

std::uint16_t encode_header(const PacketHeader& h) {
  XPUSIM_CHECK(static_cast<unsigned>(h.acquire) <= 2 && static_cast<unsigned>(h.release) <= 2,
               "fence scope out of range");
  return static_cast<std::uint16_t>(static_cast<unsigned>(h.type) |
                                    (h.barrier ? 1u << kBarrierBit : 0u) |
                                    static_cast<unsigned>(h.acquire) << kAcquireShift |
                                    static_cast<unsigned>(h.release) << kReleaseShift);
}

Result<PacketHeader> decode_header(std::uint16_t word) {
  if (word & kHeaderReservedMask) {
    return Error{fmt::format("packet header 0x{:04x}: reserved bits 13-15 are 0x{:x}, must be 0",
                             word, (word & kHeaderReservedMask) >> 13)};
  }
  const unsigned type = word & 0xFF;
  if (type > kMaxPacketType) {
    return Error{fmt::format("packet header 0x{:04x}: type {} is unknown (0-{} defined)", word,
                             type, kMaxPacketType)};
  }
  const unsigned acquire = (word >> kAcquireShift) & 3;
  const unsigned release = (word >> kReleaseShift) & 3;
  if (acquire > 2 || release > 2) {
    return Error{fmt::format(
        "packet header 0x{:04x}: fence scope 3 ({}) is reserved (0 none, 1 agent, 2 system)", word,
        acquire > 2 ? "acquire" : "release")};
  }
  return PacketHeader{static_cast<PacketType>(type), ((word >> kBarrierBit) & 1) != 0,
                      static_cast<FenceScope>(acquire), static_cast<FenceScope>(release)};
}

Result<PacketType> packet_type(const PacketBytes& bytes) {
  const unsigned type = std::to_integer<unsigned>(bytes[0]);
  if (type > kMaxPacketType) {
    return Error{
        fmt::format("packet type {} in byte 0 is unknown (0-{} defined)", type, kMaxPacketType)};
  }
  return static_cast<PacketType>(type);
}

Status validate(const DispatchPacket& p) {
  if (p.header.type != PacketType::kKernelDispatch) {
    return Error{
        fmt::format("dispatch packet type {}: must be KERNEL_DISPATCH", to_string(p.header.type))};
  }
  if (p.is_reference && p.ref_num >= kRefSlots) {
    return Error{
        fmt::format("reference packet ref_num {}: must be < {} (3-bit RST index, seed3 "
                    "¶90)",
                    p.ref_num, kRefSlots)};
  }
  if (!p.is_reference && p.ref_num != 0) {
    return Error{fmt::format(
        "standard dispatch packet ref_num {}: reserved0 must be 0 unless is_reference", p.ref_num)};
  }
  return Ok{};
}

PacketBytes encode(const DispatchPacket& p) {
  const Status s = validate(p);
  XPUSIM_CHECK(s.ok(), "encode() of an invalid dispatch packet; call validate() first");
  PacketBytes b{};
  put<std::uint16_t>(b, 0, encode_header(p.header));
  put<std::uint16_t>(b, 2, p.setup);
  for (std::size_t i = 0; i < 3; ++i)
    put<std::uint16_t>(b, 4 + 2 * i, p.workgroup_size[i]);
  put<std::uint16_t>(b, 10,
                     p.is_reference ? static_cast<std::uint16_t>(kReferenceFlag | p.ref_num) : 0);
  for (std::size_t i = 0; i < 3; ++i)
    put<std::uint32_t>(b, 12 + 4 * i, p.grid_size[i]);
  put<std::uint32_t>(b, 24, p.private_segment_size);
  put<std::uint32_t>(b, 28, p.group_segment_size);
  put<std::uint64_t>(b, 32, p.kernel_object);
  put<std::uint64_t>(b, 40, p.kernarg_address);
  put<std::uint64_t>(b, 48, p.reserved2);
  put<std::uint64_t>(b, 56, p.completion_signal);
  return b;
}

Result<DispatchPacket> decode_dispatch(const PacketBytes& b) {
  auto h = decode_header(get<std::uint16_t>(b, 0));
  if (!h) return h.errors();
  if (h->type != PacketType::kKernelDispatch) {
    return Error{fmt::format("dispatch packet type {} ({}): must be KERNEL_DISPATCH (2)",
                             static_cast<unsigned>(h->type), to_string(h->type))};
  }
  DispatchPacket p;
  p.header = *h;
  p.setup = get<std::uint16_t>(b, 2);
  for (std::size_t i = 0; i < 3; ++i)
    p.workgroup_size[i] = get<std::uint16_t>(b, 4 + 2 * i);
  const auto reserved0 = get<std::uint16_t>(b, 10);
  if (reserved0 != 0) {
    if ((reserved0 & kReferenceFlag) == 0 || (reserved0 & ~kReferenceFlag) >= kRefSlots) {
      return Error{fmt::format(
          "dispatch packet reserved0 0x{:04x}: must be 0 (standard) or 0x8000|ref_num with "
          "ref_num < {} (reference, seed3 Table 2)",
          reserved0, kRefSlots)};
    }
    p.is_reference = true;
    p.ref_num = reserved0 & ~kReferenceFlag;
  }
  for (std::size_t i = 0; i < 3; ++i)
    p.grid_size[i] = get<std::uint32_t>(b, 12 + 4 * i);
  p.private_segment_size = get<std::uint32_t>(b, 24);
  p.group_segment_size = get<std::uint32_t>(b, 28);
  p.kernel_object = get<std::uint64_t>(b, 32);
  p.kernarg_address = get<std::uint64_t>(b, 40);
  p.reserved2 = get<std::uint64_t>(b, 48);
  p.completion_signal = get<std::uint64_t>(b, 56);
  return p;
}

PacketBytes encode(const BarrierPacket& p) {
  XPUSIM_CHECK(is_barrier_type(p.header.type), "barrier packet type must be BARRIER_AND/OR");
  PacketBytes b{};
  put<std::uint16_t>(b, 0, encode_header(p.header));
  for (std::size_t i = 0; i < p.dep_signal.size(); ++i) {
    put<std::uint64_t>(b, 8 + 8 * i, p.dep_signal[i]);
  }
  put<std::uint64_t>(b, 56, p.completion_signal);
  return b;
}

Result<BarrierPacket> decode_barrier(const PacketBytes& b) {
  auto h = decode_header(get<std::uint16_t>(b, 0));
  if (!h) return h.errors();
  if (!is_barrier_type(h->type)) {
    return Error{
        fmt::format("barrier packet type {} ({}): must be BARRIER_AND (3) or "
                    "BARRIER_OR (5)",
                    static_cast<unsigned>(h->type), to_string(h->type))};
  }
  struct Reserved {
    const char* name;
    std::size_t offset;
    std::uint64_t value;
  };
  const Reserved reserved[] = {{"reserved0", 2, get<std::uint16_t>(b, 2)},
                               {"reserved1", 4, get<std::uint32_t>(b, 4)},
                               {"reserved2", 48, get<std::uint64_t>(b, 48)}};
  for (const Reserved& r : reserved) {
    if (r.value != 0) {
      return Error{fmt::format("barrier packet {} (byte {}) = 0x{:x}: must be 0", r.name, r.offset,
                               r.value)};
    }
  }
  BarrierPacket p;
  p.header = *h;
  for (std::size_t i = 0; i < p.dep_signal.size(); ++i) {
    p.dep_signal[i] = get<std::uint64_t>(b, 8 + 8 * i);
  }
  p.completion_signal = get<std::uint64_t>(b, 56);
  return p;
}

std::string_view to_string(DiffField f) {
  switch (f) {
    case DiffField::kSynchScopes:
      return "synch_scopes";
    case DiffField::kSetup:
      return "setup";
    case DiffField::kWorkgroupSizeX:
      return "workgroup_size_x";
    case DiffField::kWorkgroupSizeY:
      return "workgroup_size_y";
    case DiffField::kWorkgroupSizeZ:
      return "workgroup_size_z";
    case DiffField::kGridSizeX:
      return "grid_size_x";
    case DiffField::kGridSizeY:
      return "grid_size_y";
    case DiffField::kGridSizeZ:
      return "grid_size_z";
    case DiffField::kPrivateSegmentSize:
      return "private_segment_size";
    case DiffField::kGroupSegmentSize:
      return "group_segment_size";
    case DiffField::kKernelObject:
      return "kernel_object";
    case DiffField::kKernargAddress:
      return "kernarg_address";
    case DiffField::kCompletionSignal:
      return "completion_signal";
  }
  return "?";
}

std::uint32_t field_slots(DiffField f) {
  switch (f) {
    case DiffField::kSynchScopes:
    case DiffField::kSetup:
    case DiffField::kWorkgroupSizeX:
    case DiffField::kWorkgroupSizeY:
    case DiffField::kWorkgroupSizeZ:
      return 1;
    case DiffField::kGridSizeX:
    case DiffField::kGridSizeY:
    case DiffField::kGridSizeZ:
    case DiffField::kPrivateSegmentSize:
    case DiffField::kGroupSegmentSize:
      return 2;
    case DiffField::kKernelObject:
    case DiffField::kKernargAddress:
    case DiffField::kCompletionSignal:
      return 4;  // seed3 ¶126: 64 bits = 4 diff[] entries
  }
  XPUSIM_CHECK(false, "unknown DiffField");
  return 0;
}

std::uint64_t field_value(const DispatchPacket& p, DiffField f) {
  switch (f) {
    case DiffField::kSynchScopes:
      return encode_header(p.header) >> 8;
    case DiffField::kSetup:
      return p.setup;
    case DiffField::kWorkgroupSizeX:
      return p.workgroup_size[0];
    case DiffField::kWorkgroupSizeY:
      return p.workgroup_size[1];
    case DiffField::kWorkgroupSizeZ:
      return p.workgroup_size[2];
    case DiffField::kGridSizeX:
      return p.grid_size[0];
    case DiffField::kGridSizeY:
      return p.grid_size[1];
    case DiffField::kGridSizeZ:
      return p.grid_size[2];
    case DiffField::kPrivateSegmentSize:
      return p.private_segment_size;
    case DiffField::kGroupSegmentSize:
      return p.group_segment_size;
    case DiffField::kKernelObject:
      return p.kernel_object;
    case DiffField::kKernargAddress:
      return p.kernarg_address;
    case DiffField::kCompletionSignal:
      return p.completion_signal;
  }
  XPUSIM_CHECK(false, "unknown DiffField");
  return 0;
}

Status validate_field_value(DiffField f, std::uint64_t value) {
  const std::uint32_t bits = 16 * field_slots(f);
  if (bits < 64 && (value >> bits) != 0) {
    return Error{
        fmt::format("diff field {} value 0x{:x}: wider than {} bits", to_string(f), value, bits)};
  }
  if (f == DiffField::kSynchScopes) {
    // The value is the HSA header's high byte; the type byte is never diffed. The slot is 16
    // bits wide, so a value past 0xFF would lose its high byte (found by cp_packet_fuzz).
    if (value > 0xFF) {
      return Error{fmt::format(
          "diff field synch_scopes value 0x{:x}: wider than the header's high byte (8 bits)",
          value)};
    }
    auto h = decode_header(static_cast<std::uint16_t>(
        (value << 8) | static_cast<unsigned>(PacketType::kKernelDispatch)));
    if (!h) {
      return Error{
          fmt::format("diff field synch_scopes value 0x{:x}: not a valid header high "
                      "byte ({})",
                      value, h.error().message)};
    }
  }
  return Ok{};
}

void set_field(DispatchPacket& p, DiffField f, std::uint64_t value) {
  XPUSIM_CHECK(validate_field_value(f, value).ok(), "set_field value does not fit the field");
  switch (f) {
    case DiffField::kSynchScopes: {
      auto h = decode_header(
          static_cast<std::uint16_t>((value << 8) | static_cast<unsigned>(p.header.type)));
      XPUSIM_CHECK(h.ok(), "synch_scopes value validated above");
      p.header = *h;
      return;
    }
    case DiffField::kSetup:
      p.setup = static_cast<std::uint16_t>(value);
      return;
    case DiffField::kWorkgroupSizeX:
      p.workgroup_size[0] = static_cast<std::uint16_t>(value);
      return;
    case DiffField::kWorkgroupSizeY:
      p.workgroup_size[1] = static_cast<std::uint16_t>(value);
      return;
    case DiffField::kWorkgroupSizeZ:
      p.workgroup_size[2] = static_cast<std::uint16_t>(value);
      return;
    case DiffField::kGridSizeX:
      p.grid_size[0] = static_cast<std::uint32_t>(value);
      return;
    case DiffField::kGridSizeY:
      p.grid_size[1] = static_cast<std::uint32_t>(value);
      return;
    case DiffField::kGridSizeZ:
      p.grid_size[2] = static_cast<std::uint32_t>(value);
      return;
    case DiffField::kPrivateSegmentSize:
      p.private_segment_size = static_cast<std::uint32_t>(value);
      return;
    case DiffField::kGroupSegmentSize:
      p.group_segment_size = static_cast<std::uint32_t>(value);
      return;
    case DiffField::kKernelObject:
      p.kernel_object = value;
      return;
    case DiffField::kKernargAddress:
      p.kernarg_address = value;
      return;
    case DiffField::kCompletionSignal:
      p.completion_signal = value;
      return;
  }
  XPUSIM_CHECK(false, "unknown DiffField");
}

Result<std::array<std::uint32_t, 3>> workgroups(const DispatchPacket& p) {
  std::array<std::uint32_t, 3> out{};
  for (std::size_t d = 0; d < 3; ++d) {
    const std::uint32_t wg = p.workgroup_size[d], items = p.grid_size[d];
    if (wg == 0 || items == 0) {
      return Error{
          fmt::format("dispatch dimension {}: workgroup_size {} and grid_size {} must "
                      "both be >= 1 (HSA: unused dimensions are 1)",
                      "xyz"[d], wg, items)};
    }
    out[d] = items / wg + (items % wg != 0 ? 1 : 0);
  }
  return out;
}

}  // namespace xpusim::cp
