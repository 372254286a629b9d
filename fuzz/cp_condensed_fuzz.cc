// libFuzzer target: structured input -> the condensed-dispatch encoder and a whole condensed
// stream (src/cp/condensed.h).
//
// Part 1 builds an arbitrary CondensedPacket, bad ones included, and checks that encode()
// accepts exactly the packets the format allows and that decode_condensed() returns them.
// Part 2 records a random task graph the way the host does (reference packets, then minimal
// diffs packed into condensed packets), decodes the byte stream like the kernel agent (RST
// lookup + apply) and checks that every kernel comes back exactly.
#include <fuzzer/FuzzedDataProvider.h>

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "cp/condensed.h"
#include "cp/packets.h"
#include "cp/reference_table.h"
#include "fuzz_check.h"
#include "sim/result.h"

namespace xpusim::cp {
namespace {

using fuzz::check_errors;

// Value slots per diff bit, from seed3 ¶126 (16/32/64-bit fields); independent of
// field_slots() so the oracle below does not just repeat the encoder.
constexpr std::uint32_t kSlotsPerBit[kDiffFields] = {1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 4, 4, 4};

PacketHeader any_header(FuzzedDataProvider& in, PacketType type) {
  PacketHeader h{type};
  h.barrier = in.ConsumeBool();
  h.acquire = static_cast<FenceScope>(in.ConsumeIntegralInRange<unsigned>(0, 2));
  h.release = static_cast<FenceScope>(in.ConsumeIntegralInRange<unsigned>(0, 2));
  return h;
}

// A valid synch_scopes slot: the header's high byte (so at most 0xFF) with no reserved bit and
// no scope 3.
bool synch_scopes_ok(std::uint16_t v) {
  const unsigned b = v;
  return b <= 0xFF && (b & 0xE0) == 0 && ((b >> 1) & 3) != 3 && ((b >> 3) & 3) != 3;
}

// The encoder's contract (condensed.h), computed without the library.
bool encodable(const CondensedPacket& p) {
  if (p.header != PacketHeader{PacketType::kCondensedDispatch} || p.kernels.empty()) return false;
  std::uint32_t slots = 0;
  for (const KernelDiff& d : p.kernels) {
    if (d.ref_num >= 8 || (d.diff_vector >> kDiffFields) != 0) return false;
    std::uint32_t need = 0;
    for (std::uint32_t bit = 0; bit < kDiffFields; ++bit) {
      if ((d.diff_vector >> bit) & 1) need += kSlotsPerBit[bit];
    }
    if (d.values.size() != need) return false;
    if ((d.diff_vector & 1) && !synch_scopes_ok(d.values[0])) return false;
    slots += 1 + need;
  }
  return slots <= kDiffSlots;
}

void check_encoder(FuzzedDataProvider& in) {
  CondensedPacket p;
  // Mostly well-formed, so that the fuzzer also reaches the slot-count and value checks.
  const auto flags = in.ConsumeIntegral<std::uint8_t>();
  if (flags & 1) {
    p.header = any_header(in, static_cast<PacketType>(in.ConsumeIntegralInRange<unsigned>(0, 6)));
  }
  const auto n = in.ConsumeIntegralInRange<std::size_t>(0, 33);
  for (std::size_t k = 0; k < n; ++k) {
    KernelDiff d;
    d.ref_num = in.ConsumeIntegralInRange<std::uint8_t>(0, (flags & 2) ? 255 : 7);
    d.diff_vector = in.ConsumeIntegral<std::uint16_t>();
    if (!(flags & 4)) d.diff_vector &= kDiffVectorMask;
    std::size_t count = value_slots(d.diff_vector);
    if (flags & 8) count = in.ConsumeIntegralInRange<std::size_t>(0, 40);
    for (std::size_t i = 0; i < count; ++i)
      d.values.push_back(in.ConsumeIntegral<std::uint16_t>());
    p.kernels.push_back(std::move(d));
  }

  const auto bytes = encode(p);
  check_errors(bytes);
  FUZZ_CHECK(bytes.ok() == encodable(p));
  if (!bytes.ok()) return;
  FUZZ_CHECK(std::to_integer<unsigned>((*bytes)[0]) ==
             static_cast<unsigned>(PacketType::kCondensedDispatch));
  FUZZ_CHECK(std::to_integer<std::size_t>((*bytes)[1]) == p.kernels.size());
  const auto back = decode_condensed(*bytes);
  FUZZ_CHECK(back.ok() && *back == p);
}

DispatchPacket any_dispatch(FuzzedDataProvider& in) {
  DispatchPacket p;
  p.header = any_header(in, PacketType::kKernelDispatch);
  p.setup = in.ConsumeIntegral<std::uint16_t>();
  for (auto& w : p.workgroup_size)
    w = in.ConsumeIntegral<std::uint16_t>();
  for (auto& g : p.grid_size)
    g = in.ConsumeIntegral<std::uint32_t>();
  p.private_segment_size = in.ConsumeIntegral<std::uint32_t>();
  p.group_segment_size = in.ConsumeIntegral<std::uint32_t>();
  p.kernel_object = in.ConsumeIntegral<std::uint64_t>();
  p.kernarg_address = in.ConsumeIntegral<std::uint64_t>();
  p.reserved2 = in.ConsumeIntegral<std::uint64_t>();
  p.completion_signal = in.ConsumeIntegral<std::uint64_t>();
  return p;
}

void check_stream(FuzzedDataProvider& in) {
  // Host side: reference packets for some RST slots...
  std::vector<PacketBytes> stream;
  std::vector<DispatchPacket> launched;  // what the agent must launch, in order
  ReferenceTable host_rst;
  const auto refs = in.ConsumeIntegralInRange<unsigned>(1, 10);
  for (unsigned r = 0; r < refs; ++r) {
    DispatchPacket ref = any_dispatch(in);
    ref.is_reference = true;
    ref.ref_num = in.ConsumeIntegralInRange<std::uint8_t>(0, kRefSlots - 1);
    FUZZ_CHECK(validate(ref).ok());
    host_rst.store(ref.ref_num, ref);
    stream.push_back(encode(ref));
    launched.push_back(ref);
  }
  // ...then kernels as minimal diffs against them, packed greedily into condensed packets.
  CondensedPacket open;
  std::uint32_t used = 0;
  auto flush = [&] {
    if (open.kernels.empty()) return;
    const auto bytes = encode(open);
    FUZZ_CHECK(bytes.ok());
    stream.push_back(*bytes);
    open.kernels.clear();
    used = 0;
  };
  const auto kernels = in.ConsumeIntegralInRange<unsigned>(0, 64);
  for (unsigned k = 0; k < kernels; ++k) {
    const auto slot = in.ConsumeIntegralInRange<std::uint8_t>(0, kRefSlots - 1);
    if (!host_rst.occupied(slot)) continue;
    const DispatchPacket ref = *host_rst.lookup(slot);
    DispatchPacket target = ref;
    const DispatchPacket other = any_dispatch(in);
    const auto mask = in.ConsumeIntegral<std::uint16_t>();
    for (std::uint32_t bit = 0; bit < kDiffFields; ++bit) {
      const auto f = static_cast<DiffField>(bit);
      if ((mask >> bit) & 1) set_field(target, f, field_value(other, f));
    }
    target.is_reference = false;  // a launch from a diff is a standard packet
    target.ref_num = 0;
    const KernelDiff d = diff(slot, ref, target);
    FUZZ_CHECK(validate(d).ok() && apply(ref, d) == target);
    if (used + packet_slots(d) > kDiffSlots) flush();
    used += packet_slots(d);
    open.kernels.push_back(d);
    launched.push_back(target);
  }
  flush();

  // Agent side: decode the bytes, fill the RST, replay.
  ReferenceTable rst;
  std::vector<DispatchPacket> got;
  for (const PacketBytes& b : stream) {
    const auto type = packet_type(b);
    FUZZ_CHECK(type.ok());
    if (*type == PacketType::kKernelDispatch) {
      const auto p = decode_dispatch(b);
      FUZZ_CHECK(p.ok() && p->is_reference);
      rst.store(p->ref_num, *p);
      got.push_back(*p);
    } else {
      FUZZ_CHECK(*type == PacketType::kCondensedDispatch);
      const auto p = decode_condensed(b);
      FUZZ_CHECK(p.ok());
      for (const KernelDiff& d : p->kernels) {
        const auto ref = rst.lookup(d.ref_num);
        FUZZ_CHECK(ref.ok());
        got.push_back(apply(*ref, d));
      }
    }
  }
  FUZZ_CHECK(got == launched);
}

}  // namespace
}  // namespace xpusim::cp

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider in(data, size);
  // The first byte picks the part, so each input exercises one of them fully.
  if (in.ConsumeBool()) {
    xpusim::cp::check_encoder(in);
  } else {
    xpusim::cp::check_stream(in);
  }
  return 0;
}
