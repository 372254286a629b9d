// The chip's command processor as the host reaches it: the AQL queues in simulated global memory
// (src/cp/queue.h), one kernel agent per queue (src/cp/kernel_agent.h), the completion signals,
// the kernarg segments, and the host runtime's side (src/cp/host.h) that writes packets.
//
// A queue dispatches `standard` packets (one 64-byte dispatch packet per kernel) or `condensed`
// ones (seed3): the first launch of each kernel object goes out as a reference packet that
// fills an RST slot; later launches are diffs against it, packed greedily into condensed
// packets of 31 slots. On a condensed queue every kernel runs after the one before it (seed3
// Fig. 6), so reference packets carry the barrier bit there.
//
// The host writes what was dispatched in one tick at the end of that tick (one batch per queue:
// its packets, one doorbell), so launches made together are packed together. Packets that do not
// fit the ring wait on the host and are written as the agent consumes slots.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "cp/condensed.h"
#include "cp/host.h"
#include "cp/kernel_agent.h"
#include "cp/queue.h"
#include "cp/signal.h"
#include "mem/global_memory.h"
#include "sim/clock.h"
#include "sim/component.h"
#include "sim/result.h"

namespace xpusim::system {

enum class DispatchMode : std::uint8_t { kStandard, kCondensed };
std::string_view to_string(DispatchMode m);
// "standard" | "condensed"; the error names the value and the choices.
Result<DispatchMode> parse_dispatch_mode(std::string_view text);

struct QueueSpec {
  std::uint32_t size = 64;  // packets; a power of two, at most cp::AqlQueue::kMaxSize (HSA)
  DispatchMode dispatch = DispatchMode::kStandard;
};

// The largest number of queues a chip may have (HSA agents expose a handful of hardware queues;
// ours is generous but bounded so a config cannot ask for millions of agents).
inline constexpr std::uint32_t kMaxQueues = 64;

// Errors: no queues, more than kMaxQueues, a size that is 0, not a power of two or above
// cp::AqlQueue::kMaxSize. Names the queue by index.
Status check_queues(std::span<const QueueSpec> queues);

class CommandProcessor : public sim::Component {
 public:
  // Which launcher queue q's agent launches through.
  using LauncherOf = std::function<cp::GridLauncher&(std::uint32_t queue)>;

  // Builds `cp` under `parent` (stats chip0.cp.*, chip0.cp.qN.*). Errors: as check_queues.
  static Result<std::unique_ptr<CommandProcessor>> create(
      sim::Component& parent, const sim::Clock& clock, mem::GlobalMemory& memory,
      std::vector<QueueSpec> queues, const cp::AgentTiming& timing, const LauncherOf& launcher_of);
  ~CommandProcessor() override;

  std::uint32_t queues() const { return static_cast<std::uint32_t>(specs_.size()); }
  const QueueSpec& spec(std::uint32_t q) const { return specs_[q]; }
  const cp::AqlQueue& queue(std::uint32_t q) const { return *queues_[q]; }
  const cp::KernelAgent& agent(std::uint32_t q) const { return *agents_[q]; }
  cp::KernelAgent& agent(std::uint32_t q) { return *agents_[q]; }

  // The kernel object handle of `name` (a code object's address, as HSA has it), registered on
  // every agent at first use; `key` tells kernels apart.
  std::uint64_t kernel_object(const void* key, const std::string& name);
  // A new completion signal, value 1 (HSA: the dispatch's completion subtracts 1), registered on
  // every agent. Returns its handle (never 0).
  std::uint64_t new_signal();
  const cp::Signal& signal(std::uint64_t handle) const { return signals_[handle - 1]; }
  // Stores the error value in a signal: what it stands for will never complete (a launch group
  // whose kernel faulted), so barriers waiting for it fail.
  void fail_signal(std::uint64_t handle);

  // A kernarg segment holding `bytes` (64 B aligned, in the kernarg region of simulated memory);
  // a segment with the same bytes is shared. Errors: the memory's (touched-bytes limit).
  Result<mem::Addr> kernarg(std::span<const std::byte> bytes);

  // Queues a kernel dispatch on queue q, after a barrier-AND on `waits` (completion signal
  // handles) and a barrier-OR on `any` when there are any. The host writes it at the end of
  // this tick. `any` holds at most 5 handles (one barrier-OR packet; XPUSIM_CHECK).
  void dispatch(std::uint32_t q, const cp::DispatchPacket& p, std::vector<std::uint64_t> waits,
                std::vector<std::uint64_t> any = {});
  // Queues a barrier-AND packet with the barrier bit and no dependencies on queue q: it
  // completes `signal` once every packet before it has (HSA's way to mark a point in a
  // queue).
  void marker(std::uint32_t q, std::uint64_t signal);

  std::uint64_t packets() const { return packets_.value(); }
  std::uint64_t dispatch_packets() const { return dispatch_packets_.value(); }
  std::uint64_t reference_packets() const { return reference_packets_.value(); }
  std::uint64_t condensed_packets() const { return condensed_packets_.value(); }
  std::uint64_t doorbells() const { return doorbells_.value(); }
  std::uint64_t barrier_packets() const { return barrier_packets_.value(); }

  // Where simulated memory holds the rings and kernargs: above any buffer a scenario places.
  static constexpr mem::Addr kRingRegion = mem::Addr{1} << 40;
  static constexpr mem::Addr kKernargRegion = kRingRegion + (mem::Addr{1} << 36);

 private:
  CommandProcessor(sim::Component& parent, mem::GlobalMemory& memory,
                   std::vector<QueueSpec> queues);
  struct Staged {
    std::optional<cp::DispatchPacket> packet;  // none: a marker
    std::vector<std::uint64_t> waits{};
    std::vector<std::uint64_t> any{};
    std::uint64_t marker_signal = 0;
  };
  // Host-side state of one queue.
  struct HostQueue {
    std::vector<Staged> staged;            // dispatched this tick, not yet encoded
    std::deque<cp::PacketBytes> backlog;   // encoded, waiting for ring space
    std::vector<cp::DispatchPacket> refs;  // condensed: what each RST slot holds
    cp::CondensedPacket open;              // condensed: the packet being filled
    std::uint32_t open_slots = 0;
  };
  void post_flush();
  void flush();
  void encode_standard(HostQueue& h, Staged& s);
  void encode_condensed(HostQueue& h, Staged& s);
  void emit_barrier(HostQueue& h, const std::vector<std::uint64_t>& waits, cp::PacketType type);
  void emit_waits(HostQueue& h, const Staged& s);
  void close_condensed(HostQueue& h);
  void pump(std::uint32_t q);

  mem::GlobalMemory& memory_;
  std::vector<QueueSpec> specs_;
  cp::Host host_;
  std::vector<std::unique_ptr<cp::AqlQueue>> queues_;
  std::vector<HostQueue> host_queues_;
  std::deque<cp::Signal> signals_;  // deque: agents hold pointers to them
  std::map<const void*, std::uint64_t> kernel_objects_;
  std::map<std::vector<std::byte>, mem::Addr> kernargs_;
  mem::Addr next_kernarg_ = kKernargRegion;
  bool flush_posted_ = false;
  // After the queues and signals: agents are destroyed first (they hold both).
  std::vector<std::unique_ptr<cp::KernelAgent>> agents_;

  sim::Counter& doorbells_;
  sim::Counter& packets_;
  sim::Counter& dispatch_packets_;
  sim::Counter& reference_packets_;
  sim::Counter& condensed_packets_;
  sim::Counter& condensed_kernels_;
  sim::Counter& barrier_packets_;
  sim::Counter& kernarg_bytes_;
};

}  // namespace xpusim::system
