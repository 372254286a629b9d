#include "mem/l2_slice.h"

#include <algorithm>
#include <utility>

#include "mem/crossbar.h"

namespace xpusim::mem {

L2Slice::L2Slice(Component& parent, std::string name, sim::Clock& l2_clock,
                 const L2SliceParams& params, const PhysicalAddressMap& map, Hbm& hbm)
    : Component(parent, name),
      hits(add_counter("hits", "count", "reads whose sectors were all valid")),
      misses(add_counter("misses", "count", "reads that sent at least one sector to HBM")),
      merged_misses(add_counter("merged_misses", "count",
                                "reads that waited on sectors already in flight, no HBM read")),
      writes(add_counter("writes", "count", "write requests (write-allocate, no fetch)")),
      evictions(add_counter("evictions", "count", "valid lines replaced")),
      writebacks(add_counter("writebacks", "count", "evicted lines with dirty sectors")),
      writeback_sectors(add_counter("writeback_sectors", "count", "dirty sectors written to HBM")),
      hbm_read_sectors(add_counter("hbm_read_sectors", "count", "sectors read from HBM")),
      mshr_full_stalls(add_counter("mshr_full_stalls", "count",
                                   "reads that waited because every MSHR was busy")),
      clock_(l2_clock),
      params_(params),
      map_(map),
      hbm_(hbm),
      tags_(params.bytes, params.ways, map.params().line_bytes),
      mshr_peak_(add_scalar("mshr_peak", "count", "most MSHRs busy at once")) {
  XPUSIM_CHECK(params.mshrs > 0, "an L2 slice needs an MSHR");
  XPUSIM_CHECK(tags_.sets() > 0, "an L2 slice holds at least one set");
  add_formula("mshr_occupancy", "count", "MSHRs busy, averaged over simulated time", [this] {
    const double area = occupancy_area_ + static_cast<double>(mshrs_.size()) *
                                              static_cast<double>(now() - occupancy_since_);
    return now() == 0 ? 0.0 : area / static_cast<double>(now());
  });
  add_formula("hit_rate", "ratio", "hits / (hits + misses + merged misses)", [this] {
    const double all = static_cast<double>(hits.value() + misses.value() + merged_misses.value());
    return all == 0 ? 0.0 : static_cast<double>(hits.value()) / all;
  });
}

std::uint32_t L2Slice::valid_sectors(std::uint64_t line) {
  const SectorCache::Line* l = tags_.find(line);
  return l == nullptr ? 0 : l->valid;
}

bool L2Slice::needs_new_mshr(std::uint64_t line, std::uint32_t sectors) {
  return (sectors & ~valid_sectors(line)) != 0 && !mshrs_.contains(line);
}

void L2Slice::read(std::uint64_t line, std::uint32_t sectors, SliceReply reply) {
  if (needs_new_mshr(line, sectors) && (!waiting_.empty() || mshrs_.size() >= params_.mshrs)) {
    ++mshr_full_stalls;
    waiting_.push_back(Queued{.line = line, .sectors = sectors, .reply = std::move(reply)});
    return;
  }
  serve_read(line, sectors, std::move(reply));
}

void L2Slice::serve_read(std::uint64_t line, std::uint32_t sectors, SliceReply reply) {
  if (SectorCache::Line* l = tags_.find(line)) tags_.touch(*l);
  const std::uint32_t need = sectors & ~valid_sectors(line);
  if (need == 0) {
    ++hits;
    reply(params_.hit_latency_cycles);
    return;
  }
  account_occupancy();  // before the MSHR count may change
  auto [it, added] = mshrs_.try_emplace(line);
  Mshr& m = it->second;
  const std::uint32_t fresh = need & ~m.pending;
  if (fresh == 0) {
    ++merged_misses;
  } else {
    ++misses;
    if (added) mshr_peak_.set(std::max(mshr_peak_.value(), static_cast<double>(mshrs_.size())));
    fetch(line, m, fresh);
  }
  m.waiters.push_back(Waiter{.sectors = need, .reply = std::move(reply)});
}

void L2Slice::fetch(std::uint64_t line, Mshr& m, std::uint32_t sectors) {
  m.pending |= sectors;
  sim::Tick done = now();
  const std::uint32_t sector_bytes = map_.params().sector_bytes;
  for (std::uint32_t s = 0; s < 32; ++s) {
    if ((sectors >> s & 1u) == 0) continue;
    ++hbm_read_sectors;
    done = std::max(done, hbm_.read(map_.line_addr(line) + s * sector_bytes, sector_bytes));
  }
  // The lookup that found the miss comes first; its latency is added behind the HBM booking
  // (a constant shift, so the channel's queueing is unchanged).
  const sim::Tick fill_at = cycles_after(clock_, done, params_.hit_latency_cycles);
  events().post(fill_at, [this, line, sectors] { fill(line, sectors); });
}

SectorCache::Line& L2Slice::allocate(std::uint64_t line) {
  SectorCache::Victim v;
  SectorCache::Line& l = tags_.allocate(line, v);
  if (v.evicted) {
    ++evictions;
    if (v.dirty != 0) {
      ++writebacks;
      const std::uint32_t sector_bytes = map_.params().sector_bytes;
      for (std::uint32_t s = 0; s < 32; ++s) {
        if ((v.dirty >> s & 1u) == 0) continue;
        ++writeback_sectors;
        hbm_.write(map_.line_addr(v.line) + s * sector_bytes, sector_bytes);  // nobody waits
      }
    }
  }
  return l;
}

void L2Slice::fill(std::uint64_t line, std::uint32_t sectors) {
  SectorCache::Line& l = allocate(line);
  l.valid |= sectors;
  auto it = mshrs_.find(line);
  XPUSIM_CHECK(it != mshrs_.end(), "an L2 fill without its MSHR");
  Mshr& m = it->second;
  m.pending &= ~sectors;
  // Wake, in arrival order, every waiter whose sectors have all arrived.
  std::vector<Waiter> ready;
  std::erase_if(m.waiters, [&](Waiter& w) {
    if ((w.sectors & m.pending) != 0) return false;
    ready.push_back(std::move(w));
    return true;
  });
  if (m.pending == 0) {
    XPUSIM_CHECK(m.waiters.empty(), "an idle L2 MSHR still has waiters");
    account_occupancy();
    mshrs_.erase(it);
  }
  for (Waiter& w : ready)
    w.reply(0);
  drain_waiting();
}

void L2Slice::drain_waiting() {
  while (!waiting_.empty()) {
    Queued& q = waiting_.front();
    if (needs_new_mshr(q.line, q.sectors) && mshrs_.size() >= params_.mshrs) return;
    Queued next = std::move(q);
    waiting_.pop_front();
    serve_read(next.line, next.sectors, std::move(next.reply));
  }
}

void L2Slice::write(std::uint64_t line, std::uint32_t sectors, SliceReply reply) {
  ++writes;
  SectorCache::Line& l = allocate(line);
  l.valid |= sectors;
  l.dirty |= sectors;
  reply(params_.hit_latency_cycles);
}

void L2Slice::account_occupancy() {
  occupancy_area_ +=
      static_cast<double>(mshrs_.size()) * static_cast<double>(now() - occupancy_since_);
  occupancy_since_ = now();
}

}  // namespace xpusim::mem
