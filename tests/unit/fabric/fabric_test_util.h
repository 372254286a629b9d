// Shared helpers of the fabric network, collective and job tests: pod loading, a periodic
// invariant checker for the credit protocol, and a message sink that checks deliveries.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "fabric/buffer_memory.h"
#include "fabric/network.h"
#include "fabric/pod_spec.h"
#include "fabric/topology.h"
#include "fabric/traffic.h"
#include "sim/event_queue.h"
#include "sim/simulation.h"

namespace xpusim::fabric::testutil {

inline const std::filesystem::path kConfigDir = XPUSIM_CONFIG_DIR;

inline std::string joined(const std::vector<Error>& errors) {
  std::string out;
  for (const Error& e : errors)
    out += e.message + "\n";
  return out;
}

inline bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// A pod from YAML text; a failed load is a test failure (and an empty topology).
inline Topology pod_yaml(const std::string& yaml) {
  const Result<PodSpec> spec = load_pod_string(yaml, "test.yaml");
  EXPECT_TRUE(spec.ok()) << (spec.ok() ? "" : joined(spec.errors()));
  if (!spec.ok()) return Topology{};
  const Result<Topology> t = build_topology(*spec);
  EXPECT_TRUE(t.ok()) << (t.ok() ? "" : joined(t.errors()));
  return t.ok() ? *t : Topology{};
}

// A shipped pod from configs/pods.
inline Topology pod_file(const std::string& name) {
  const Result<PodSpec> spec = load_pod_file(kConfigDir / "pods" / (name + ".yaml"));
  EXPECT_TRUE(spec.ok()) << (spec.ok() ? "" : joined(spec.errors()));
  if (!spec.ok()) return Topology{};
  const Result<Topology> t = build_topology(*spec);
  EXPECT_TRUE(t.ok()) << (t.ok() ? "" : joined(t.errors()));
  return t.ok() ? *t : Topology{};
}

inline std::unique_ptr<Network> make_net(sim::Simulation& sim, const Topology& topo,
                                         NetworkOptions opts = {}) {
  auto net = Network::create(sim.events(), topo, opts);
  EXPECT_TRUE(net.ok()) << (net.ok() ? "" : joined(net.errors()));
  return net.ok() ? std::move(net.value()) : nullptr;
}

// The whole register state of every chip: (start, stop) of every queue.
inline std::vector<std::pair<std::uint64_t, std::uint64_t>> all_ranges(const Network& net) {
  std::vector<std::pair<std::uint64_t, std::uint64_t>> out;
  for (std::uint32_t c = 0; c < net.topology().chips(); ++c) {
    const BufferMemory& m = net.buffer(c);
    for (std::uint32_t q = 0; q < m.queues(); ++q)
      out.emplace_back(m.range(q).start, m.range(q).stop);
  }
  return out;
}

// Checks the buffer invariants of every chip at a fixed interval while the run lasts: no queue
// above its capacity, FIFO pointers inside [start, stop) (or at start for an empty range), the
// byte count consistent with the pointers. Stops once `done()` holds and the fabric drained, or
// after `deadline` (so a deadlock ends the run with done() false instead of spinning).
class InvariantChecker final : public sim::Event {
 public:
  InvariantChecker(sim::Simulation& sim, const Network& net, const Traffic* traffic,
                   sim::Tick every, sim::Tick deadline)
      : sim_(sim), net_(net), traffic_(traffic), every_(every), deadline_(deadline) {}
  ~InvariantChecker() override {
    if (scheduled()) sim_.events().deschedule(*this);
  }
  void begin() { sim_.events().schedule(*this, sim_.now() + every_); }
  std::uint64_t checks() const { return checks_; }
  std::uint64_t violations() const { return violations_; }
  std::uint64_t nonempty_seen() const { return nonempty_; }

  void check_now() {
    ++checks_;
    const Topology& t = net_.topology();
    for (std::uint32_t c = 0; c < t.chips(); ++c) {
      const BufferMemory& m = net_.buffer(c);
      for (std::uint32_t q = 0; q < m.queues(); ++q) {
        const QueueRange r = m.range(q);
        const std::uint64_t cap = m.capacity(q);
        const std::uint64_t used = m.used(q);
        bool ok = used <= cap && r.stop <= m.bytes() && r.start <= r.stop;
        if (cap > 0) {
          ok = ok && m.head(q) >= r.start && m.head(q) < r.stop && m.tail(q) >= r.start &&
               m.tail(q) < r.stop;
          // The bytes between head and tail (mod capacity) are the bytes in use (a full queue
          // has head == tail).
          const std::uint64_t span = (m.tail(q) + cap - m.head(q)) % cap;
          ok = ok && (used == cap ? span == 0 : span == used);
          ok = ok && used % m.unit() == 0;
        } else {
          ok = ok && used == 0 && m.head(q) == r.start && m.tail(q) == r.start;
        }
        if (used > 0) ++nonempty_;
        if (!ok) {
          if (violations_ < 5) {
            ADD_FAILURE() << "t=" << sim_.now() << " chip " << c << " " << m.queue_name(q) << " ["
                          << r.start << ", " << r.stop << ") used " << used << " head " << m.head(q)
                          << " tail " << m.tail(q);
          }
          ++violations_;
        }
      }
    }
  }

 protected:
  void process() override {
    check_now();
    const bool finished = (traffic_ == nullptr || traffic_->done()) && net_.drained();
    if (!finished && sim_.now() < deadline_) sim_.events().schedule(*this, sim_.now() + every_);
  }

 private:
  sim::Simulation& sim_;
  const Network& net_;
  const Traffic* traffic_;
  sim::Tick every_, deadline_;
  std::uint64_t checks_ = 0, violations_ = 0, nonempty_ = 0;
};

// Lets every credit in flight land: a no-op event far enough ahead, then run to it.
inline void settle(sim::Simulation& sim, sim::Tick after = 10'000'000) {
  sim.events().post(sim.now() + after, [] {});
  sim.run();
}

// Packets a message of `bytes` is cut into (a 0-byte message is one header packet).
inline std::uint64_t packets_of(std::uint64_t bytes, std::uint64_t max_packet) {
  return bytes == 0 ? 1 : (bytes + max_packet - 1) / max_packet;
}

// A sink that records every delivery and checks it against what was sent.
class RecordingSink final : public MessageSink {
 public:
  struct Sent {
    std::uint32_t src, dst;
    std::uint64_t tag;
  };
  void expect(MessageId id, std::uint32_t src, std::uint32_t dst, std::uint64_t tag) {
    sent_.push_back({src, dst, tag});
    ids_.push_back(id);
  }
  void delivered(MessageId id, std::uint32_t src, std::uint32_t dst, std::uint64_t tag) override {
    // Tags are unique per test (the index of the send), so the record is found by tag.
    ASSERT_LT(tag, sent_.size());
    EXPECT_EQ(ids_[tag], id);
    EXPECT_EQ(sent_[tag].src, src);
    EXPECT_EQ(sent_[tag].dst, dst);
    EXPECT_TRUE(got_.insert(tag).second) << "message " << tag << " delivered twice";
  }
  std::size_t sent() const { return sent_.size(); }
  std::size_t delivered_count() const { return got_.size(); }

 private:
  std::vector<Sent> sent_;
  std::vector<MessageId> ids_;
  std::set<std::uint64_t> got_;
};

}  // namespace xpusim::fabric::testutil
