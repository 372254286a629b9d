// Condensed kernel dispatch packet (seed3 Tables 4-6, ¶94-¶139): one 64-byte packet that
// launches several kernels, each as a diff against a reference packet stored in the RST.
//
// Wire layout (seed3 Table 4, followed here rather than HSA's 16-bit header):
//   byte 0  type = PacketType::kCondensedDispatch (6)   -- HSA header bits 0-7
//   byte 1  num_kernels                                  -- where HSA has barrier/fence bits
//   bytes 2..63  diff[0..30], 31 little-endian u16 slots
// So a condensed packet carries no barrier bit or fence scopes of its own: each kernel's
// scopes come from its reference entry (or a synch_scopes diff). encode() rejects a header
// with barrier/fences set rather than dropping them.
//
// Per kernel: one diff header slot (seed3 Table 5 `struct diff_params { ref_num:3;
// diff_vector:13; }`), packed as GCC/Clang little-endian bit-fields allocate it: ref_num in
// bits 0-2, diff_vector in bits 3-15, i.e. slot = ref_num | diff_vector << 3 (so Table 6's
// {0x4, 0x1000} = 0x8004 and {0x6, 0x0800} = 0x4006). Then, for each set bit in ascending
// order, field_slots() value slots, least-significant 16 bits first (Table 6: completion
// signal diff[1..4] = 0xdead, 0xbeef, 0xfeed, 0x0bad is the value 0x0badfeedbeefdead).
// Unused trailing slots must be 0.
#pragma once

#include <cstdint>
#include <vector>

#include "cp/packets.h"
#include "sim/result.h"

namespace xpusim::cp {

inline constexpr std::uint32_t kDiffSlots = 31;  // seed3 Table 4: u16 diff_values[31]

struct KernelDiff {
  std::uint8_t ref_num = 0;           // RST slot, 0-7
  std::uint16_t diff_vector = 0;      // bit i set = DiffField i differs; 0 = same as reference
  std::vector<std::uint16_t> values;  // value slots, ascending bit order, low word first
  bool operator==(const KernelDiff&) const = default;
};

struct CondensedPacket {
  PacketHeader header{PacketType::kCondensedDispatch};
  std::vector<KernelDiff> kernels;
  bool operator==(const CondensedPacket&) const = default;
};

std::uint16_t pack_diff_header(std::uint8_t ref_num, std::uint16_t diff_vector);
// Value slots a diff_vector needs (bits beyond 13 ignored).
std::uint32_t value_slots(std::uint16_t diff_vector);
// Slots a kernel takes in the packet: 1 header + its value slots.
std::uint32_t packet_slots(const KernelDiff& d);

// Errors: ref_num > 7, diff_vector bits beyond 13, values count != value_slots(diff_vector),
// a synch_scopes value that is not a valid header high byte.
Status validate(const KernelDiff& d);

// Errors: header not {CONDENSED, no barrier, no fences}, no kernels, any invalid KernelDiff,
// more than 31 slots in all.
Result<PacketBytes> encode(const CondensedPacket& p);
// Errors: type not CONDENSED, num_kernels 0, a header or value past the 31 slots, diff bits
// beyond 13, bad synch_scopes value, non-zero unused slots.
Result<CondensedPacket> decode_condensed(const PacketBytes& bytes);

// The dispatch packet kernel `d` launches: the reference with d's fields replaced. It is a
// standard packet (is_reference = false, ref_num = 0): a diff never rewrites the RST
// (seed3 §5.10, inferred). Requires validate(d).ok() (XPUSIM_CHECK).
DispatchPacket apply(const DispatchPacket& reference, const KernelDiff& d);
// Minimal diff turning `reference` into `target` over the 13 fields (type, is_reference,
// ref_num and reserved2 are not diffable and are ignored). Requires ref_num < 8.
KernelDiff diff(std::uint8_t ref_num, const DispatchPacket& reference,
                const DispatchPacket& target);

}  // namespace xpusim::cp
