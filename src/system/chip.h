// Chip: one modelled chip built from its config — the host's AQL queues and the command
// processor (src/cp, through command_processor.h), the compute work distributor (src/sched)
// placing CTAs and clusters onto the SMs (src/core) running kernel warps, the memory hierarchy
// (src/mem) and functional global memory. The distributor is the block dispatcher: with the
// "first-fit" policy it is the plain in-order one; "waterfill" (default) is seed1's.
//
//   auto chip = Chip::create(sim, spec, {}).value();
//   chip->memory().write(...);                       // host-side setup, functional memory
//   auto id = chip->launch(kernel, params, args);    // validated, then dispatched (AQL)
//   sim.run();                                       // chip->run(*id) has the times
//
// Every launch takes one path: its kernarg segment and a dispatch packet are written into
// simulated memory, the queue's kernel agent fetches and decodes the packet, and launches the
// grid on the distributor (Chip is each agent's GridLauncher). Launches on one queue may overlap
// unless a dependency sets the barrier bit; launches on different queues overlap when the
// distributor has room, in its task table's order (priority, then submission).
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "config/chip_spec.h"
#include "core/cluster.h"
#include "core/hierarchy_port.h"
#include "core/sm.h"
#include "kernel/registry.h"
#include "mem/global_memory.h"
#include "mem/memory_system.h"
#include "mem/page_table.h"
#include "sched/distributor.h"
#include "sched/topology.h"
#include "sim/component.h"
#include "system/command_processor.h"
#include "system/device_allocator.h"

namespace xpusim::system {

struct ChipOptions {
  bool functional = true;  // false: timing-only (no data moves; identical timing)
  std::string policy = "waterfill";
  std::string scheduler = "gto";  // the SMs' warp scheduler (core/warp_scheduler.h)
  // The SM latency classes; unset: the chip config's (sm_timing_of).
  std::optional<core::SmTiming> timing = std::nullopt;
  sched::DistributorTiming distributor{};
  // The CWD's CGA memory-slot pool (sched::CgaTrackerConfig::memory_slots): 0 = unlimited.
  std::uint32_t cga_memory_slots = 0;
  std::uint64_t max_touched_bytes = mem::GlobalMemory::kDefaultMaxTouchedBytes;
  // Warps' global loads and stores outside every allocated buffer (allocate(), reserved
  // scenario buffers) fault, naming kernel, block, warp, lane and address (mem/buffer_map.h).
  // Off for callers that place data without the allocator; `xpusim run` turns it on.
  bool check_accesses = false;
  // Host memory the chip's caches may take (system/host_memory.h); 0: half the host's.
  std::uint64_t host_memory_limit = 0;
  // The memory hierarchy's timing: per-step events (exact order) or whole transactions
  // (faster, approximate; docs/memory-hierarchy.md).
  mem::MemoryTiming memory_timing = mem::MemoryTiming::kEvents;
  // With kTransactions: TMA loads time one L2 set in `set_sampling` (1: every line; at most
  // mem::kMaxSetSampling; docs/memory-hierarchy.md, "Set sampling").
  std::uint32_t set_sampling = 1;
  // Wave sampling (sched/wave_sampler.h; docs/work-distributor.md): once three consecutive waves
  // of a grid take the same time within the tolerance, the middle waves are not simulated.
  // Timing-only runs only.
  sched::WaveSampling wave_sampling{};
  // With kTransactions: time warp loads and stores on a second host thread (mem/memory_worker.h;
  // byte-identical results, faster when the host has a core to spare). Not with tracing, which
  // keeps one thread.
  bool memory_thread = false;
  // The host's queues (one kernel agent each) and the command processor's costs; unset: the
  // chip config's (agent_timing_of).
  std::vector<QueueSpec> queues = {QueueSpec{}};
  std::optional<cp::AgentTiming> cp_timing = std::nullopt;
  // Interpreted (PTX) kernels count their work and stalls per source line here
  // (kernel/line_profile.h, `--ptx-profile`); null: not profiled. Owned by the caller.
  kernel::LineProfile* line_profile = nullptr;
};

// How a launch enters the command processor.
struct LaunchOptions {
  std::uint32_t queue = 0;
  // Launches (ids) this one waits for: on the same queue the packet's barrier bit (it waits for
  // every earlier packet there); on another queue a barrier-AND packet on the producer's
  // completion signal, which the producer must have asked for with `signal`.
  std::vector<std::uint32_t> after{};
  // Launches (ids) of which any one suffices: a barrier-OR packet on their completion signals
  // (each must have one, on any queue; at most 5: one packet's dependency slots).
  std::vector<std::uint32_t> after_any{};
  bool signal = false;  // give this launch a completion signal (others may wait for it)
  // The same by completion-signal handle (new_signal), for a host that makes the signals
  // before the launches that complete them: the barrier bit, a barrier-AND on `wait_all`, a
  // barrier-OR on `wait_any` (at most 5), and this launch's completion signal.
  bool barrier = false;
  std::vector<std::uint64_t> wait_all{};
  std::vector<std::uint64_t> wait_any{};
  std::uint64_t completion_signal = 0;
};

// Launches the host issues as one unit (a workload node of a kernel graph): every launch made
// between Chip::begin_group and end_group, and from those launches' completion callbacks, goes
// on `queue`; the first one after `first`'s dependencies. When the group is closed and every
// launch in it has completed (its callback returned without launching more), the host writes a
// marker packet completing `signal` (if any) and calls `finished`.
struct LaunchGroup {
  std::uint32_t queue = 0;
  LaunchOptions first{};  // barrier, wait_all, wait_any of the group's first launch
  std::uint64_t signal = 0;
  std::function<void()> finished{};
};

// One kernel launch and when it ran (ticks).
struct KernelRun {
  const kernel::KernelDef* kernel = nullptr;
  kernel::LaunchParams params{};
  kernel::KernelArgs args{};  // as the command processor read them from the kernarg segment
  std::uint32_t queue = 0;
  std::uint64_t kernarg_address = 0;
  std::uint64_t globals_address = 0;  // its module's variables (KernelDef::globals; 0: none)
  std::uint64_t signal = 0;           // completion signal handle (0: none)
  sim::Tick submitted = 0;            // the host dispatched it (chip timeline)
  sim::Tick dispatched = 0;           // the kernel agent launched it on the distributor
  sim::Tick first_start = 0;          // its first CTA's first instruction
  sim::Tick completed = 0;            // the distributor has heard its last CTA exit
  std::uint32_t grid = ~0u;           // its index in the distributor's task table, once dispatched
  std::uint64_t agent_launch = 0;     // index into its queue agent's launches()
  std::uint32_t group = ~0u;          // its LaunchGroup (~0u: none)
  bool done = false;
  // Its first fault: its queue is then in the HSA error state, its CTAs not yet launched never
  // are, and it never completes (kernels on other queues go on).
  std::optional<Error> fault{};
  // The kernel agent has launched it on the distributor.
  bool on_distributor() const { return grid != ~0u; }
};

// The SM latency classes of a chip config (sm_latency.*, sm.sub_partitions).
core::SmTiming sm_timing_of(const config::ChipSpec& spec);
// The tensor unit's rates and register file (sm.tensor.*).
core::TensorTiming tensor_timing_of(const config::ChipSpec& spec);
// The kernel agents' costs (command_processor.*).
cp::AgentTiming agent_timing_of(const config::ChipSpec& spec);
// The TMA units' pipeline (tma.*).
tma::TmaParams tma_params_of(const config::ChipSpec& spec);

class Chip : public sched::CtaExecutor {
 public:
  // Errors: an unknown policy or warp scheduler.
  static Result<std::unique_ptr<Chip>> create(sim::Simulation& sim, const config::ChipSpec& spec,
                                              const ChipOptions& options,
                                              std::string_view name = "chip0");
  ~Chip() override;
  Chip(const Chip&) = delete;
  Chip& operator=(const Chip&) = delete;

  // Checks the launch and dispatches it through the command processor. Errors (nothing
  // queued): arguments that do not match the kernel's signature; a zero dimension; a CTA no SM
  // can hold (threads, registers, shared memory: names the resource); a cluster that does not
  // divide the grid or exceeds the chip's maximum; a grid beyond AQL's 32-bit work-item counts;
  // an unknown queue or dependency, or one on another queue without a signal. `done` runs at
  // completion.
  Result<std::uint32_t> launch(const kernel::KernelDef& k, const kernel::LaunchParams& params,
                               const kernel::KernelArgs& args,
                               std::function<void(const KernelRun&)> done = {},
                               const LaunchOptions& options = {});
  const KernelRun& run(std::uint32_t id) const { return *runs_[id]; }
  std::uint32_t launches() const { return static_cast<std::uint32_t>(runs_.size()); }
  bool all_done() const;

  // A completion signal (value 1) for LaunchOptions::completion_signal / wait_* and groups.
  std::uint64_t new_signal() { return cp_->new_signal(); }
  // Stores the error value in such a signal: what would complete it never will (barriers
  // waiting for it fail).
  void fail_signal(std::uint64_t handle) { cp_->fail_signal(handle); }
  // Opens a launch group (at most one is open); returns its id. Errors: an unknown queue.
  Result<std::uint32_t> begin_group(LaunchGroup g);
  // Closes the open group; it finishes once its launches have (at once when it has none).
  void end_group();
  // The launches of group g so far, in launch order.
  const std::vector<std::uint32_t>& group_launches(std::uint32_t g) const {
    return groups_[g].launches;
  }
  bool group_finished(std::uint32_t g) const { return groups_[g].finished; }

  // The host's device-memory allocator over hbm.capacity (cudaMalloc's role).
  DeviceAllocator& allocator() { return allocator_; }
  // allocator().allocate: a buffer of `bytes` at a 1 MiB boundary; errors name `what`.
  Result<mem::Addr> allocate(std::string_view what, std::uint64_t bytes) {
    return allocator_.allocate(what, bytes);
  }

  mem::GlobalMemory& memory() { return memory_; }
  // The page-table device (seed2 §2.4–2.5): segments the mm instruction addresses B through
  // (MmInstruction::segment); the host defines segments and loads pages here.
  mem::PageTable& page_table() { return page_table_; }
  // Defines a segment in the page table with its PTE array (16 B a page) allocated in device
  // memory, where the SMs' translation-cache misses load it (seed2 ¶61–63). Errors: the page
  // table's, or the allocation's (named "segment NAME PTEs").
  Result<std::uint32_t> define_segment(std::string name, mem::SegmentShape shape);
  // The first fault any SM raised, if any.
  std::optional<Error> fault() const;
  // The launches that faulted, in the order they did.
  const std::vector<std::uint32_t>& faulted() const { return faulted_; }
  // Warps parked for good (a barrier never completed, a fault), one line each, with the SM.
  std::vector<std::string> hang_report() const;

  const config::ChipSpec& spec() const { return spec_; }
  const ChipOptions& options() const { return options_; }
  // The SM latency classes in use (the options' or the config's).
  const core::SmTiming& timing() const { return timing_; }
  // The command processor's costs in use (the options' or the config's).
  const cp::AgentTiming& cp_timing() const { return cp_timing_; }
  std::uint32_t num_sms() const { return static_cast<std::uint32_t>(sms_.size()); }
  core::Sm& sm(std::uint32_t i) { return *sms_[i]; }
  const core::Sm& sm(std::uint32_t i) const { return *sms_[i]; }
  mem::MemorySystem& memory_system() { return *mem_; }
  const sched::WorkDistributor& distributor() const { return *cwd_; }
  const CommandProcessor& command_processor() const { return *cp_; }
  // The kernel agent's record of a launch (dispatch overhead, latency, run cycles), once the
  // agent has launched it.
  const cp::LaunchRecord* agent_record(std::uint32_t id) const;
  // Queue errors (HSA error state), one per queue that has one.
  std::vector<std::string> queue_errors() const;
  // Now on the chip's timeline: the simulation's now plus the waves wave sampling skipped.
  sim::Tick timeline_now() const { return cwd_->timeline_now(); }
  // TMA requests dropped at setup and late TMA errors on any SM (a kernel that waits for such
  // a request hangs; the hang report lists them too).
  std::vector<std::string> tma_errors() const;
  const sim::Clock& clock() const { return mem_->sm_clock(); }
  // The L1 capacity an SM has while running this launch: what the shared-memory carve-out its
  // CTAs need leaves of sm.l1_shared_bytes (set when an idle SM takes the launch's first CTA).
  std::uint64_t l1_bytes_for(const kernel::KernelDef& k, const kernel::LaunchParams& p) const;
  sim::Component& root() { return root_; }

  void start(const sched::CtaLaunch& cta) override;  // CtaExecutor: the CWD starts a CTA

 private:
  class QueueLauncher;
  // The agent of queue q launches a decoded dispatch (GridLauncher).
  Status dispatch(std::uint32_t q, const cp::DispatchPacket& p, cp::GridLauncher::Done done);
  sched::GridSpec grid_spec(const kernel::KernelDef& k, const kernel::LaunchParams& p) const;
  Chip(sim::Simulation& sim, const config::ChipSpec& spec, const ChipOptions& options,
       std::string_view name, std::unique_ptr<sched::Policy> policy,
       std::shared_ptr<const core::WarpScheduler> scheduler);
  void cta_exited(const sched::CtaLaunch& cta);
  // A warp of launch `id` faulted: its queue enters the error state, its grid launches no
  // more CTAs; the simulation stops when no other queue has work left.
  void kernel_faulted(std::uint32_t id, const Error& e);

  config::ChipSpec spec_;
  ChipOptions options_;
  core::SmTiming timing_;
  cp::AgentTiming cp_timing_;
  sim::Component root_;
  sched::Topology topology_;
  mem::GlobalMemory memory_;
  mem::PageTable page_table_;
  std::unique_ptr<mem::MemorySystem> mem_;
  std::unique_ptr<core::HierarchyPort> port_;
  std::vector<std::unique_ptr<core::Sm>> sms_;
  // After the SMs (each is a child of the first SM it serves): destroyed first.
  std::vector<std::unique_ptr<tma::TmaUnit>> tma_units_;
  std::unique_ptr<sched::WorkDistributor> cwd_;
  std::vector<std::unique_ptr<QueueLauncher>> launchers_;
  std::unique_ptr<CommandProcessor> cp_;
  std::vector<std::unique_ptr<KernelRun>> runs_;
  std::vector<std::function<void(const KernelRun&)>> done_;
  std::vector<std::deque<std::uint32_t>> queued_;  // per queue: launches not yet dispatched
  std::vector<std::uint32_t> run_of_grid_;         // distributor grid → launch id
  // Running clusters by (grid, GPC_CGA tracker handle).
  std::map<std::pair<std::uint32_t, std::uint64_t>, std::unique_ptr<core::ClusterContext>>
      clusters_;
  std::vector<std::uint64_t> l1_bytes_;  // per SM, what its L1 holds now
  std::vector<std::uint32_t> faulted_;
  bool started_ = false;
  struct Group {
    LaunchGroup spec;
    std::vector<std::uint32_t> launches{};
    std::uint32_t outstanding = 0;  // launched, completion callback not yet returned
    bool closed = false;
    bool finished = false;
  };
  std::vector<Group> groups_;
  std::uint32_t current_group_ = ~0u;  // the group launches join now (~0u: none)
  void group_launch_done(std::uint32_t g);
  DeviceAllocator allocator_;
  // Each module's device variables, placed at the first launch of one of its kernels.
  struct PlacedGlobals {
    std::shared_ptr<const kernel::DeviceGlobals> globals;
    mem::Addr address = 0;
  };
  std::vector<PlacedGlobals> globals_;
  // Where k's module variables are (placing them first); 0 when it has none.
  Result<mem::Addr> place_globals(const kernel::KernelDef& k);
};

}  // namespace xpusim::system
