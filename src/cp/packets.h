// AQL packets as the command processor sees them: the 16-bit packet header, the kernel
// dispatch packet (HSA hsa_kernel_dispatch_packet_t, exact 64-byte layout) extended with the
// reference-packet marking of seed3 Table 2, and the barrier-AND/OR packet.
//
// Byte layout (HSA Platform System Architecture spec, little-endian; seed3 Table 1 agrees
// except where noted):
//   dispatch: 0 header u16 | 2 setup u16 | 4,6,8 workgroup_size_x/y/z u16 | 10 reserved0 u16
//             | 12,16,20 grid_size_x/y/z u32 | 24 private_segment_size u32
//             | 28 group_segment_size u32 | 32 kernel_object u64 | 40 kernarg_address u64
//             | 48 reserved2 u64 | 56 completion_signal u64                      = 64 B
//   barrier:  0 header u16 | 2 reserved0 u16 | 4 reserved1 u32 | 8..47 dep_signal[5] u64
//             | 48 reserved2 u64 | 56 completion_signal u64                      = 64 B
//   header:   bits 0-7 type | 8 barrier | 9-10 acquire fence scope | 11-12 release scope
//             | 13-15 reserved (must be 0).
//
// Where seed3 and HSA differ (HSA wins for the wire layout):
//  - seed3 Table 1 prints `u8 header; u8 synch_scopes`; in HSA they are one u16 whose high
//    byte holds barrier + both fence scopes. We keep the HSA u16 (PacketHeader).
//  - seed3 prints private_segment_size as u16 (+2 B padding); HSA has u32. We keep u32.
//  - Reference marking (seed3 ¶69, Table 2): reserved0 becomes ref_num, but ref_num 0 is a
//    valid RST slot, so a plain packet (reserved0 = 0 per HSA) could not be told apart. We
//    encode reserved0 = 0x8000 | ref_num for a reference packet (bit 15 = "store my info",
//    ¶69's "information indicating ... stored"; bits 0-2 = RST slot, 8 entries ¶90); bits
//    3-14 must be 0, and a plain packet must have reserved0 = 0.
//  - reserved2 is carried through unchanged (HSA says must be 0; not enforced here).
//  - Barrier packets: reserved fields must be 0 (they are not in BarrierPacket, so a
//    non-zero value could not round-trip).
//  - A condensed packet (condensed.h) has an 8-bit header (seed3 Table 4): byte 0 is the
//    type, byte 1 is num_kernels. Read packet_type() before decode_header() on raw bytes.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "sim/result.h"

namespace xpusim::cp {

inline constexpr std::size_t kPacketBytes = 64;  // every AQL packet is 64 B
using PacketBytes = std::array<std::byte, kPacketBytes>;

// HSA hsa_packet_type_t, plus the condensed type. seed3 gives no number for
// HSA_PACKET_TYPE_CONDENSED_DISPATCH (¶101); 6 is the first value HSA leaves unused.
enum class PacketType : std::uint8_t {
  kVendorSpecific = 0,
  kInvalid = 1,
  kKernelDispatch = 2,
  kBarrierAnd = 3,
  kAgentDispatch = 4,
  kBarrierOr = 5,
  kCondensedDispatch = 6,
};
inline constexpr std::uint8_t kMaxPacketType = 6;

enum class FenceScope : std::uint8_t { kNone = 0, kAgent = 1, kSystem = 2 };

std::string_view to_string(PacketType t);
std::string_view to_string(FenceScope s);

struct PacketHeader {
  PacketType type = PacketType::kInvalid;
  bool barrier = false;
  FenceScope acquire = FenceScope::kNone;  // seed3 ¶54: dispatch info
  FenceScope release = FenceScope::kNone;  // seed3 ¶55: cleanup info
  bool operator==(const PacketHeader&) const = default;
};

std::uint16_t encode_header(const PacketHeader& h);
// Errors: reserved bits 13-15 set, type > 6, fence scope 3.
Result<PacketHeader> decode_header(std::uint16_t word);
// Type from byte 0 alone (valid for every packet, condensed included). Error: type > 6.
Result<PacketType> packet_type(const PacketBytes& bytes);

// reserved0 encoding of a reference packet (see top comment).
inline constexpr std::uint16_t kReferenceFlag = 0x8000;
inline constexpr std::uint8_t kRefSlots = 8;  // seed3 ¶90 Table 3: 8-entry RST, 3-bit ref_num

struct DispatchPacket {
  PacketHeader header{PacketType::kKernelDispatch};
  std::uint16_t setup = 0;
  std::array<std::uint16_t, 3> workgroup_size{};
  // reserved0: 0 for a standard packet; for a reference packet the RST slot (seed3 Table 2).
  std::uint16_t ref_num = 0;
  std::array<std::uint32_t, 3> grid_size{};
  std::uint32_t private_segment_size = 0;  // u32 as HSA (seed3 prints u16)
  std::uint32_t group_segment_size = 0;
  std::uint64_t kernel_object = 0;
  std::uint64_t kernarg_address = 0;
  std::uint64_t reserved2 = 0;
  std::uint64_t completion_signal = 0;
  bool is_reference = false;  // seed3 ¶69: store the decoded info into RST[ref_num]
  bool operator==(const DispatchPacket&) const = default;
};

// Errors: header type not KERNEL_DISPATCH, ref_num >= 8 on a reference packet, ref_num != 0
// on a standard packet.
Status validate(const DispatchPacket& p);
// Requires validate(p).ok() (XPUSIM_CHECK).
PacketBytes encode(const DispatchPacket& p);
// Errors: bad header (decode_header), type not KERNEL_DISPATCH, reserved0 not 0 and not
// 0x8000|slot.
Result<DispatchPacket> decode_dispatch(const PacketBytes& bytes);

// Workgroups (CTAs) per dimension: ceil(grid_size / workgroup_size), since HSA allows a partial
// last workgroup and it takes a whole one. Error: a dimension whose workgroup_size or grid_size
// is 0 (HSA: unused dimensions are 1).
Result<std::array<std::uint32_t, 3>> workgroups(const DispatchPacket& p);

// Cleanup info (seed3 ¶55-¶56): the release scope and the completion signal.
struct CleanupInfo {
  FenceScope release = FenceScope::kNone;
  std::uint64_t completion_signal = 0;  // 0 = no signal (HSA null handle)
  // Intermediate kernels of a condensed packet clean up only if needed (seed3 ¶146).
  bool needed() const { return release != FenceScope::kNone || completion_signal != 0; }
};
inline CleanupInfo cleanup_info(const DispatchPacket& p) {
  return CleanupInfo{p.header.release, p.completion_signal};
}

struct BarrierPacket {
  PacketHeader header{PacketType::kBarrierAnd};
  std::array<std::uint64_t, 5> dep_signal{};  // 0 = unused slot (HSA)
  std::uint64_t completion_signal = 0;
  bool operator==(const BarrierPacket&) const = default;
};

// Requires header.type to be BARRIER_AND or BARRIER_OR (XPUSIM_CHECK).
PacketBytes encode(const BarrierPacket& p);
// Errors: bad header, type not BARRIER_AND/OR, any reserved field non-zero.
Result<BarrierPacket> decode_barrier(const PacketBytes& bytes);

// The 13 diff_vector bits (seed3 ¶112: "13 bits <-> 13 fields of the reference AQL packet").
// Mapping inferred from declaration order minus header/reserved0/reserved2; it matches both
// data points the patent gives (bit 11 kernarg, bit 12 completion signal, ¶138-¶139).
enum class DiffField : std::uint8_t {
  kSynchScopes = 0,  // high byte of the HSA header: barrier | acquire<<1 | release<<3
  kSetup = 1,
  kWorkgroupSizeX = 2,
  kWorkgroupSizeY = 3,
  kWorkgroupSizeZ = 4,
  kGridSizeX = 5,
  kGridSizeY = 6,
  kGridSizeZ = 7,
  kPrivateSegmentSize = 8,
  kGroupSegmentSize = 9,
  kKernelObject = 10,
  kKernargAddress = 11,
  kCompletionSignal = 12,
};
inline constexpr std::uint32_t kDiffFields = 13;
inline constexpr std::uint16_t kDiffVectorMask = (1u << kDiffFields) - 1;  // 0x1FFF

std::string_view to_string(DiffField f);
// 16-bit diff slots the field's value takes (seed3 ¶126: a 64-bit field takes 4). Sub-16-bit
// synch_scopes takes 1; u32 fields take 2 (private_segment_size too: HSA u32, not seed3's u16).
std::uint32_t field_slots(DiffField f);
// The field's value in `p`, zero-extended to 64 bits.
std::uint64_t field_value(const DispatchPacket& p, DiffField f);
// Sets the field; the value must fit (XPUSIM_CHECK) and, for synch_scopes, be a valid
// header high byte (check with validate_field_value first).
void set_field(DispatchPacket& p, DiffField f, std::uint64_t value);
// Errors: value wider than the field, or synch_scopes past 8 bits, with reserved bits or
// scope 3.
Status validate_field_value(DiffField f, std::uint64_t value);

}  // namespace xpusim::cp
