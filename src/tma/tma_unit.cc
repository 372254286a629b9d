#include "tma/tma_unit.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <limits>

#include "tma/tensor_map_io.h"

namespace xpusim::tma {

namespace {
// Request tags: a descriptor fetch carries its address with the top bit set; an operation's
// request carries its pool index and the request's bytes.
constexpr std::uint64_t kDescriptorTag = std::uint64_t{1} << 63;
constexpr std::uint64_t request_tag(std::uint32_t index, std::uint32_t bytes) {
  return std::uint64_t{bytes} << 32 | index;
}
// A global-to-global copy's write (its reads carry no mark).
constexpr std::uint64_t kWriteTag = std::uint64_t{1} << 62;
// An SM-to-SM push: the operation, the destination, the bytes (<= a line) and whether it is a
// shared-to-cluster piece (which also holds a generator slot) rather than a multicast copy.
constexpr std::uint64_t kToClusterTag = std::uint64_t{1} << 63;
constexpr std::uint64_t push_tag(std::uint32_t index, std::uint32_t d, std::uint32_t bytes) {
  return std::uint64_t{bytes} << 48 | std::uint64_t{d} << 32 | index;
}
}  // namespace

class TmaUnit::Stage : public sim::Event {
 public:
  Stage(TmaUnit& u, void (TmaUnit::*fn)()) : unit_(u), fn_(fn) {}

 protected:
  void process() override { (unit_.*fn_)(); }

 private:
  TmaUnit& unit_;
  void (TmaUnit::*fn_)();
};

// An operation's event: its retirement at the tick its last multicast acknowledgement arrives
// (retire), or the landings of a box issued at once (land_boxes).
class TmaUnit::OpEvent : public sim::Event {
 public:
  OpEvent(TmaUnit& u, std::uint32_t index, void (TmaUnit::*fn)(Active&))
      : unit_(u), index_(index), fn_(fn) {}

 protected:
  void process() override { (unit_.*fn_)(*unit_.pool_[index_]); }

 private:
  TmaUnit& unit_;
  std::uint32_t index_;
  void (TmaUnit::*fn_)(Active&);
};

struct TmaUnit::Port {
  std::uint32_t sm = 0;
  TmaClient* client = nullptr;
  struct Queued {
    TmaJob job;
    sim::Tick submitted = 0;
  };
  std::deque<Queued> queue;  // every request, or (split queues) the tensor ones
  std::deque<Queued> bulk;   // split queues: the non-tensor requests
  bool refused = false;      // the client waits for queue_space()
};

struct TmaUnit::Descriptor {
  std::uint64_t address = 0;
  bool arrived = false;
  std::uint32_t parts = 0;  // line reads still in flight
  std::optional<CachedDescriptor> value;
  std::optional<Error> error;
  std::uint64_t lru = 0;
  // The 128 bytes it was decoded from (empty when they could not be read): a hit checks them
  // against memory, so a rewritten descriptor is never used stale.
  std::optional<std::array<std::byte, 128>> bytes;
  std::uint64_t checked_at = 0;  // global memory's writes() when the bytes last matched
};

struct TmaUnit::Active {
  std::uint32_t index = 0;
  TmaJob job;
  sim::Tick submitted = 0;
  TmaPlan plan;
  RequestList::Iterator next, end;
  std::uint32_t total = 0;  // requests (or shared-to-cluster pieces)
  std::uint32_t issued = 0;
  std::uint32_t responded = 0;
  std::uint32_t reads_back = 0;  // kGlobalCopy: read responses
  std::uint32_t acks = 0;        // SM-to-SM pushes not yet acknowledged
  sim::Tick acked_until = 0;     // the last multicast acknowledgement's tick
  std::uint64_t to_cluster_left = 0;
  // Per destination, kept in the operation (its landings touch nothing else of the unit).
  struct Destination {
    std::uint32_t sm = 0;
    std::uint32_t landed = 0;    // responses landed
    std::uint64_t credited = 0;  // complete_tx bytes
  };
  std::array<Destination, kMaxDestinations> dests{};
  // issue_box: each destination's first and last line.
  std::array<sim::Tick, kMaxDestinations> land_from{}, land_at{};
  std::uint32_t destinations = 0;
  TmaClient* client = nullptr;
  bool retired = false;
  // A store under set sampling: its sampled lines (collect_sampled), the next one's place.
  std::vector<std::uint32_t> sampled;
  std::size_t next_sampled = 0;
};

TmaUnit::TmaUnit(sim::Component& parent, std::string_view name, const TmaParams& params,
                 mem::MemorySystem& memory, const mem::GlobalMemory& global,
                 std::vector<std::uint32_t> sms)
    : sim::Component(parent, name),
      params_(params),
      memory_(memory),
      global_(global),
      clock_(memory.sm_clock()),
      front_stage_(std::make_unique<Stage>(*this, &TmaUnit::front)),
      setup_stage_(std::make_unique<Stage>(*this, &TmaUnit::setup_done)),
      gen_stage_(std::make_unique<Stage>(*this, &TmaUnit::generate)),
      operations_(add_counter("requests", "operations", "TMA operations accepted")),
      global_requests_(add_counter("global_requests", "requests",
                                   "<= 128 B global requests generated (seed0 ¶89)")),
      bytes_read_(add_counter("bytes_read", "bytes", "bytes read from L2/HBM")),
      bytes_written_(add_counter("bytes_written", "bytes", "bytes written to L2/HBM")),
      dsmem_bytes_(add_counter("dsmem_bytes", "bytes",
                               "bytes sent to other SMs (multicast, shared-to-cluster copies)")),
      descriptor_hits_(add_counter("descriptor_hits", "lookups",
                                   "tensor operations whose descriptor was cached")),
      descriptor_misses_(add_counter("descriptor_misses", "lookups",
                                     "tensor operations that waited for their descriptor")),
      lookahead_fetches_(add_counter("descriptor_lookahead_fetches", "fetches",
                                     "descriptors fetched ahead for the next queued request")),
      descriptor_wait_(add_counter("descriptor_wait_cycles", "cycles",
                                   "cycles the front end waited for a descriptor fetch")),
      descriptor_invalidations_(add_counter(
          "descriptor_invalidations", "operations",
          "invalidate operations (fence.proxy.tensormap::generic.acquire) that dropped a cached "
          "descriptor")),
      descriptor_stale_(add_counter(
          "descriptor_stale", "lookups",
          "cached descriptors found rewritten in memory without an invalidate: fetched again "
          "(on silicon the stale copy may be used; add the fence)")),
      dropped_(add_counter("dropped", "operations", "requests dropped at setup (seed0 ¶88)")),
      queue_full_(add_counter("queue_full", "refusals", "submissions refused: queue full")),
      busy_cycles_(
          add_counter("busy_cycles", "cycles", "cycles with an operation queued or in flight")),
      queue_occupancy_(add_average("queue_occupancy", "requests",
                                   "requests already queued when one is submitted")),
      latency_(add_histogram("latency", "cycles",
                             "per operation, submission to finish (last byte landed or "
                             "acknowledged)",
                             0, 8192, 64)) {
  XPUSIM_CHECK(params.queue_depth > 0 && params.requests_per_cycle > 0 &&
                   params.max_outstanding > 0 && params.descriptor_cache_entries > 0,
               "TMA parameters were validated");
  boxes_ = memory.transactions();
  for (std::uint32_t sm : sms) {
    ports_.push_back(std::make_unique<Port>());
    ports_.back()->sm = sm;
  }
}

TmaUnit::~TmaUnit() {
  for (Stage* s : {front_stage_.get(), setup_stage_.get(), gen_stage_.get()}) {
    if (s->scheduled()) events().deschedule(*s);
  }
}

void TmaUnit::attach(std::uint32_t sm, TmaClient& client) {
  for (auto& p : ports_) {
    if (p->sm == sm) p->client = &client;
  }
}

std::uint32_t TmaUnit::queued(std::uint32_t sm) const {
  for (const auto& p : ports_) {
    if (p->sm == sm) return static_cast<std::uint32_t>(p->queue.size() + p->bulk.size());
  }
  return 0;
}

std::uint64_t TmaUnit::cycle_now() const {
  return clock_.next_cycle();  // the number of the first edge at or after now()
}

void TmaUnit::schedule(Stage& s, std::uint64_t cycle) {
  if (!s.scheduled()) events().schedule(s, clock_.edge(std::max(cycle, cycle_now())));
}

void TmaUnit::activity(int delta) {
  if (active_ == 0 && delta > 0) busy_since_ = cycle_now();
  active_ = static_cast<std::uint32_t>(static_cast<int>(active_) + delta);
  if (active_ == 0 && delta < 0) busy_cycles_.inc(cycle_now() - busy_since_);
}

bool TmaUnit::submit(const TmaJob& job) {
  for (auto& p : ports_) {
    if (p->sm != job.sm) continue;
    XPUSIM_CHECK(p->client != nullptr, "an SM submits only after attaching");
    std::deque<Port::Queued>& q = tensor_queue(job) ? p->queue : p->bulk;
    if (q.size() >= params_.queue_depth) {
      p->refused = true;
      queue_full_.inc();
      return false;
    }
    queue_occupancy_.sample(static_cast<double>(q.size()));
    q.push_back({.job = job, .submitted = now()});
    operations_.inc();
    activity(+1);
    schedule(*front_stage_, cycle_now());
    return true;
  }
  XPUSIM_CHECK(false, "TMA submission from an SM the unit does not serve");
  return false;
}

bool TmaUnit::tensor_queue(const TmaJob& job) const {
  // An invalidate stays in order with the tensor requests it concerns.
  return !params_.split_queues || job.op.is_tensor() ||
         job.op.kind == kernel::TmaKind::kInvalidateDescriptor;
}

TmaUnit::Port* TmaUnit::pick(bool& bulk) {
  // Round robin over the SMs served (seed0 ¶50: one unit shared through an arbiter); with
  // split queues, by type in turn (seed0 ¶85), and no tensor request while one is parked.
  for (int pass = 0; pass < 2; ++pass) {
    const bool tensor = params_.split_queues ? pick_tensor_ != (pass == 1) : true;
    if (tensor && parked_) continue;
    for (std::size_t i = 0; i < ports_.size(); ++i) {
      Port& p = *ports_[(rr_ + i) % ports_.size()];
      if ((tensor ? p.queue : p.bulk).empty()) continue;
      rr_ = static_cast<std::uint32_t>((rr_ + i + 1) % ports_.size());
      pick_tensor_ = !tensor;
      bulk = !tensor;
      return &p;
    }
    if (!params_.split_queues) break;
  }
  return nullptr;
}

const TmaJob* TmaUnit::peek_next() const {
  for (std::size_t i = 0; i < ports_.size(); ++i) {
    const Port& p = *ports_[(rr_ + i) % ports_.size()];
    if (!p.queue.empty()) return &p.queue.front().job;
  }
  return nullptr;
}

std::shared_ptr<TmaUnit::Descriptor> TmaUnit::lookup(std::uint64_t address) {
  for (auto& d : descriptors_) {
    if (d->address == address) return d;
  }
  return nullptr;
}

bool TmaUnit::matches_memory(Descriptor& d) const {
  if (!d.bytes) return true;                          // unreadable when fetched: its error stands
  if (global_.writes() == d.checked_at) return true;  // nothing written since
  std::array<std::byte, 128> now{};
  if (!global_.read(d.address, now).ok() || now != *d.bytes) return false;
  d.checked_at = global_.writes();
  return true;
}

std::shared_ptr<TmaUnit::Descriptor> TmaUnit::fetch(std::uint64_t address, std::uint32_t sm) {
  if (descriptors_.size() >= params_.descriptor_cache_entries) {
    // Evict the least recently used descriptor that is not being fetched.
    auto victim = descriptors_.end();
    for (auto it = descriptors_.begin(); it != descriptors_.end(); ++it) {
      if ((*it)->arrived && (victim == descriptors_.end() || (*it)->lru < (*victim)->lru)) {
        victim = it;
      }
    }
    if (victim != descriptors_.end()) descriptors_.erase(victim);
  }
  auto entry = std::make_shared<Descriptor>();
  descriptors_.push_back(entry);
  Descriptor& d = *entry;
  d.address = address;
  d.lru = ++lru_clock_;
  if (address % 64 != 0) {  // cuda.h: a CUtensorMap is 64-byte aligned
    d.arrived = true;
    d.error = Error{fmt::format("tensor map address {:#x} is not 64-byte aligned", address)};
    return entry;
  }
  // 128 B: one line, or two halves of two lines.
  const std::uint64_t line = tma::kLineBytes;
  for (std::uint64_t a = address; a < address + 128; a = (a / line + 1) * line) {
    const auto bytes =
        static_cast<std::uint32_t>(std::min(address + 128, (a / line + 1) * line) - a);
    ++d.parts;
    memory_.load(mem::MemRequest{.addr = a, .bytes = bytes, .write = false, .sm = sm}, *this,
                 kDescriptorTag | address, false);
  }
  return entry;
}

void TmaUnit::descriptor_arrived(std::uint64_t address) {
  // The entry fetching it (an evicted one still fetching is the pinned current one).
  std::shared_ptr<Descriptor> d = lookup(address);
  if ((d == nullptr || d->parts == 0) && current_descriptor_ &&
      current_descriptor_->address == address)
    d = current_descriptor_;
  if ((d == nullptr || d->parts == 0) && parked_ && parked_->descriptor->address == address)
    d = parked_->descriptor;
  XPUSIM_CHECK(d != nullptr && d->parts > 0, "a descriptor fetch returns to its entry");
  if (--d->parts > 0) return;
  d->arrived = true;
  std::array<std::byte, 128> blob{};
  const Status read = global_.read(address, blob);
  if (read) d->bytes = blob, d->checked_at = global_.writes();
  if (!read) {
    d->error = Error{fmt::format("tensor map at {:#x}: {}", address, read.error().message)};
  } else if (auto map = from_blob(blob); !map) {
    d->error = Error{fmt::format("tensor map at {:#x}: {}", address, map.errors().front().message)};
  } else {
    CachedDescriptor c{.map = *map, .tiled = std::nullopt};
    if (map->mode == Mode::kTiled) {
      if (auto prepared = PreparedTileMap::prepare(*map); prepared) c.tiled = *prepared;
    }
    d->value = std::move(c);
  }
  if (waiting_descriptor_ && current_ && current_->op.descriptor == address) {
    waiting_descriptor_ = false;
    descriptor_wait_.inc(cycle_now() - wait_since_);
    schedule(*setup_stage_, cycle_now() + params_.setup_cycles);
  }
  if (parked_ && parked_->descriptor.get() == d.get()) {
    descriptor_wait_.inc(cycle_now() - parked_->since);
    schedule(*front_stage_, cycle_now());  // taken as soon as the front is free
  }
}

void TmaUnit::front() {
  // One operation in setup at a time, and at most two set up ahead of the generator.
  if (current_) return;
  const std::size_t boxes_issuing = boxes_ ? issuing_after(cycle_now()) : 0;
  if (plans_.size() + boxes_issuing >= 2) {
    // A placed box is in the generator until its last line issues: look again then (nothing
    // else may, when the plan ahead has nothing to move).
    if (boxes_issuing > 0) schedule(*front_stage_, issuing_until_.front() + 1);
    return;
  }
  if (parked_ && parked_->descriptor->arrived) {  // its descriptor is in: set it up now
    current_ = parked_->job;
    current_port_ = parked_->port;
    current_submitted_ = parked_->submitted;
    current_descriptor_ = std::move(parked_->descriptor);
    parked_.reset();
    schedule(*setup_stage_, cycle_now() + params_.setup_cycles);
    return;
  }
  bool bulk = false;
  Port* p = pick(bulk);
  if (p == nullptr) return;
  std::deque<Port::Queued>& q = bulk ? p->bulk : p->queue;
  current_ = q.front().job;
  for (std::uint32_t i = 0; i < ports_.size(); ++i) {
    if (ports_[i].get() == p) current_port_ = i;
  }
  current_submitted_ = q.front().submitted;
  q.pop_front();
  if (p->refused) {
    p->refused = false;
    p->client->queue_space();
  }
  current_descriptor_.reset();
  if (current_->op.kind == kernel::TmaKind::kInvalidateDescriptor) {
    // In order with this SM's earlier operations, which were set up with the old copy. A
    // fetch still in flight reads memory when it lands, after the rewrite: it stays.
    if (std::shared_ptr<Descriptor> d = lookup(current_->op.descriptor); d && d->arrived) {
      std::erase(descriptors_, d);
      descriptor_invalidations_.inc();
    }
  }
  if (current_->op.is_tensor()) {
    std::shared_ptr<Descriptor> d = lookup(current_->op.descriptor);
    if (d != nullptr && d->arrived && !matches_memory(*d)) {
      descriptor_stale_.inc();
      std::erase(descriptors_, d);
      d = nullptr;
    }
    if (d != nullptr && d->arrived) {
      descriptor_hits_.inc();
      d->lru = ++lru_clock_;
    } else {
      descriptor_misses_.inc();
      if (d == nullptr) d = fetch(current_->op.descriptor, current_->sm);
    }
    current_descriptor_ = d;
  }
  // Look-ahead (seed0 ¶74, ¶87): the next queued request's descriptor is fetched now, while
  // this one is set up.
  if (params_.descriptor_lookahead) {
    const TmaJob* next = peek_next();
    if (next != nullptr && next->op.is_tensor() && lookup(next->op.descriptor) == nullptr) {
      fetch(next->op.descriptor, next->sm);
      lookahead_fetches_.inc();
    }
  }
  if (current_descriptor_ && !current_descriptor_->arrived) {
    if (params_.split_queues) {  // step aside: the non-tensor requests go past (seed0 ¶86)
      parked_ = Parked{.job = *current_,
                       .port = current_port_,
                       .submitted = current_submitted_,
                       .descriptor = std::move(current_descriptor_),
                       .since = cycle_now()};
      current_.reset();
      schedule(*front_stage_, cycle_now());
      return;
    }
    waiting_descriptor_ = true;
    wait_since_ = cycle_now();
    return;
  }
  schedule(*setup_stage_, cycle_now() + params_.setup_cycles);
}

void TmaUnit::setup_done() {
  const TmaJob job = *current_;
  Port& port = *ports_[current_port_];
  const CachedDescriptor* desc = nullptr;
  std::optional<Error> error;
  if (job.op.is_tensor()) {
    const Descriptor& d = *current_descriptor_;
    XPUSIM_CHECK(d.arrived, "setup starts once the descriptor is there");
    if (d.error) error = d.error;
    if (d.value) desc = &*d.value;
  }
  Result<TmaPlan> plan = error ? Result<TmaPlan>(*error) : port.client->plan(job, desc);
  current_.reset();
  if (!plan) {
    dropped_.inc();
    port.client->dropped(job, plan.errors().front());
    activity(-1);
  } else {
    Active& a = new_active();
    a.job = job;
    a.submitted = current_submitted_;
    a.plan = std::move(*plan);
    a.next = a.plan.report.global_requests.begin();
    a.end = a.plan.report.global_requests.end();
    a.total = static_cast<std::uint32_t>(a.plan.report.global_requests.size());
    if (a.plan.flow == TmaPlan::Flow::kToCluster) {
      a.to_cluster_left = a.plan.report.bytes_per_destination;
      a.total = static_cast<std::uint32_t>((a.to_cluster_left + kLineBytes - 1) / kLineBytes);
    }
    XPUSIM_CHECK(a.plan.destination_sms.size() <= kMaxDestinations,
                 "a TMA operation has at most 16 destinations (the CTA mask's bits)");
    a.client = port.client;
    a.destinations = static_cast<std::uint32_t>(a.plan.destination_sms.size());
    for (std::uint32_t d = 0; d < a.destinations; ++d)
      a.dests[d].sm = a.plan.destination_sms[d];
    plans_.push_back(&a);
    schedule(*gen_stage_, cycle_now());
  }
  schedule(*front_stage_, cycle_now());
}

TmaUnit::Active& TmaUnit::new_active() {
  if (free_.empty()) {
    pool_.push_back(std::make_unique<Active>());
    pool_.back()->index = static_cast<std::uint32_t>(pool_.size() - 1);
    const std::uint32_t index = pool_.back()->index;
    retire_events_.push_back(std::make_unique<OpEvent>(*this, index, &TmaUnit::retire));
    landing_events_.push_back(std::make_unique<OpEvent>(*this, index, &TmaUnit::land_boxes));
    free_.push_back(pool_.back().get());
  }
  Active* a = free_.back();
  free_.pop_back();
  const std::uint32_t index = a->index;
  *a = Active{};
  a->index = index;
  return *a;
}

void TmaUnit::generate() {
  std::uint32_t budget = params_.requests_per_cycle;
  while (budget > 0 && !plans_.empty()) {
    Active& a = *plans_.front();
    const TmaPlan::Flow flow = a.plan.flow;
    if (a.total == 0) {  // nothing to move: everything out of bounds, size 0, descriptor prefetch
      plans_.pop_front();
      for (std::uint32_t d = 0; d < a.destinations; ++d)
        land(a, d, 0);
      retire(a);
      continue;
    }
    if (boxes_ && flow == TmaPlan::Flow::kLoad) {
      plans_.pop_front();
      issue_box(a);
      schedule(*front_stage_, cycle_now());
      continue;
    }
    if (boxes_ && next_issue_ > cycle_now()) {  // the boxes placed ahead issue first
      schedule(*gen_stage_, next_issue_);
      return;
    }
    if (outstanding_ >= params_.max_outstanding) return;  // a response reschedules
    const std::uint32_t sm = a.job.sm;
    const bool copy_write = flow == TmaPlan::Flow::kGlobalCopy && a.issued >= a.plan.reads;
    // A global-to-global write carries a read's data: it waits for one more read to be back.
    if (copy_write && a.issued - a.plan.reads >= a.reads_back) return;  // a response reschedules
    if (flow == TmaPlan::Flow::kToCluster) {
      const auto bytes =
          static_cast<std::uint32_t>(std::min<std::uint64_t>(a.to_cluster_left, kLineBytes));
      a.to_cluster_left -= bytes;
      const std::uint32_t to = a.dests[0].sm;
      if (to == sm) {
        land(a, 0, bytes);
        ++a.responded;
      } else {
        ++outstanding_;
        ++a.acks;
        dsmem_bytes_.inc(bytes);
        memory_.dsmem().push(sm, to, bytes, *this, kToClusterTag | push_tag(a.index, 0, bytes));
      }
    } else {
      // Set sampling (transactions): a store's lines in sets that are not sampled are issued
      // but sent as part of the sampled line that stands for them, as issue_box does.
      std::uint32_t weight = 1;
      if (flow == TmaPlan::Flow::kStore && boxes_ && memory_.set_sampling() > 1) {
        if (a.issued == 0) collect_sampled(a, a.sampled);
        weight = sampled_weight(a.sampled, a.next_sampled, a.issued, a.total);
      }
      const GlobalRequest r = *a.next;
      ++a.next;
      global_requests_.inc();
      if (weight == 0) {
        ++a.responded;
        bytes_written_.inc(r.bytes);
      } else {
        ++outstanding_;
        const mem::MemRequest m{
            .addr = r.address, .bytes = r.bytes, .write = false, .sm = sm, .weight = weight};
        if (flow == TmaPlan::Flow::kStore || copy_write) {
          memory_.store(m, *this, request_tag(a.index, r.bytes) | (copy_write ? kWriteTag : 0));
        } else {
          memory_.load(m, *this, request_tag(a.index, r.bytes), false);
        }
      }
    }
    ++a.issued;
    --budget;
    if (a.issued == a.total) {
      plans_.pop_front();
      if (flow == TmaPlan::Flow::kStore || flow == TmaPlan::Flow::kGlobalCopy)
        client_of(a).source_read(a.job);
      maybe_retire(a);
      schedule(*front_stage_, cycle_now());
    }
  }
  if (!plans_.empty() && outstanding_ < params_.max_outstanding) {
    schedule(*gen_stage_, cycle_now() + 1);
  }
}

void TmaUnit::request_done(std::uint64_t tag) {
  if (tag & kDescriptorTag) {
    descriptor_arrived(tag & ~kDescriptorTag);
    return;
  }
  Active& a = *pool_[static_cast<std::uint32_t>(tag)];
  const auto bytes = static_cast<std::uint32_t>((tag & ~kWriteTag) >> 32);
  --outstanding_;
  if (a.plan.flow == TmaPlan::Flow::kGlobalCopy) {
    if (tag & kWriteTag) {
      bytes_written_.inc(bytes);
    } else {
      bytes_read_.inc(bytes);
      ++a.reads_back;
    }
    ++a.responded;
    maybe_retire(a);
  } else {
    response(a, bytes);
  }
  if (!plans_.empty()) schedule(*gen_stage_, cycle_now());
}

void TmaUnit::push_arrived(std::uint64_t tag, sim::Tick acked_at) {
  Active& a = *pool_[static_cast<std::uint32_t>(tag)];
  const auto d = static_cast<std::uint32_t>(tag >> 32) & 0xFFFFu;
  const auto bytes = static_cast<std::uint32_t>(tag >> 48) & 0x7FFFu;
  land(a, d, bytes);
  if (tag & kToClusterTag) {
    ++a.responded;
    return;  // its acknowledgement frees a generator slot: push_acked at its tick
  }
  // A multicast copy: its acknowledgement only ends the operation.
  a.acked_until = std::max(a.acked_until, acked_at);
  --a.acks;
  maybe_retire(a);
}

void TmaUnit::push_acked(std::uint64_t tag) {
  Active& a = *pool_[static_cast<std::uint32_t>(tag)];
  --outstanding_;
  --a.acks;
  if (!plans_.empty()) schedule(*gen_stage_, cycle_now());
  maybe_retire(a);
}

void TmaUnit::maybe_retire(Active& a) {
  if (a.responded != a.total || a.acks != 0 || a.issued != a.total) return;
  if (a.acked_until <= now()) {
    retire(a);
    return;
  }
  OpEvent& e = *retire_events_[a.index];
  if (!e.scheduled()) events().schedule(e, a.acked_until);
}

void TmaUnit::response(Active& a, std::uint32_t bytes) {
  switch (a.plan.flow) {
    case TmaPlan::Flow::kLoad: {
      bytes_read_.inc(bytes);
      for (std::uint32_t d = 0; d < a.destinations; ++d) {
        const std::uint32_t to = a.dests[d].sm;
        if (to == a.job.sm) {
          land(a, d, bytes);
          continue;
        }
        // Multicast (seed0 §3.7): the line read once crosses the SM-to-SM network to every
        // other destination, which acknowledges it.
        ++a.acks;
        dsmem_bytes_.inc(bytes);
        memory_.dsmem().push(a.job.sm, to, bytes, *this, push_tag(a.index, d, bytes),
                             /*ack_event=*/false);
      }
      break;
    }
    case TmaPlan::Flow::kStore:
      bytes_written_.inc(bytes);
      break;
    default:
      bytes_read_.inc(bytes);
      break;
  }
  ++a.responded;
  maybe_retire(a);
}

void TmaUnit::land(Active& a, std::uint32_t d, std::uint32_t bytes) {
  // complete_tx counts the whole box, out-of-bounds fill included (copy_engine.h), while the
  // responses carry only in-bounds bytes: every landing but the last credits its bytes (never
  // enough to complete the phase early); the last credits what is left.
  const std::uint64_t box = a.plan.report.bytes_per_destination;
  Active::Destination& to = a.dests[d];
  const bool last = ++to.landed >= a.total;
  std::uint64_t credit = 0;
  if (last) {
    credit = box - to.credited;
  } else if (to.credited + 1 < box) {
    credit = std::min<std::uint64_t>(bytes, box - to.credited - 1);
  }
  to.credited += credit;
  if (credit > 0 || last) a.client->landed(a.job, d, static_cast<std::uint32_t>(credit), now());
}

TmaClient& TmaUnit::client_of(const Active& a) {
  return *a.client;
}

void TmaUnit::retire(Active& a) {
  XPUSIM_CHECK(!a.retired, "a TMA operation retires once");
  a.retired = true;
  client_of(a).finished(a.job);
  latency_.sample(static_cast<double>(clock_.cycle_at(now()) - clock_.cycle_at(a.submitted)));
  free_.push_back(&a);
  activity(-1);
}

std::size_t TmaUnit::issuing_after(std::uint64_t cycle) {
  while (!issuing_until_.empty() && issuing_until_.front() < cycle)
    issuing_until_.pop_front();
  return issuing_until_.size();
}

void TmaUnit::collect_sampled(const Active& a, std::vector<std::uint32_t>& out) const {
  out.clear();
  std::uint32_t i = 0;
  for (auto it = a.next; it != a.end; ++it, ++i) {
    if (memory_.sampled((*it).address)) out.push_back(i);
  }
}

std::uint32_t TmaUnit::sampled_weight(std::span<const std::uint32_t> sampled, std::size_t& next,
                                      std::uint64_t i, std::uint64_t lines) {
  if (sampled.empty()) return 1;  // no sampling, or no sampled line: every line timed
  if (next == sampled.size() || sampled[next] != i) return 0;
  const std::uint64_t until = next + 1 < sampled.size() ? sampled[next + 1] : lines;
  const std::uint64_t from = next == 0 ? 0 : i;
  ++next;
  return static_cast<std::uint32_t>(until - from);
}

void TmaUnit::issue_box(Active& a) {
  const std::uint32_t sm = a.job.sm;
  a.land_from.fill(sim::kMaxTick);
  // Set sampling (docs/memory-hierarchy.md): the box's lines in sampled L2 sets are looked up
  // there; each stands for a group of lines, itself and those up to the next one (the first
  // also those before it), which take its L2 delays. A box with none is timed line by line.
  const std::size_t lines = a.plan.report.global_requests.size();
  sampled_.clear();
  if (memory_.set_sampling() > 1) collect_sampled(a, sampled_);
  const bool sampling = !sampled_.empty();
  std::size_t group = 0;  // with sampling: the group of the current line
  const auto group_end = [&](std::size_t g) {
    return g + 1 < sampled_.size() ? std::size_t{sampled_[g + 1]} : lines;
  };
  // Multicast copies' earliest and latest arrivals and latest acknowledgement, in DSMEM
  // cycles: converted once after the box (edges are monotone).
  std::array<sim::Cycles, kMaxDestinations> far_from, far_at{};
  far_from.fill(std::numeric_limits<sim::Cycles>::max());
  sim::Cycles far_acked = 0;
  bool copied = false;
  // Times a line whose data is at the SM at `done`: its slot, and its landing at every
  // destination.
  const auto landed = [&](const GlobalRequest& r, sim::Tick done) {
    in_flight_.push(done);
    for (std::uint32_t d = 0; d < a.destinations; ++d) {
      const std::uint32_t to = a.dests[d].sm;
      if (to == sm) {
        a.land_from[d] = std::min(a.land_from[d], done);
        a.land_at[d] = std::max(a.land_at[d], done);
        continue;
      }
      // Multicast (seed0 §3.7): one read, a copy to every other destination.
      dsmem_bytes_.inc(r.bytes);
      const mem::DsmemNetwork::PushCycles p = memory_.dsmem().push_cycles_at(sm, to, r.bytes, done);
      far_from[d] = std::min(far_from[d], p.arrived);
      far_at[d] = std::max(far_at[d], p.arrived);
      far_acked = std::max(far_acked, p.acked);
      copied = true;
    }
  };
  const auto request = [sm](const GlobalRequest& r) {
    return mem::MemRequest{.addr = r.address, .bytes = r.bytes, .write = false, .sm = sm};
  };
  std::uint64_t c = cycle_now();
  for (std::uint32_t i = 0; a.next != a.end; ++a.next, ++i) {
    const GlobalRequest r = *a.next;
    c = std::max(c, next_issue_);
    // The outstanding limit: lines back by this cycle leave; with all slots taken, the line
    // waits for the earliest. A sampled group is let in whole, at its first line.
    std::size_t slots = 0;
    if (!sampling) {
      slots = 1;
    } else if (i == 0 || i == group_end(group)) {
      if (i != 0) ++group;
      slots = group_end(group) - i;
    }
    sim::Tick t = clock_.edge(c);
    if (slots > 0) {
      in_flight_.make_room(t, slots, params_.max_outstanding, [&](sim::Tick back) {
        c = std::max(c, clock_.first_cycle_from(back));
        t = clock_.edge(c);
      });
    }
    if (c != rate_cycle_) {
      rate_cycle_ = c;
      rate_count_ = 0;
    }
    next_issue_ = ++rate_count_ >= params_.requests_per_cycle ? c + 1 : c;
    global_requests_.inc();
    bytes_read_.inc(r.bytes);
    if (!sampling) {
      landed(r, memory_.load_at(request(r), t));
      continue;
    }
    group_lines_.push_back({r, t});
    if (i + 1 != group_end(group)) continue;
    // The group's last line is issued: its sampled line is looked up first, then the others
    // follow it.
    const std::size_t first = i + 1 - group_lines_.size();
    const std::size_t rep = sampled_[group] - first;
    mem::MemorySystem::SampledLoad by;
    const auto weight = static_cast<std::uint32_t>(group_lines_.size());
    landed(group_lines_[rep].first, memory_.load_at(request(group_lines_[rep].first),
                                                    group_lines_[rep].second, weight, &by));
    for (std::size_t j = 0; j < group_lines_.size(); ++j) {
      if (j == rep) continue;
      landed(group_lines_[j].first,
             memory_.follow_at(request(group_lines_[j].first), group_lines_[j].second, by));
    }
    group_lines_.clear();
  }
  if (copied) {
    const sim::Clock& dsmem = memory_.dsmem().clock();
    for (std::uint32_t d = 0; d < a.destinations; ++d) {
      if (far_from[d] == std::numeric_limits<sim::Cycles>::max()) continue;  // no copy
      a.land_from[d] = std::min(a.land_from[d], dsmem.edge(far_from[d]));
      a.land_at[d] = std::max(a.land_at[d], dsmem.edge(far_at[d]));
    }
    a.acked_until = std::max(a.acked_until, dsmem.edge(far_acked));
  }
  issuing_until_.push_back(c);
  a.issued = a.responded = a.total;
  if (a.destinations == 0) {
    maybe_retire(a);
    return;
  }
  sim::Tick first = sim::kMaxTick;
  for (std::uint32_t d = 0; d < a.destinations; ++d)
    first = std::min(first, a.land_at[d]);
  events().schedule(*landing_events_[a.index], first);
}

void TmaUnit::land_boxes(Active& a) {
  const std::uint64_t box = a.plan.report.bytes_per_destination;
  sim::Tick next = sim::kMaxTick;
  for (std::uint32_t d = 0; d < a.destinations; ++d) {
    Active::Destination& to = a.dests[d];
    if (to.landed == a.total) continue;
    if (a.land_at[d] > now()) {
      next = std::min(next, a.land_at[d]);
      continue;
    }
    to.landed = a.total;
    to.credited = box;
    a.client->landed(a.job, d, static_cast<std::uint32_t>(box), a.land_from[d]);
  }
  if (next != sim::kMaxTick) {
    events().schedule(*landing_events_[a.index], next);
    return;
  }
  maybe_retire(a);
}

}  // namespace xpusim::tma
