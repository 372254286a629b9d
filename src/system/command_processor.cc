#include "system/command_processor.h"

#include <fmt/format.h>

#include <algorithm>
#include <bit>

namespace xpusim::system {

std::string_view to_string(DispatchMode m) {
  return m == DispatchMode::kCondensed ? "condensed" : "standard";
}

Result<DispatchMode> parse_dispatch_mode(std::string_view text) {
  if (text == "standard") return DispatchMode::kStandard;
  if (text == "condensed") return DispatchMode::kCondensed;
  return Error{fmt::format("dispatch mode '{}': must be standard or condensed", text)};
}

Status check_queues(std::span<const QueueSpec> queues) {
  if (queues.empty()) return Error{"queues: a chip needs at least one queue"};
  if (queues.size() > kMaxQueues) {
    return Error{fmt::format("queues: {} queues, at most {}", queues.size(), kMaxQueues)};
  }
  for (std::size_t i = 0; i < queues.size(); ++i) {
    const std::uint32_t n = queues[i].size;
    if (n == 0 || !std::has_single_bit(n) || n > cp::AqlQueue::kMaxSize) {
      return Error{fmt::format("queue {}: size {}: must be a power of two from 1 to {} (HSA)", i, n,
                               cp::AqlQueue::kMaxSize)};
    }
  }
  return Ok{};
}

CommandProcessor::CommandProcessor(sim::Component& parent, mem::GlobalMemory& memory,
                                   std::vector<QueueSpec> queues)
    : sim::Component(parent, "cp"),
      memory_(memory),
      specs_(std::move(queues)),
      host_(memory, kRingRegion),
      host_queues_(specs_.size()),
      doorbells_(add_counter("doorbells", "writes", "doorbell writes by the host")),
      packets_(add_counter("packets", "packets", "AQL packets the host wrote, every queue")),
      dispatch_packets_(add_counter("dispatch_packets", "packets",
                                    "kernel dispatch packets written (reference ones too)")),
      reference_packets_(add_counter("reference_packets", "packets",
                                     "dispatch packets that fill an RST slot (seed3 ¶69)")),
      condensed_packets_(add_counter("condensed_packets", "packets",
                                     "condensed dispatch packets written (seed3 Table 4)")),
      condensed_kernels_(add_counter("condensed_kernels", "kernels",
                                     "kernels sent as diffs in condensed packets (RST hits)")),
      barrier_packets_(add_counter("barrier_packets", "packets",
                                   "barrier-AND packets written for dependencies across queues")),
      kernarg_bytes_(add_counter("kernarg_bytes", "B", "kernarg segment bytes written")) {}

CommandProcessor::~CommandProcessor() = default;

Result<std::unique_ptr<CommandProcessor>> CommandProcessor::create(
    sim::Component& parent, const sim::Clock& clock, mem::GlobalMemory& memory,
    std::vector<QueueSpec> queues, const cp::AgentTiming& timing, const LauncherOf& launcher_of) {
  if (auto st = check_queues(queues); !st) return st.errors();
  std::unique_ptr<CommandProcessor> cp(new CommandProcessor(parent, memory, std::move(queues)));
  for (std::uint32_t q = 0; q < cp->queues(); ++q) {
    auto queue = cp->host_.create_queue(cp->specs_[q].size);
    if (!queue) return queue.errors();
    cp->queues_.push_back(std::make_unique<cp::AqlQueue>(std::move(queue).value()));
  }
  for (std::uint32_t q = 0; q < cp->queues(); ++q) {
    cp->agents_.push_back(std::make_unique<cp::KernelAgent>(
        *cp, fmt::format("q{}", q), clock, *cp->queues_[q], launcher_of(q), timing));
    cp->agents_.back()->set_consumed_hook([p = cp.get(), q] { p->pump(q); });
  }
  return cp;
}

std::uint64_t CommandProcessor::kernel_object(const void* key, const std::string& name) {
  const auto it = kernel_objects_.find(key);
  if (it != kernel_objects_.end()) return it->second;
  // Looks like a code object's address: 256 B apart in a region of its own.
  const std::uint64_t handle = (std::uint64_t{0x7F} << 40) + (kernel_objects_.size() + 1) * 256;
  kernel_objects_.emplace(key, handle);
  for (auto& a : agents_)
    a->register_kernel(handle, name);
  return handle;
}

std::uint64_t CommandProcessor::new_signal() {
  signals_.emplace_back(1);
  const std::uint64_t handle = signals_.size();
  for (auto& a : agents_)
    a->register_signal(handle, signals_.back());
  return handle;
}

void CommandProcessor::fail_signal(std::uint64_t handle) {
  signals_[handle - 1].store_release(cp::kErrorSignalValue);
}

Result<mem::Addr> CommandProcessor::kernarg(std::span<const std::byte> bytes) {
  std::vector<std::byte> key(bytes.begin(), bytes.end());
  if (const auto it = kernargs_.find(key); it != kernargs_.end()) return it->second;
  const mem::Addr at = next_kernarg_;
  if (auto st = memory_.write(at, bytes); !st) return st.errors();
  next_kernarg_ += (bytes.size() + 63) / 64 * 64;
  kernarg_bytes_.inc(bytes.size());
  kernargs_.emplace(std::move(key), at);
  return at;
}

void CommandProcessor::dispatch(std::uint32_t q, const cp::DispatchPacket& p,
                                std::vector<std::uint64_t> waits, std::vector<std::uint64_t> any) {
  XPUSIM_CHECK(any.size() <= 5, "a barrier-OR packet has five dependency slots");
  host_queues_[q].staged.push_back({.packet = p, .waits = std::move(waits), .any = std::move(any)});
  post_flush();
}

void CommandProcessor::marker(std::uint32_t q, std::uint64_t signal) {
  host_queues_[q].staged.push_back({.packet = std::nullopt, .marker_signal = signal});
  post_flush();
}

void CommandProcessor::post_flush() {
  if (!flush_posted_) {
    flush_posted_ = true;
    // The host's batch goes out once everything dispatched in this tick is staged.
    events().post(
        now(), [this] { flush(); }, sim::Priority{50});
  }
}

void CommandProcessor::flush() {
  flush_posted_ = false;
  for (std::uint32_t q = 0; q < queues(); ++q) {
    HostQueue& h = host_queues_[q];
    if (h.staged.empty()) continue;
    for (Staged& s : h.staged) {
      if (!s.packet) {
        close_condensed(h);
        cp::BarrierPacket b;
        b.header = {.type = cp::PacketType::kBarrierAnd, .barrier = true};
        b.completion_signal = s.marker_signal;
        h.backlog.push_back(cp::encode(b));
        barrier_packets_.inc();
      } else if (specs_[q].dispatch == DispatchMode::kCondensed) {
        encode_condensed(h, s);
      } else {
        encode_standard(h, s);
      }
    }
    h.staged.clear();
    close_condensed(h);
    pump(q);
  }
}

void CommandProcessor::emit_barrier(HostQueue& h, const std::vector<std::uint64_t>& waits,
                                    cp::PacketType type) {
  // HSA: a barrier packet has five dependency slots; more barrier-AND dependencies take more
  // packets (a barrier-OR has at most five: dispatch checks).
  for (std::size_t i = 0; i < waits.size(); i += 5) {
    cp::BarrierPacket b;
    b.header = {.type = type};
    for (std::size_t k = 0; k < 5 && i + k < waits.size(); ++k)
      b.dep_signal[k] = waits[i + k];
    h.backlog.push_back(cp::encode(b));
    barrier_packets_.inc();
  }
}

void CommandProcessor::emit_waits(HostQueue& h, const Staged& s) {
  emit_barrier(h, s.waits, cp::PacketType::kBarrierAnd);
  emit_barrier(h, s.any, cp::PacketType::kBarrierOr);
}

void CommandProcessor::encode_standard(HostQueue& h, Staged& s) {
  emit_waits(h, s);
  h.backlog.push_back(cp::encode(*s.packet));
  dispatch_packets_.inc();
}

void CommandProcessor::close_condensed(HostQueue& h) {
  if (h.open.kernels.empty()) return;
  auto bytes = cp::encode(h.open);
  XPUSIM_CHECK(bytes.ok(), "the host packs valid condensed packets");
  h.backlog.push_back(*bytes);
  condensed_packets_.inc();
  condensed_kernels_.inc(h.open.kernels.size());
  h.open = {};
  h.open_slots = 0;
}

void CommandProcessor::encode_condensed(HostQueue& h, Staged& s) {
  cp::DispatchPacket p = *s.packet;
  p.header.barrier = true;  // every kernel of a condensed queue runs after the one before
  if (!s.waits.empty() || !s.any.empty()) {
    close_condensed(h);
    emit_waits(h, s);
  }
  // The reference of the same kernel object; else a new slot while one is left; else the
  // reference that gives the smallest diff (seed3 ¶90: 8 slots).
  std::size_t slot = h.refs.size();
  for (std::size_t i = 0; i < h.refs.size(); ++i) {
    if (h.refs[i].kernel_object == p.kernel_object) {
      slot = i;
      break;
    }
  }
  if (slot == h.refs.size() && h.refs.size() < cp::kRefSlots) {
    close_condensed(h);
    cp::DispatchPacket ref = p;
    ref.is_reference = true;
    ref.ref_num = static_cast<std::uint16_t>(slot);
    h.backlog.push_back(cp::encode(ref));
    dispatch_packets_.inc();
    reference_packets_.inc();
    h.refs.push_back(p);
    return;
  }
  if (slot == h.refs.size()) {
    std::uint32_t best = ~0u;
    for (std::size_t i = 0; i < h.refs.size(); ++i) {
      const std::uint32_t n =
          cp::packet_slots(cp::diff(static_cast<std::uint8_t>(i), h.refs[i], p));
      if (n < best) best = n, slot = i;
    }
  }
  cp::KernelDiff d = cp::diff(static_cast<std::uint8_t>(slot), h.refs[slot], p);
  const std::uint32_t n = cp::packet_slots(d);
  if (h.open_slots + n > cp::kDiffSlots) close_condensed(h);
  h.open.kernels.push_back(std::move(d));
  h.open_slots += n;
}

void CommandProcessor::pump(std::uint32_t q) {
  HostQueue& h = host_queues_[q];
  cp::AqlQueue& queue = *queues_[q];
  if (h.backlog.empty() || !queue.active()) return;
  const std::uint64_t used = queue.write_index() - queue.read_index();
  const std::uint64_t n = std::min<std::uint64_t>(queue.size() - used, h.backlog.size());
  if (n == 0) return;
  const std::vector<cp::PacketBytes> batch(h.backlog.begin(),
                                           h.backlog.begin() + static_cast<std::ptrdiff_t>(n));
  const auto first = host_.submit_all(queue, batch);
  XPUSIM_CHECK(first.ok(), "the host writes only what fits the ring");
  h.backlog.erase(h.backlog.begin(), h.backlog.begin() + static_cast<std::ptrdiff_t>(n));
  doorbells_.inc();
  packets_.inc(n);
}

}  // namespace xpusim::system
