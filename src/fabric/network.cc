// Network construction, queue allocation through the register path, messages and stats
// (network.h). The datapath is in router.cc, routing in routing.cc.
#include "fabric/network.h"

#include <cmath>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "config/units.h"
#include "fabric/network_internal.h"
#include "fabric/route.h"

namespace xpusim::fabric {

Status build_next_hops(const Topology& topo, std::uint32_t vcs, std::vector<std::uint8_t>& nh);

Network::Network(sim::EventQueue& events, const Topology& topo, const NetworkOptions&)
    : events_(events),
      failure_event_([this] {
        failure_ = pending_failure_;
        events_.stop();
      }),
      topo_(topo) {}

Network::~Network() = default;

Result<std::unique_ptr<Network>> Network::create(sim::EventQueue& events, const Topology& topo,
                                                 const NetworkOptions& opts) {
  std::unique_ptr<Network> net(new Network(events, topo, opts));
  if (Status s = net->init(opts); !s) return s.errors();
  return net;
}

Status Network::init(const NetworkOptions& opts) {
  const PodSpec& spec = topo_.spec();
  N_ = topo_.chips();
  P_ = topo_.ports_per_chip();
  V_ = vcs_ = spec.buffer.vcs;
  router_ps_ = spec.router_latency_ps;
  max_replays_ = spec.max_replays;
  max_packet_ = spec.max_packet_bytes;
  header_ = spec.header_bytes;
  outbound_bytes_ = spec.buffer.outbound_bytes;
  inbound_bytes_ = spec.buffer.inbound_bytes;
  buffer_bytes_ = opts.buffer_bytes ? opts.buffer_bytes : spec.buffer.bytes;
  unit_ = std::max<std::uint64_t>(spec.buffer.unit_bytes, 1);
  unit_pow2_ = (unit_ & (unit_ - 1)) == 0;
  pv_ = P_ * V_;
  port_queues_ = N_ * pv_;
  grid_ = topo_.is_grid();
  rank_ = topo_.rank();
  dims_ = topo_.dims();
  for (std::uint32_t d = 0; d < 3; ++d)
    wraps_[d] = d < rank_ && topo_.wraps(d);
  classes_ = vcs_ >= 2 ? vcs_ / 2 : 1;
  if (vcs_ == 0 || vcs_ > kMaxVcs) {
    return Error{fmt::format("buffer.vcs: {} is outside [1, {}]", vcs_, kMaxVcs)};
  }
  auto pol = make_policy(opts.policy.empty() ? spec.buffer.policy : opts.policy);
  if (!pol) return pol.errors();
  policy_ = std::move(pol.value());

  if (topo_.is_grid()) {
    for (const LinkInfo& l : topo_.links()) {
      if (l.used && l.wraps && vcs_ < 2) {
        return Error{fmt::format(
            "buffer.vcs: 1 on a pod with wrap-around links: the dateline scheme that keeps "
            "tori deadlock-free needs 2 VCs")};
      }
    }
    coord_.resize(N_);
    for (std::uint32_t c = 0; c < N_; ++c) {
      const auto x = topo_.coord(c);
      coord_[c] = {static_cast<std::uint16_t>(x[0]), static_cast<std::uint16_t>(x[1]),
                   static_cast<std::uint16_t>(x[2])};
    }
  } else if (Status s = build_next_hops(topo_, vcs_, next_hop_); !s) {
    return s;
  }

  for (std::uint32_t c = 0; c < N_; ++c) {
    if (!topo_.active(c)) holes_ = true;
  }
  mem_.reserve(N_);
  for (std::uint32_t c = 0; c < N_; ++c) {
    mem_.emplace_back(buffer_bytes_, spec.buffer.unit_bytes, P_, V_);
  }
  if (inbound_bytes_ < footprint(max_packet_) || outbound_bytes_ < footprint(max_packet_)) {
    return Error{fmt::format(
        "buffer: the inbound ({}) and outbound ({}) queues must each hold one maximum packet "
        "({} with its header)",
        config::format_size(inbound_bytes_), config::format_size(outbound_bytes_),
        config::format_size(footprint(max_packet_)))};
  }

  outputs_ = static_cast<std::size_t>(N_) * P_;
  out_ = std::make_unique<Output[]>(outputs_);
  inq_.resize(static_cast<std::size_t>(N_) * P_ * V_ + static_cast<std::size_t>(N_) * P_);
  rtt_.assign(static_cast<std::size_t>(N_) * P_, 0);
  link_rng_.reserve(outputs_);
  port_flags_.assign(outputs_, 0);
  for (std::uint32_t q = 0; q < inq_.size(); ++q) {
    inq_[q].chip = q < port_queues_ ? q / pv_ : (q - port_queues_) / P_;
    inq_[q].vc = q < port_queues_ ? q % V_ : 0;
  }
  for (std::uint32_t o = 0; o < outputs_; ++o) {
    link_rng_.push_back(sim::Rng::for_stream(opts.seed, fmt::format("fabric.out{}", o)));
    const std::uint32_t chip = o / P_, p = o % P_;
    const PortInfo& pi = topo_.port(chip, p);
    Output& out = out_[o];
    out.arrival.bind(this, o);
    out.wake.bind(this, o);
    out.chip = chip;
    out.port = static_cast<std::uint8_t>(p);
    out.used = pi.used;
    if (!pi.connected) continue;
    const LinkInfo& l = topo_.links()[pi.link];
    out.peer = pi.peer_chip * P_ + pi.peer_port;
    out.peer_chip = pi.peer_chip;
    port_flags_[o] =
        static_cast<std::uint8_t>((pi.used ? kPortUsed : 0) | (l.wraps ? kPortWraps : 0));
    out.peer_port = static_cast<std::uint8_t>(pi.peer_port);
    for (std::uint32_t v = 0; v < V_; ++v)
      inq_[out.peer * V_ + v].feeder = o;
    out.latency = l.latency_ps;
    out.bandwidth = l.bandwidth_bytes_per_s;
    out.bit_error_rate = l.bit_error_rate;
    out.ser_full = serialization(out, max_packet_ + header_);
    if (!l.used) holes_ = true;
    if (out.bit_error_rate > 0.0) {
      out.bits_to_error = -std::log1p(-link_rng_[o].uniform_real()) / out.bit_error_rate;
    }
    if (!pi.used) continue;
    if (opts.rtt_source == RttSource::kTable) {
      rtt_[o] = topo_.table_rtt(chip, p);
    } else {
      // seed4 ¶15: a timing message before the job: a header-only packet out, through the
      // peer's router, and its credit back; a bit error on the way costs a replay.
      const sim::Tick ser = serialization(out, header_);
      sim::Tick t = ser + 2 * l.latency_ps + router_ps_;
      sim::Rng probe = sim::Rng::for_stream(opts.seed, fmt::format("fabric.rtt{}", o));
      const double p_err =
          1.0 - std::pow(1.0 - l.bit_error_rate, 8.0 * static_cast<double>(header_));
      for (std::uint32_t replays = 0; probe.bernoulli(p_err); ++replays) {
        if (replays == max_replays_) {
          return Error{fmt::format(
              "link chip {} port {} -> chip {} port {} ({}, bit_error_rate {:g}): the RTT timing "
              "message failed its send and all {} replays (router.max_replays): link declared "
              "failed before the job",
              chip, p, pi.peer_chip, pi.peer_port, medium_name(l.medium), l.bit_error_rate,
              max_replays_)};
        }
        t += ser + 2 * l.latency_ps;
      }
      rtt_[o] = t;
    }
  }
  return program_all(*policy_);
}

std::uint64_t Network::port_bdp(std::uint32_t chip, std::uint32_t p) const {
  const Output& out = out_[chip * P_ + p];
  __extension__ using u128 = unsigned __int128;
  const auto bdp = static_cast<u128>(out.bandwidth) * rtt_[chip * P_ + p];
  return static_cast<std::uint64_t>((bdp + 999'999'999'999ULL) / 1'000'000'000'000ULL);
}

const OutputStats& Network::output_stats(std::uint32_t chip, std::uint32_t p) const {
  return out_[chip * P_ + p].stats;
}

const QueueStats& Network::queue_stats(std::uint32_t chip, std::uint32_t p,
                                       std::uint32_t vc) const {
  return inq_[(chip * P_ + p) * V_ + vc].stats;
}

AllocationInput Network::allocation_input(std::uint32_t chip) const {
  AllocationInput in;
  const std::uint32_t used = topo_.used_ports(chip);
  const std::uint64_t fixed = outbound_bytes_ * used + inbound_bytes_;
  in.total_bytes = buffer_bytes_ > fixed ? buffer_bytes_ - fixed : 0;
  in.unit_bytes = topo_.spec().buffer.unit_bytes;
  in.vcs = V_;
  in.min_bytes_per_vc = std::max(topo_.spec().buffer.min_bytes_per_vc, footprint(max_packet_));
  in.ports.resize(P_);
  for (std::uint32_t p = 0; p < P_; ++p) {
    PortDemand& d = in.ports[p];
    d.used = topo_.port(chip, p).used;
    if (!d.used) continue;
    d.rtt_ps = rtt_[chip * P_ + p];
    d.bdp_bytes = port_bdp(chip, p);
    d.received_per_vc.resize(V_);
    for (std::uint32_t v = 0; v < V_; ++v)
      d.received_per_vc[v] = received(chip, p, v);
  }
  return in;
}

Status Network::program_all(const AllocationPolicy& policy) {
  std::vector<Allocation> plan(N_);
  for (std::uint32_t c = 0; c < N_; ++c) {
    if (!topo_.active(c)) {
      plan[c].port_bytes.assign(P_, 0);
      plan[c].vc_bytes.assign(P_, std::vector<std::uint64_t>(V_, 0));
      continue;
    }
    const AllocationInput in = allocation_input(c);
    auto a = policy.allocate(in);
    if (!a) {
      return Error{fmt::format("policy {}: chip {}: {}", policy.name(), c, a.error().message)};
    }
    if (Status s = check_allocation(in, a.value()); !s) {
      return Error{fmt::format("policy {}: chip {}: broken allocation: {}", policy.name(), c,
                               s.error().message)};
    }
    plan[c] = std::move(a.value());
  }
  // Only a complete, checked plan reaches the registers (nothing runs on a broken one).
  for (std::uint32_t c = 0; c < N_; ++c) {
    if (!topo_.active(c)) continue;
    if (Status s = mem_[c].program_layout(plan[c], outbound_bytes_, inbound_bytes_); !s) {
      return Error{fmt::format("chip {}: {}", c, s.error().message)};
    }
  }
  for (std::uint32_t o = 0; o < outputs_; ++o) {
    Output& out = out_[o];
    out.credits.fill(0);
    if (!out.used) continue;
    const BufferMemory& down = mem_[out.peer_chip];
    for (std::uint32_t v = 0; v < V_; ++v) {
      const std::uint32_t q = down.port_queue(out.peer_port, v);
      out.credits[v] = static_cast<std::int64_t>(down.capacity(q) - down.used(q));
    }
  }
  return Ok{};
}

bool Network::drained() const {
  const sim::Tick now = events_.now();
  for (std::uint32_t o = 0; o < outputs_; ++o) {
    const Output& out = out_[o];
    if (!out.fl.empty()) return false;
    if (!out.cr.empty() && out.cr.back().t > now) return false;  // in time order
  }
  for (std::uint32_t c = 0; c < N_; ++c) {
    if (!mem_[c].drained()) return false;
  }
  return true;
}

Status Network::reallocate(const AllocationPolicy& policy) {
  if (!drained()) {
    return Error{
        "reallocate: the fabric is not drained (packets or credits in flight): "
        "queues are reprogrammed only when empty (seed4 ¶63)"};
  }
  for (std::uint32_t o = 0; o < outputs_; ++o) {  // every credit is home: drop the records
    out_[o].cr.clear();
  }
  if (Status s = program_all(policy); !s) return s;
  policy_ = nullptr;
  auto again = make_policy(policy.name());
  if (again) policy_ = std::move(again.value());
  return Ok{};
}

Status Network::reallocate(std::string_view name) {
  auto pol = make_policy(name);
  if (!pol) return pol.errors();
  return reallocate(*pol.value());
}

void Network::pause_injection(bool paused) {
  paused_ = paused;
  if (paused) return;
  for (std::uint32_t c = 0; c < N_; ++c) {
    for (std::uint32_t p = 0; p < P_; ++p) {
      if (out_[c * P_ + p].bl_head != kNil) refill_outbound(c, p);
    }
  }
}

void Network::clear_counters() {
  for (std::uint32_t q = 0; q < port_queues_; ++q)
    inq_[q].stats.received = 0;
}

void Network::clear_stats() {
  const sim::Tick now = events_.now();
  for (std::uint32_t q = 0; q < port_queues_; ++q) {
    inq_[q].stats = QueueStats{};
    inq_[q].last = now;
    inq_[q].stats.max_used = mem_[q / (P_ * V_)].used(q % (P_ * V_));
  }
  for (std::uint32_t o = 0; o < outputs_; ++o) {
    Output& out = out_[o];
    out.stats = OutputStats{};
    if (out.stalled) out.stall_start = now;
  }
  packets_injected_ = packet_hops_ = messages_delivered_ = 0;
  stats_since_ = now;
}

Result<MessageId> Network::send(std::uint32_t src, std::uint32_t dst, std::uint64_t bytes,
                                std::uint64_t tag, MessageSink* sink) {
  if (src >= N_ || dst >= N_ || !topo_.active(src) || !topo_.active(dst)) {
    return Error{
        fmt::format("send: chip {} -> {}: both ends must be active chips of the job", src, dst)};
  }
  if (src == dst) return Error{fmt::format("send: chip {} to itself", src)};
  if (auto h = hops(src, dst); !h) return h.errors();
  std::uint32_t id;
  if (free_messages_.empty()) {
    messages_.emplace_back();
    id = static_cast<std::uint32_t>(messages_.size() - 1);
  } else {
    id = free_messages_.back();
    free_messages_.pop_back();
  }
  Message& m = messages_[id];
  m = Message{};
  m.src = src;
  m.dst = dst;
  m.bytes_left = bytes;
  m.packets_left = bytes == 0 ? 1 : (bytes + max_packet_ - 1) / max_packet_;
  m.tag = tag;
  m.sink = sink;
  // Every packet of the message leaves by the same first hop: route it once.
  m.proto.msg = id;
  m.proto.dst = dst;
  m.proto.vc_base = static_cast<std::uint8_t>(classes_ > 1 ? 2 * (id % classes_) : 0);
  const bool ok = route(src, m.proto);
  XPUSIM_CHECK(ok, "hops() found a route");
  const std::uint32_t first = m.proto.out;
  ++messages_live_;
  Output& out = out_[src * P_ + first];
  if (out.bl_tail == kNil) {
    out.bl_head = out.bl_tail = id;
  } else {
    messages_[out.bl_tail].next = id;
    out.bl_tail = id;
  }
  refill_outbound(src, first);
  return id;
}

NetworkSummary Network::summary(sim::Tick elapsed) const {
  // Same figures, same order of summation as stats_json's per-link and per-queue entries.
  const sim::Tick now = events_.now();
  const double span = static_cast<double>(std::max<sim::Tick>(elapsed, 1));
  NetworkSummary r;
  std::uint64_t links = 0, queues = 0;
  double sum = 0, qsum = 0;
  r.util_min = 1e300;
  for (std::uint32_t o = 0; o < outputs_; ++o) {
    const Output& out = out_[o];
    if (!out.used) continue;
    const sim::Tick stall = out.stats.stall_ps + (out.stalled ? now - out.stall_start : 0);
    const double u = static_cast<double>(out.stats.busy_ps) / span;
    const double s = static_cast<double>(stall) / 1000.0;
    r.util_min = std::min(r.util_min, u);
    r.util_max = std::max(r.util_max, u);
    sum += u;
    r.stall_ns_total += s;
    r.stall_ns_max = std::max(r.stall_ns_max, s);
    ++links;
  }
  for (std::uint32_t q = 0; q < port_queues_; ++q) {
    const std::uint32_t chip = q / (P_ * V_), mq = q % (P_ * V_);
    if (!topo_.port(chip, mq / V_).used) continue;
    const QueueStats& s = inq_[q].stats;
    const double integral = queue_integral(q, now);
    qsum += integral / span;
    r.queue_max_bytes = std::max(r.queue_max_bytes, static_cast<double>(s.max_used));
    ++queues;
  }
  if (links == 0) r.util_min = 0;
  r.util_mean = links == 0 ? 0.0 : sum / static_cast<double>(links);
  r.queue_mean_bytes = queues == 0 ? 0.0 : qsum / static_cast<double>(queues);
  return r;
}

std::uint64_t Network::host_bytes(const Topology& topo) {
  const std::uint64_t n = topo.chips(), p = topo.ports_per_chip(), v = topo.spec().buffer.vcs;
  const std::uint64_t queues = p * v + p + 1;
  std::uint64_t per_chip = p * (sizeof(Output) + sizeof(sim::Rng) + sizeof(sim::Tick) + 1 +
                                sizeof(PortInfo) + sizeof(LinkInfo)) +
                           (p * v + p) * sizeof(InQueue) + queues * 64 + sizeof(BufferMemory) +
                           sizeof(coord_[0]);
  // Packets live in queues and on links: about a buffer's worth of maximum packets per chip.
  const std::uint64_t packet = topo.spec().max_packet_bytes + topo.spec().header_bytes;
  per_chip += 2 * (topo.spec().buffer.bytes / std::max<std::uint64_t>(packet, 1) + p) *
              (sizeof(Packet) + sizeof(Flight) + sizeof(std::uint32_t));
  std::uint64_t total = n * per_chip;
  if (!topo.is_grid()) total += n * n;  // the next-hop table
  return total;
}

double Network::queue_integral(std::uint32_t q, sim::Tick now) const {
  const std::uint32_t chip = q / (P_ * V_), mq = q % (P_ * V_);
  return inq_[q].stats.used_integral +
         static_cast<double>(mem_[chip].used(mq)) * static_cast<double>(now - inq_[q].last);
}

nlohmann::json Network::stats_json(sim::Tick elapsed) const {
  using nlohmann::json;
  const sim::Tick now = events_.now();
  const double span = static_cast<double>(std::max<sim::Tick>(elapsed, 1));
  json links = json::array();
  for (std::uint32_t o = 0; o < outputs_; ++o) {
    const Output& out = out_[o];
    if (!out.used) continue;
    const OutputStats& s = out.stats;
    const sim::Tick stall = s.stall_ps + (out.stalled ? now - out.stall_start : 0);
    const PortInfo& pi = topo_.port(o / P_, o % P_);
    links.push_back({{"chip", o / P_},
                     {"port", o % P_},
                     {"peer_chip", pi.peer_chip},
                     {"peer_port", pi.peer_port},
                     {"medium", medium_name(pi.medium)},
                     {"packets", s.packets},
                     {"bytes", s.bytes},
                     {"retries", s.retries},
                     {"utilization", static_cast<double>(s.busy_ps) / span},
                     {"stall_ns", static_cast<double>(stall) / 1000.0}});
  }
  json queues = json::array();
  for (std::uint32_t q = 0; q < port_queues_; ++q) {
    const std::uint32_t chip = q / (P_ * V_), mq = q % (P_ * V_);
    if (!topo_.port(chip, mq / V_).used) continue;
    const QueueStats& s = inq_[q].stats;
    const double integral = queue_integral(q, now);
    const QueueRange r = mem_[chip].range(mq);
    queues.push_back({{"chip", chip},
                      {"port", mq / V_},
                      {"vc", mq % V_},
                      {"start", r.start},
                      {"stop", r.stop},
                      {"received", s.received},
                      {"mean_bytes", integral / span},
                      {"max_bytes", s.max_used}});
  }
  return {{"packets_injected", packets_injected_},
          {"packet_hops", packet_hops_},
          {"messages_delivered", messages_delivered_},
          {"links", std::move(links)},
          {"queues", std::move(queues)}};
}

}  // namespace xpusim::fabric
