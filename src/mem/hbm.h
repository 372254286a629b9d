// Hbm: device memory as independent channels. Each channel moves bytes at (total bandwidth /
// channels) and adds a fixed access latency; requests to one channel serialize on its
// bandwidth in arrival order. An access that goes the other way from the one booked before it
// on its channel (a read after a write, or a write after a read) first costs the bus's
// turnaround (no banks, rows or refresh: docs/memory-hierarchy.md). With load curves a read
// also waits what a real channel's reads waited at its recent load (HbmLoad, hbm_load.h).
// Addresses interleave across channels at `interleave_bytes` through PhysicalAddressMap.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "mem/address_map.h"
#include "mem/hbm_load.h"
#include "sim/bandwidth_calendar.h"
#include "sim/channel.h"
#include "sim/clock.h"
#include "sim/component.h"

namespace xpusim::mem {

struct HbmParams {
  std::uint32_t channels = 1;
  std::uint64_t bandwidth_bytes_per_s = 1'000'000'000;  // all channels together
  sim::Tick latency = 100 * sim::kNanosecond;           // fixed part of every access
  // Bus dead time when a channel changes direction (booking order); 0: none.
  sim::Tick turnaround = 0;
  // Extra read latency by the channel's load; none unless enabled.
  HbmLoadCurves load{};
};

class HbmChannel : public sim::Component {
 public:
  HbmChannel(Component& parent, std::string name, std::uint64_t bytes_per_s, sim::Tick latency,
             sim::Tick turnaround = 0, const HbmLoadCurves& load = {});
  // The clock of the channel's byte pump: `bytes_per_edge` bytes move per edge.
  static std::uint64_t bytes_per_edge(std::uint64_t bytes_per_s);
  // Books the channel for `bytes`; returns the tick the access completes (data back at the
  // memory controller, or a write retired).
  sim::Tick access(std::uint64_t bytes, bool write) { return access_many(1, bytes, write); }
  // `count` accesses of `bytes` each in a row (a line's sectors): the same bookings and
  // counts as `count` calls of access(); returns the last completion.
  sim::Tick access_many(std::uint64_t count, std::uint64_t bytes, bool write);
  // The same for the transaction-level timing: starting at `at`, which may lie in the future
  // and come in any order (a BandwidthCalendar instead of the FIFO port).
  // With `weight` > 1 the accesses stand for that many like them on other channels (set
  // sampling): booked and counted for all, the tick returned their own (book_first).
  sim::Tick access_many_at(std::uint64_t count, std::uint64_t bytes, bool write, sim::Tick at,
                           std::uint32_t weight = 1);
  const sim::Clock& byte_clock() const { return clock_; }
  // Every access's bytes also go to these (the parent's bandwidth over time), at its start.
  void record_into(sim::BoundedSeries& reads, sim::BoundedSeries& writes) {
    series_[0] = &reads;
    series_[1] = &writes;
  }

 private:
  struct NoPayload {};
  // Whether an access of direction `write` turns the bus around (counted; remembered).
  bool turns(bool write);
  // A read's wait for the channel's load at `at` (0 without load curves); counts the
  // booking's bytes towards the load first.
  sim::Tick loaded(sim::Tick at, std::uint64_t bytes, bool write) {
    if (!load_) return 0;
    load_->add(at, bytes, write);
    if (write) return 0;
    const sim::Tick w = load_->extra(at);
    *load_wait_ += w;
    ++*load_reads_;
    return w;
  }
  // One edge per byte (or per few bytes above 1 TB/s, the engine's fastest clock): a channel
  // whose bandwidth is not a whole number of bytes per L2 cycle still gets exact timing.
  std::uint64_t edge_bytes_;
  sim::Clock clock_;
  sim::Channel<NoPayload> port_;
  std::optional<sim::BandwidthCalendar> calendar_;  // made by the first access_many_at
  sim::Tick latency_;
  std::uint64_t turnaround_bytes_;  // the dead time as the bytes the bus would move in it
  bool last_write_ = false;
  bool booked_ = false;
  // With load curves (a pointer: the hot fields stay together without them).
  std::unique_ptr<HbmLoad> load_;
  sim::Counter* load_wait_ = nullptr;  // with load_
  sim::Counter* load_reads_ = nullptr;
  sim::Counter& reads_;
  sim::Counter& writes_;
  sim::Counter& read_bytes_;
  sim::Counter& write_bytes_;
  sim::Counter& turnarounds_;
  sim::BoundedSeries* series_[2] = {nullptr, nullptr};  // reads, writes (record_into)
};

class Hbm : public sim::Component {
 public:
  Hbm(Component& parent, const HbmParams& params, const PhysicalAddressMap& map);
  sim::Tick read(Addr addr, std::uint32_t bytes) { return channel(addr).access(bytes, false); }
  sim::Tick write(Addr addr, std::uint32_t bytes) { return channel(addr).access(bytes, true); }
  // The sectors of `line` in `sectors` (bit s: sector s), each read or written as its own
  // access, in sector order; returns the last completion (`start` if there are none). What a
  // loop of read()/write() per sector does, but with one channel lookup and one booking per
  // run of sectors in one interleave block.
  sim::Tick sectors(std::uint64_t line, std::uint32_t sectors, bool write, sim::Tick start);
  // The same booked from tick `at` (transaction-level timing: access_many_at).
  sim::Tick sectors_at(std::uint64_t line, std::uint32_t sectors, bool write, sim::Tick at,
                       std::uint32_t weight = 1);
  HbmChannel& channel(Addr addr) { return *channels_[map_.channel_of(addr)]; }
  std::size_t channels() const { return channels_.size(); }
  const HbmParams& params() const { return params_; }

 private:
  template <class Book>
  sim::Tick book_sectors(std::uint64_t line, std::uint32_t sectors, sim::Tick start, Book book);

  HbmParams params_;
  const PhysicalAddressMap& map_;
  // Interleave blocks are whole lines (blocks and lines aligned): a line is one run.
  bool line_in_one_block_;
  sim::BoundedSeries& read_series_;  // the channels' bytes over time, for the report
  sim::BoundedSeries& write_series_;
  std::vector<std::unique_ptr<HbmChannel>> channels_;
};

}  // namespace xpusim::mem
