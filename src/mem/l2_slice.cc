#include "mem/l2_slice.h"

#include <algorithm>
#include <bit>
#include <functional>
#include <utility>

#include "mem/crossbar.h"
#include "sim/prefetch.h"

namespace xpusim::mem {

// A fill scheduled by fetch(): pooled by the slice, so a miss allocates nothing.
class L2Slice::FillEvent final : public sim::Event {
 public:
  explicit FillEvent(L2Slice& slice) : slice_(slice) {}
  std::uint64_t line = 0;
  std::uint32_t sectors = 0;
  // The client of the read that started this fetch: it waits for this fill (it needs the
  // sectors fetched), so the fill replies to it. Only a prefetch hint (may be null).
  const SliceClient* first_client = nullptr;

 protected:
  void prefetch() const override {
    slice_.prefetch(line);
    if (first_client != nullptr) {
      sim::prefetch(first_client);
      sim::prefetch(reinterpret_cast<const char*>(first_client) + 64);
    }
  }
  void process() override {
    // Back to the pool first: the fill may fetch again and reuse this event.
    slice_.fill_free_.push_back(this);
    slice_.fill(line, sectors);
  }

 private:
  L2Slice& slice_;
};

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
      writeback_full_stalls(add_counter("writeback_full_stalls", "count",
                                        "dirty evictions that found every write-back buffer "
                                        "held (their write waited for one)")),
      clock_(l2_clock),
      params_(params),
      hbm_(hbm),
      tags_(params.bytes, params.ways, map.params().line_bytes, params.set_index),
      mshr_index_(params.mshrs),
      busy_mshrs_(params.mshrs),
      arriving_(params.mshrs),
      mshr_peak_(add_scalar("mshr_peak", "count", "most MSHRs busy at once")) {
  XPUSIM_CHECK(params.mshrs > 0, "an L2 slice needs an MSHR");
  XPUSIM_CHECK(tags_.sets() > 0, "an L2 slice holds at least one set");
  add_formula("mshr_occupancy", "count", "MSHRs busy, averaged over simulated time", [this] {
    const double area =
        occupancy_area_ + (transactions_ ? 0.0
                                         : static_cast<double>(mshrs_in_use_) *
                                               static_cast<double>(now() - occupancy_since_));
    return now() == 0 ? 0.0 : area / static_cast<double>(now());
  });
  add_formula("hit_rate", "ratio", "hits / (hits + misses + merged misses)", [this] {
    const double all = static_cast<double>(hits.value() + misses.value() + merged_misses.value());
    return all == 0 ? 0.0 : static_cast<double>(hits.value()) / all;
  });
}

// Pending fills deschedule themselves as the pool goes.
L2Slice::~L2Slice() = default;

// --- the MSHR table ----------------------------------------------------------------------

L2Slice::Mshr* L2Slice::find_mshr(std::uint64_t line) {
  Mshr** m = mshr_index_.find(line);
  return m == nullptr ? nullptr : *m;
}

L2Slice::Mshr& L2Slice::add_mshr(std::uint64_t line) {
  if (mshr_free_.empty()) {
    mshr_pool_.push_back(std::make_unique<Mshr>());
    mshr_free_.push_back(mshr_pool_.back().get());
  }
  Mshr* m = mshr_free_.back();
  mshr_free_.pop_back();
  m->line = line;
  m->pending = 0;
  mshr_index_.insert(line) = m;
  ++mshrs_in_use_;
  return *m;
}

void L2Slice::erase_mshr(Mshr& m) {
  mshr_index_.erase(m.line);
  m.waiters.clear();
  mshr_free_.push_back(&m);
  --mshrs_in_use_;
}

void L2Slice::prefetch(std::uint64_t line) const {
  tags_.prefetch(line);
  mshr_index_.prefetch(line);
}

void L2Slice::prefetch_transaction(std::size_t set, std::uint64_t line) const {
  tags_.prefetch_set(set);
  if (!in_flight_.empty()) sim::prefetch(&in_flight_[set * tags_.ways()]);
  arriving_.prefetch(line);
  // The fill that frees the next MSHR is likely due by this read: its line's set is where
  // settle() allocates, taking its arriving entry and writing its victim's in-flight state
  // (some way of the set); a miss then takes the MSHR at the back.
  if (!busy_mshrs_.empty()) {
    const BusyMshrs::Entry& first = busy_mshrs_.front();
    tags_.prefetch_set(first.set);
    arriving_.prefetch(first.line);
    if (!in_flight_.empty())
      sim::prefetch_range(&in_flight_[first.set * tags_.ways()], tags_.ways() * sizeof(InFlight));
  }
  sim::prefetch(busy_mshrs_.back_slot());
}

// --- reads and writes --------------------------------------------------------------------

bool L2Slice::needs_new_mshr(std::uint64_t line, std::uint32_t sectors) {
  const SectorCache::Line* l = tags_.find(line);
  return (sectors & ~(l == nullptr ? 0u : l->valid)) != 0 && find_mshr(line) == nullptr;
}

void L2Slice::read(std::uint64_t line, std::uint32_t sectors, SliceReply reply) {
  start_read(line, sectors, Reply{.client = nullptr, .fn = std::move(reply)});
}

void L2Slice::read(std::uint64_t line, std::uint32_t sectors, SliceClient& client) {
  start_read(line, sectors, Reply{.client = &client, .fn = {}});
}

void L2Slice::start_read(std::uint64_t line, std::uint32_t sectors, Reply reply) {
  // The cheap test first: with no queue and a free MSHR the read is served either way.
  if ((!waiting_.empty() || mshrs_in_use_ >= params_.mshrs) && needs_new_mshr(line, sectors)) {
    ++mshr_full_stalls;
    waiting_.push_back(Queued{.line = line, .sectors = sectors, .reply = std::move(reply)});
    return;
  }
  serve_read(line, sectors, std::move(reply));
}

void L2Slice::serve_read(std::uint64_t line, std::uint32_t sectors, Reply reply) {
  // One tag lookup: touching the line does not change its sectors.
  SectorCache::Line* l = tags_.find(line);
  if (l != nullptr) tags_.touch(*l);
  const std::uint32_t need = sectors & ~(l == nullptr ? 0u : l->valid);
  if (need == 0) {
    ++hits;
    reply(params_.hit_latency_cycles);
    return;
  }
  account_occupancy();  // before the MSHR count may change
  Mshr* m = find_mshr(line);
  const bool added = m == nullptr;
  if (added) m = &add_mshr(line);
  const std::uint32_t fresh = need & ~m->pending;
  if (fresh == 0) {
    ++merged_misses;
  } else {
    ++misses;
    if (added) mshr_peak_.set(std::max(mshr_peak_.value(), static_cast<double>(mshrs_in_use_)));
    fetch(line, *m, fresh, reply.client);
  }
  m->waiters.push_back(Waiter{.sectors = need, .reply = std::move(reply)});
}

void L2Slice::fetch(std::uint64_t line, Mshr& m, std::uint32_t sectors, const SliceClient* client) {
  m.pending |= sectors;
  hbm_read_sectors += static_cast<std::uint64_t>(std::popcount(sectors));
  const sim::Tick done = hbm_.sectors(line, sectors, /*write=*/false, now());
  // The lookup that found the miss comes first; its latency is added behind the HBM booking
  // (a constant shift, so the channel's queueing is unchanged).
  const sim::Tick fill_at = cycles_after(clock_, done, params_.hit_latency_cycles);
  if (fill_free_.empty()) {
    fill_pool_.push_back(std::make_unique<FillEvent>(*this));
    fill_free_.push_back(fill_pool_.back().get());
  }
  FillEvent* ev = fill_free_.back();
  fill_free_.pop_back();
  ev->line = line;
  ev->sectors = sectors;
  ev->first_client = client;
  events().schedule(*ev, fill_at);
}

sim::Tick L2Slice::take_writeback_buffer(sim::Tick at) {
  if (params_.writeback_buffers == 0) return at;
  const auto later = std::greater<sim::Tick>();
  while (!writebacks_.empty() && writebacks_.front() <= at) {
    std::pop_heap(writebacks_.begin(), writebacks_.end(), later);
    writebacks_.pop_back();
  }
  if (writebacks_.size() < params_.writeback_buffers) return at;
  ++writeback_full_stalls;
  std::pop_heap(writebacks_.begin(), writebacks_.end(), later);
  const sim::Tick t = writebacks_.back();
  writebacks_.pop_back();
  return t;
}

SectorCache::Line& L2Slice::allocate_in(std::size_t set, std::uint64_t line, sim::Tick writeback_at,
                                        sim::Tick* buffer_free) {
  SectorCache::Victim v;
  SectorCache::Line& l = tags_.allocate(line, set, v);
  const bool later = writeback_at != kWritebackNow;
  const sim::Tick from = later ? writeback_at : now();
  if (buffer_free != nullptr) *buffer_free = from;
  if (v.evicted) {
    // Set sampling: a victim that stood for other lines leaves for all of them.
    // (Read only when some line stood for others: a load of a cold entry per fill otherwise.)
    const std::uint32_t weight =
        !weighted_ || in_flight_.empty() ? 1 : in_flight_[tags_.index_of(l)].weight;
    evictions += weight;
    if (v.dirty != 0) {
      writebacks += weight;
      writeback_sectors += static_cast<std::uint64_t>(std::popcount(v.dirty)) * weight;
      // The write itself joins HBM's queue now; the buffer bounds how far the slice's
      // writes run ahead of it.
      const sim::Tick free = take_writeback_buffer(from);
      if (buffer_free != nullptr) *buffer_free = free;
      const sim::Tick done =
          later ? hbm_.sectors_at(v.line, v.dirty, /*write=*/true, writeback_at, weight)
                : hbm_.sectors(v.line, v.dirty, /*write=*/true, now());
      if (params_.writeback_buffers > 0) {
        writebacks_.push_back(done);
        std::push_heap(writebacks_.begin(), writebacks_.end(), std::greater<sim::Tick>());
      }
    }
  }
  return l;
}

void L2Slice::fill(std::uint64_t line, std::uint32_t sectors) {
  SectorCache::Line& l = allocate(line);
  l.valid |= sectors;
  Mshr* m = find_mshr(line);
  XPUSIM_CHECK(m != nullptr, "an L2 fill without its MSHR");
  m->pending &= ~sectors;
  // Wake, in arrival order, every waiter whose sectors have all arrived. The scratch list is
  // taken, not shared, in case a reply reaches into this slice again.
  std::vector<Waiter> ready;
  ready.swap(ready_);
  std::erase_if(m->waiters, [&](Waiter& w) {
    if ((w.sectors & m->pending) != 0) return false;
    ready.push_back(std::move(w));
    return true;
  });
  if (m->pending == 0) {
    XPUSIM_CHECK(m->waiters.empty(), "an idle L2 MSHR still has waiters");
    account_occupancy();
    erase_mshr(*m);
  }
  for (Waiter& w : ready)
    w.reply(0);
  ready.clear();
  if (ready_.capacity() < ready.capacity()) ready_.swap(ready);
  drain_waiting();
}

void L2Slice::drain_waiting() {
  while (!waiting_.empty()) {
    Queued& q = waiting_.front();
    if (mshrs_in_use_ >= params_.mshrs && needs_new_mshr(q.line, q.sectors)) return;
    Queued next = std::move(q);
    waiting_.pop_front();
    serve_read(next.line, next.sectors, std::move(next.reply));
  }
}

void L2Slice::write(std::uint64_t line, std::uint32_t sectors, SliceReply reply) {
  start_write(line, sectors, Reply{.client = nullptr, .fn = std::move(reply)});
}

void L2Slice::write(std::uint64_t line, std::uint32_t sectors, SliceClient& client) {
  start_write(line, sectors, Reply{.client = &client, .fn = {}});
}

void L2Slice::start_write(std::uint64_t line, std::uint32_t sectors, Reply reply) {
  ++writes;
  sim::Tick free = 0;
  SectorCache::Line& l = allocate(line, kWritebackNow, &free);
  l.valid |= sectors;
  l.dirty |= sectors;
  // A victim that waited for a write-back buffer holds the acknowledgement back as long.
  const sim::Cycles wait = free > now() ? clock_.first_cycle_from(free) - clock_.next_cycle() : 0;
  reply(params_.hit_latency_cycles + wait);
}

void L2Slice::account_occupancy() {
  occupancy_area_ +=
      static_cast<double>(mshrs_in_use_) * static_cast<double>(now() - occupancy_since_);
  occupancy_since_ = now();
}

}  // namespace xpusim::mem
