#include "mem/hbm.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>

#include <fmt/format.h>

namespace xpusim::mem {

HbmChannel::HbmChannel(Component& parent, std::string name, std::uint64_t bytes_per_s,
                       sim::Tick latency, sim::Tick turnaround, const HbmLoadCurves& load)
    : Component(parent, name),
      edge_bytes_(bytes_per_edge(bytes_per_s)),
      clock_(events(), bytes_per_s / edge_bytes_),
      port_(clock_, {.latency = 0,
                     .bytes_per_cycle = edge_bytes_,
                     .capacity = std::numeric_limits<std::size_t>::max()}),
      latency_(latency),
      // Rounded to the nearest byte (42 GB/s a channel: 1 B is 24 ps).
      turnaround_bytes_(static_cast<std::uint64_t>(std::llround(
          static_cast<double>(turnaround) * static_cast<double>(bytes_per_s) / sim::kSecond))),
      reads_(add_counter("reads", "count", "read accesses")),
      writes_(add_counter("writes", "count", "write accesses (L2 write-backs)")),
      read_bytes_(add_counter("read_bytes", "bytes", "bytes read")),
      write_bytes_(add_counter("write_bytes", "bytes", "bytes written")),
      turnarounds_(add_counter("turnarounds", "count",
                               "accesses that turned the bus around (a read after a write or a "
                               "write after a read)")) {
  if (load.enabled()) {
    load_ = std::make_unique<HbmLoad>(load, bytes_per_s);
    load_wait_ = &add_counter("load_wait", "ps",
                              "extra read latency from the channel's recent load, summed over "
                              "reads (hbm.loaded_latency)");
    load_reads_ = &add_counter("load_reads", "count",
                               "reads (a run of a line's sectors each) given a load wait");
  }
  add_formula("busy_ticks", "ps", "time the channel spent moving data and turning around", [this] {
    const sim::Cycles lt = calendar_ ? calendar_->busy_cycles() : 0;
    return static_cast<double>(clock_.edge(port_.busy_cycles() + lt));
  });
  add_formula("late_bookings", "bookings",
              "transaction timing: bookings more than 32 768 channel cycles behind the newest, "
              "started at the oldest cycle kept (an approximation)",
              [this] { return calendar_ ? static_cast<double>(calendar_->late_bookings()) : 0.0; });
}

std::uint64_t HbmChannel::bytes_per_edge(std::uint64_t bytes_per_s) {
  constexpr std::uint64_t kFastestClockHz = 1'000'000'000'000;
  return (bytes_per_s + kFastestClockHz - 1) / kFastestClockHz;
}

bool HbmChannel::turns(bool write) {
  const bool turned = booked_ && write != last_write_ && turnaround_bytes_ > 0;
  last_write_ = write;
  booked_ = true;
  if (turned) ++turnarounds_;
  return turned;
}

sim::Tick HbmChannel::access_many(std::uint64_t count, std::uint64_t bytes, bool write) {
  (write ? writes_ : reads_) += count;
  (write ? write_bytes_ : read_bytes_) += count * bytes;
  if (sim::BoundedSeries* s = series_[write ? 1 : 0])
    s->add(now(), static_cast<double>(count * bytes));
  const sim::Tick wait = loaded(now(), count * bytes, write);
  if (turns(write)) port_.reserve(turnaround_bytes_);  // the bus idles first
  return port_.reserve_many(count, bytes) + latency_ + wait;
}

sim::Tick HbmChannel::access_many_at(std::uint64_t count, std::uint64_t bytes, bool write,
                                     sim::Tick at, std::uint32_t weight) {
  (write ? writes_ : reads_) += count * weight;
  (write ? write_bytes_ : read_bytes_) += count * bytes * weight;
  if (sim::BoundedSeries* s = series_[write ? 1 : 0])
    s->add(at, static_cast<double>(count * bytes * weight));
  // The channel's clock moves edge_bytes_ a cycle (1 B at H100's 42 GB/s a channel): 65 536
  // cycles keep about 1.5 us of its time, 8 KiB a channel.
  if (!calendar_) calendar_.emplace(edge_bytes_, 65536);
  const sim::Cycles from = clock_.first_cycle_from(at);
  // The dead time takes the first free cycles from the access's start, as its data does
  // (a booking made late may find them between earlier ones: an approximation).
  const sim::Tick wait = loaded(at, count * bytes * weight, write);
  if (turns(write)) calendar_->book(from, turnaround_bytes_ * weight);
  return clock_.edge(calendar_->book_first(from, count * bytes, weight)) + latency_ + wait;
}

Hbm::Hbm(Component& parent, const HbmParams& params, const PhysicalAddressMap& map)
    : Component(parent, "hbm"),
      params_(params),
      map_(map),
      line_in_one_block_(map.params().hbm_interleave_bytes % map.params().line_bytes == 0),
      read_series_(
          add_series("read_bytes_series", "bytes", "bytes read per interval, all channels")),
      write_series_(
          add_series("write_bytes_series", "bytes", "bytes written per interval, all channels")) {
  XPUSIM_CHECK(params.channels > 0 && params.bandwidth_bytes_per_s >= params.channels,
               "every HBM channel needs at least 1 B/s");
  // Rounded down to whole B/s per channel: at most channels - 1 B/s lost in total.
  const std::uint64_t per_channel = params.bandwidth_bytes_per_s / params.channels;
  for (std::uint32_t c = 0; c < params.channels; ++c) {
    channels_.push_back(std::make_unique<HbmChannel>(*this, fmt::format("ch{}", c), per_channel,
                                                     params.latency, params.turnaround,
                                                     params.load));
    channels_.back()->record_into(read_series_, write_series_);
  }
}

sim::Tick Hbm::sectors(std::uint64_t line, std::uint32_t sectors, bool write, sim::Tick start) {
  return book_sectors(line, sectors, start, [&](HbmChannel& c, std::uint64_t count) {
    return c.access_many(count, map_.params().sector_bytes, write);
  });
}

sim::Tick Hbm::sectors_at(std::uint64_t line, std::uint32_t sectors, bool write, sim::Tick at,
                          std::uint32_t weight) {
  return book_sectors(line, sectors, at, [&](HbmChannel& c, std::uint64_t count) {
    return c.access_many_at(count, map_.params().sector_bytes, write, at, weight);
  });
}

template <class Book>
sim::Tick Hbm::book_sectors(std::uint64_t line, std::uint32_t sectors, sim::Tick start, Book book) {
  const std::uint32_t sector_bytes = map_.params().sector_bytes;
  const Addr line_addr = map_.line_addr(line);
  if (line_in_one_block_) {  // one run: the line's sectors share its block's channel
    if (sectors == 0) return start;
    return std::max(start, book(channel(line_addr), std::popcount(sectors)));
  }
  sim::Tick done = start;
  // Sectors of one interleave block share a channel; bookings on different channels are
  // independent, so a run of them books at once (access_many) with the same result.
  std::uint64_t run_block = 0;
  std::uint64_t run_count = 0;
  HbmChannel* run_channel = nullptr;
  const auto flush = [&] {
    if (run_count > 0) done = std::max(done, book(*run_channel, run_count));
  };
  for (std::uint32_t rest = sectors; rest != 0; rest &= rest - 1) {
    const Addr a =
        line_addr + std::uint64_t{static_cast<unsigned>(std::countr_zero(rest))} * sector_bytes;
    const std::uint64_t block = map_.interleave_block(a);
    if (run_count == 0 || block != run_block) {
      flush();
      run_block = block;
      run_count = 0;
      run_channel = &channel(a);
    }
    ++run_count;
  }
  flush();
  return done;
}

}  // namespace xpusim::mem
