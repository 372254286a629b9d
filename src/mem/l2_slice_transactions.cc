// L2Slice's transaction-level timing: a request handled whole when it is issued, with no
// events (docs/memory-hierarchy.md, "Transaction-level timing").
#include <algorithm>
#include <bit>
#include <functional>

#include "mem/crossbar.h"
#include "mem/l2_slice.h"

namespace xpusim::mem {

void L2Slice::retire_first() {
  const BusyMshrs::Entry b = busy_mshrs_.pop_front();
  // Only a miss that found the line absent left it in arriving_ with this tick as its first
  // fill. A write may have allocated it meanwhile (taking its in-flight state), or it may be
  // missing again, with a later fill of its own.
  const Arriving* m = arriving_.find(b.line);
  if (m == nullptr || m->first_fill != b.free_at) return;
  // The fill allocates the line as events' fill() does: its victim leaves now, not at the
  // miss, and a dirty one is written back from the fill's tick.
  SectorCache::Line& l = allocate_in(b.set, b.line, b.free_at, nullptr);
  l.valid |= m->pending;
  in_flight_[tags_.index_of(l)] =
      InFlight{.ready = m->ready, .pending = m->pending, .weight = m->weight};
  arriving_.erase(b.line);
}

void L2Slice::settle(sim::Tick upto) {
  while (!busy_mshrs_.empty() && busy_mshrs_.front().free_at <= upto)
    retire_first();
}

sim::Tick L2Slice::take_mshr(sim::Tick at) {
  // The MSHRs as servers in request order: those free by `at` retire; with all busy, the miss
  // starts when the earliest frees.
  settle(at);
  if (busy_mshrs_.size() < params_.mshrs) return at;
  ++mshr_full_stalls;
  const sim::Tick t = busy_mshrs_.front().free_at;
  retire_first();
  return t;
}

L2Slice::Answer L2Slice::read_in(std::size_t set, std::uint64_t line, std::uint32_t sectors,
                                 sim::Tick at, std::uint32_t weight) {
  transactions_ = true;
  weighted_ |= weight > 1;
  if (in_flight_.empty()) in_flight_.resize(tags_.size());
  settle(at);
  SectorCache::Line* l = tags_.find(line, set);
  Arriving* absent = l == nullptr ? arriving_.find(line) : nullptr;  // missing, its fill on the way
  std::uint32_t need = sectors;
  bool arriving = false;  // the line's last miss is still on its way
  std::uint32_t pending = 0;
  sim::Tick ready = 0;
  if (l != nullptr) {
    tags_.touch(*l);
    const InFlight& f = in_flight_[tags_.index_of(*l)];
    arriving = f.ready > at;
    pending = f.pending;
    ready = f.ready;
    need &= ~l->valid;
  } else if (absent != nullptr) {
    arriving = true;  // settle() applied every fill due by `at`
    pending = absent->pending;
    ready = absent->ready;
    need &= ~pending;
  }
  if (need == 0) {
    if (arriving && (pending & sectors) != 0) {
      merged_misses += weight;
      return {.ready = ready, .pipeline = 0};
    }
    hits += weight;
    return {.ready = at, .pipeline = params_.hit_latency_cycles};
  }
  misses += weight;
  // Missing sectors of a line with a miss in flight join its MSHR (as serve_read does).
  sim::Tick start = at;
  if (!arriving) {
    start = take_mshr(at);
    // take_mshr() may apply a fill whose victim is this line (only with one way: the line was
    // just made the most recently used); then all its sectors are missing.
    if (l != nullptr && (l = tags_.find(line, set)) == nullptr) need = sectors;
  }
  hbm_read_sectors += static_cast<std::uint64_t>(std::popcount(need)) * weight;
  const sim::Tick done = hbm_.sectors_at(line, need, /*write=*/false, start);
  // The lookup that found the miss is added behind the HBM booking, as fetch() does.
  const sim::Tick fill_at = cycles_after(clock_, done, params_.hit_latency_cycles);
  const bool waits_for_older = arriving && (pending & sectors) != 0;
  const sim::Tick answer = waits_for_older ? std::max(ready, fill_at) : fill_at;
  if (arriving) {
    if (l != nullptr) {
      InFlight& f = in_flight_[tags_.index_of(*l)];
      f.pending |= need;
      f.ready = std::max(f.ready, fill_at);
      l->valid |= need;
    } else {
      absent->pending |= need;
      absent->ready = std::max(absent->ready, fill_at);
    }
    return {.ready = answer, .pipeline = 0, .read_hbm = true, .hbm_from = start};
  }
  occupancy_area_ += static_cast<double>(fill_at - start) * weight;
  busy_mshrs_.insert(fill_at, line, set);
  mshr_peak_.set(std::max(mshr_peak_.value(), static_cast<double>(busy_mshrs_.size())));
  if (l != nullptr) {
    in_flight_[tags_.index_of(*l)] = InFlight{.ready = fill_at, .pending = need, .weight = weight};
    l->valid |= need;
  } else {
    arriving_.insert(line) =
        Arriving{.first_fill = fill_at, .ready = fill_at, .pending = need, .weight = weight};
  }
  return {.ready = answer, .pipeline = 0, .read_hbm = true, .hbm_from = start};
}

L2Slice::Answer L2Slice::write_in(std::size_t set, std::uint64_t line, std::uint32_t sectors,
                                  sim::Tick at, std::uint32_t weight) {
  transactions_ = true;
  weighted_ |= weight > 1;
  if (in_flight_.empty()) in_flight_.resize(tags_.size());
  settle(at);
  writes += weight;
  SectorCache::Line* found = tags_.find(line, set);
  sim::Tick free = at;
  SectorCache::Line& l = allocate_in(set, line, at, &free);
  if (found == nullptr) {
    // Write-allocate: a miss still in flight for the line moves into its way (as events keep
    // its MSHR); otherwise nothing of the new line is arriving.
    InFlight f{};
    if (const Arriving* m = arriving_.find(line)) {
      f = InFlight{.ready = m->ready, .pending = m->pending, .weight = m->weight};
      l.valid |= m->pending;
      arriving_.erase(line);
    }
    in_flight_[tags_.index_of(l)] = f;
  }
  // Its dirty sectors stand for the lines this write stands for.
  in_flight_[tags_.index_of(l)].weight = weight;
  l.valid |= sectors;
  l.dirty |= sectors;
  // A victim that waited for a write-back buffer holds the acknowledgement back as long.
  return {.ready = std::max(at, free), .pipeline = params_.hit_latency_cycles};
}

}  // namespace xpusim::mem
