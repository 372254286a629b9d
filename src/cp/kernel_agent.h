// The kernel agent's packet processor (seed3 Fig. 3 process 300, Fig. 6 process 600): it waits
// on its queue's doorbell, fetches and decodes AQL packets in order, launches kernels through a
// GridLauncher, and cleans up (release fence + completion-signal write). Reference packets fill
// the reference state table; condensed packets launch their kernels from it, in order, each
// after the previous completes, with intermediate cleanup only where a kernel needs it (¶146).
//
// Bad packets (unknown type, reserved bits, an empty RST slot, a malformed condensed packet, an
// unregistered kernel object) put the queue in its error state with a named error and stop
// this agent's processing of it; the packet's completion signal, when it can be read, gets
// kErrorSignalValue. Nothing else is touched.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>

#include "cp/packets.h"
#include "cp/queue.h"
#include "cp/reference_table.h"
#include "cp/signal.h"
#include "sim/clock.h"
#include "sim/component.h"
#include "sim/sync.h"
#include "sim/task.h"

namespace xpusim::cp {

// Command-processor costs in cycles. The patent gives none (digest §3); defaults are ours.
struct AgentTiming {
  std::uint32_t doorbell_cycles = 40;  // doorbell write → the agent starts fetching
  std::uint32_t fetch_cycles = 30;     // read one 64 B packet from its queue
  std::uint32_t decode_cycles = 20;    // header + fields → dispatch and cleanup info
  std::uint32_t setup_cycles = 60;     // program the dispatcher for one kernel
  std::uint32_t diff_cycles = 6;       // apply one condensed kernel's diff to its RST copy
  std::uint32_t cleanup_cycles = 120;  // release fence + completion-signal write
  // Intermediate kernels of a condensed packet clean up only if their cleanup info needs it
  // (¶146); false cleans up after every kernel, as process 300 does.
  bool skip_unneeded_cleanup = true;
};

// The narrow launch interface: run one kernel, call `done` when it has completed. Implemented by
// FixedTimeLauncher below, and later by the chip (work distributor → SMs).
class GridLauncher {
 public:
  virtual ~GridLauncher() = default;
  virtual void launch(const DispatchPacket& kernel, std::function<void()> done) = 0;
};

inline constexpr Signal::Value kErrorSignalValue = -1;

class KernelAgent : public sim::Component {
 public:
  KernelAgent(sim::Component& parent, std::string_view name, const sim::Clock& clock,
              AqlQueue& queue, GridLauncher& launcher, const AgentTiming& timing = {});

  // Kernel objects the agent may launch (a dispatch naming another is a queue error).
  void register_kernel(std::uint64_t kernel_object, std::string name);
  // Completion signals by handle (HSA hsa_signal_t); 0 is "no signal". An unknown non-zero
  // handle is a queue error.
  void register_signal(std::uint64_t handle, Signal& signal);
  const ReferenceTable& reference_table() const { return rst_; }

  std::uint64_t packets() const { return packets_.value(); }
  std::uint64_t kernels() const { return kernels_.value(); }
  std::uint64_t overhead_cycles() const { return overhead_.value(); }
  std::uint64_t execution_cycles() const { return execution_.value(); }

 private:
  sim::Task<> run();
  sim::Task<> process(const PacketBytes& bytes);
  sim::Task<> dispatch_standard(const PacketBytes& bytes);
  sim::Task<> dispatch_condensed(const PacketBytes& bytes);
  sim::Task<> barrier(const PacketBytes& bytes);
  // Launches one kernel and waits for it; false (queue error set) if it cannot.
  sim::Task<bool> execute(const DispatchPacket& kernel);
  sim::Task<> cleanup(const DispatchPacket& kernel);
  sim::Task<> spend(std::uint32_t cycles);  // overhead on the agent's critical path
  bool fail(Error e, std::uint64_t completion_signal);

  const sim::Clock& clock_;
  AqlQueue& queue_;
  GridLauncher& launcher_;
  AgentTiming timing_;
  ReferenceTable rst_;
  std::map<std::uint64_t, std::string> kernel_names_;
  std::map<std::uint64_t, Signal*> signals_;
  sim::Signal wake_;
  bool woken_ = false;  // set by a doorbell or signal store the agent waits for
  // Note: waits register callbacks on the queue's and signals' hooks that capture `this`; the
  // agent must outlive any store to them (it is built after, and dies before, its queue).

  sim::Counter& packets_;
  sim::Counter& bytes_fetched_;
  sim::Counter& kernels_;
  sim::Counter& overhead_;
  sim::Counter& execution_;
  sim::Counter& cleanups_;
  sim::Counter& errors_;
  sim::Average& occupancy_;
};

// Runs each kernel for a fixed number of cycles per kernel object (a synthetic run-time model,
// so the command processor can be studied before the chip model exists).
class FixedTimeLauncher : public GridLauncher {
 public:
  FixedTimeLauncher(sim::Simulation& sim, const sim::Clock& clock) : sim_(sim), clock_(clock) {}
  void set_cycles(std::uint64_t kernel_object, std::uint64_t cycles) {
    cycles_[kernel_object] = cycles;
  }
  void launch(const DispatchPacket& kernel, std::function<void()> done) override;

 private:
  sim::Simulation& sim_;
  const sim::Clock& clock_;
  std::map<std::uint64_t, std::uint64_t> cycles_;
};

}  // namespace xpusim::cp
