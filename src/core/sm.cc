#include "core/sm.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <deque>

#include "core/sm_state.h"

namespace xpusim::core {

using kernel::Op;
using kernel::OpKind;

Sm::Sm(sim::Component& parent, std::string_view name, const sim::Clock& clock,
       mem::GlobalMemory& memory, GlobalPort& port, const SmConfig& cfg)
    : sim::Component(parent, name),
      clock_(clock),
      memory_(memory),
      port_(port),
      cfg_(cfg),
      scheduler_(cfg.scheduler ? cfg.scheduler : default_scheduler()),
      instructions_(add_counter("warp_instructions", "instructions", "warp instructions issued")),
      issue_series_(
          add_series("issue_series", "instructions", "warp instructions issued per interval")),
      ctas_run_(add_counter("ctas", "CTAs", "CTAs that ran to completion")),
      shared_wavefronts_(add_counter("shared_wavefronts", "wavefronts",
                                     "shared-memory data cycles of loads and stores")),
      bank_conflicts_(add_counter("bank_conflicts", "wavefronts",
                                  "wavefronts beyond the conflict-free minimum")),
      global_accesses_(add_counter("global_accesses", "instructions", "global loads and stores")),
      posted_stores_(add_counter("posted_stores", "instructions",
                                 "global stores posted through the SM's store queue")),
      store_queue_waits_(add_counter("store_queue_waits", "instructions",
                                     "global stores that found the SM's store queue full")),
      store_queue_wait_cycles_(add_counter("store_queue_wait_cycles", "cycles",
                                           "cycles those stores waited for an entry")),
      dsmem_accesses_(add_counter("dsmem_accesses", "instructions",
                                  "distributed shared memory loads, stores and atomics")),
      cluster_syncs_(add_counter("cluster_syncs", "instructions", "cluster.sync arrivals")),
      register_loads_(add_counter("register_loads", "instructions",
                                  "loads into the mm register file (asynchronous)")),
      mm_instructions_(add_counter("mm.instructions", "instructions", "mm instructions issued")),
      mm_math_issues_(add_counter("mm.math_issues", "issues",
                                  "mm math issues: one per predicated-on B column (seed2 ¶102)")),
      mm_b_lines_(add_counter("mm.b_line_fetches", "lines",
                              "B lines (or shared wavefronts) the mm memory issues read")),
      mm_b_bytes_(add_counter("mm.b_bytes", "bytes", "B bytes the mm memory issues read")),
      mm_b_shared_(add_counter("mm.b_fetches_shared", "instructions",
                               "warpgroup-wide mm that took the B another warp of its "
                               "warpgroup fetched, fetching none")),
      mm_a_register_reads_(add_counter("mm.a_register_reads", "registers",
                                       "A registers read: once per active thread and mm (¶7)")),
      mm_macs_(add_counter("mm.macs", "MACs", "multiply-accumulates of mm instructions")),
      mm_active_threads_(add_counter("mm.active_threads", "threads",
                                     "threads with work, summed over mm instructions (lane "
                                     "utilization = this / (32 x mm.instructions))")),
      tensor_busy_(add_counter("tensor.busy_cycles", "cycles",
                               "tensor-unit cycles busy with mm math, summed over the units")),
      mm_token_stall_(add_counter("mm.token_stall_cycles", "cycles",
                                  "mm math issues blocked on an A register's token (¶101)")),
      mm_translation_hits_(add_counter("mm.translation_hits", "pages",
                                       "pages of segment B found in the translation cache")),
      mm_translation_misses_(add_counter("mm.translation_misses", "pages",
                                         "pages of segment B not in the translation cache, "
                                         "each mm counting its own")),
      mm_translation_flushes_(add_counter("mm.translation_flushes", "flushes",
                                          "translation caches flushed: a page was evicted or "
                                          "PTEs moved since they were filled")),
      mm_translation_cycles_(add_counter("mm.translation_cycles", "cycles",
                                         "cycles mm B fetches waited for PTE loads")),
      mm_pte_loads_(add_counter("mm.pte_loads", "loads",
                                "PTEs loaded for translation-cache misses, 16 B each (a miss "
                                "whose PTE is already being loaded joins that load)")),
      mm_lines_pinned_(add_counter("mm.lines_pinned", "lines",
                                   "t1 retention: row lines pinned in the L1 until the mm's "
                                   "columns used them (seed2 ¶122-125)")),
      mm_lines_not_pinned_(add_counter("mm.lines_not_pinned", "lines",
                                       "t1 retention: row lines the L1 could not pin (every "
                                       "way of the set pinned), re-read per column")),
      translations_(cfg.tensor.translation_cache_entries),
      tma_instructions_(add_counter("tma_instructions", "instructions",
                                    "TMA instructions issued (copies, commits, waits)")),
      stall_issue_(add_counter("stall_issue_cycles", "cycles", "warps ready, waiting to issue")),
      stall_dependency_(add_counter("stall_dependency_cycles", "cycles",
                                    "waiting on an ALU, SFU or shared-memory result")),
      stall_memory_(add_counter("stall_memory_cycles", "cycles", "waiting on global memory")),
      stall_barrier_(add_counter("stall_barrier_cycles", "cycles",
                                 "waiting at bar.sync or on an mbarrier phase")) {
  XPUSIM_CHECK(cfg.timing.sub_partitions > 0, "an SM needs a sub-partition");
  for (std::uint32_t i = 0; i < cfg.timing.sub_partitions; ++i)
    sps_.push_back(std::make_unique<SubPartition>(*this));
  tracing_ = trace_track() != sim::kNoTrack;
  slot_busy_.assign(cfg.capacity.warps, false);
  tensor_free_.assign(std::max<std::uint32_t>(cfg.tensor.cores, 1), 0);
  if (cfg.tma != nullptr) cfg.tma->attach(cfg.id, *this);
  add_formula("shared_late_bookings", "bookings",
              "shared data stage bookings more than 16 384 cycles behind the newest, started at "
              "the oldest cycle kept (an approximation)",
              [this] { return static_cast<double>(shared_stage_.late_bookings()); });
}

Sm::~Sm() {
  for (auto& sp : sps_) {
    if (sp->scheduled()) events().deschedule(*sp);
  }
  for (auto& cta : ctas_) {
    for (auto& w : cta->warps) {
      if (w->scheduled()) events().deschedule(*w);
    }
  }
}

std::uint64_t Sm::cycle_now() const {
  return clock_.next_cycle();  // the number of the first edge at or after now()
}

Status Sm::launch(const CtaWork& work, std::function<void()> exited) {
  if (work.kernel == nullptr || work.args == nullptr) return Error{"SM launch: no kernel"};
  const kernel::LaunchParams& p = work.params;
  const sched::CtaShape shape{
      .threads = p.threads_per_block(),
      .registers_per_thread = p.registers_per_thread,
      .shared_bytes = std::uint64_t{work.kernel->static_shared_bytes} + p.dynamic_shared_bytes};
  if (auto st = sched::check_cta_shape(cfg_.capacity, shape); !st) return st;
  const sched::CtaFootprint fp = sched::footprint(cfg_.capacity, shape);
  if (sched::free_slots(cfg_.capacity, used_, fp) == 0) {
    return Error{fmt::format("SM {}: block ({},{},{}) does not fit now ({} is exhausted)", cfg_.id,
                             work.block_id.x, work.block_id.y, work.block_id.z,
                             sched::name(sched::limiting_resource(cfg_.capacity, used_, fp)))};
  }
  used_.add(fp);
  auto cta = std::make_unique<Cta>(
      Cta{.work = work,
          .footprint = fp,
          .smem = mem::SharedMemory(static_cast<std::uint32_t>(shape.shared_bytes)),
          .warps = {},
          .alive = 0,
          .exited = std::move(exited),
          .mbarriers = {},
          .bars = {},
          .own_cluster = nullptr,
          .cluster = work.cluster});
  Cta& c = *cta;
  if (c.cluster == nullptr) {
    c.own_cluster = std::make_unique<ClusterContext>(1, p.warps_per_block());
    c.cluster = c.own_cluster.get();
  }
  XPUSIM_CHECK(work.cluster_rank < c.cluster->size(), "cluster rank inside the cluster");
  c.cluster->ranks[work.cluster_rank] = {.sm = this, .smem = &c.smem, .exited = false};
  ctas_.push_back(std::move(cta));
  const std::uint32_t warps = p.warps_per_block();
  for (std::uint32_t i = 0; i < warps; ++i) {
    const kernel::WarpCoords coords{.block_id = work.block_id,
                                    .cluster_id = work.cluster_id,
                                    .cluster_rank = work.cluster_rank,
                                    .warp = i,
                                    .sm = cfg_.id};
    c.warps.push_back(
        std::make_unique<WarpSlot>(*this, c, coords, i % cfg_.timing.sub_partitions, next_age_++));
    WarpSlot& w = *c.warps.back();
    w.started = now();
    const auto free = std::find(slot_busy_.begin(), slot_busy_.end(), false);
    w.slot = static_cast<std::uint32_t>(free - slot_busy_.begin());
    if (free != slot_busy_.end()) *free = true;
  }
  c.alive = warps;
  for (auto& w : c.warps)
    sim().spawn(run_warp(*w), fmt::format("{}.warp{}", path(), w->age));
  return Ok{};
}

sim::Task<> Sm::run_warp(WarpSlot& w) {
  co_await w.cta.work.kernel->body(w.warp);
  warp_exited(w);
}

void Sm::warp_exited(WarpSlot& w) {
  // Its register loads still write the warp's state, and a kernel is done only when its
  // stores are: exit after them.
  if (w.reg_loads > 0 || w.stores > 0) {
    w.exit_deferred = true;
    return;
  }
  Cta& c = w.cta;
  if (w.slot < slot_busy_.size()) slot_busy_[w.slot] = false;
  if (tracing_) trace_warp(w, c.work.kernel->name, w.started);
  ClusterContext& k = *c.cluster;
  ++k.warps_exited;
  if (k.barrier_complete()) release_cluster(k);
  --c.alive;
  // Exited warps count as arrived at bar.sync (Volta and later).
  const std::uint64_t cycle = cycle_now();
  for (auto& [id, b] : c.bars) {
    if (b.arrived == 0 || b.arrived < c.alive || b.expected_threads != 0) continue;
    release_bar(c, id, cycle);
  }
  if (c.alive > 0) return;
  // TMA operations it issued still name its shared memory and barriers: it retires after them.
  if (c.tma_inflight > 0) {
    c.retire_pending = true;
    return;
  }
  retire_cta(c);
}

void Sm::retire_cta(Cta& c) {
  // The last warp may still be on its frame here: retire the CTA from an event.
  events().post(now(), [this, cta = &c] {
    used_.remove(cta->footprint);
    ctas_run_.inc();
    ClusterContext::Rank& r = cta->cluster->ranks[cta->work.cluster_rank];
    r.smem = nullptr;
    r.exited = true;
    ++cta->cluster->ctas_exited;
    std::function<void()> exited = std::move(cta->exited);
    const auto it = std::find_if(ctas_.begin(), ctas_.end(),
                                 [cta](const std::unique_ptr<Cta>& p) { return p.get() == cta; });
    ctas_.erase(it);
    if (exited) exited();
  });
}

void Sm::fault(kernel::Warp& warp, const std::string& what) {
  raise(*static_cast<WarpSlot*>(warp.executor_slot), what);
}

void Sm::raise(WarpSlot& w, const std::string& what) {
  const kernel::Dim3& b = w.cta.work.block_id;
  w.faulted = true;
  const std::string at = w.warp.source != nullptr && what.find(w.warp.source) == std::string::npos
                             ? fmt::format(" (at {}:{})", w.warp.source, w.warp.source_line)
                             : "";
  const Error e{fmt::format("{}: block ({},{},{}) warp {}: {}{}", w.cta.work.kernel->name, b.x, b.y,
                            b.z, w.warp.warp_id(), what, at)};
  if (!fault_) fault_ = e;
  // The warp stays parked (the hang report lists it); its CTA keeps its resources.
  if (cfg_.on_fault) {
    cfg_.on_fault(w.cta.work, e);
  } else {
    sim().stop();
  }
}

void Sm::stall(WarpSlot& w, StallReason r) {
  const std::uint64_t at = clock_.cycle_at(now());
  const std::uint64_t cycles = at - w.since_cycle;
  switch (w.state) {
    case StallReason::kIssue:
      stall_issue_.inc(cycles);
      break;
    case StallReason::kDependency:
      stall_dependency_.inc(cycles);
      break;
    case StallReason::kMemory:
      stall_memory_.inc(cycles);
      break;
    case StallReason::kBarrier:
      stall_barrier_.inc(cycles);
      break;
    case StallReason::kNone:
      break;
  }
  if (cfg_.line_profile != nullptr && w.warp.source != nullptr && w.state != StallReason::kNone)
    cfg_.line_profile->at(w.warp.source, w.warp.source_line)
        .stall[static_cast<std::size_t>(w.state)] += cycles;
  w.state = r;
  w.since_cycle = at;
}

void Sm::execute(kernel::Warp& warp, const Op& op) {
  WarpSlot& w = *static_cast<WarpSlot*>(warp.executor_slot);
  kernel::copy_op(w.op, op);
  w.op.mask &= warp.thread_mask();
  // Its L1 lookup comes at its issue, an event or more from now: start loading the set.
  if (op.kind == OpKind::kLoadGlobal || op.kind == OpKind::kStoreGlobal)
    port_.prefetch(cfg_.id, w.op, w.op.mask);
  if (kernel::is_dsmem(op.kind)) {
    if (auto st = check_dsmem(w); !st) {
      raise(w, st.error().message);
      return;
    }
  }
  if (cfg_.buffers != nullptr &&
      (op.kind == OpKind::kLoadGlobal || op.kind == OpKind::kStoreGlobal ||
       op.kind == OpKind::kLoadRegsGlobal || op.kind == OpKind::kAtomicGlobal)) {
    if (auto st = check_buffers(w.op); !st) {
      raise(w, st.error().message);
      return;
    }
  }
  if (op.kind == OpKind::kLoadRegsGlobal || op.kind == OpKind::kLoadRegsShared) {
    if (auto st = accept_register_load(w); !st) {
      raise(w, st.error().message);
      return;
    }
  } else if (op.kind == OpKind::kMm) {
    if (auto st = accept_mm(w); !st) {
      raise(w, st.error().message);
      return;
    }
  } else if (cfg_.functional) {
    if (auto st = apply_data(w); !st) {
      raise(w, st.error().message);
      return;
    }
  }
  enqueue(w);
}

void Sm::enqueue(WarpSlot& w) {
  stall(w, StallReason::kIssue);
  SubPartition& sp = *sps_[w.sp];
  sp.ready.push_back(&w);
  sp.ready_age.push_back(w.age);
  if (!sp.scheduled()) {
    events().schedule(sp, clock_.edge(std::max(cycle_now(), sp.free_cycle)));
  }
}

Status Sm::check_buffers(const Op& op) const {
  // One test for the common case, the active lanes' span inside one buffer; the lane loop
  // names the first lane outside otherwise.
  std::uint64_t lo = ~std::uint64_t{0}, hi = 0;
  for (std::uint32_t l = 0; l < kernel::kWarpSize; ++l) {
    if (((op.mask >> l) & 1) == 0) continue;
    lo = std::min(lo, (*op.addr)[l]);
    hi = std::max(hi, (*op.addr)[l]);
  }
  if (lo > hi ||
      (hi - lo <= ~std::uint64_t{0} - op.bytes && cfg_.buffers->contains(lo, hi - lo + op.bytes))) {
    return Ok{};
  }
  const std::string_view access = op.kind == OpKind::kStoreGlobal ? "store" : "load";
  for (std::uint32_t l = 0; l < kernel::kWarpSize; ++l) {
    if (((op.mask >> l) & 1) == 0) continue;
    if (auto st = cfg_.buffers->check(access, (*op.addr)[l], op.bytes); !st) {
      return Error{fmt::format("lane {}: {}", l, st.error().message)};
    }
  }
  return Ok{};  // each lane inside a buffer, the span across two
}

Status Sm::apply_data(WarpSlot& w) {
  const Op& op = w.op;
  if (kernel::is_dsmem(op.kind)) return apply_dsmem(w);
  if (op.kind == OpKind::kAtomicGlobal || op.kind == OpKind::kAtomicShared) return apply_atomic(w);
  const bool global = op.kind == OpKind::kLoadGlobal || op.kind == OpKind::kStoreGlobal;
  const bool shared = op.kind == OpKind::kLoadShared || op.kind == OpKind::kStoreShared;
  if (!global && !shared) return Ok{};
  const bool load = op.kind == OpKind::kLoadGlobal || op.kind == OpKind::kLoadShared;
  for (std::uint32_t l = 0; l < kernel::kWarpSize; ++l) {
    if (((op.mask >> l) & 1) == 0) continue;
    const kernel::Addr a = (*op.addr)[l];
    if (a % op.bytes != 0) {
      return Error{fmt::format("{} lane {} address {:#x} is not {}-byte aligned",
                               load ? "load" : "store", l, a, op.bytes)};
    }
    const std::span<std::byte> lane(op.data + std::size_t{l} * op.bytes, op.bytes);
    Status st = Ok{};
    if (global) {
      st = load ? memory_.read(a, lane) : memory_.write(a, lane);
    } else if (a > 0xFFFF'FFFFu) {
      st = Error{fmt::format("shared offset {:#x} is outside the CTA's window", a)};
    } else {
      const auto off = static_cast<std::uint32_t>(a);
      st = load ? w.cta.smem.read(off, lane) : w.cta.smem.write(off, lane);
    }
    if (!st) return Error{fmt::format("lane {}: {}", l, st.error().message)};
  }
  return Ok{};
}

Status Sm::apply_atomic(WarpSlot& w) {
  const Op& op = w.op;
  const bool global = op.kind == OpKind::kAtomicGlobal;
  const std::uint32_t n = kernel::atom_bytes(op.atom_type);
  // Lanes in lane order: lanes hitting one address see each other's updates (PTX leaves the
  // order undefined; lane order makes runs reproducible).
  for (std::uint32_t l = 0; l < kernel::kWarpSize; ++l) {
    if (((op.mask >> l) & 1) == 0) continue;
    const kernel::Addr a = (*op.addr)[l];
    if (a % n != 0)
      return Error{fmt::format("atom lane {} address {:#x} is not {}-byte aligned", l, a, n)};
    std::array<std::byte, 8> cur{}, old{};
    const std::span<std::byte> slot(cur.data(), n);
    Status st = Ok{};
    if (!global && a > 0xFFFF'FFFFu) {
      return Error{
          fmt::format("atom lane {}: shared offset {:#x} is outside the CTA's window", l, a)};
    }
    const auto off = static_cast<std::uint32_t>(a);
    st = global ? memory_.read(a, slot) : w.cta.smem.read(off, slot);
    if (!st) return Error{fmt::format("lane {}: {}", l, st.error().message)};
    std::byte* operand = op.data + std::size_t{l} * n;
    const std::byte* swap =
        op.atom == kernel::AtomOp::kCas ? operand + std::size_t{kernel::kWarpSize} * n : nullptr;
    kernel::atom_apply(op.atom, op.atom_type, cur.data(), operand, swap, old.data());
    st = global ? memory_.write(a, slot) : w.cta.smem.write(off, slot);
    if (!st) return Error{fmt::format("lane {}: {}", l, st.error().message)};
    std::memcpy(operand, old.data(), n);
  }
  return Ok{};
}

void Sm::issue(SubPartition& sp) {
  if (sp.ready.empty()) return;
  const std::uint64_t cycle = clock_.cycle_at(now());
  const std::size_t i = scheduler_->pick(sp.ready_age, sp.last_age, sp.has_last);
  WarpSlot& w = *sp.ready[i];
  sp.ready_age.erase(sp.ready_age.begin() + static_cast<std::ptrdiff_t>(i));
  sp.ready.erase(sp.ready.begin() + static_cast<std::ptrdiff_t>(i));
  sp.last_age = w.age;
  sp.has_last = true;
  // An mm's math form takes one issue slot per B column (seed2 ¶102).
  const std::uint64_t math_issues =
      w.op.kind == OpKind::kMm && w.mm.math ? std::max<std::uint32_t>(w.mm.columns, 1) : 0;
  // kMmaSync: its instructions were counted in the ALU batch before it.
  const std::uint64_t issued =
      w.op.kind == OpKind::kAlu || w.op.kind == OpKind::kAluChain || w.op.kind == OpKind::kSfu
          ? w.op.count
      : math_issues > 0               ? math_issues
      : w.op.kind == OpKind::kMmaSync ? 0
                                      : 1;
  instructions_.inc(issued);
  issue_series_.add(now(), static_cast<double>(issued));
  const SmTiming& t = cfg_.timing;
  std::uint64_t slots = math_issues > 0 ? math_issues : 1;
  if (w.op.kind == OpKind::kAlu) slots = std::max<std::uint32_t>(w.op.count, 1);
  if (w.op.kind == OpKind::kSfu)
    slots = std::uint64_t{std::max<std::uint32_t>(w.op.count, 1)} * t.sfu_issue_cycles;
  // The warp's last chain is done: its later instructions took the cycles the sub-partition
  // stood idle, the rest are booked after this issue. Latency-bound code (few warps) pays in
  // idle cycles; issue-bound code pays every slot.
  if (w.chain_owed > 0) {
    const std::uint64_t idle = cycle > sp.free_cycle ? cycle - sp.free_cycle : 0;
    slots += w.chain_owed - std::min<std::uint64_t>(w.chain_owed, idle);
    w.chain_owed = 0;
  }
  if (w.op.kind == OpKind::kAluChain) w.chain_owed = std::max<std::uint32_t>(w.op.count, 1) - 1;
  sp.free_cycle = cycle + slots;
  dispatch(w, cycle);
  if (!sp.ready.empty()) events().schedule(sp, clock_.edge(sp.free_cycle));
}

void Sm::dispatch(WarpSlot& w, std::uint64_t cycle) {
  const SmTiming& t = cfg_.timing;
  const Op& op = w.op;
  switch (op.kind) {
    case OpKind::kAlu:
      stall(w, StallReason::kDependency);
      wake(w, cycle + std::max<std::uint32_t>(op.count, 1) - 1 + t.alu_latency);
      return;
    case OpKind::kAluChain:
      // Its later instructions issue in cycles the others leave (none are booked): each
      // waits out the last one's latency, so the chain's slots are never its limit.
      stall(w, StallReason::kDependency);
      wake(w, cycle + std::uint64_t{std::max<std::uint32_t>(op.count, 1)} * t.alu_latency);
      return;
    case OpKind::kSfu:
      stall(w, StallReason::kDependency);
      wake(w, cycle + std::uint64_t{std::max<std::uint32_t>(op.count, 1)} * t.sfu_issue_cycles - 1 +
                  t.sfu_latency);
      return;
    case OpKind::kMmaSync: {
      // The sub-partition's tensor pipe runs mma work back to back, warps interleaved.
      SubPartition& sp = *sps_[w.sp];
      const std::uint64_t start = std::max(cycle, sp.mma_free_cycle);
      sp.mma_free_cycle =
          start + std::uint64_t{std::max<std::uint32_t>(op.count, 1)} * t.mma_issue_cycles;
      stall(w, StallReason::kDependency);
      wake(w, sp.mma_free_cycle - 1 + t.mma_latency);
      return;
    }
    case OpKind::kLoadShared:
    case OpKind::kStoreShared:
    case OpKind::kAtomicShared: {
      stall(w, StallReason::kDependency);
      wake(w, shared_stage(cycle, shared_wavefronts(op)));
      return;
    }
    case OpKind::kStoreGlobal:
      if (t.store_queue == 0) {  // the what-if: a store holds its warp as a load does
        blocking_access(w);
        return;
      }
      global_accesses_.inc();
      posted_stores_.inc();
      stall(w, StallReason::kMemory);
      if (stores_in_flight_ < t.store_queue) {
        post_store(w, cycle);
      } else {
        store_queue_waits_.inc();
        store_waiters_.push_back(&w);
      }
      return;
    case OpKind::kLoadGlobal:
    case OpKind::kAtomicGlobal:  // performed at L2: timed as a load's round trip
      blocking_access(w);
      return;
    case OpKind::kLoadDsmem:
    case OpKind::kStoreDsmem:
    case OpKind::kAtomicAddDsmem:
      dsmem_op(w, cycle);
      return;
    case OpKind::kClusterSync:
      cluster_sync(w);
      return;
    case OpKind::kLoadRegsGlobal:
    case OpKind::kLoadRegsShared:
      register_load_op(w, cycle);
      return;
    case OpKind::kMm:
      if (w.mm.math) {
        mm_math(w, cycle);
      } else {
        mm_memory(w, cycle);
      }
      return;
    case OpKind::kClock:
    case OpKind::kGlobalTimer:
      // %globaltimer: nanoseconds of simulated time (ticks are picoseconds).
      *op.value = op.kind == OpKind::kClock ? cycle : now() / 1000;
      stall(w, StallReason::kDependency);
      wake(w, cycle + t.alu_latency);
      return;
    case OpKind::kBarrierSync:
    case OpKind::kBarrierArrive:
    case OpKind::kBarrierRed:
      bar_sync(w, cycle);
      return;
    case OpKind::kTma:
      tma_op(w, cycle);
      return;
    case OpKind::kMbarArriveRemote:
      mbarrier_arrive_remote(w, cycle);
      return;
    default:
      mbarrier_op(w, cycle);
      return;
  }
}

void Sm::blocking_access(WarpSlot& w) {
  global_accesses_.inc();
  stall(w, StallReason::kMemory);
  const Op& op = w.op;
  if (!tracing_) {
    port_.access(
        cfg_.id, op, op.mask, [this, &w] { wake(w, cycle_now()); }, &w);
    return;
  }
  port_.access(cfg_.id, op, op.mask, [this, &w, issued = now()] {
    trace_warp(w,
               w.op.kind == OpKind::kLoadGlobal     ? "ld.global"
               : w.op.kind == OpKind::kAtomicGlobal ? "atom.global"
                                                    : "st.global",
               issued);
    wake(w, cycle_now());
  });
}

void Sm::post_store(WarpSlot& w, std::uint64_t cycle) {
  ++stores_in_flight_;
  ++w.stores;
  // The store's addresses are read now (the port coalesces at issue) and its data was written
  // at submission, so the warp may go on and overwrite both.
  port_.access(cfg_.id, w.op, w.op.mask,
               [this, &w, issued = now()] { store_acknowledged(w, issued); });
  stall(w, StallReason::kDependency);
  wake(w, cycle + cfg_.timing.lsu_issue_cycles);
}

void Sm::store_acknowledged(WarpSlot& w, sim::Tick issued) {
  if (tracing_) {
    sim::Tracer& t = sim().tracer();
    t.complete(t.track(fmt::format("{}.w{:02}.st", path(), w.slot)), "st.global", issued, now(),
               "sm");
  }
  --stores_in_flight_;
  --w.stores;
  if (!store_waiters_.empty()) {  // the freed entry goes to the oldest store waiting for one
    WarpSlot& next = *store_waiters_.front();
    store_waiters_.pop_front();
    store_queue_wait_cycles_.inc(clock_.cycle_at(now()) - next.since_cycle);
    post_store(next, cycle_now());
  }
  exit_if_drained(w);
}

void Sm::exit_if_drained(WarpSlot& w) {
  if (!w.exit_deferred || w.reg_loads > 0 || w.stores > 0) return;
  w.exit_deferred = false;
  warp_exited(w);
}

std::uint32_t Sm::shared_wavefronts(const Op& op) {
  // The accesses were checked when accepted: the allocation-free path (bank_conflicts.h).
  const mem::BankConflictCost cost =
      mem::valid_warp_access_cost(*op.addr, op.mask, op.bytes, cfg_.banks);
  shared_wavefronts_.inc(cost.wavefronts);
  bank_conflicts_.inc(cost.conflict_wavefronts());
  return cost.wavefronts;
}

std::uint64_t Sm::shared_stage(std::uint64_t cycle, std::uint32_t wavefronts) {
  // The data stage serves one wavefront per cycle, shared by the sub-partitions.
  return shared_stage_.book(cycle + cfg_.timing.lsu_issue_cycles, wavefronts) +
         cfg_.timing.shared_latency - 1;
}

void Sm::bar_sync(WarpSlot& w, std::uint64_t cycle) {
  Cta& c = w.cta;
  const std::uint32_t expected =
      w.op.count == 0 ? c.alive : (w.op.count + kernel::kWarpSize - 1) / kernel::kWarpSize;
  Cta::Bar& b = c.bars[w.op.barrier];
  b.expected_threads = w.op.count;
  ++b.arrived;
  if (w.op.kind == OpKind::kBarrierRed) {
    b.red_sum += w.op.tx_bytes;
    b.red_and = b.red_and && w.op.tx_bytes != 0;
    b.red_or = b.red_or || w.op.tx_bytes != 0;
  }
  if (w.op.kind == OpKind::kBarrierArrive) {  // a producer: counted, not held
    stall(w, StallReason::kDependency);
    wake(w, cycle + 1);
  } else {
    b.waiting.push_back(&w);
    stall(w, StallReason::kBarrier);
  }
  if (b.arrived < expected) return;
  release_bar(c, w.op.barrier, cycle);
}

void Sm::release_bar(Cta& c, std::uint32_t id, std::uint64_t cycle) {
  Cta::Bar& b = c.bars[id];
  for (WarpSlot* x : b.waiting) {
    if (x->op.kind == OpKind::kBarrierRed && x->op.value != nullptr) {
      *x->op.value = x->op.atom == kernel::AtomOp::kAnd  ? std::uint64_t{b.red_and}
                     : x->op.atom == kernel::AtomOp::kOr ? std::uint64_t{b.red_or}
                                                         : b.red_sum;
    }
    wake(*x, cycle + cfg_.timing.barrier_latency);
  }
  b = {};
}

void Sm::mbarrier_op(WarpSlot& w, std::uint64_t cycle) {
  Cta& c = w.cta;
  const Op& op = w.op;
  const std::uint64_t done = cycle + cfg_.timing.mbarrier_latency;
  if (op.mbar % 8 != 0 || !c.smem.check_range(op.mbar, 8)) {
    raise(w, fmt::format("mbarrier at shared offset {:#x}: not an 8-byte aligned offset inside "
                         "the CTA's {} B window",
                         op.mbar, c.smem.size()));
    return;
  }
  if (op.kind == OpKind::kMbarInit) {
    MBarrier bar;
    if (auto st = bar.init(op.count); !st) {
      raise(w, fmt::format("mbarrier at {:#x}: {}", op.mbar, st.error().message));
      return;
    }
    c.mbarriers.init(op.mbar, bar);
    stall(w, StallReason::kDependency);
    wake(w, done);
    return;
  }
  MbarrierSlot* const found = c.mbarriers.find(op.mbar);
  if (found == nullptr) {
    raise(w, fmt::format("mbarrier at shared offset {:#x} was never initialized", op.mbar));
    return;
  }
  MbarrierSlot& m = *found;
  Result<bool> completed = false;
  const auto arrived = [](const Result<ArriveResult>& r) -> Result<bool> {
    if (!r) return r.errors();
    return r->phase_completed;
  };
  const auto parity_done = [&m](std::uint32_t parity) {
    const Result<bool> r = m.bar.test_wait_parity(parity);
    return r.ok() && *r;
  };
  switch (op.kind) {
    case OpKind::kMbarArrive: {
      const auto r =
          op.tx_bytes != 0 ? m.bar.arrive_expect_tx(op.tx_bytes) : m.bar.arrive(op.count);
      if (r && op.value != nullptr) *op.value = r->token.bits();  // the state an arrive returns
      completed = arrived(r);
      break;
    }
    case OpKind::kMbarExpectTx:
      completed = m.bar.expect_tx(op.tx_bytes);
      break;
    case OpKind::kMbarCompleteTx:
      completed = m.bar.complete_tx(op.tx_bytes);
      break;
    case OpKind::kMbarTryWait:
      *op.result = parity_done(op.parity);
      break;
    case OpKind::kMbarWait:
      if (!parity_done(op.parity)) {
        stall(w, StallReason::kBarrier);
        m.waiters.push_back(&w);
        return;
      }
      break;
    default:
      XPUSIM_CHECK(false, "not an mbarrier operation");
  }
  if (!completed) {
    raise(w, fmt::format("mbarrier at {:#x}: {}", op.mbar, completed.error().message));
    return;
  }
  if (*completed) phase_completed(m, done);
  stall(w, StallReason::kDependency);
  wake(w, done);
}

void Sm::phase_completed(MbarrierSlot& m, std::uint64_t cycle) {
  // The phase flipped: waiters on the completed parity go (PTX try_wait.parity semantics).
  std::vector<WarpSlot*> still;
  for (WarpSlot* x : m.waiters) {
    const Result<bool> r = m.bar.test_wait_parity(x->op.parity);
    if (r.ok() && *r) {
      wake(*x, cycle);
    } else {
      still.push_back(x);
    }
  }
  m.waiters = std::move(still);
}

void Sm::wake(WarpSlot& w, std::uint64_t cycle) {
  events().schedule(w, clock_.edge(std::max(cycle, cycle_now())));
}

void Sm::release(kernel::Warp& warp, std::uint64_t cycle) {
  wake(*static_cast<WarpSlot*>(warp.executor_slot), cycle);
}

void Sm::trace_warp(const WarpSlot& w, std::string_view what, sim::Tick begin) {
  sim::Tracer& t = sim().tracer();
  const sim::TrackId track = t.track(fmt::format("{}.w{:02}", path(), w.slot));
  t.complete(track, what, begin, now(), "sm");
}

std::vector<std::string> Sm::hang_report() const {
  std::vector<std::string> out;
  for (const auto& c : ctas_) {
    for (const auto& w : c->warps) {
      if (!w->warp.suspended() || w->scheduled()) continue;
      const kernel::Dim3& b = c->work.block_id;
      // Described from the state now (nothing is formatted while the run goes).
      std::string on = w->faulted ? "faulted" : "an operation that never completed";
      if (!w->faulted &&
          (w->op.kind == OpKind::kBarrierSync || w->op.kind == OpKind::kBarrierRed)) {
        const auto it = c->bars.find(w->op.barrier);
        on = fmt::format("bar.sync {} ({} warps arrived, {} alive)", w->op.barrier,
                         it == c->bars.end() ? 0 : it->second.arrived, c->alive);
      }
      if (!w->faulted && w->op.kind == OpKind::kMbarWait) {
        if (const MbarrierSlot* m = c->mbarriers.find(w->op.mbar); m != nullptr) {
          on = fmt::format("mbarrier at {:#x} waiting for parity {}: {}", w->op.mbar, w->op.parity,
                           m->bar.state().describe());
        }
      }
      if (!w->faulted && w->group_wait) {
        on = fmt::format("cp.async.bulk.wait_group{} {} ({} committed groups not done)",
                         w->op.tma->read ? ".read" : "", w->op.tma->pending, w->groups.size());
      }
      if (w->warp.source != nullptr)
        on += fmt::format(" at {}:{}", w->warp.source, w->warp.source_line);
      out.push_back(fmt::format("{}: {} block ({},{},{}) warp {}: {}", path(), c->work.kernel->name,
                                b.x, b.y, b.z, w->warp.warp_id(), on));
    }
  }
  return out;
}

}  // namespace xpusim::core
