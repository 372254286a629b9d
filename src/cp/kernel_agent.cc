#include "cp/kernel_agent.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "cp/condensed.h"

namespace xpusim::cp {

// One registered kernel's stats, under `<agent>.<name>`.
struct KernelAgent::KernelRecord : sim::Component {
  KernelRecord(sim::Component& agent, std::string_view segment, std::string kernel_name,
               std::uint64_t object)
      : sim::Component(agent, segment),
        name(std::move(kernel_name)),
        kernel_object(object),
        launches(add_counter("launches", "kernels", "times this kernel was launched")),
        overhead(add_average("dispatch_overhead", "cycles",
                             "agent cycles charged to one launch: since the previous kernel "
                             "completed, plus its cleanup")),
        latency(add_average("launch_latency", "cycles", "launch to its first CTA running")),
        run(add_average("run_cycles", "cycles", "first CTA running to completion")) {}
  std::string name;
  std::uint64_t kernel_object;
  sim::Counter& launches;
  sim::Average& overhead;
  sim::Average& latency;
  sim::Average& run;
  std::uint64_t overhead_total = 0, latency_total = 0, run_total = 0;
};

// One kernel in flight: launched, not yet cleaned up.
struct KernelAgent::Launch {
  KernelRecord* record = nullptr;
  DispatchPacket packet;
  std::uint64_t index = 0;     // into launch_records_
  sim::Tick start = 0;         // when the agent launched it
  std::uint64_t overhead = 0;  // pre-launch agent time + its cleanup
  GridTimes times;
  bool done = false;  // the launcher reported completion
};

namespace {

// The barrier bit (HSA: the packet waits for every earlier packet to complete), read from the
// header word the processor can see before fetching the rest. A condensed packet has none and
// is ordered after everything (see the header); so is a header that does not decode (process()
// reports it).
bool waits_for_earlier(const PacketBytes& bytes) {
  const auto type = packet_type(bytes);
  if (!type || *type == PacketType::kCondensedDispatch) return true;
  const auto h = decode_header(static_cast<std::uint16_t>(
      std::to_integer<unsigned>(bytes[0]) | std::to_integer<unsigned>(bytes[1]) << 8));
  return !h || h->barrier;
}

// A stats path segment: letters, digits and '_' only.
std::string path_segment(std::string_view name) {
  std::string out(name);
  for (char& c : out) {
    if (std::isalnum(static_cast<unsigned char>(c)) == 0) c = '_';
  }
  return out.empty() ? std::string("kernel") : out;
}

}  // namespace

KernelAgent::KernelAgent(sim::Component& parent, std::string_view name, const sim::Clock& clock,
                         AqlQueue& queue, GridLauncher& launcher, const AgentTiming& timing)
    : sim::Component(parent, name),
      clock_(clock),
      queue_(queue),
      launcher_(launcher),
      timing_(timing),
      wake_(events()),
      packets_(add_counter("packets", "packets", "AQL packets processed")),
      bytes_fetched_(add_counter("bytes_fetched", "B", "packet bytes read from the queue")),
      kernels_(add_counter("kernels", "kernels", "kernels launched")),
      overhead_(add_counter("overhead_cycles", "cycles",
                            "doorbell, fetch, decode, setup, diff and cleanup cycles")),
      execution_(add_counter("execution_cycles", "cycles", "cycles kernels ran")),
      cleanups_(add_counter("cleanups", "cleanups", "release fence + completion-signal writes")),
      errors_(add_counter("queue_errors", "errors", "packets that put the queue in error")),
      rst_kernels_(add_counter("rst_kernels", "kernels",
                               "kernels launched from a reference-state-table entry (condensed)")),
      barrier_waits_(
          add_counter("barrier_waits", "packets",
                      "packets that waited for earlier kernels (barrier bit, condensed)")),
      occupancy_(add_average("queue_occupancy", "packets",
                             "packets published and not yet consumed, seen at each fetch")) {
  sim().spawn(run(), path() + ".process");
}

KernelAgent::~KernelAgent() = default;

void KernelAgent::register_kernel(std::uint64_t kernel_object, std::string name) {
  XPUSIM_CHECK(!kernels_by_object_.contains(kernel_object), "kernel object registered twice");
  std::string segment = path_segment(name);
  for (const KernelRecord* k : kernel_order_) {
    if (k->Component::name() == segment) {  // two kernels with one name: tell them apart
      segment = fmt::format("{}_{:x}", segment, kernel_object);
      break;
    }
  }
  auto record = std::make_unique<KernelRecord>(*this, segment, std::move(name), kernel_object);
  kernel_order_.push_back(record.get());
  kernels_by_object_[kernel_object] = std::move(record);
}

std::vector<KernelSummary> KernelAgent::kernel_summaries() const {
  std::vector<KernelSummary> out;
  for (const KernelRecord* k : kernel_order_) {
    out.push_back({.name = k->name,
                   .kernel_object = k->kernel_object,
                   .launches = k->launches.value(),
                   .overhead_cycles = k->overhead_total,
                   .latency_cycles = k->latency_total,
                   .run_cycles = k->run_total});
  }
  return out;
}

void KernelAgent::register_signal(std::uint64_t handle, Signal& signal) {
  XPUSIM_CHECK(handle != 0, "signal handle 0 means no signal");
  signals_[handle] = &signal;
}

sim::Task<> KernelAgent::spend(std::uint32_t cycles, Launch* owner) {
  overhead_.inc(cycles);
  (owner != nullptr ? owner->overhead : pending_overhead_) += cycles;
  co_await clock_.cycles(cycles);
}

bool KernelAgent::check_indices() {
  const std::uint64_t w = queue_.write_index(), r = queue_.read_index();
  if (w < r) {
    return fail(Error{fmt::format("write_index {} is behind read_index {}", w, r)}, 0);
  }
  if (w - r > queue_.size()) {
    return fail(Error{fmt::format("write_index {} runs past read_index {} + size {}: the "
                                  "producer overwrote packets not yet processed",
                                  w, r, queue_.size())},
                0);
  }
  return true;
}

bool KernelAgent::fail(Error e, std::uint64_t completion_signal) {
  errors_.inc();
  queue_.set_error(
      Error{fmt::format("queue {}: packet {}: {}", queue_.id(), queue_.read_index(), e.message)});
  if (const auto it = signals_.find(completion_signal); it != signals_.end()) {
    it->second->store_release(kErrorSignalValue);
  }
  return false;
}

void KernelAgent::fault(std::uint64_t launch, const Error& error) {
  errors_.inc();
  if (queue_.active()) {
    queue_.set_error(Error{fmt::format("queue {}: {}", queue_.id(), error.message)});
  }
  const auto it = live_.find(launch);
  if (it == live_.end()) return;
  if (const auto s = signals_.find(it->second->packet.completion_signal); s != signals_.end()) {
    s->second->store_release(kErrorSignalValue);
  }
}

sim::Task<> KernelAgent::run() {
  while (queue_.active()) {
    const std::optional<PacketBytes> packet = queue_.peek();
    if (!packet) {
      // Idle: sleep until the producer rings the doorbell, then pay the doorbell latency.
      woken_ = false;
      queue_.doorbell_signal().on_next_store([this](Signal::Value) {
        woken_ = true;
        wake_.notify_all();
      });
      while (!woken_)
        co_await wake_.wait();
      co_await spend(timing_.doorbell_cycles);
      if (!check_indices()) co_return;
      continue;
    }
    if (!check_indices()) co_return;
    if (in_flight_ > 0 && waits_for_earlier(*packet)) {
      barrier_waits_.inc();
      co_await drain();
    }
    occupancy_.sample(static_cast<double>(queue_.write_index() - queue_.read_index()));
    co_await spend(timing_.fetch_cycles);
    packets_.inc();
    bytes_fetched_.inc(packet->size());
    co_await process(*packet);
    if (!queue_.active()) co_return;
    queue_.consume();
    if (consumed_) consumed_();
  }
}

sim::Task<> KernelAgent::drain() {
  while (in_flight_ > 0)
    co_await wake_.wait();
}

sim::Task<> KernelAgent::process(const PacketBytes& bytes) {
  auto type = packet_type(bytes);
  if (!type) {
    fail(type.error(), 0);
    co_return;
  }
  switch (*type) {
    case PacketType::kKernelDispatch:
      co_await dispatch_standard(bytes);
      break;
    case PacketType::kCondensedDispatch:
      co_await dispatch_condensed(bytes);
      break;
    case PacketType::kBarrierAnd:
    case PacketType::kBarrierOr:
      co_await barrier(bytes);
      break;
    default:
      fail(Error{fmt::format("packet type {} is not supported by this agent (kernel dispatch, "
                             "condensed dispatch, barrier-AND, barrier-OR)",
                             to_string(*type))},
           0);
  }
}

// Process 300 (Fig. 3): decode, store a reference, dispatch, wait, clean up.
sim::Task<> KernelAgent::dispatch_standard(const PacketBytes& bytes) {
  co_await spend(timing_.decode_cycles);
  auto p = decode_dispatch(bytes);
  if (!p) {
    fail(p.error(), 0);
    co_return;
  }
  if (p->is_reference) rst_.store(static_cast<std::uint8_t>(p->ref_num), *p);  // ¶69, ¶90
  co_await spend(timing_.setup_cycles);
  Launch* l = execute(*p, false, static_cast<std::uint32_t>(kPacketBytes));
  if (l == nullptr) co_return;
  sim().spawn(finish(l, true), path() + ".completion");  // the agent goes on meanwhile
}

// Process 600 (Fig. 6): decode every kernel from the RST and its diff, then run them in order.
sim::Task<> KernelAgent::dispatch_condensed(const PacketBytes& bytes) {
  co_await spend(timing_.decode_cycles);
  auto c = decode_condensed(bytes);
  if (!c) {
    fail(c.error(), 0);
    co_return;
  }
  std::vector<DispatchPacket> kernels;
  for (const KernelDiff& d : c->kernels) {
    auto ref = rst_.lookup(d.ref_num);
    if (!ref) {
      fail(Error{fmt::format("condensed kernel {}: {}", kernels.size(), ref.error().message)}, 0);
      co_return;
    }
    kernels.push_back(apply(*ref, d));
  }
  for (std::size_t k = 0; k < kernels.size(); ++k) {
    co_await spend(timing_.diff_cycles + timing_.setup_cycles);
    // Its share of the packet: diff header and value slots; the first also the packet header.
    const auto bytes_of = 2 * packet_slots(c->kernels[k]) + (k == 0 ? 2 : 0);
    Launch* l = execute(kernels[k], true, bytes_of);
    if (l == nullptr) co_return;
    rst_kernels_.inc();
    const bool last = k + 1 == kernels.size();
    co_await finish(l, last || !timing_.skip_unneeded_cleanup || cleanup_info(kernels[k]).needed());
  }
}

// Barrier-AND/OR: the packet waits for its dependency signals to reach 0 (all of them, or any
// one); with its barrier bit set, run() has first waited for every earlier kernel.
sim::Task<> KernelAgent::barrier(const PacketBytes& bytes) {
  co_await spend(timing_.decode_cycles);
  auto b = decode_barrier(bytes);
  if (!b) {
    fail(b.error(), 0);
    co_return;
  }
  std::vector<std::pair<std::uint64_t, Signal*>> deps;
  for (const std::uint64_t h : b->dep_signal) {
    if (h == 0) continue;
    const auto it = signals_.find(h);
    if (it == signals_.end()) {
      fail(Error{fmt::format("barrier dep_signal {:#x} is not a registered signal", h)},
           b->completion_signal);
      co_return;
    }
    deps.emplace_back(h, it->second);
  }
  const bool any = b->header.type == PacketType::kBarrierOr;
  const auto satisfied = [&] {
    std::size_t zero = 0;
    for (const auto& [h, s] : deps)
      zero += s->load_acquire() == 0 ? 1 : 0;
    return deps.empty() || (any ? zero > 0 : zero == deps.size());
  };
  // A negative dependent signal: what it stands for failed (an error value). A barrier-AND
  // can then never be met, a barrier-OR once every dependency failed; the barrier fails and its
  // queue with it.
  const auto failed_dep = [&]() -> std::optional<std::pair<std::uint64_t, Signal::Value>> {
    std::optional<std::pair<std::uint64_t, Signal::Value>> first;
    std::size_t failed = 0;
    for (const auto& [h, s] : deps) {
      if (const Signal::Value v = s->load_acquire(); v < 0) {
        if (!first) first = std::pair{h, v};
        ++failed;
      }
    }
    return any && failed < deps.size() ? std::nullopt : first;
  };
  while (!satisfied()) {
    if (const auto bad = failed_dep()) {
      fail(Error{fmt::format("barrier-{}: dep_signal {:#x} is {}: the packet it waits for failed",
                             any ? "OR" : "AND", bad->first, bad->second)},
           b->completion_signal);
      co_return;
    }
    woken_ = false;
    for (const auto& [h, s] : deps) {
      s->on_next_store([this](Signal::Value) {
        woken_ = true;
        wake_.notify_all();
      });
    }
    while (!woken_)
      co_await wake_.wait();
  }
  DispatchPacket as_kernel;  // a barrier cleans up like a kernel: release fence + its signal
  as_kernel.header = b->header;
  as_kernel.completion_signal = b->completion_signal;
  co_await cleanup(as_kernel, nullptr);  // charged to the next kernel
}

KernelAgent::Launch* KernelAgent::execute(const DispatchPacket& kernel, bool condensed,
                                          std::uint32_t packet_bytes) {
  const auto it = kernels_by_object_.find(kernel.kernel_object);
  if (it == kernels_by_object_.end()) {
    fail(Error{fmt::format("kernel_object {:#x} is not a registered kernel", kernel.kernel_object)},
         kernel.completion_signal);
    return nullptr;
  }
  if (kernel.completion_signal != 0 && !signals_.contains(kernel.completion_signal)) {
    fail(Error{fmt::format("completion_signal {:#x} is not a registered signal",
                           kernel.completion_signal)},
         0);
    return nullptr;
  }
  const std::uint64_t index = launch_records_.size();
  auto owned = std::make_unique<Launch>();
  Launch* l = owned.get();
  l->record = it->second.get();
  l->packet = kernel;
  l->index = index;
  l->start = now();
  const Status launched = launcher_.launch(kernel, [this, l](const GridTimes& t) {
    l->times = t;
    l->done = true;
    wake_.notify_all();
  });
  if (!launched) {
    fail(Error{fmt::format("kernel {} ({:#x}): {}", it->second->name, kernel.kernel_object,
                           launched.error().message)},
         kernel.completion_signal);
    return nullptr;
  }
  kernels_.inc();
  l->record->launches.inc();
  l->overhead = pending_overhead_;
  pending_overhead_ = 0;
  launch_records_.push_back({.kernel_object = kernel.kernel_object,
                             .packet_index = queue_.read_index(),
                             .condensed = condensed,
                             .packet_bytes = packet_bytes});
  live_[index] = std::move(owned);
  ++in_flight_;
  return l;
}

sim::Task<> KernelAgent::finish(Launch* l, bool clean) {
  while (!l->done)
    co_await wake_.wait();
  const auto cycles = [this](sim::Tick from, sim::Tick to) {
    return to <= from ? 0 : clock_.cycle_at(to) - clock_.cycle_at(from);
  };
  const std::uint64_t latency = cycles(l->start, l->times.first_start);
  const std::uint64_t run = cycles(std::max(l->start, l->times.first_start), now());
  KernelRecord& k = *l->record;
  execution_.inc(latency + run);
  k.latency_total += latency;
  k.run_total += run;
  k.latency.sample(static_cast<double>(latency));
  k.run.sample(static_cast<double>(run));
  if (clean) co_await cleanup(l->packet, l);
  k.overhead_total += l->overhead;
  k.overhead.sample(static_cast<double>(l->overhead));
  LaunchRecord& r = launch_records_[l->index];
  r.overhead_cycles = l->overhead;
  r.latency_cycles = latency;
  r.run_cycles = run;
  r.done = true;
  live_.erase(l->index);
  --in_flight_;
  wake_.notify_all();
}

sim::Task<> KernelAgent::cleanup(const DispatchPacket& kernel, Launch* owner) {
  co_await spend(timing_.cleanup_cycles, owner);
  cleanups_.inc();
  // HSA: the completion signal is decremented when the dispatch completes.
  if (const auto it = signals_.find(kernel.completion_signal); it != signals_.end()) {
    it->second->subtract_release(1);
  }
}

}  // namespace xpusim::cp
