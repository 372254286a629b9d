// L2Slice's transaction-level timing: a request handled whole when it is issued, with no
// events (docs/memory-hierarchy.md, "Transaction-level timing").
#include <algorithm>
#include <bit>
#include <functional>

#include "mem/crossbar.h"
#include "mem/l2_slice.h"

namespace xpusim::mem {

sim::Tick L2Slice::take_mshr(sim::Tick at) {
  // The MSHRs as servers in request order: those free by `at` leave the heap; with all busy,
  // the miss starts when the earliest frees.
  const auto later_first = std::greater<>{};
  const auto pop = [&] {
    std::pop_heap(mshr_free_at_.begin(), mshr_free_at_.end(), later_first);
    const sim::Tick t = mshr_free_at_.back();
    mshr_free_at_.pop_back();
    return t;
  };
  while (!mshr_free_at_.empty() && mshr_free_at_.front() <= at)
    pop();
  if (mshr_free_at_.size() < params_.mshrs) return at;
  ++mshr_full_stalls;
  return pop();
}

L2Slice::Answer L2Slice::read_at(std::uint64_t line, std::uint32_t sectors, sim::Tick at) {
  transactions_ = true;
  if (in_flight_.empty()) in_flight_.resize(tags_.size());
  SectorCache::Line* l = tags_.find(line);
  if (l != nullptr) tags_.touch(*l);
  std::uint32_t need = sectors;
  bool arriving = false;  // the line's last miss is still on its way
  if (l != nullptr) {
    const InFlight& f = in_flight_[tags_.index_of(*l)];
    arriving = f.ready > at;
    need &= ~l->valid;
    if (need == 0) {
      if (arriving && (f.pending & sectors) != 0) {
        ++merged_misses;
        return {.ready = f.ready, .pipeline = 0};
      }
      ++hits;
      return {.ready = at, .pipeline = params_.hit_latency_cycles};
    }
  } else {
    l = &allocate(line, at);
    in_flight_[tags_.index_of(*l)] = InFlight{};
  }
  ++misses;
  // Missing sectors of a line with a miss in flight join its MSHR (as serve_read does).
  const sim::Tick start = arriving ? at : take_mshr(at);
  hbm_read_sectors += static_cast<std::uint64_t>(std::popcount(need));
  const sim::Tick done = hbm_.sectors_at(line, need, /*write=*/false, start);
  // The lookup that found the miss is added behind the HBM booking, as fetch() does.
  const sim::Tick fill_at = cycles_after(clock_, done, params_.hit_latency_cycles);
  InFlight& f = in_flight_[tags_.index_of(*l)];
  if (!arriving) {
    mshr_free_at_.push_back(fill_at);
    std::push_heap(mshr_free_at_.begin(), mshr_free_at_.end(), std::greater<>{});
    mshr_peak_.set(std::max(mshr_peak_.value(), static_cast<double>(mshr_free_at_.size())));
    occupancy_area_ += static_cast<double>(fill_at - start);
    f.pending = 0;
  }
  const bool waits_for_older = arriving && (f.pending & sectors) != 0;
  f.pending |= need;
  f.ready = std::max(f.ready, fill_at);
  l->valid |= need;
  return {.ready = waits_for_older ? f.ready : fill_at, .pipeline = 0};
}

L2Slice::Answer L2Slice::write_at(std::uint64_t line, std::uint32_t sectors, sim::Tick at) {
  transactions_ = true;
  ++writes;
  SectorCache::Line* found = tags_.find(line);
  SectorCache::Line& l = allocate(line, at);
  // A new line in a way whose last line had a miss in flight: nothing of it is arriving.
  if (found == nullptr && !in_flight_.empty()) in_flight_[tags_.index_of(l)] = InFlight{};
  l.valid |= sectors;
  l.dirty |= sectors;
  return {.ready = at, .pipeline = params_.hit_latency_cycles};
}

}  // namespace xpusim::mem
