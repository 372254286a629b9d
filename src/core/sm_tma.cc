// The SM's side of the TMA (seed0; docs/tma-unit.md): a warp's TMA instruction takes one
// issue slot and is handed to the SM's TMA unit (tma/tma_unit.h); the warp goes on unless the
// unit's queue is full. The unit calls back here (TmaClient) to set an operation up with the
// golden model (copy_engine.h) — which also moves the bytes in functional mode — and to credit
// complete_tx bytes on the destination barriers as responses land. Stores and reductions
// complete through bulk async-groups (commit_group / wait_group). A CTA whose warps have all
// exited retires only when its TMA operations have finished (they still name its memory).
#include <fmt/format.h>

#include <algorithm>

#include "core/sm.h"
#include "core/sm_state.h"

namespace xpusim::core {

using kernel::OpKind;
using kernel::TmaKind;

namespace {

std::string describe(const kernel::TmaOp& op) {
  static constexpr const char* kNames[] = {"tma.load_tile",
                                           "tma.load_im2col",
                                           "tma.store",
                                           "tma.reduce",
                                           "tma.prefetch",
                                           "tma.bulk_load",
                                           "tma.bulk_store",
                                           "tma.bulk_copy_to_cluster",
                                           "tma.bulk_prefetch",
                                           "tma.prefetch_descriptor",
                                           "tma.commit_group",
                                           "tma.wait_group",
                                           "tma.invalidate_descriptor",
                                           "tma.bulk_reduce",
                                           "tma.bulk_reduce_to_cluster",
                                           "tma.bulk_copy_global",
                                           "tma.store_im2col",
                                           "tma.reduce_im2col"};
  static_assert(std::size(kNames) == static_cast<std::size_t>(TmaKind::kReduceIm2col) + 1);
  std::string s = kNames[static_cast<int>(op.kind)];
  if (op.is_tensor() || op.kind == TmaKind::kInvalidateDescriptor)
    s += fmt::format(" (tensor map {:#x})", op.descriptor);
  return s;
}

tma::ReduceOp reduce_of(kernel::TmaReduce r) {
  return static_cast<tma::ReduceOp>(r);
}

tma::DataType element_of(kernel::TmaElement e) {
  switch (e) {
    case kernel::TmaElement::kU32:
      return tma::DataType::kUint32;
    case kernel::TmaElement::kS32:
      return tma::DataType::kInt32;
    case kernel::TmaElement::kU64:
      return tma::DataType::kUint64;
    case kernel::TmaElement::kS64:
      return tma::DataType::kInt64;
    case kernel::TmaElement::kF16:
      return tma::DataType::kFloat16;
    case kernel::TmaElement::kBf16:
      return tma::DataType::kBfloat16;
    case kernel::TmaElement::kF32:
      return tma::DataType::kFloat32;
    case kernel::TmaElement::kF64:
      return tma::DataType::kFloat64;
  }
  return tma::DataType::kUint32;
}

}  // namespace

void Sm::set_tma(tma::TmaUnit& unit) {
  cfg_.tma = &unit;
  unit.attach(cfg_.id, *this);
}

void Sm::tma_op(WarpSlot& w, std::uint64_t cycle) {
  tma_instructions_.inc();
  const kernel::TmaOp& op = *w.op.tma;
  WarpSlot::Group& open = w.open_group;
  switch (op.kind) {
    case TmaKind::kCommitGroup:
      w.groups.push_back(open);
      open = {};
      stall(w, StallReason::kDependency);
      wake(w, cycle + 1);
      return;
    case TmaKind::kWaitGroup:
      if (groups_done(w)) {
        stall(w, StallReason::kDependency);
        wake(w, cycle + 1);
      } else {
        w.group_wait = true;
        stall(w, StallReason::kMemory);
      }
      return;
    default:
      break;
  }
  if (cfg_.tma == nullptr) {
    raise(w, fmt::format("{}: this SM has no TMA unit", describe(op)));
    return;
  }
  if (!tma_blocked_.empty() || !tma_submit(w)) {  // queue full: the warp waits its turn
    tma_blocked_.push_back(&w);
    stall(w, StallReason::kMemory);
    return;
  }
  stall(w, StallReason::kDependency);
  wake(w, cycle + 1);
}

bool Sm::tma_submit(WarpSlot& w) {
  if (tma_free_.empty()) {
    tma_records_.push_back(std::make_unique<TmaRecord>());
    tma_free_.push_back(static_cast<std::uint32_t>(tma_records_.size() - 1));
  }
  const std::uint32_t index = tma_free_.back();
  const kernel::TmaOp& op = *w.op.tma;
  if (!cfg_.tma->submit(tma::TmaJob{.op = op, .sm = cfg_.id, .tag = index})) return false;
  tma_free_.pop_back();
  TmaRecord& r = *tma_records_[index];
  r = TmaRecord{.warp = &w,
                .cta = &w.cta,
                .cluster = w.cta.cluster,
                .op = op,
                .to = {},
                .destinations = 0,
                .group = w.group_base + w.groups.size(),
                .in_use = true};
  ++w.cta.tma_inflight;
  if (op.is_bulk_group()) {
    ++w.open_group.unread;
    ++w.open_group.unfinished;
  }
  return true;
}

void Sm::queue_space() {
  while (!tma_blocked_.empty()) {
    WarpSlot& w = *tma_blocked_.front();
    if (!tma_submit(w)) return;
    tma_blocked_.pop_front();
    stall(w, StallReason::kDependency);
    wake(w, cycle_now() + 1);
  }
}

bool Sm::groups_done(const WarpSlot& w) const {
  // All committed groups but the newest `pending` must be complete (read: sources read).
  const kernel::TmaOp& op = *w.op.tma;
  const std::size_t n = w.groups.size();
  const std::size_t must = n > op.pending ? n - op.pending : 0;
  for (std::size_t i = 0; i < must; ++i) {
    if ((op.read ? w.groups[i].unread : w.groups[i].unfinished) != 0) return false;
  }
  return true;
}

void Sm::group_progress(TmaRecord& r, bool read) {
  WarpSlot& w = *r.warp;
  WarpSlot::Group& g =
      r.group >= w.group_base + w.groups.size() ? w.open_group : w.groups[r.group - w.group_base];
  --(read ? g.unread : g.unfinished);
  while (!w.groups.empty() && w.groups.front().unfinished == 0 && w.groups.front().unread == 0) {
    w.groups.pop_front();
    ++w.group_base;
  }
  if (w.group_wait && groups_done(w)) {
    w.group_wait = false;
    wake(w, cycle_now() + 1);
  }
}

Sm::Cta* Sm::cta_of(const ClusterContext* k, std::uint32_t rank) {
  for (auto& c : ctas_) {
    if (c->cluster == k && c->work.cluster_rank == rank) return c.get();
  }
  return nullptr;
}

Result<tma::TmaPlan> Sm::plan(const tma::TmaJob& job, const tma::CachedDescriptor* d) {
  TmaRecord& r = *tma_records_[job.tag];
  const kernel::TmaOp& op = job.op;
  Cta& c = *r.cta;
  ClusterContext& k = *c.cluster;
  const std::string what = describe(op);
  const auto fail = [&](const std::string& why) -> Result<tma::TmaPlan> {
    return Error{fmt::format("{}: {}", what, why)};
  };
  tma::TmaPlan p;
  const std::span<const std::int32_t> coords(op.coords.data(), std::min<std::size_t>(op.rank, 5));

  // Destinations of a load: this CTA, or the multicast ranks (seed0 §3.7).
  const auto destinations = [&]() -> Result<std::vector<tma::SmemTarget>> {
    std::vector<mem::SharedMemory*> windows;
    for (const ClusterContext::Rank& x : k.ranks)
      windows.push_back(x.smem);
    const std::uint16_t mask =
        op.cta_mask != 0 ? op.cta_mask : static_cast<std::uint16_t>(1u << c.work.cluster_rank);
    auto targets = tma::multicast_targets(windows, mask, op.smem);
    if (!targets) return targets.errors();
    for (std::uint32_t rank = 0; rank < 16; ++rank) {
      if ((mask >> rank & 1u) == 0) continue;
      r.to[r.destinations++] = {.rank = rank, .sm = k.ranks[rank].sm};
      p.destination_sms.push_back(k.ranks[rank].sm->id());
      const mem::SharedMemory& s = *k.ranks[rank].smem;
      if (op.mbar % 8 != 0 || !s.check_range(op.mbar, 8)) {
        return Error{
            fmt::format("mbarrier offset {:#x} is not an 8-byte aligned offset inside "
                        "rank {}'s {} B window",
                        op.mbar, rank, s.size())};
      }
    }
    return targets;
  };
  // Timing-only stores: the same requests without writing global memory.
  const auto store_requests = [&]() -> Result<tma::CopyReport> {
    auto rep = tma::prefetch_tile(d->map, coords);
    if (!rep) return rep;
    const std::uint64_t bytes = tma::box_footprint(d->map);
    if (auto st = c.smem.check_range(op.smem, static_cast<std::uint32_t>(bytes)); !st) {
      return st.errors();
    }
    return rep;
  };

  Result<tma::CopyReport> rep = tma::CopyReport{};
  switch (op.kind) {
    case TmaKind::kLoadTile:
    case TmaKind::kLoadIm2col: {
      auto targets = destinations();
      if (!targets) return fail(targets.errors().front().message);
      p.flow = tma::TmaPlan::Flow::kLoad;
      if (op.kind == TmaKind::kLoadTile) {
        // Timing only moves no bytes: the same checks and requests without the copy.
        if (d->tiled && !cfg_.functional) {
          rep = tma::load_tile_requests(*d->tiled, coords, *targets);
        } else {
          rep = d->tiled ? tma::load_tile(*d->tiled, coords, memory_, *targets)
                         : tma::load_tile(d->map, coords, memory_, *targets);
        }
      } else {
        const std::span<const std::uint16_t> offs(op.offsets.data(),
                                                  std::min<std::size_t>(op.offset_count, 3));
        rep = cfg_.functional ? tma::load_im2col(d->map, coords, offs, memory_, *targets)
                              : tma::load_im2col_requests(d->map, coords, offs, *targets);
      }
      break;
    }
    case TmaKind::kStoreTile:
      p.flow = tma::TmaPlan::Flow::kStore;
      rep = cfg_.functional ? tma::store_tile(d->map, coords, c.smem, op.smem, memory_)
                            : store_requests();
      break;
    case TmaKind::kReduceTile:
      p.flow = tma::TmaPlan::Flow::kStore;
      rep = cfg_.functional
                ? tma::reduce_tile(d->map, reduce_of(op.reduce), coords, c.smem, op.smem, memory_)
                : store_requests();
      break;
    case TmaKind::kStoreIm2col:
    case TmaKind::kReduceIm2col: {
      p.flow = tma::TmaPlan::Flow::kStore;
      mem::GlobalMemory scratch;  // timing only: the same checks and requests, nothing written
      mem::GlobalMemory& into = cfg_.functional ? memory_ : scratch;
      rep = op.kind == TmaKind::kStoreIm2col
                ? tma::store_im2col(d->map, coords, c.smem, op.smem, into)
                : tma::reduce_im2col(d->map, reduce_of(op.reduce), coords, c.smem, op.smem, into);
      break;
    }
    case TmaKind::kPrefetchTile:
      p.flow = tma::TmaPlan::Flow::kPrefetch;
      rep = tma::prefetch_tile(d->map, coords);
      break;
    case TmaKind::kPrefetchDescriptor:
    case TmaKind::kInvalidateDescriptor:
      p.flow = tma::TmaPlan::Flow::kNone;
      break;
    case TmaKind::kBulkLoad: {
      auto targets = destinations();
      if (!targets) return fail(targets.errors().front().message);
      p.flow = tma::TmaPlan::Flow::kLoad;
      rep = tma::bulk_global_to_shared(memory_, op.global, *targets, op.bytes);
      break;
    }
    case TmaKind::kBulkStore:
      p.flow = tma::TmaPlan::Flow::kStore;
      if (cfg_.functional) {
        rep = tma::bulk_shared_to_global(c.smem, op.smem, memory_, op.global, op.bytes);
      } else {
        mem::GlobalMemory scratch;  // same checks and requests, nothing written
        rep = tma::bulk_shared_to_global(c.smem, op.smem, scratch, op.global, op.bytes);
      }
      break;
    case TmaKind::kBulkReduce:
      p.flow = tma::TmaPlan::Flow::kStore;
      if (cfg_.functional) {
        rep = tma::bulk_reduce_shared_to_global(reduce_of(op.reduce), element_of(op.element),
                                                c.smem, op.smem, memory_, op.global, op.bytes);
      } else {
        mem::GlobalMemory scratch;  // same checks and requests, nothing written
        rep = tma::bulk_reduce_shared_to_global(reduce_of(op.reduce), element_of(op.element),
                                                c.smem, op.smem, scratch, op.global, op.bytes);
      }
      break;
    case TmaKind::kBulkGlobalToGlobal: {
      p.flow = tma::TmaPlan::Flow::kGlobalCopy;
      if (cfg_.functional) {
        rep = tma::bulk_global_to_global(memory_, op.source, op.global, op.bytes);
      } else {
        mem::GlobalMemory scratch;
        rep = tma::bulk_global_to_global(scratch, op.source, op.global, op.bytes);
      }
      // The report lists the source's line requests, then the destination's.
      if (rep && op.bytes > 0) {
        const std::uint64_t line = tma::kLineBytes;
        p.reads =
            static_cast<std::uint32_t>((op.source + op.bytes - 1) / line - op.source / line + 1);
      }
      break;
    }
    case TmaKind::kBulkSharedToCluster:
    case TmaKind::kBulkReduceToCluster: {
      if (op.dst_rank >= k.size() || k.ranks[op.dst_rank].smem == nullptr) {
        return fail(fmt::format("destination rank {} is not a running CTA of the cluster of {}",
                                op.dst_rank, k.size()));
      }
      const ClusterContext::Rank& to = k.ranks[op.dst_rank];
      if (op.mbar % 8 != 0 || !to.smem->check_range(op.mbar, 8)) {
        return fail(
            fmt::format("mbarrier offset {:#x} is not an 8-byte aligned offset inside "
                        "rank {}'s window",
                        op.mbar, op.dst_rank));
      }
      p.flow = tma::TmaPlan::Flow::kToCluster;
      r.to[r.destinations++] = {.rank = op.dst_rank, .sm = to.sm};
      p.destination_sms.push_back(to.sm->id());
      const tma::SmemTarget target{.smem = to.smem,
                                   .offset = static_cast<std::uint32_t>(op.global)};
      rep = op.kind == TmaKind::kBulkSharedToCluster
                ? tma::bulk_shared_to_shared(c.smem, op.smem, target, op.bytes)
                : tma::bulk_reduce_shared_to_shared(reduce_of(op.reduce), element_of(op.element),
                                                    c.smem, op.smem, target, op.bytes);
      break;
    }
    case TmaKind::kBulkPrefetch:
      p.flow = tma::TmaPlan::Flow::kPrefetch;
      rep = tma::bulk_prefetch(op.global, op.bytes);
      break;
    default:
      XPUSIM_CHECK(false, "commit/wait never reach the TMA unit");
  }
  if (!rep) return fail(rep.errors().front().message);
  p.report = std::move(*rep);
  if (p.flow == tma::TmaPlan::Flow::kToCluster) p.report.bytes_per_destination = op.bytes;
  // A store's, reduction's or shared-to-cluster copy's source streams out of shared memory:
  // one wavefront per 128 B on this SM's data stage.
  if (p.flow == tma::TmaPlan::Flow::kStore || p.flow == tma::TmaPlan::Flow::kToCluster) {
    const std::uint64_t bytes = op.is_tensor() ? tma::box_bytes(d->map) : op.bytes;
    (void)shared_stage(cycle_now(), static_cast<std::uint32_t>((bytes + 127) / 128));
  }
  return p;
}

void Sm::dropped(const tma::TmaJob& job, const Error& error) {
  TmaRecord& r = *tma_records_[job.tag];
  const kernel::Dim3& b = r.cta->work.block_id;
  tma_errors_.push_back(fmt::format("{} block ({},{},{}) warp {}: TMA request dropped: {}",
                                    r.cta->work.kernel->name, b.x, b.y, b.z, r.warp->warp.warp_id(),
                                    error.message));
  // Its barrier is never credited; a bulk-group operation counts as done so that wait_group
  // does not hang on top of the reported error.
  if (job.op.is_bulk_group()) source_read(job);
  finished(job);
}

void Sm::tma_credit(const ClusterContext* k, std::uint32_t rank, std::uint32_t mbar,
                    std::uint32_t bytes, const Cta& from, sim::Tick since) {
  Cta* c = cta_of(k, rank);
  if (c == nullptr) return;  // the destination CTA has exited: nothing to credit
  // The bytes are written into shared memory through its data stage (one wavefront per
  // 128 B), delaying the SM's own shared accesses behind them.
  const std::uint64_t cycle = cycle_now();
  const auto wavefronts = static_cast<std::uint32_t>((bytes + 127) / 128);
  std::uint64_t done = 0;
  if (since >= now()) {
    done = shared_stage(cycle, wavefronts);
  } else {
    // A whole box (the transaction-level timing): its lines landed from `since` to now, each
    // taking its wavefront as it came. Each is booked at its share of that span, in the first
    // cycle the stage had free then, so the SM's own accesses booked meanwhile do not queue
    // behind the whole box.
    const std::uint64_t first = clock_.first_cycle_from(since);
    const sim::Cycles issue = cfg_.timing.lsu_issue_cycles;
    done = shared_stage_.book_spread(first + issue, cycle + issue, wavefronts, 1) +
           cfg_.timing.shared_latency - 1;
  }
  MbarrierSlot* slot = c->credited != nullptr && c->credited_offset == mbar ? c->credited : nullptr;
  if (slot == nullptr) {
    slot = c->mbarriers.find(mbar);
    if (slot != nullptr) {
      c->credited = slot;
      c->credited_offset = mbar;
    }
  }
  const auto bad = [&](const std::string& why) {
    const kernel::Dim3& block = from.work.block_id;
    tma_errors_.push_back(
        fmt::format("TMA complete_tx of {} bytes from block ({},{},{}) on the "
                    "mbarrier at {:#x} of block ({},{},{}): {}",
                    bytes, block.x, block.y, block.z, mbar, c->work.block_id.x, c->work.block_id.y,
                    c->work.block_id.z, why));
  };
  if (slot == nullptr) {
    bad("the barrier was never initialized");
    return;
  }
  const Result<bool> completed = slot->bar.complete_tx(bytes);
  if (!completed) {
    bad(completed.errors().front().message);
    return;
  }
  if (*completed) phase_completed(*slot, done);
}

void Sm::landed(const tma::TmaJob& job, std::uint32_t d, std::uint32_t bytes, sim::Tick since) {
  const TmaRecord& r = *tma_records_[job.tag];
  const TmaRecord::Destination& to = r.to[d];
  to.sm->tma_credit(r.cluster, to.rank, job.op.mbar, bytes, *r.cta, since);
}

void Sm::source_read(const tma::TmaJob& job) {
  // Its shared-memory reads were charged at setup (plan); the group may now reuse the source.
  if (job.op.is_bulk_group()) group_progress(*tma_records_[job.tag], true);
}

void Sm::finished(const tma::TmaJob& job) {
  TmaRecord& r = *tma_records_[job.tag];
  if (job.op.is_bulk_group()) group_progress(r, false);
  Cta& c = *r.cta;
  r.in_use = false;
  tma_free_.push_back(static_cast<std::uint32_t>(job.tag));
  if (--c.tma_inflight == 0 && c.retire_pending) retire_cta(c);
}

void Sm::mbarrier_arrive_remote(WarpSlot& w, std::uint64_t cycle) {
  ClusterContext& k = *w.cta.cluster;
  const kernel::Op& op = w.op;
  if (op.rank >= k.size() || k.ranks[op.rank].sm == nullptr || k.ranks[op.rank].exited) {
    raise(w, fmt::format("remote mbarrier arrive: rank {} is not a running CTA of the cluster "
                         "of {}",
                         op.rank, k.size()));
    return;
  }
  Sm& to = *k.ranks[op.rank].sm;
  Cta* target = to.cta_of(&k, op.rank);
  if (target == nullptr || !target->mbarriers.contains(op.mbar)) {
    raise(w, fmt::format("remote mbarrier arrive: rank {} has no initialized barrier at {:#x}",
                         op.rank, op.mbar));
    return;
  }
  const std::uint32_t rank = op.rank, mbar = op.mbar, count = op.count;
  const auto arrive = [&to, kp = &k, rank, mbar, count] {
    Cta* c = to.cta_of(kp, rank);
    if (c == nullptr) return;
    MbarrierSlot* const slot = c->mbarriers.find(mbar);
    if (slot == nullptr) return;
    const Result<ArriveResult> a = slot->bar.arrive(count);
    if (!a) {
      to.tma_errors_.push_back(fmt::format("remote mbarrier arrive on {:#x} of rank {}: {}", mbar,
                                           rank, a.errors().front().message));
      return;
    }
    if (a->phase_completed) to.phase_completed(*slot, to.cycle_now());
  };
  if (&to == this) {
    events().post(clock_.edge(cycle + cfg_.timing.mbarrier_latency), arrive);
  } else {
    port_.remote_push(cfg_.id, to.id(), mem::kControlMessageBytes, arrive);
  }
  stall(w, StallReason::kDependency);
  wake(w, cycle + cfg_.timing.mbarrier_latency);
}

}  // namespace xpusim::core
