// Sm: one streaming multiprocessor's timing model (src/core) running kernel warps (src/kernel).
// Transaction level: a warp is a coroutine; it suspends on every operation, and the SM wakes
// it at the operation's completion tick. Nothing ticks per cycle: a sub-partition schedules an
// issue event only when a warp of its own waits to issue.
//
//  - Issue: 4 sub-partitions (warp w lives on w % 4), each issuing at most one warp
//    instruction per cycle, greedy-then-oldest: the warp that issued last goes again if it is
//    ready, else the oldest ready warp (GTO, Rogers et al. MICRO 2012).
//  - Latency classes (sm_timing.h): alu(n) takes n issue slots then the ALU latency; SFU ops
//    2 slots each; shared accesses one slot, then the shared pipe for their wavefronts (bank
//    conflicts, mem/bank_conflicts.h) plus the shared latency; global accesses go to a
//    GlobalPort (the memory hierarchy).
//  - Barriers: bar.sync releases its warps barrier_latency after the last arrival; mbarrier
//    operations act at issue and wake parked waiters when a phase completes.
//  - Stalls: each warp's time is split into waiting to issue, waiting on a dependency (ALU,
//    SFU, shared), on memory, and on a barrier; the sums are stats.
//  - Functional: loads read and stores write real bytes when the SM accepts the operation
//    (`functional = false`: timing-only, no data moved, identical timing).
//  - Faults (a misaligned or out-of-window address, a bad mbarrier operation) stop the
//    simulation with one error naming the warp, its block and the rule; the warp stays parked.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/cluster.h"
#include "core/global_port.h"
#include "core/sm_timing.h"
#include "core/warp_scheduler.h"
#include "kernel/line_profile.h"
#include "kernel/registry.h"
#include "kernel/warp.h"
#include "mem/bank_conflicts.h"
#include "mem/buffer_map.h"
#include "mem/global_memory.h"
#include "mem/page_table.h"
#include "mem/shared_memory.h"
#include "mem/translation_cache.h"
#include "sched/resources.h"
#include "sim/bandwidth_calendar.h"
#include "sim/clock.h"
#include "sim/component.h"
#include "sim/result.h"
#include "tma/tma_unit.h"

namespace xpusim::core {

// One CTA to run: the kernel, its launch, and where the CTA sits in the grid. `args` and
// `kernel` must outlive the CTA (the launch owns them).
struct CtaWork {
  const kernel::KernelDef* kernel = nullptr;
  kernel::LaunchParams params{};
  const kernel::KernelArgs* args = nullptr;
  kernel::Dim3 block_id{0, 0, 0};
  kernel::Dim3 cluster_id{0, 0, 0};
  std::uint32_t cluster_rank = 0;
  // The running cluster (DSMEM targets, cluster barrier); null for a plain CTA.
  ClusterContext* cluster = nullptr;
  std::uint32_t launch = 0;  // the launcher's id of the CTA's launch (SmConfig::on_fault)
};

// A warp of `cta` faulted with `error` (the SM's message: kernel, block, warp, what).
using FaultHandler = std::function<void(const CtaWork& cta, const Error& error)>;

struct SmConfig {
  std::uint32_t id = 0;
  SmTiming timing{};
  TensorTiming tensor{};
  sched::SmCapacity capacity{};
  mem::BankGeometry banks{};
  bool functional = true;  // false: timing-only
  // Which ready warp a sub-partition issues (warp_scheduler.h); null: greedy-then-oldest.
  std::shared_ptr<const WarpScheduler> scheduler;
  // Where mm finds B segments (seed2 §2.5); null: an mm naming a segment faults.
  const mem::PageTable* page_table = nullptr;
  // The TMA unit serving this SM (one per SM, or shared; tma/tma_unit.h); null: TMA
  // operations fault.
  tma::TmaUnit* tma = nullptr;
  // The buffers a warp's global access must stay inside (mem/buffer_map.h); null: unchecked.
  const mem::BufferMap* buffers = nullptr;
  // Who hears of a fault (the chip: the kernel's queue enters its error state and the other
  // queues go on); null: the simulation stops at the fault.
  FaultHandler on_fault{};
  // Per-line counts of interpreted kernels (kernel/line_profile.h); null: not profiled.
  kernel::LineProfile* line_profile = nullptr;
};

enum class StallReason : std::uint8_t { kIssue, kDependency, kMemory, kBarrier, kNone };
static_assert(static_cast<std::size_t>(StallReason::kNone) == kernel::kStallNames.size(),
              "kernel::LineProfile counts the stall reasons in this order");

class Sm : public sim::Component, public kernel::WarpExecutor, private tma::TmaClient {
 public:
  Sm(sim::Component& parent, std::string_view name, const sim::Clock& clock,
     mem::GlobalMemory& memory, GlobalPort& port, const SmConfig& cfg);
  ~Sm() override;

  // Starts the CTA's warps now; `exited` runs once all of them have returned. Errors (nothing
  // started): the CTA does not fit the SM's free resources now, or no kernel.
  Status launch(const CtaWork& work, std::function<void()> exited);

  // The TMA unit serving this SM (made after the SMs when one serves several).
  void set_tma(tma::TmaUnit& unit);

  void execute(kernel::Warp& warp, const kernel::Op& op) override;
  kernel::RegisterFile& registers(kernel::Warp& warp) override;
  void fault(kernel::Warp& warp, const std::string& what) override;
  // Another SM's cluster barrier released this SM's warp: it issues again at `cycle`.
  void release(kernel::Warp& warp, std::uint64_t cycle);

  std::uint32_t id() const { return cfg_.id; }
  const sched::SmUsage& usage() const { return used_; }
  std::uint32_t resident_ctas() const { return static_cast<std::uint32_t>(ctas_.size()); }
  // The first fault (the run stopped there), if any.
  const std::optional<Error>& fault() const { return fault_; }
  // One line per warp that is parked (never resumed): what it waits on. Empty when all ran.
  std::vector<std::string> hang_report() const;
  std::uint64_t warp_instructions() const { return instructions_.value(); }
  // TMA requests dropped at setup (seed0 ¶88) and late TMA errors, one line each.
  const std::vector<std::string>& tma_errors() const { return tma_errors_; }

 private:
  struct Cta;
  struct WarpSlot;
  struct SubPartition;
  struct MbarrierSlot;
  class MbarrierTable;
  struct TmaRecord;

  sim::Task<> run_warp(WarpSlot& w);
  void warp_exited(WarpSlot& w);
  Status apply_data(WarpSlot& w);  // the functional effect of a load/store
  // cfg_.buffers: every active lane's access inside one buffer.
  Status check_buffers(const kernel::Op& op) const;
  Status apply_atomic(WarpSlot& w);
  // DSMEM (sm_dsmem.cc): targets checked (in every mode: the timing needs them), data moved.
  Status check_dsmem(WarpSlot& w) const;
  Status apply_dsmem(WarpSlot& w);
  void dsmem_op(WarpSlot& w, std::uint64_t cycle);
  void cluster_sync(WarpSlot& w);  // released from the last arrival's SM
  static void release_cluster(ClusterContext& k);
  void part_done(WarpSlot& w);  // one part of a multi-part access completed
  // Posted global stores: into the memory system now (an entry of the SM's store queue), or
  // an entry freed. A warp exits only after its stores (and register loads) are done.
  void blocking_access(WarpSlot& w);  // a load (or a what-if store): the warp waits for it
  void post_store(WarpSlot& w, std::uint64_t cycle);
  void store_acknowledged(WarpSlot& w, sim::Tick issued);
  void exit_if_drained(WarpSlot& w);
  void trace_warp(const WarpSlot& w, std::string_view what, sim::Tick begin);
  // The tensor unit (sm_tensor.cc): mm and the register loads that feed it.
  Status accept_register_load(WarpSlot& w);
  Status accept_mm(WarpSlot& w);
  Status accept_segment_mm(WarpSlot& w, kernel::RegisterFile& regs);
  void register_load_op(WarpSlot& w, std::uint64_t cycle);
  void register_load_landed(WarpSlot& w, std::uint32_t reg, std::uint32_t count);
  void mm_memory(WarpSlot& w, std::uint64_t cycle);
  // B through a segment: the translation cache's misses load their PTEs first (true: the
  // fetch goes on when they are back; false: every page hit).
  bool mm_translate(WarpSlot& w);
  void mm_fetch_global(WarpSlot& w, std::uint64_t cycle);  // B's lines from global memory
  std::vector<std::uint64_t> pin_retained(WarpSlot& w, const std::vector<std::uint64_t>& rows);
  void pte_loaded(std::uint32_t seg, std::uint64_t page, std::uint64_t generation);
  bool take_shared_b(WarpSlot& w, std::uint64_t cycle);
  void mm_b_arrived(WarpSlot& w);
  void mm_operands_ready(WarpSlot& w);
  void mm_math(WarpSlot& w, std::uint64_t cycle);
  std::uint32_t mm_rate(kernel::MmType t) const;
  void enqueue(WarpSlot& w);  // ready to issue: into its sub-partition's queue
  void issue(SubPartition& sp);
  void dispatch(WarpSlot& w, std::uint64_t cycle);
  // A warp-wide shared access's wavefronts (bank conflicts counted), and the shared data
  // stage: when data that takes `wavefronts` cycles of it, issued at `cycle`, is back.
  std::uint32_t shared_wavefronts(const kernel::Op& op);
  std::uint64_t shared_stage(std::uint64_t cycle, std::uint32_t wavefronts);
  void mbarrier_op(WarpSlot& w, std::uint64_t cycle);
  // A barrier's phase completed at `cycle`: its parked waiters on that parity go.
  void phase_completed(MbarrierSlot& m, std::uint64_t cycle);
  void retire_cta(Cta& c);
  // TMA (sm_tma.cc): the warp side (issue, bulk groups, remote arrive) and the unit's client.
  void tma_op(WarpSlot& w, std::uint64_t cycle);
  bool tma_submit(WarpSlot& w);
  bool groups_done(const WarpSlot& w) const;
  void mbarrier_arrive_remote(WarpSlot& w, std::uint64_t cycle);
  Cta* cta_of(const ClusterContext* k, std::uint32_t rank);
  // `since`: the tick the first of the bytes landed (now for one line).
  void tma_credit(const ClusterContext* k, std::uint32_t rank, std::uint32_t mbar,
                  std::uint32_t bytes, const Cta& from, sim::Tick since);
  Result<tma::TmaPlan> plan(const tma::TmaJob& job, const tma::CachedDescriptor* d) override;
  void dropped(const tma::TmaJob& job, const Error& error) override;
  void landed(const tma::TmaJob& job, std::uint32_t d, std::uint32_t bytes,
              sim::Tick since) override;
  void source_read(const tma::TmaJob& job) override;
  void finished(const tma::TmaJob& job) override;
  void queue_space() override;
  void group_progress(TmaRecord& r, bool read);
  void bar_sync(WarpSlot& w, std::uint64_t cycle);  // and bar.arrive, bar.red
  // Barrier `id`'s round complete: bar.red results written, its waiting warps woken.
  void release_bar(Cta& c, std::uint32_t id, std::uint64_t cycle);
  void wake(WarpSlot& w, std::uint64_t cycle);
  void stall(WarpSlot& w, StallReason r);
  void raise(WarpSlot& w, const std::string& what);
  std::uint64_t cycle_now() const;

  const sim::Clock& clock_;
  mem::GlobalMemory& memory_;
  GlobalPort& port_;
  SmConfig cfg_;
  std::shared_ptr<const WarpScheduler> scheduler_;
  sched::SmUsage used_;
  std::vector<std::unique_ptr<Cta>> ctas_;
  std::vector<std::unique_ptr<SubPartition>> sps_;
  std::uint64_t next_age_ = 0;
  // The shared-memory data stage: one wavefront a cycle. A calendar, not a "free from" cycle:
  // a TMA box credited whole under the transaction timing books the cycles its lines landed
  // in, between the accesses booked since. Booked in time order (`events`) it is exactly that
  // FIFO while the backlog stays under half its 32 768 cycles.
  sim::BandwidthCalendar shared_stage_{1, 32768};
  std::optional<Error> fault_;
  bool tracing_ = false;  // a track per warp slot when the tracer takes this SM
  std::vector<bool> slot_busy_;
  std::vector<std::uint64_t> tensor_free_;  // per tensor unit: first free cycle
  std::vector<std::pair<std::uint64_t, std::uint64_t>> line_scratch_;  // mm_fetch_line_count's
  std::vector<std::unique_ptr<TmaRecord>> tma_records_;                // by job tag
  std::vector<std::uint32_t> tma_free_;
  std::deque<WarpSlot*> tma_blocked_;    // refused by a full queue, in issue order
  std::uint32_t stores_in_flight_ = 0;   // posted global stores not yet acknowledged
  std::deque<WarpSlot*> store_waiters_;  // stores issued into a full store queue, oldest first
  std::vector<std::string> tma_errors_;

  sim::Counter& instructions_;
  sim::BoundedSeries& issue_series_;  // for the report's per-SM activity over time
  sim::Counter& ctas_run_;
  sim::Counter& shared_wavefronts_;
  sim::Counter& bank_conflicts_;
  sim::Counter& global_accesses_;
  sim::Counter& posted_stores_;
  sim::Counter& store_queue_waits_;
  sim::Counter& store_queue_wait_cycles_;
  sim::Counter& dsmem_accesses_;
  sim::Counter& cluster_syncs_;
  sim::Counter& register_loads_;
  sim::Counter& mm_instructions_;
  sim::Counter& mm_math_issues_;
  sim::Counter& mm_b_lines_;
  sim::Counter& mm_b_bytes_;
  sim::Counter& mm_b_shared_;
  sim::Counter& mm_a_register_reads_;
  sim::Counter& mm_macs_;
  sim::Counter& mm_active_threads_;
  sim::Counter& tensor_busy_;
  sim::Counter& mm_token_stall_;
  sim::Counter& mm_translation_hits_;
  sim::Counter& mm_translation_misses_;
  sim::Counter& mm_translation_flushes_;
  sim::Counter& mm_translation_cycles_;
  sim::Counter& mm_pte_loads_;
  sim::Counter& mm_lines_pinned_;
  sim::Counter& mm_lines_not_pinned_;
  mem::TranslationCache translations_;
  // PTE loads in flight, (segment, page) → the warps waiting for it (a miss joins the load
  // already in flight instead of issuing another, as an MSHR does).
  std::map<std::pair<std::uint32_t, std::uint64_t>, std::vector<WarpSlot*>> pte_loads_;
  sim::Counter& tma_instructions_;
  sim::Counter& stall_issue_;
  sim::Counter& stall_dependency_;
  sim::Counter& stall_memory_;
  sim::Counter& stall_barrier_;
};

}  // namespace xpusim::core
