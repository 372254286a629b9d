#include "cp/kernel_agent.h"

#include <fmt/format.h>

#include "cp/condensed.h"

namespace xpusim::cp {

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
      occupancy_(add_average("queue_occupancy", "packets",
                             "packets published and not yet consumed, seen at each fetch")) {
  sim().spawn(run(), path() + ".process");
}

void KernelAgent::register_kernel(std::uint64_t kernel_object, std::string name) {
  kernel_names_[kernel_object] = std::move(name);
}

void KernelAgent::register_signal(std::uint64_t handle, Signal& signal) {
  XPUSIM_CHECK(handle != 0, "signal handle 0 means no signal");
  signals_[handle] = &signal;
}

sim::Task<> KernelAgent::spend(std::uint32_t cycles) {
  overhead_.inc(cycles);
  co_await clock_.cycles(cycles);
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
      continue;
    }
    occupancy_.sample(static_cast<double>(queue_.write_index() - queue_.read_index()));
    co_await spend(timing_.fetch_cycles);
    packets_.inc();
    bytes_fetched_.inc(packet->size());
    co_await process(*packet);
    if (!queue_.active()) co_return;
    queue_.consume();
  }
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
  if (!co_await execute(*p)) co_return;
  co_await cleanup(*p);
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
    if (!co_await execute(kernels[k])) co_return;
    const bool last = k + 1 == kernels.size();
    if (last || !timing_.skip_unneeded_cleanup || cleanup_info(kernels[k]).needed()) {
      co_await cleanup(kernels[k]);
    }
  }
}

// Barrier-AND/OR: this agent runs one packet at a time, so every earlier packet has completed;
// the packet waits for its dependency signals to reach 0 (all of them, or any one).
sim::Task<> KernelAgent::barrier(const PacketBytes& bytes) {
  co_await spend(timing_.decode_cycles);
  auto b = decode_barrier(bytes);
  if (!b) {
    fail(b.error(), 0);
    co_return;
  }
  std::vector<Signal*> deps;
  for (const std::uint64_t h : b->dep_signal) {
    if (h == 0) continue;
    const auto it = signals_.find(h);
    if (it == signals_.end()) {
      fail(Error{fmt::format("barrier dep_signal {:#x} is not a registered signal", h)},
           b->completion_signal);
      co_return;
    }
    deps.push_back(it->second);
  }
  const bool any = b->header.type == PacketType::kBarrierOr;
  const auto satisfied = [&] {
    std::size_t zero = 0;
    for (Signal* s : deps)
      zero += s->load_acquire() == 0 ? 1 : 0;
    return deps.empty() || (any ? zero > 0 : zero == deps.size());
  };
  while (!satisfied()) {
    woken_ = false;
    for (Signal* s : deps) {
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
  co_await cleanup(as_kernel);
}

sim::Task<bool> KernelAgent::execute(const DispatchPacket& kernel) {
  if (!kernel_names_.contains(kernel.kernel_object)) {
    co_return fail(
        Error{fmt::format("kernel_object {:#x} is not a registered kernel", kernel.kernel_object)},
        kernel.completion_signal);
  }
  if (kernel.completion_signal != 0 && !signals_.contains(kernel.completion_signal)) {
    co_return fail(Error{fmt::format("completion_signal {:#x} is not a registered signal",
                                     kernel.completion_signal)},
                   0);
  }
  kernels_.inc();
  bool done = false;
  const sim::Tick start = now();
  launcher_.launch(kernel, [this, &done] {
    done = true;
    wake_.notify_all();
  });
  while (!done)
    co_await wake_.wait();
  execution_.inc(clock_.cycle_at(now()) - clock_.cycle_at(start));
  co_return true;
}

sim::Task<> KernelAgent::cleanup(const DispatchPacket& kernel) {
  co_await spend(timing_.cleanup_cycles);
  cleanups_.inc();
  // HSA: the completion signal is decremented when the dispatch completes.
  if (const auto it = signals_.find(kernel.completion_signal); it != signals_.end()) {
    it->second->subtract_release(1);
  }
}

void FixedTimeLauncher::launch(const DispatchPacket& kernel, std::function<void()> done) {
  const auto it = cycles_.find(kernel.kernel_object);
  const std::uint64_t cycles = it == cycles_.end() ? 1 : it->second;
  const sim::Tick at = clock_.edge(clock_.cycle_at(sim_.now()) + cycles);
  sim_.events().post(at, std::move(done));
}

}  // namespace xpusim::cp
