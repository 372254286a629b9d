#include "mem/memory_system.h"

#include <array>

#include <fmt/format.h>

#include "config/chip_spec.h"

namespace xpusim::mem {

std::string_view to_string(MemoryTiming t) {
  return t == MemoryTiming::kEvents ? "events" : "transactions";
}

std::optional<MemoryTiming> parse_memory_timing(std::string_view text) {
  if (text == "events") return MemoryTiming::kEvents;
  if (text == "transactions") return MemoryTiming::kTransactions;
  return std::nullopt;
}

MemoryParams MemoryParams::from_chip(const config::ChipSpec& chip) {
  MemoryParams p;
  p.sm_clock_hz = chip.clocks.sm_hz;
  p.l2_clock_hz = chip.clocks.l2_hz;
  // SM ids are GPC-major (docs/config.md); computed from the fields so that this library
  // needs only the header of the config unit.
  p.gpc_of_sm.clear();
  for (std::uint32_t g = 0; g < chip.topology.tpcs_per_gpc.size(); ++g) {
    const std::uint32_t sms = chip.topology.tpcs_per_gpc[g] * chip.topology.sms_per_tpc;
    p.gpc_of_sm.insert(p.gpc_of_sm.end(), sms, g);
  }
  p.gpcs = chip.topology.gpcs;
  p.map = AddressMapParams{.line_bytes = chip.l2.line_bytes,
                           .sector_bytes = chip.l2.sector_bytes,
                           .l2_slices = chip.l2.slices,
                           .l2_partitions = chip.l2.partitions,
                           .hbm_channels = chip.hbm.channels,
                           .hbm_interleave_bytes = chip.hbm.interleave_bytes};
  p.l1 = L1Params{.bytes = chip.sm.l1_shared_bytes - chip.sm.shared_memory_bytes,
                  .ways = chip.l1.ways,
                  .hit_latency_cycles = chip.l1.hit_latency_cycles};
  p.crossbar = CrossbarParams{.latency_cycles = chip.crossbar.latency_cycles,
                              .slice_bytes_per_cycle = chip.l2.slice_bytes_per_cycle,
                              .cross_partition_cycles = chip.l2.cross_partition_cycles};
  p.l2 = L2Params{.size_bytes = chip.l2.size_bytes,
                  .slices = chip.l2.slices,
                  .ways = chip.l2.ways,
                  .hit_latency_cycles = chip.l2.hit_latency_cycles,
                  .mshrs_per_slice = chip.l2.mshrs_per_slice,
                  .set_index = chip.l2.set_index == "modulo" ? SetIndex::kModulo : SetIndex::kHash,
                  .writeback_buffers_per_slice = chip.l2.writeback_buffers_per_slice};
  p.hbm = HbmParams{.channels = chip.hbm.channels,
                    .bandwidth_bytes_per_s = chip.hbm.bandwidth_bytes_per_s,
                    .latency = chip.hbm.latency_ps,
                    .turnaround = chip.hbm.turnaround_ps,
                    .load = {.reads = chip.hbm.loaded_reads_ns,
                             .mixed = chip.hbm.loaded_mixed_ns,
                             .writes = chip.hbm.loaded_writes_ns,
                             .window = chip.hbm.loaded_window_ps}};
  p.dsmem = DsmemParams{.latency_cycles = chip.dsmem.latency_cycles,
                        .bytes_per_cycle = chip.dsmem.bytes_per_cycle};
  return p;
}

MemorySystem::MemorySystem(Component& parent, const MemoryParams& params, std::string_view name)
    : Component(parent, name),
      params_(params),
      transactions_(params.timing == MemoryTiming::kTransactions),
      sm_clock_(events(), params.sm_clock_hz),
      l2_clock_(events(), params.l2_clock_hz),
      map_(params.map),
      loads_(add_counter("loads", "count", "global load requests (one line each)")),
      stores_(add_counter("stores", "count", "global store requests (one line each)")),
      load_latency_(add_average("load_latency", "SM cycles", "issue to data back, per load")),
      worker_sm_clock_(events(), params.sm_clock_hz) {
  XPUSIM_CHECK(!params.gpc_of_sm.empty() && params.gpcs > 0, "a memory system needs SMs");
  tracing_ = trace_track() != sim::kNoTrack;
  l1_group_ = std::make_unique<Component>(*this, "l1");
  for (std::uint32_t sm = 0; sm < params.gpc_of_sm.size(); ++sm) {
    l1_.push_back(std::make_unique<L1Cache>(*l1_group_, fmt::format("sm{}", sm), params.l1,
                                            params.map.line_bytes));
  }
  hbm_ = std::make_unique<Hbm>(*this, params.hbm, map_);
  l2_ = std::make_unique<L2Cache>(*this, l2_clock_, params.l2, map_, *hbm_);
  set_index_ = &l2_->slice(0).tags();
  for (std::size_t s = 1; s < l2_->slices(); ++s) {
    XPUSIM_CHECK(l2_->slice(s).tags().sets() == set_index_->sets() &&
                     l2_->slice(s).tags().hashed() == set_index_->hashed(),
                 "the L2 slices differ in sets or set index");
  }
  std::vector<std::uint32_t> near(params.gpc_of_sm.size());
  for (std::uint32_t sm = 0; sm < near.size(); ++sm)
    near[sm] = params.near_partition(sm);
  std::vector<std::uint32_t> slice_partition(params.l2.slices);
  for (std::uint32_t s = 0; s < slice_partition.size(); ++s)
    slice_partition[s] = map_.partition_of_slice(s);
  xbar_ = std::make_unique<Crossbar>(*this, l2_clock_, params.crossbar, std::move(near),
                                     std::move(slice_partition));
  dsmem_ = std::make_unique<DsmemNetwork>(*this, sm_clock_, params.dsmem, params.gpc_of_sm,
                                          transactions_);
  if (params.worker_thread && batches_accesses()) {
    // A warp access that leaves the L1 crosses the crossbar twice: it is done no sooner than
    // two latencies of L2 cycles after it is issued (less two periods for the edges).
    const sim::Cycles two_ways = 2 * params.crossbar.latency_cycles;
    lookahead_ = two_ways >= 2 ? l2_clock_.edge(two_ways - 2) : 0;
    worker_ = std::make_unique<MemoryWorker>(events(), static_cast<MemoryWorker::Handler&>(*this));
    sim().stats().add_reader(this, [this] { drain(); });
  }
}

std::uint32_t MemorySystem::sectors_of(const MemRequest& r) const {
  XPUSIM_CHECK(r.sm < l1_.size(), "memory request from an SM that does not exist");
  if (r.sector_mask != 0) {
    XPUSIM_CHECK(map_.sectors_per_line() == 32 || r.sector_mask >> map_.sectors_per_line() == 0,
                 "memory request names a sector beyond its line");
    return r.sector_mask;
  }
  XPUSIM_CHECK(r.bytes > 0, "memory request of zero bytes");
  XPUSIM_CHECK(map_.line_offset(r.addr) + r.bytes <= params_.map.line_bytes,
               "memory request crosses a line; split it with coalesce()");
  return map_.sector_mask(r.addr, r.bytes);
}

// One request's path through the hierarchy, as the steps of a state machine. Each step is
// scheduled at the tick and in the order the hierarchy's timing gives it (the same ticks and
// order as one posted callback per step would have), and the request object itself is the
// event, so nothing is allocated per request once the pool has grown to the requests in flight.
class alignas(64) MemorySystem::Request final : public sim::Event, public SliceClient {
  // First: every step's prefetch() and process() read it (in the third host line it missed).
  MemorySystem& ms_;

 public:
  explicit Request(MemorySystem& ms) : ms_(ms) {}

  enum class Step : std::uint8_t {
    kLoadDone,    // an L1 hit: the data is back
    kAtSlice,     // the request reached its L2 slice
    kLoadFill,    // the data is back at the SM: fill the L1, done
    kStoreAcked,  // the L2's acknowledgement is back at the SM
    kLinesDone,   // load_lines/store_lines: the last line is done; fill the L1 with `fills`
  };

  // The fields are in the order of their use by a warp access (load_lines), so that what
  // prefetch() and process() read lies in the two host lines the event loop prefetches.
  // What the caller is told at the end: a client and tag, or a Done (last: other uses).
  RequestClient* client = nullptr;
  std::uint64_t tag = 0;
  // kLinesDone: the lines and sectors the L1 takes (a vector kept for its capacity).
  std::vector<LineFill> fills;
  Step step = Step::kLoadDone;
  bool store = false;
  bool cache_in_l1 = true;
  std::uint32_t sm = 0;
  std::uint64_t order = 0;  // with a worker thread: the completion's reserved event order
  // kLinesDone: the L1 sets of the first fills, for prefetch(). Read from `fills`, a block
  // the worker wrote last, the hint waited for it; from here it does not.
  std::array<std::uint32_t, 4> fill_sets{};
  // One line's steps (not kLinesDone) from here.
  std::uint32_t slice = 0;
  std::uint32_t sectors = 0;  // a load: those missing in L1; a store: those written
  std::uint64_t line = 0;
  sim::Tick start = 0;
  std::uint64_t flow = 0;  // tracing: the SM -> slice arrow; flow + 1 the one back
  Done done;

  // Tracing: sent from the SM at `start`, arrived at the slice at `at`, replied at `reply`.
  void trace_arrival(sim::Tick at) {
    if (!ms_.tracing_) return;
    sim::Tracer& t = ms_.sim().tracer();
    const sim::TrackId from = ms_.l1_track(sm), to = ms_.slice_track(slice);
    t.complete(from, store ? "st" : "ld", start, start, "mem");
    t.flow_begin(from, "mem", flow, start);
    t.complete(to, store ? "st" : "ld", at, at, "mem");
    t.flow_end(to, "mem", flow, at);
  }
  void trace_reply(sim::Tick reply) {
    if (!ms_.tracing_) return;
    sim::Tracer& t = ms_.sim().tracer();
    const sim::TrackId track = ms_.slice_track(slice);
    t.complete(track, store ? "st ack" : "ld data", reply, reply, "mem");
    t.flow_begin(track, "mem", flow + 1, reply);
  }
  void trace_at_slice(sim::Tick at, sim::Tick reply) {
    trace_arrival(at);
    trace_reply(reply);
  }

  void slice_reply(sim::Cycles pipeline) override {
    trace_reply(ms_.now());
    if (store) {
      step = Step::kStoreAcked;
      ms_.events().schedule(*this, ms_.xbar_->send_response(slice, kControlMessageBytes, pipeline));
      return;
    }
    const sim::Tick back = ms_.xbar_->send_response(slice, ms_.sector_bytes(sectors), pipeline);
    step = Step::kLoadFill;
    ms_.events().schedule(*this,
                          cycles_after(ms_.sm_clock_, back, ms_.params_.l1.hit_latency_cycles));
  }

 protected:
  void prefetch() const override {
    if (step == Step::kAtSlice) {
      ms_.l2_->slice(slice).prefetch(line);
      return;
    }
    if (step == Step::kLinesDone && !fills.empty()) {
      // The L1 sets the first fills go to, and the fills themselves (an access is usually
      // four lines or fewer).
      const SectorCache& l1 = ms_.l1_[sm]->tags();
      const std::size_t n = std::min(fills.size(), fill_sets.size());
      for (std::size_t i = 0; i < n && l1.sets() > 0; ++i)
        l1.prefetch_set(fill_sets[i]);
      sim::prefetch_range(fills.data(), n * sizeof(LineFill));
    }
    if (client != nullptr) client->prefetch_done(tag);  // the last step: the caller's turn
  }
  void process() override {
    switch (step) {
      case Step::kAtSlice:
        trace_arrival(ms_.now());
        if (store) {
          ms_.l2_->slice(slice).write(line, sectors, *this);
        } else {
          ms_.l2_->slice(slice).read(line, sectors, *this);
        }
        return;
      case Step::kLoadFill:
        if (cache_in_l1) ms_.l1_[sm]->fill(line, sectors);
        trace_back();
        [[fallthrough]];
      case Step::kLoadDone:
        ms_.sample_load_latency(
            static_cast<double>(ms_.sm_clock_.cycle_at(ms_.now()) - ms_.sm_clock_.cycle_at(start)));
        complete();
        return;
      case Step::kStoreAcked:
        trace_back();
        complete();
        return;
      case Step::kLinesDone:
        for (const LineFill& f : fills)
          ms_.l1_[sm]->fill(f.line, f.sectors);
        fills.clear();
        complete();
        return;
    }
  }

 private:
  // Back at the SM from L2: the SM-side slice and the arrow's end.
  void trace_back() {
    if (!ms_.tracing_) return;
    sim::Tracer& t = ms_.sim().tracer();
    const sim::TrackId track = ms_.l1_track(sm);
    t.complete(track, store ? "st ack" : "ld data", ms_.now(), ms_.now(), "mem");
    t.flow_end(track, "mem", flow + 1, ms_.now());
  }

  // Back to the pool first: the callback may issue a request that reuses this object.
  void complete() {
    Done fn = std::move(done);
    done = nullptr;
    RequestClient* c = client;
    client = nullptr;
    ms_.request_free_.push_back(this);
    if (c != nullptr) {
      c->request_done(tag);
    } else {
      fn();
    }
  }
};

MemorySystem::~MemorySystem() {
  if (worker_ != nullptr) sim().stats().remove_reader(this);
  worker_.reset();  // joins the thread before the units it times go
}

namespace {
constexpr sim::TrackId kUnmade = sim::kNoTrack - 1;  // a track not asked for yet
}  // namespace

sim::TrackId MemorySystem::l1_track(std::uint32_t sm) {
  if (l1_tracks_.empty()) l1_tracks_.assign(l1_.size(), kUnmade);
  sim::TrackId& t = l1_tracks_[sm];
  if (t == kUnmade) t = sim().tracer().track(fmt::format("{}.l1.sm{}", path(), sm));
  return t;
}

sim::TrackId MemorySystem::slice_track(std::uint32_t slice) {
  if (slice_tracks_.empty()) slice_tracks_.assign(params_.l2.slices, kUnmade);
  sim::TrackId& t = slice_tracks_[slice];
  if (t == kUnmade) t = sim().tracer().track(fmt::format("{}.l2.slice{}", path(), slice));
  return t;
}

MemorySystem::Request& MemorySystem::new_request() {
  if (request_free_.empty()) {
    request_pool_.push_back(std::make_unique<Request>(*this));
    return *request_pool_.back();
  }
  Request* q = request_free_.back();
  request_free_.pop_back();
  return *q;
}

void MemorySystem::load(const MemRequest& r, Done done, bool cache_in_l1) {
  Request& q = new_request();
  q.done = std::move(done);
  start_load(q, r, cache_in_l1);
}

void MemorySystem::load(const MemRequest& r, RequestClient& client, std::uint64_t tag,
                        bool cache_in_l1) {
  Request& q = new_request();
  q.client = &client;
  q.tag = tag;
  start_load(q, r, cache_in_l1);
}

void MemorySystem::start_load(Request& q, const MemRequest& r, bool cache_in_l1) {
  drain();
  const std::uint32_t sectors = sectors_of(r);
  const std::uint64_t line = map_.line_of(r.addr);
  const std::uint32_t sm = r.sm;
  ++loads_;
  q.store = false;
  q.cache_in_l1 = cache_in_l1;
  q.sm = sm;
  q.line = line;
  q.start = now();
  const sim::Cycles l1_latency = params_.l1.hit_latency_cycles;
  const std::uint32_t missing = cache_in_l1 ? l1_[sm]->load(line, sectors) : sectors;
  if (missing == 0) {
    q.step = Request::Step::kLoadDone;
    events().schedule(q, cycles_after(sm_clock_, now(), l1_latency));
    return;
  }
  q.sectors = missing;
  q.slice = map_.slice_of_line(line);
  q.step = Request::Step::kAtSlice;
  if (tracing_) q.flow = next_flow_ += 2;
  const sim::Tick at = transactions_
                           ? xbar_->send_request_at(sm, q.slice, kControlMessageBytes, now())
                           : xbar_->send_request(sm, q.slice, kControlMessageBytes);
  if (!transactions_) {
    events().schedule(q, at);
    return;
  }
  const L2Slice::Answer a = l2_->slice(q.slice).read_at(line, missing, at);
  q.trace_at_slice(at, a.ready);
  const sim::Tick back =
      xbar_->send_response_at(q.slice, sector_bytes(missing), a.ready, a.pipeline);
  q.step = Request::Step::kLoadFill;
  events().schedule(q, cycles_after(sm_clock_, back, params_.l1.hit_latency_cycles));
}

void MemorySystem::store(const MemRequest& r, Done done) {
  Request& q = new_request();
  q.done = std::move(done);
  start_store(q, r);
}

void MemorySystem::store(const MemRequest& r, RequestClient& client, std::uint64_t tag) {
  Request& q = new_request();
  q.client = &client;
  q.tag = tag;
  start_store(q, r);
}

void MemorySystem::start_store(Request& q, const MemRequest& r) {
  drain();
  const std::uint32_t sectors = sectors_of(r);
  const std::uint64_t line = map_.line_of(r.addr);
  XPUSIM_CHECK(r.weight == 1 || transactions_, "a weighted store needs the transaction timing");
  stores_ += r.weight;
  l1_[r.sm]->store(line, sectors);
  q.store = true;
  q.sm = r.sm;
  q.line = line;
  q.start = now();
  q.sectors = sectors;
  q.slice = map_.slice_of_line(line);
  q.step = Request::Step::kAtSlice;
  if (tracing_) q.flow = next_flow_ += 2;
  const std::uint64_t bytes = kControlMessageBytes + sector_bytes(sectors);
  const sim::Tick at = transactions_ ? xbar_->send_request_at(r.sm, q.slice, bytes, now(), r.weight)
                                     : xbar_->send_request(r.sm, q.slice, bytes);
  if (!transactions_) {
    events().schedule(q, at);
    return;
  }
  const L2Slice::Answer a = l2_->slice(q.slice).write_at(line, sectors, at, r.weight);
  q.trace_at_slice(at, a.ready);
  q.step = Request::Step::kStoreAcked;
  events().schedule(
      q, xbar_->send_response_at(q.slice, kControlMessageBytes, a.ready, a.pipeline, r.weight));
}

MemorySystem::Request& MemorySystem::lines_request(std::uint32_t sm,
                                                   std::span<const LineRequest> lines,
                                                   RequestClient& client, std::uint64_t tag,
                                                   bool store) {
  XPUSIM_CHECK(batches_accesses() && !lines.empty() && sm < l1_.size(),
               "load_lines and store_lines need the transaction-level timing, no tracing, an "
               "SM and a line");
  Request& q = new_request();
  q.client = &client;
  q.tag = tag;
  q.store = store;
  q.sm = sm;
  q.step = Request::Step::kLinesDone;
  return q;
}

sim::Tick MemorySystem::read_through_l2(const sim::Clock& sm_clock, std::uint32_t sm,
                                        std::uint64_t line, std::uint32_t sectors, sim::Tick at,
                                        std::uint32_t weight, SampledLoad* sampled) {
  LineFill f;
  send_line(f, sm, line, sectors, kControlMessageBytes, at);
  return read_through_slice(sm_clock, f, weight, sampled);
}

void MemorySystem::route_line(LineFill& f, std::uint64_t line, std::uint32_t sectors) const {
  // Field by field into its place (a request's list): a LineFill returned by value was
  // copied in with 16-byte loads over the stores that built it, a store-forwarding stall.
  f.line = line;
  f.sectors = sectors;
  f.slice = map_.slice_of_line(line);
  f.set = set_index_->set_index(line);
}

void MemorySystem::send_line(LineFill& f, std::uint32_t sm, std::uint64_t bytes, sim::Tick at) {
  f.arrival = xbar_->send_request_at(sm, f.slice, bytes, at);
}

void MemorySystem::send_line(LineFill& f, std::uint32_t sm, std::uint64_t line,
                             std::uint32_t sectors, std::uint64_t bytes, sim::Tick at) {
  route_line(f, line, sectors);
  send_line(f, sm, bytes, at);
}

void MemorySystem::send_lines(std::span<LineFill> fills, std::uint32_t sm, bool store,
                              sim::Tick at) {
  for (LineFill& f : fills)
    send_line(f, sm, kControlMessageBytes + (store ? sector_bytes(f.sectors) : 0), at);
}

sim::Tick MemorySystem::read_through_slice(const sim::Clock& sm_clock, const LineFill& f,
                                           std::uint32_t weight, SampledLoad* sampled) {
  const auto [line, sectors, slice, set, arrival] = f;
  const L2Slice::Answer a = l2_->slice(slice).read_in(set, line, sectors, arrival, weight);
  if (sampled != nullptr) *sampled = SampledLoad{.arrival = arrival, .answer = a};
  return back_at_sm(sm_clock,
                    xbar_->response_cycle_at(slice, sector_bytes(sectors), a.ready, a.pipeline));
}

void MemorySystem::load_lines(std::uint32_t sm, std::span<const LineRequest> lines,
                              RequestClient& client, std::uint64_t tag) {
  Request& q = lines_request(sm, lines, client, tag, false);
  // The L1 first (the SM's own), then the lines it misses beyond it: the L1 and the rest
  // share no state, so this is the order of a line-by-line walk.
  std::uint32_t hits = 0;
  for (const LineRequest& lr : lines) {
    const std::uint32_t sectors = sectors_of(lr.to_request(sm, false));
    const std::uint64_t line = map_.line_of(lr.line_addr);
    ++loads_;
    const std::uint32_t missing = l1_[sm]->load(line, sectors);
    if (missing != 0) {
      const SectorCache& tags = l1_[sm]->tags();
      if (q.fills.size() < q.fill_sets.size() && tags.sets() > 0)
        q.fill_sets[q.fills.size()] = static_cast<std::uint32_t>(tags.set_index(line));
      q.fills.push_back(LineFill{});
      route_line(q.fills.back(), line, missing);
    } else {
      ++hits;
    }
  }
  if (worker_ != nullptr && !q.fills.empty()) {
    worker_->submit(&q, now(), now() + lookahead_, hits, kLoadJob);
    q.order = events().reserve_order();
    return;
  }
  if (worker_ != nullptr) {  // all hits: nothing for the worker
    const sim::Tick l1_hit = cycles_after(sm_clock_, now(), params_.l1.hit_latency_cycles);
    sample_load_latency(static_cast<double>(sm_clock_.cycle_at(l1_hit) - sm_clock_.cycle_at(now())),
                        hits);
    events().schedule(q, l1_hit);
    return;
  }
  send_lines(q.fills, sm, false, now());
  events().schedule(q, time_load_lines(sm_clock_, q.fills, hits, now()));
}

sim::Tick MemorySystem::time_load_lines(const sim::Clock& sm_clock,
                                        std::span<const LineFill> misses, std::uint32_t l1_hits,
                                        sim::Tick at) {
  const sim::Tick l1_hit = cycles_after(sm_clock, at, params_.l1.hit_latency_cycles);
  const sim::Cycles start_cycle = sm_clock.cycle_at(at);
  if (l1_hits > 0)
    load_latency_.sample(static_cast<double>(sm_clock.cycle_at(l1_hit) - start_cycle), l1_hits);
  sim::Tick last = l1_hit;
  for (const LineFill& f : misses) {
    const sim::Tick done = read_through_slice(sm_clock, f, 1, nullptr);
    load_latency_.sample(static_cast<double>(sm_clock.cycle_at(done) - start_cycle));
    last = std::max(last, done);
  }
  return last;
}

void MemorySystem::store_lines(std::uint32_t sm, std::span<const LineRequest> lines,
                               RequestClient& client, std::uint64_t tag) {
  Request& q = lines_request(sm, lines, client, tag, true);
  for (const LineRequest& lr : lines) {
    const std::uint32_t sectors = sectors_of(lr.to_request(sm, true));
    const std::uint64_t line = map_.line_of(lr.line_addr);
    ++stores_;
    l1_[sm]->store(line, sectors);
    // The lines to time; cleared before the completion.
    q.fills.push_back(LineFill{});
    route_line(q.fills.back(), line, sectors);
  }
  if (worker_ != nullptr) {
    worker_->submit(&q, now(), now() + lookahead_, 0, kStoreJob);
    q.order = events().reserve_order();
    return;
  }
  send_lines(q.fills, sm, true, now());
  const sim::Tick last = time_store_lines(q.fills, now());
  q.fills.clear();
  events().schedule(q, last);
}

sim::Tick MemorySystem::time_store_lines(std::span<const LineFill> lines, sim::Tick at) {
  sim::Tick last = at;
  for (const auto& [line, sectors, slice, set, arrival] : lines) {
    const L2Slice::Answer a = l2_->slice(slice).write_in(set, line, sectors, arrival, 1);
    last =
        std::max(last, xbar_->send_response_at(slice, kControlMessageBytes, a.ready, a.pipeline));
  }
  return last;
}

sim::Tick MemorySystem::work(const MemoryWorker::Job& j) {
  Request& q = *static_cast<Request*>(j.subject);
  // The requests cross the crossbar first: the jobs come in issue order, so the request
  // ports are booked in the order of one thread's walk (see send_line).
  send_lines(q.fills, q.sm, j.kind == kStoreJob, j.at);
  if (j.kind == kStoreJob) {
    const sim::Tick last = time_store_lines(q.fills, j.at);
    q.fills.clear();
    return last;
  }
  return time_load_lines(worker_sm_clock_, q.fills, j.arg, j.at);
}

void MemorySystem::deliver(const MemoryWorker::Job& j) {
  Request& q = *static_cast<Request*>(j.subject);
  events().schedule_reserved(q, j.result, q.order, j.at);
}

void MemorySystem::prefetch_deliver(const MemoryWorker::Job& j) const {
  // deliver() reads the request's order and schedules it: its first two lines and the
  // pending-set bucket its completion goes to.
  sim::prefetch(j.subject);
  sim::prefetch(static_cast<const char*>(j.subject) + 64);
  events().prefetch_schedule(j.result);
}

void MemorySystem::prefetch(const MemoryWorker::Job& j, unsigned ahead) const {
  // The request (written by the simulation's thread: a miss on another core's cache), then
  // its lines, then the slice state they look up.
  const auto& q = *static_cast<const Request*>(j.subject);
  if (ahead > 2) {
    sim::prefetch(j.subject);
    sim::prefetch(static_cast<const char*>(j.subject) + 64);
    return;
  }
  if (j.kind != kLoadJob) return;
  if (ahead == 2) {
    sim::prefetch_range(q.fills.data(),
                        std::min<std::size_t>(q.fills.size(), 8) * sizeof(LineFill));
    return;
  }
  for (const LineFill& f : q.fills)
    l2_->slice(f.slice).prefetch_transaction(f.set, f.line);
}

void MemorySystem::drain_worker() {
  worker_->drain();
  load_latency_.merge(sm_side_latencies_);
  sm_side_latencies_ = {};
}

sim::Tick MemorySystem::load_at(const MemRequest& r, sim::Tick at, std::uint32_t weight,
                                SampledLoad* sampled) {
  XPUSIM_CHECK(transactions_ && at >= now(),
               "load_at needs the transaction-level timing and a tick not in the past");
  drain();
  const std::uint32_t sectors = sectors_of(r);
  loads_ += weight;
  const sim::Tick done = read_through_l2(r.sm, map_.line_of(r.addr), sectors, at, weight, sampled);
  load_latency_.sample(static_cast<double>(sm_clock_.cycle_at(done) - sm_clock_.cycle_at(at)));
  return done;
}

sim::Tick MemorySystem::follow_at(const MemRequest& r, sim::Tick at, const SampledLoad& by) {
  XPUSIM_CHECK(transactions_ && at >= now(),
               "follow_at needs the transaction-level timing and a tick not in the past");
  drain();
  const std::uint32_t sectors = sectors_of(r);
  const std::uint64_t line = map_.line_of(r.addr);
  const std::uint32_t slice = map_.slice_of_line(line);
  const sim::Tick arrival = xbar_->send_request_at(r.sm, slice, kControlMessageBytes, at);
  // `by`'s delays in its slice, from this line's own arrival: its MSHR wait before HBM and
  // its HBM latency come from this line's channel, a hit's or merge's wait as they were.
  const L2Slice::Answer& a = by.answer;
  sim::Tick ready = arrival + (a.ready - by.arrival);
  if (a.read_hbm) {
    const sim::Tick done =
        hbm_->sectors_at(line, sectors, /*write=*/false, arrival + (a.hbm_from - by.arrival));
    ready = cycles_after(l2_clock_, done, params_.l2.hit_latency_cycles);
  }
  return back_at_sm(sm_clock_,
                    xbar_->response_cycle_at(slice, sector_bytes(sectors), ready, a.pipeline));
}

}  // namespace xpusim::mem
