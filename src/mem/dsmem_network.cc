#include "mem/dsmem_network.h"

#include <limits>

namespace xpusim::mem {

DsmemNetwork::DsmemNetwork(Component& parent, sim::Clock& sm_clock, const DsmemParams& params,
                           std::vector<std::uint32_t> gpc_of_sm)
    : Component(parent, "dsmem"),
      params_(params),
      gpc_of_sm_(std::move(gpc_of_sm)),
      loads_(add_counter("loads", "count", "DSMEM loads and atomics")),
      stores_(add_counter("stores", "count", "DSMEM stores")),
      bytes_(add_counter("bytes", "bytes", "data bytes moved between SMs")) {
  const sim::ChannelParams port{.latency = params.latency_cycles,
                                .bytes_per_cycle = params.bytes_per_cycle,
                                .capacity = std::numeric_limits<std::size_t>::max()};
  for (std::size_t s = 0; s < gpc_of_sm_.size(); ++s)
    ports_.push_back(std::make_unique<Port>(sm_clock, port));
}

void DsmemNetwork::load(std::uint32_t from_sm, std::uint32_t to_sm, std::uint32_t bytes,
                        Done done) {
  ++loads_;
  bytes_ += bytes;
  round_trip(from_sm, to_sm, kControlMessageBytes, bytes, std::move(done));
}

void DsmemNetwork::store(std::uint32_t from_sm, std::uint32_t to_sm, std::uint32_t bytes,
                         Done done) {
  ++stores_;
  bytes_ += bytes;
  round_trip(from_sm, to_sm, bytes, kControlMessageBytes, std::move(done));
}

void DsmemNetwork::push(std::uint32_t from_sm, std::uint32_t to_sm, std::uint32_t bytes,
                        Done arrived, Done acked) {
  ++stores_;
  bytes_ += bytes;
  XPUSIM_CHECK(from_sm < ports_.size() && to_sm < ports_.size(),
               "DSMEM push names an SM that does not exist");
  XPUSIM_CHECK(gpc_of_sm_[from_sm] == gpc_of_sm_[to_sm], "DSMEM push between GPCs");
  events().post(ports_[from_sm]->reserve(bytes),
                [this, to_sm, arrived = std::move(arrived), acked = std::move(acked)]() mutable {
                  arrived();
                  events().post(ports_[to_sm]->reserve(kControlMessageBytes), std::move(acked));
                });
}

void DsmemNetwork::round_trip(std::uint32_t a, std::uint32_t b, std::uint32_t out,
                              std::uint32_t back, Done done) {
  XPUSIM_CHECK(a < ports_.size() && b < ports_.size(),
               "DSMEM access names an SM that does not exist");
  XPUSIM_CHECK(gpc_of_sm_[a] == gpc_of_sm_[b], "DSMEM access between SMs of different GPCs");
  const sim::Tick arrival = ports_[a]->reserve(out);
  events().post(arrival, [this, b, back, done = std::move(done)]() mutable {
    events().post(ports_[b]->reserve(back), std::move(done));
  });
}

}  // namespace xpusim::mem
