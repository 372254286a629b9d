#include "cp/host.h"

#include <algorithm>
#include <utility>

#include <fmt/format.h>

namespace xpusim::cp {
namespace {

Status check_launch(const DispatchPacket& p, std::size_t i) {
  if (p.is_reference) {
    return Error{
        fmt::format("task graph launch {}: is a reference packet (ref_num {}); record "
                    "plain dispatches, the graph assigns RST slots",
                    i, p.ref_num)};
  }
  if (p.reserved2 != 0) {
    return Error{fmt::format("task graph launch {}: reserved2 {:#x} must be 0 (HSA; not diffable)",
                             i, p.reserved2)};
  }
  if (Status s = validate(p); !s) {
    return Error{fmt::format("task graph launch {}: {}", i, s.error().message)};
  }
  return Ok{};
}

// The same launch as far as the RST is concerned (ignores the reference marking).
bool same_dispatch(DispatchPacket a, DispatchPacket b) {
  a.is_reference = b.is_reference = false;
  a.ref_num = b.ref_num = 0;
  return a == b;
}

// Greedy in-order packing into 31-slot condensed packets (seed3 Table 4).
std::vector<CondensedPacket> pack(std::vector<KernelDiff> diffs) {
  constexpr std::size_t kMaxKernels = 255;  // num_kernels is a u8
  std::vector<CondensedPacket> out;
  std::uint32_t used = kDiffSlots;  // forces a first packet
  for (KernelDiff& d : diffs) {
    const std::uint32_t need = packet_slots(d);
    XPUSIM_CHECK(need <= kDiffSlots, "one kernel's diff fits a condensed packet");
    if (used + need > kDiffSlots || out.back().kernels.size() == kMaxKernels) {
      out.emplace_back();
      used = 0;
    }
    used += need;
    out.back().kernels.push_back(std::move(d));
  }
  return out;
}

}  // namespace

Result<TaskGraph> TaskGraph::record(std::vector<DispatchPacket> launches) {
  if (launches.empty()) return Error{"task graph: no launches to record"};
  TaskGraph g;
  for (std::size_t i = 0; i < launches.size(); ++i) {
    if (Status s = check_launch(launches[i], i); !s) return s.errors();
    const DispatchPacket& p = launches[i];
    const auto same = std::find_if(g.references_.begin(), g.references_.end(),
                                   [&](const DispatchPacket& r) { return same_dispatch(r, p); });
    if (same != g.references_.end()) {
      g.ref_of_.push_back(static_cast<std::uint8_t>(same - g.references_.begin()));
      g.fills_slot_.push_back(false);
    } else if (g.references_.size() < kRefSlots) {
      DispatchPacket ref = p;
      ref.is_reference = true;
      ref.ref_num = static_cast<std::uint16_t>(g.references_.size());
      g.ref_of_.push_back(static_cast<std::uint8_t>(ref.ref_num));
      g.references_.push_back(ref);
      g.fills_slot_.push_back(true);
    } else {
      // RST full: the cheapest reference to diff against (ties: lowest slot).
      std::uint8_t best = 0;
      std::uint32_t best_slots = kDiffSlots + 1;
      for (std::uint8_t r = 0; r < kRefSlots; ++r) {
        const std::uint32_t n = packet_slots(diff(r, g.references_[r], p));
        if (n < best_slots) best = r, best_slots = n;
      }
      g.ref_of_.push_back(best);
      g.fills_slot_.push_back(false);
    }
  }
  g.launches_ = std::move(launches);
  return g;
}

std::vector<DispatchPacket> TaskGraph::first_launch() const {
  std::vector<DispatchPacket> out;
  out.reserve(launches_.size());
  for (std::size_t i = 0; i < launches_.size(); ++i) {
    out.push_back(fills_slot_[i] ? references_[ref_of_[i]] : launches_[i]);
  }
  return out;
}

std::vector<CondensedPacket> TaskGraph::replay() const {
  Result<std::vector<CondensedPacket>> r = replay(launches_);
  XPUSIM_CHECK(r.ok(), "recorded launches were validated by record()");
  return std::move(r).value();
}

Result<std::vector<CondensedPacket>> TaskGraph::replay(
    std::span<const DispatchPacket> launches) const {
  if (launches.size() != launches_.size()) {
    return Error{fmt::format("task graph replay: {} launches, the graph recorded {}",
                             launches.size(), launches_.size())};
  }
  std::vector<KernelDiff> diffs;
  diffs.reserve(launches.size());
  for (std::size_t i = 0; i < launches.size(); ++i) {
    if (Status s = check_launch(launches[i], i); !s) return s.errors();
    // The recorded slot first; another reference only if its diff is strictly smaller.
    KernelDiff best = diff(ref_of_[i], references_[ref_of_[i]], launches[i]);
    for (std::size_t r = 0; r < references_.size(); ++r) {
      KernelDiff d = diff(static_cast<std::uint8_t>(r), references_[r], launches[i]);
      if (packet_slots(d) < packet_slots(best)) best = std::move(d);
    }
    diffs.push_back(std::move(best));
  }
  return pack(std::move(diffs));
}

Result<AqlQueue> Host::create_queue(std::uint32_t size) {
  Result<AqlQueue> q = AqlQueue::create(
      *memory_, QueueConfig{.size = size, .ring_base = next_ring_, .id = next_id_});
  if (!q) return q;
  next_ring_ += std::uint64_t{size} * kPacketBytes;  // sizes are 2^k * 64 B, so stays aligned
  ++next_id_;
  return q;
}

Result<std::uint64_t> Host::submit(AqlQueue& queue, const PacketBytes& packet) {
  return submit_all(queue, std::span(&packet, 1));
}

Result<std::uint64_t> Host::submit_all(AqlQueue& queue, std::span<const PacketBytes> packets) {
  if (packets.empty()) return Error{fmt::format("queue {}: submit of no packets", queue.id())};
  for (std::size_t i = 0; i < packets.size(); ++i) {
    if (packets[i][0] == static_cast<std::byte>(PacketType::kInvalid)) {
      return Error{
          fmt::format("queue {}: packet {} has header type INVALID (1) and would never "
                      "become ready",
                      queue.id(), i)};
    }
  }
  if (packets.size() > queue.size()) {
    return Error{fmt::format("queue {}: submit of {} packets exceeds queue size {}", queue.id(),
                             packets.size(), queue.size())};
  }
  const Result<std::uint64_t> first = queue.reserve(static_cast<std::uint32_t>(packets.size()));
  if (!first) return first;
  // HSA producer order: body, then the header (release), then the doorbell.
  for (std::size_t i = 0; i < packets.size(); ++i) {
    const std::uint64_t index = *first + i;
    const std::uint16_t header =
        static_cast<std::uint16_t>(std::to_integer<std::uint16_t>(packets[i][0]) |
                                   (std::to_integer<std::uint16_t>(packets[i][1]) << 8));
    const Status body = queue.write_body(index, packets[i]);
    const Status head = queue.publish_header(index, header);
    XPUSIM_CHECK(body.ok() && head.ok(), "index was just reserved");
  }
  queue.ring_doorbell(*first + packets.size() - 1);
  return first;
}

Result<std::uint64_t> Host::submit(AqlQueue& queue, const DispatchPacket& packet) {
  if (Status s = validate(packet); !s) return s.errors();
  return submit(queue, encode(packet));
}

Result<std::uint64_t> Host::submit(AqlQueue& queue, const BarrierPacket& packet) {
  const PacketType t = packet.header.type;
  if (t != PacketType::kBarrierAnd && t != PacketType::kBarrierOr) {
    return Error{fmt::format("barrier packet: header type {} is not BARRIER_AND or BARRIER_OR",
                             to_string(t))};
  }
  return submit(queue, encode(packet));
}

Result<std::uint64_t> Host::submit(AqlQueue& queue, const CondensedPacket& packet) {
  const Result<PacketBytes> bytes = encode(packet);
  if (!bytes) return bytes.errors();
  return submit(queue, *bytes);
}

Result<std::uint64_t> Host::launch_first(AqlQueue& queue, const TaskGraph& graph) {
  std::vector<PacketBytes> bytes;
  for (const DispatchPacket& p : graph.first_launch())
    bytes.push_back(encode(p));
  return submit_all(queue, bytes);
}

Result<std::uint64_t> Host::launch_replay(AqlQueue& queue, const TaskGraph& graph) {
  std::vector<PacketBytes> bytes;
  for (const CondensedPacket& p : graph.replay()) {
    Result<PacketBytes> b = encode(p);
    if (!b) return b.errors();
    bytes.push_back(*b);
  }
  return submit_all(queue, bytes);
}

}  // namespace xpusim::cp
