#include "system/link_demo.h"

#include <fmt/format.h>

#include <memory>
#include <vector>

#include "sim/channel.h"
#include "sim/clock.h"
#include "sim/component.h"

namespace xpusim::system {

namespace {

struct Message {
  std::uint64_t bytes;
  sim::Tick sent;
  std::uint64_t flow;  // trace flow id, links the send slice to the receive
};

class Producer : public sim::Component {
 public:
  Producer(Component& parent, std::string name, sim::Clock& clk, sim::Channel<Message>& link)
      : Component(parent, std::move(name)),
        clk_(clk),
        link_(link),
        messages_(add_counter("messages", "count", "messages sent")),
        bytes_(add_counter("bytes", "B", "bytes sent")),
        stall_(add_counter("stall_ps", "ps", "time blocked on the link (busy or full)")) {}

  sim::Task<> run(std::uint64_t count, std::uint64_t mean_bytes, std::uint64_t flow_base) {
    for (std::uint64_t i = 0; i < count; ++i) {
      co_await clk_.cycles(1 + rng().uniform(8));  // think time
      const std::uint64_t bytes = 1 + rng().uniform(2 * mean_bytes);
      const sim::Tick t0 = now();
      const std::uint64_t flow = flow_base + i;
      sim().tracer().flow_begin(trace_track(), "msg", flow, t0);
      co_await link_.send(Message{bytes, t0, flow}, bytes);
      sim().tracer().complete(trace_track(), "send", t0, now(), "link");
      stall_ += now() - t0;
      ++messages_;
      bytes_ += bytes;
    }
  }

 private:
  sim::Clock& clk_;
  sim::Channel<Message>& link_;
  sim::Counter& messages_;
  sim::Counter& bytes_;
  sim::Counter& stall_;
};

class Consumer : public sim::Component {
 public:
  Consumer(Component& parent, sim::Clock& clk, sim::Channel<Message>& link)
      : Component(parent, "consumer"),
        clk_(clk),
        link_(link),
        bytes_(add_counter("bytes", "B", "bytes received")),
        latency_(add_average("latency_cycles", "cycles", "send start to receipt")),
        latency_hist_(add_histogram("latency_hist", "cycles", "send start to receipt", 0, 512, 16)),
        arrivals_(add_time_series("bytes_per_us", "B", "bytes received per microsecond",
                                  sim::kMicrosecond)) {}

  sim::Task<> run(std::uint64_t count) {
    for (std::uint64_t i = 0; i < count; ++i) {
      const Message m = co_await link_.receive();
      const double cycles = static_cast<double>(clk_.cycle_at(now()) - clk_.cycle_at(m.sent));
      sim().tracer().flow_end(trace_track(), "msg", m.flow, now());
      sim().tracer().instant(trace_track(), "recv", now(), "link");
      sim().tracer().counter(trace_track(), "link_occupancy", now(),
                             static_cast<double>(link_.occupancy()));
      bytes_ += m.bytes;
      latency_.sample(cycles);
      latency_hist_.sample(cycles);
      arrivals_.add(now(), static_cast<double>(m.bytes));
    }
  }

  double mean_latency() const { return latency_.mean(); }
  std::uint64_t bytes() const { return bytes_.value(); }
  std::uint64_t received() const { return latency_.count(); }

 private:
  sim::Clock& clk_;
  sim::Channel<Message>& link_;
  sim::Counter& bytes_;
  sim::Average& latency_;
  sim::Histogram& latency_hist_;
  sim::TimeSeries& arrivals_;
};

std::vector<Error> check(const LinkDemoParams& p) {
  std::vector<Error> errors;
  auto range = [&](const char* flag, std::uint64_t v, std::uint64_t lo, std::uint64_t hi) {
    if (v < lo || v > hi) {
      errors.push_back({fmt::format("{} = {}: must be in [{}, {}]", flag, v, lo, hi)});
    }
  };
  range("--producers", p.producers, 1, 4096);
  range("--messages", p.messages, 1, 100'000'000);
  range("--bytes", p.mean_bytes, 1, std::uint64_t{1} << 30);
  range("--link-bytes-per-cycle", p.bytes_per_cycle, 1, std::uint64_t{1} << 20);
  range("--latency", p.latency_cycles, 0, 1'000'000);
  range("--capacity", p.capacity, 1, 1'000'000);
  return errors;
}

}  // namespace

struct LinkDemo::Model {
  Model(sim::Simulation& s, const LinkDemoParams& p)
      : sim(s),
        params(p),
        clk(s.events(), p.clock_hz),
        link(clk, {.latency = p.latency_cycles,
                   .bytes_per_cycle = p.bytes_per_cycle,
                   .capacity = static_cast<std::size_t>(p.capacity)}),
        top(s, "demo"),
        link_stats(top, "link"),
        consumer(top, clk, link) {
    link_stats.add_formula("busy_cycles", "cycles", "cycles the link was serializing",
                           [this] { return static_cast<double>(link.busy_cycles()); });
    link_stats.add_formula("refused", "count", "sends refused because the link was full",
                           [this] { return static_cast<double>(link.refused()); });
    link_stats.add_formula("utilization", "ratio", "busy cycles / simulated cycles", [this] {
      const auto c = clk.cycle_at(sim.now());
      return c == 0 ? 0.0 : static_cast<double>(link.busy_cycles()) / static_cast<double>(c);
    });
    for (std::uint64_t i = 0; i < p.producers; ++i) {
      producers.push_back(std::make_unique<Producer>(top, fmt::format("p{}", i), clk, link));
    }
  }

  sim::Simulation& sim;
  LinkDemoParams params;
  sim::Clock clk;
  sim::Channel<Message> link;
  sim::Component top;
  sim::Component link_stats;
  Consumer consumer;
  std::vector<std::unique_ptr<Producer>> producers;
};

Result<std::unique_ptr<LinkDemo>> LinkDemo::create(sim::Simulation& sim,
                                                   const LinkDemoParams& params) {
  if (auto errors = check(params); !errors.empty()) return errors;
  return std::unique_ptr<LinkDemo>(new LinkDemo(std::make_unique<Model>(sim, params)));
}

LinkDemo::LinkDemo(std::unique_ptr<Model> m) : m_(std::move(m)) {}

LinkDemo::~LinkDemo() {
  m_->sim.shutdown();
}

LinkDemoResult LinkDemo::run(sim::Tick limit) {
  Model& m = *m_;
  const LinkDemoParams& p = m.params;
  for (std::uint64_t i = 0; i < p.producers; ++i) {
    Producer& prod = *m.producers[i];
    m.sim.spawn(prod.run(p.messages, p.mean_bytes, i * p.messages), prod.path());
  }
  m.sim.spawn(m.consumer.run(p.producers * p.messages), m.consumer.path());
  m.sim.run(limit);

  LinkDemoResult r;
  r.end = m.sim.now();
  r.cycles = m.clk.cycle_at(r.end);
  r.messages = m.consumer.received();
  r.expected_messages = p.producers * p.messages;
  r.completed = m.sim.live_processes() == 0;
  r.bytes = m.consumer.bytes();
  r.achieved_bytes_per_cycle =
      r.cycles == 0 ? 0.0 : static_cast<double>(r.bytes) / static_cast<double>(r.cycles);
  r.mean_latency_cycles = m.consumer.mean_latency();
  r.events = m.sim.events().processed();
  return r;
}

}  // namespace xpusim::system
