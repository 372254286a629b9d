// The kernel agent's packet processor (seed3 Fig. 3 process 300, Fig. 6 process 600): it waits
// on its queue's doorbell, fetches and decodes AQL packets in order, launches kernels through a
// GridLauncher, and cleans up (release fence + completion-signal write). Reference packets fill
// the reference state table; condensed packets launch their kernels from it, in order, each
// after the previous completes, with intermediate cleanup only where a kernel needs it (¶146).
//
// Overlap (HSA packet processing; seed3 ¶67 and ¶146 say kernels "may overlap"): packets are
// launched in order, but a kernel dispatch does not wait for its kernel: the agent goes on to
// the next packet, and each kernel cleans up when it completes. A packet whose header has the
// barrier bit set is not fetched until every kernel launched before it has completed and
// cleaned up. A condensed packet has no barrier bit (seed3 Table 4); it is always ordered after
// every earlier packet, as Fig. 6 runs it.
//
// Bad packets (unknown type, reserved bits, an empty RST slot, a malformed condensed packet, an
// unregistered kernel object) put the queue in its error state with a named error and stop
// this agent's processing of it; the packet's completion signal, when it can be read, gets
// kErrorSignalValue. Nothing else is touched. A kernel that faults does the same (fault()),
// and a barrier packet whose dependent signal is negative (the packet it waits for failed)
// fails too: errors travel along the dependencies instead of leaving a queue waiting forever.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "cp/grid_launcher.h"
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

// One registered kernel's launches, as the agent saw them (cycles of the agent's clock).
struct KernelSummary {
  std::string name;
  std::uint64_t kernel_object = 0;
  std::uint64_t launches = 0;
  std::uint64_t overhead_cycles = 0;  // agent critical path charged to its launches (see below)
  std::uint64_t latency_cycles = 0;   // launch → first CTA running (the launcher's share)
  std::uint64_t run_cycles = 0;       // first CTA running → completion
};

// One launch, as the agent saw it (cycles of the agent's clock). Index = launch order.
struct LaunchRecord {
  std::uint64_t kernel_object = 0;
  std::uint64_t packet_index = 0;  // queue index of the packet that launched it
  bool condensed = false;          // launched from a condensed packet's diff
  // Packet bytes the launch took: 64 for a dispatch packet; for a condensed kernel its diff
  // header and value slots (2 B each), plus the packet's 2-byte header for its first kernel.
  std::uint32_t packet_bytes = 0;
  std::uint64_t overhead_cycles = 0;  // as KernelSummary, for this launch; final once done
  std::uint64_t latency_cycles = 0;
  std::uint64_t run_cycles = 0;
  bool done = false;  // completed and cleaned up
};

inline constexpr Signal::Value kErrorSignalValue = -1;

class KernelAgent : public sim::Component {
 public:
  KernelAgent(sim::Component& parent, std::string_view name, const sim::Clock& clock,
              AqlQueue& queue, GridLauncher& launcher, const AgentTiming& timing = {});
  ~KernelAgent() override;

  // Kernel objects the agent may launch (a dispatch naming another is a queue error). The name
  // labels the kernel's stats (`<agent>.<name>.*`, other characters than letters, digits and
  // '_' become '_'); registering an object twice is an internal error.
  void register_kernel(std::uint64_t kernel_object, std::string name);
  // Completion signals by handle (HSA hsa_signal_t); 0 is "no signal". An unknown non-zero
  // handle is a queue error.
  void register_signal(std::uint64_t handle, Signal& signal);
  const ReferenceTable& reference_table() const { return rst_; }
  // Per registered kernel, in registration order. A kernel's overhead is the agent time since
  // the previous kernel completed (doorbell, fetch, decode, setup, diff; barrier packets) plus
  // its own cleanup: so a condensed packet's fetch and decode go to its first kernel.
  std::vector<KernelSummary> kernel_summaries() const;
  // Every launch so far, in launch order (the launcher saw them in this order too).
  const std::vector<LaunchRecord>& launches() const { return launch_records_; }
  // Runs after each packet is consumed (read_index advanced): a host with packets waiting for
  // ring space writes them now.
  void set_consumed_hook(std::function<void()> hook) { consumed_ = std::move(hook); }
  // Kernels launched and not yet cleaned up.
  std::uint32_t in_flight() const { return in_flight_; }
  // The launcher reports that launch `launch` (an index into launches()) faulted: the queue
  // enters its error state with `error` (HSA: the queue takes no more packets), and the
  // launch's completion signal gets kErrorSignalValue, so a barrier packet on another queue
  // that waits for it fails too instead of waiting forever. The launch never completes.
  void fault(std::uint64_t launch, const Error& error);

  std::uint64_t packets() const { return packets_.value(); }
  std::uint64_t kernels() const { return kernels_.value(); }
  std::uint64_t overhead_cycles() const { return overhead_.value(); }
  std::uint64_t execution_cycles() const { return execution_.value(); }

 private:
  struct KernelRecord;
  struct Launch;
  sim::Task<> run();
  sim::Task<> process(const PacketBytes& bytes);
  sim::Task<> dispatch_standard(const PacketBytes& bytes);
  sim::Task<> dispatch_condensed(const PacketBytes& bytes);
  sim::Task<> barrier(const PacketBytes& bytes);
  // Launches one kernel; null (queue error set) if it cannot. The launch is in flight until
  // finish() has run.
  Launch* execute(const DispatchPacket& kernel, bool condensed, std::uint32_t packet_bytes);
  // Waits for the launch to complete, records its times, cleans up when `clean` (charged to
  // it), and retires it.
  sim::Task<> finish(Launch* l, bool clean);
  // Until no kernel is in flight (the barrier bit).
  sim::Task<> drain();
  // Charged to `owner` (the kernel just run), or to the next launch when null.
  sim::Task<> cleanup(const DispatchPacket& kernel, Launch* owner);
  // Overhead on the agent's critical path, charged to `owner` or to the next launch.
  sim::Task<> spend(std::uint32_t cycles, Launch* owner = nullptr);
  bool fail(Error e, std::uint64_t completion_signal);
  // HSA: write_index may run at most `size` packets ahead of read_index (and never behind it).
  bool check_indices();

  const sim::Clock& clock_;
  AqlQueue& queue_;
  GridLauncher& launcher_;
  AgentTiming timing_;
  ReferenceTable rst_;
  std::map<std::uint64_t, std::unique_ptr<KernelRecord>> kernels_by_object_;
  std::vector<KernelRecord*> kernel_order_;
  std::uint64_t pending_overhead_ = 0;  // spent since the last launch, charged to the next
  std::map<std::uint64_t, std::unique_ptr<Launch>> live_;  // in flight, by launch index
  std::vector<LaunchRecord> launch_records_;
  std::uint32_t in_flight_ = 0;
  std::function<void()> consumed_;
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
  sim::Counter& rst_kernels_;
  sim::Counter& barrier_waits_;
  sim::Average& occupancy_;
};

}  // namespace xpusim::cp
