#include "cp/condensed.h"

#include <fmt/format.h>

#include <cstddef>
#include <utility>

namespace xpusim::cp {
namespace {

constexpr unsigned kRefNumBits = 3;  // seed3 Table 5: ref_num:3, diff_vector:13
constexpr std::size_t kNumKernelsByte = 1;
constexpr std::size_t kFirstSlotByte = 2;

std::uint16_t get_slot(const PacketBytes& b, std::uint32_t i) {
  const std::size_t o = kFirstSlotByte + 2 * std::size_t{i};
  return static_cast<std::uint16_t>(std::to_integer<unsigned>(b[o]) |
                                    std::to_integer<unsigned>(b[o + 1]) << 8);
}

void put_slot(PacketBytes& b, std::uint32_t i, std::uint16_t v) {
  const std::size_t o = kFirstSlotByte + 2 * std::size_t{i};
  b[o] = static_cast<std::byte>(v & 0xFF);
  b[o + 1] = static_cast<std::byte>(v >> 8);
}

// Field value from its slots, least-significant 16 bits first (seed3 Table 6).
std::uint64_t join(const std::uint16_t* slots, std::uint32_t n) {
  std::uint64_t v = 0;
  for (std::uint32_t i = 0; i < n; ++i)
    v |= std::uint64_t{slots[i]} << (16 * i);
  return v;
}

}  // namespace

std::uint16_t pack_diff_header(std::uint8_t ref_num, std::uint16_t diff_vector) {
  XPUSIM_CHECK(ref_num < kRefSlots && (diff_vector & ~kDiffVectorMask) == 0,
               "diff header fields out of range");
  return static_cast<std::uint16_t>(ref_num | diff_vector << kRefNumBits);
}

std::uint32_t value_slots(std::uint16_t diff_vector) {
  std::uint32_t n = 0;
  for (std::uint32_t bit = 0; bit < kDiffFields; ++bit) {
    if ((diff_vector >> bit) & 1) n += field_slots(static_cast<DiffField>(bit));
  }
  return n;
}

std::uint32_t packet_slots(const KernelDiff& d) {
  return 1 + value_slots(d.diff_vector);
}

Status validate(const KernelDiff& d) {
  if (d.ref_num >= kRefSlots) {
    return Error{fmt::format("kernel diff ref_num {}: must be < {} (3 bits, seed3 Table 5)",
                             d.ref_num, kRefSlots)};
  }
  if (d.diff_vector & ~kDiffVectorMask) {
    return Error{
        fmt::format("kernel diff diff_vector 0x{:04x}: bits beyond the 13 fields set "
                    "(mask 0x{:04x}, seed3 ¶112)",
                    d.diff_vector, kDiffVectorMask)};
  }
  const std::uint32_t need = value_slots(d.diff_vector);
  if (d.values.size() != need) {
    return Error{fmt::format("kernel diff values: {} slots given, diff_vector 0x{:04x} needs {}",
                             d.values.size(), d.diff_vector, need)};
  }
  // Only synch_scopes has invalid encodings; find its slot (it is bit 0, so slot 0).
  if (d.diff_vector & 1) {
    Status s = validate_field_value(DiffField::kSynchScopes, d.values[0]);
    if (!s) return s;
  }
  return Ok{};
}

Result<PacketBytes> encode(const CondensedPacket& p) {
  const PacketHeader want{PacketType::kCondensedDispatch};
  if (p.header != want) {
    return Error{fmt::format(
        "condensed packet header (type {}, barrier {}, acquire {}, release {}): must be "
        "CONDENSED_DISPATCH with no barrier or fences (8-bit header, seed3 Table 4)",
        to_string(p.header.type), p.header.barrier, to_string(p.header.acquire),
        to_string(p.header.release))};
  }
  if (p.kernels.empty()) {
    return Error{"condensed packet num_kernels 0: must launch at least one kernel"};
  }
  std::uint32_t total = 0;
  for (std::size_t k = 0; k < p.kernels.size(); ++k) {
    Status s = validate(p.kernels[k]);
    if (!s) return Error{fmt::format("condensed packet kernel {}: {}", k, s.error().message)};
    total += packet_slots(p.kernels[k]);
  }
  if (total > kDiffSlots) {
    return Error{
        fmt::format("condensed packet with {} kernels needs {} diff slots: at most {} "
                    "(seed3 Table 4)",
                    p.kernels.size(), total, kDiffSlots)};
  }
  PacketBytes b{};
  b[0] = static_cast<std::byte>(PacketType::kCondensedDispatch);
  b[kNumKernelsByte] = static_cast<std::byte>(p.kernels.size());  // <= 31 by the slot check
  std::uint32_t i = 0;
  for (const KernelDiff& d : p.kernels) {
    put_slot(b, i++, pack_diff_header(d.ref_num, d.diff_vector));
    for (std::uint16_t v : d.values)
      put_slot(b, i++, v);
  }
  return b;
}

Result<CondensedPacket> decode_condensed(const PacketBytes& b) {
  const unsigned type = std::to_integer<unsigned>(b[0]);
  if (type != static_cast<unsigned>(PacketType::kCondensedDispatch)) {
    return Error{fmt::format("condensed packet type {}: must be CONDENSED_DISPATCH ({})", type,
                             static_cast<unsigned>(PacketType::kCondensedDispatch))};
  }
  const unsigned num_kernels = std::to_integer<unsigned>(b[kNumKernelsByte]);
  if (num_kernels == 0) {
    return Error{"condensed packet num_kernels 0: must launch at least one kernel"};
  }
  CondensedPacket p;
  std::uint32_t i = 0;
  for (unsigned k = 0; k < num_kernels; ++k) {
    if (i >= kDiffSlots) {
      return Error{
          fmt::format("condensed packet kernel {} of {}: diff header would be slot {}, "
                      "past the {} slots",
                      k, num_kernels, i, kDiffSlots)};
    }
    const std::uint16_t h = get_slot(b, i++);
    KernelDiff d;
    d.ref_num = static_cast<std::uint8_t>(h & (kRefSlots - 1));
    d.diff_vector = static_cast<std::uint16_t>(h >> kRefNumBits);  // 13 bits: never too wide
    const std::uint32_t n = value_slots(d.diff_vector);
    if (i + n > kDiffSlots) {
      return Error{
          fmt::format("condensed packet kernel {}: diff_vector 0x{:04x} needs {} value "
                      "slots from slot {}, past the {} slots",
                      k, d.diff_vector, n, i, kDiffSlots)};
    }
    for (std::uint32_t j = 0; j < n; ++j)
      d.values.push_back(get_slot(b, i++));
    Status s = validate(d);
    if (!s) return Error{fmt::format("condensed packet kernel {}: {}", k, s.error().message)};
    p.kernels.push_back(std::move(d));
  }
  for (; i < kDiffSlots; ++i) {
    if (get_slot(b, i) != 0) {
      return Error{
          fmt::format("condensed packet diff slot {} = 0x{:04x} after the last kernel: "
                      "unused slots must be 0",
                      i, get_slot(b, i))};
    }
  }
  return p;
}

DispatchPacket apply(const DispatchPacket& reference, const KernelDiff& d) {
  XPUSIM_CHECK(validate(d).ok(), "apply() of an invalid kernel diff; call validate() first");
  DispatchPacket out = reference;
  out.is_reference = false;  // a diff launches a standard packet; the RST is not rewritten
  out.ref_num = 0;
  std::uint32_t i = 0;
  for (std::uint32_t bit = 0; bit < kDiffFields; ++bit) {
    if (((d.diff_vector >> bit) & 1) == 0) continue;
    const auto f = static_cast<DiffField>(bit);
    const std::uint32_t n = field_slots(f);
    set_field(out, f, join(d.values.data() + i, n));
    i += n;
  }
  return out;
}

KernelDiff diff(std::uint8_t ref_num, const DispatchPacket& reference,
                const DispatchPacket& target) {
  XPUSIM_CHECK(ref_num < kRefSlots, "diff() ref_num must be < 8");
  KernelDiff d;
  d.ref_num = ref_num;
  for (std::uint32_t bit = 0; bit < kDiffFields; ++bit) {
    const auto f = static_cast<DiffField>(bit);
    const std::uint64_t v = field_value(target, f);
    if (v == field_value(reference, f)) continue;
    d.diff_vector = static_cast<std::uint16_t>(d.diff_vector | 1u << bit);
    for (std::uint32_t s = 0; s < field_slots(f); ++s) {
      d.values.push_back(static_cast<std::uint16_t>(v >> (16 * s)));
    }
  }
  return d;
}

}  // namespace xpusim::cp
