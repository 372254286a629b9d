#include "mem/hbm.h"

#include <limits>

#include <fmt/format.h>

namespace xpusim::mem {

HbmChannel::HbmChannel(Component& parent, std::string name, std::uint64_t bytes_per_s,
                       sim::Tick latency)
    : Component(parent, name),
      clock_(events(), bytes_per_s / bytes_per_edge(bytes_per_s)),
      port_(clock_, {.latency = 0,
                     .bytes_per_cycle = bytes_per_edge(bytes_per_s),
                     .capacity = std::numeric_limits<std::size_t>::max()}),
      latency_(latency),
      reads_(add_counter("reads", "count", "read accesses")),
      writes_(add_counter("writes", "count", "write accesses (L2 write-backs)")),
      read_bytes_(add_counter("read_bytes", "bytes", "bytes read")),
      write_bytes_(add_counter("write_bytes", "bytes", "bytes written")) {
  add_formula("busy_ticks", "ps", "time the channel spent moving data",
              [this] { return static_cast<double>(clock_.edge(port_.busy_cycles())); });
}

std::uint64_t HbmChannel::bytes_per_edge(std::uint64_t bytes_per_s) {
  constexpr std::uint64_t kFastestClockHz = 1'000'000'000'000;
  return (bytes_per_s + kFastestClockHz - 1) / kFastestClockHz;
}

sim::Tick HbmChannel::access(std::uint64_t bytes, bool write) {
  ++(write ? writes_ : reads_);
  (write ? write_bytes_ : read_bytes_) += bytes;
  return port_.reserve(bytes) + latency_;
}

Hbm::Hbm(Component& parent, const HbmParams& params, const PhysicalAddressMap& map)
    : Component(parent, "hbm"), params_(params), map_(map) {
  XPUSIM_CHECK(params.channels > 0 && params.bandwidth_bytes_per_s >= params.channels,
               "every HBM channel needs at least 1 B/s");
  // Rounded down to whole B/s per channel: at most channels - 1 B/s lost in total.
  const std::uint64_t per_channel = params.bandwidth_bytes_per_s / params.channels;
  for (std::uint32_t c = 0; c < params.channels; ++c) {
    channels_.push_back(
        std::make_unique<HbmChannel>(*this, fmt::format("ch{}", c), per_channel, params.latency));
  }
}

}  // namespace xpusim::mem
