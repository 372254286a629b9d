#include "system/chip.h"

#include <fmt/format.h>

#include <algorithm>
#include <span>
#include <utility>

#include "sched/policy.h"
#include "sched/rasterizer.h"
#include "system/host_memory.h"
#include "system/kernarg.h"

namespace xpusim::system {

// Queue q's agent launches through the chip.
class Chip::QueueLauncher : public cp::GridLauncher {
 public:
  QueueLauncher(Chip& chip, std::uint32_t q) : chip_(chip), q_(q) {}
  Status launch(const cp::DispatchPacket& kernel, Done done) override {
    return chip_.dispatch(q_, kernel, std::move(done));
  }

 private:
  Chip& chip_;
  std::uint32_t q_;
};

core::SmTiming sm_timing_of(const config::ChipSpec& spec) {
  const config::SmLatencySpec& l = spec.sm_latency;
  return {.sub_partitions = spec.sm.sub_partitions,
          .alu_latency = l.alu_cycles,
          .sfu_latency = l.sfu_cycles,
          .sfu_issue_cycles = l.sfu_issue_cycles,
          .mma_issue_cycles = l.mma_issue_cycles,
          .mma_latency = l.mma_cycles,
          .shared_latency = l.shared_cycles,
          .lsu_issue_cycles = l.lsu_issue_cycles,
          .barrier_latency = l.barrier_cycles,
          .mbarrier_latency = l.mbarrier_cycles,
          .cluster_barrier_latency = l.cluster_barrier_cycles,
          .store_queue = spec.sm.store_queue};
}

core::TensorTiming tensor_timing_of(const config::ChipSpec& spec) {
  core::TensorTiming t;
  t.cores = spec.sm.tensor.cores;
  t.f16_fma_per_cycle = spec.sm.tensor.bf16_fma_per_cycle;
  t.int8_fma_per_cycle = spec.sm.tensor.int8_fma_per_cycle;
  t.tf32_fma_per_cycle = spec.sm.tensor.tf32_fma_per_cycle;
  t.f32_fma_per_cycle = spec.sm.tensor.f32_fma_per_cycle;
  t.registers_per_thread = spec.sm.tensor.registers_per_thread;
  t.line_bytes = spec.l2.line_bytes;
  t.translation_cache_entries = spec.sm.tensor.translation_cache_entries;
  return t;
}

cp::AgentTiming agent_timing_of(const config::ChipSpec& spec) {
  const config::CommandProcessorSpec& c = spec.command_processor;
  cp::AgentTiming t;
  t.doorbell_cycles = c.doorbell_cycles;
  t.fetch_cycles = c.fetch_cycles;
  t.decode_cycles = c.decode_cycles;
  t.setup_cycles = c.setup_cycles;
  t.diff_cycles = c.diff_cycles;
  t.cleanup_cycles = c.cleanup_cycles;
  return t;
}

tma::TmaParams tma_params_of(const config::ChipSpec& spec) {
  return {.queue_depth = spec.tma.queue_depth,
          .descriptor_cache_entries = spec.tma.descriptor_cache_entries,
          .descriptor_lookahead = spec.tma.descriptor_lookahead != 0,
          .setup_cycles = spec.tma.setup_cycles,
          .requests_per_cycle = spec.tma.requests_per_cycle,
          .max_outstanding = spec.tma.max_outstanding,
          .split_queues = spec.tma.split_queues != 0};
}

namespace {
mem::MemoryParams memory_params_of(const config::ChipSpec& spec, const ChipOptions& options) {
  mem::MemoryParams p = mem::MemoryParams::from_chip(spec);
  p.timing = options.memory_timing;
  p.set_sampling = options.set_sampling;
  p.worker_thread = options.memory_thread;
  return p;
}
}  // namespace

Chip::Chip(sim::Simulation& sim, const config::ChipSpec& spec, const ChipOptions& options,
           std::string_view name, std::unique_ptr<sched::Policy> policy,
           std::shared_ptr<const core::WarpScheduler> scheduler)
    : spec_(spec),
      options_(options),
      timing_(options.timing ? *options.timing : sm_timing_of(spec)),
      cp_timing_(options.cp_timing ? *options.cp_timing : agent_timing_of(spec)),
      root_(sim, name),
      topology_(sched::Topology::from_chip(spec)),
      memory_(options.max_touched_bytes),
      mem_(std::make_unique<mem::MemorySystem>(root_, memory_params_of(spec, options))),
      port_(std::make_unique<core::HierarchyPort>(*mem_)),
      allocator_(spec.hbm.capacity_bytes) {
  page_table_.attach_memory(&memory_);  // its PTEs are in device memory (seed2 ¶63)
  page_table_.register_stats(sim.stats(), root_.path() + ".page_table");
  const mem::BankGeometry banks{.banks = spec.sm.shared_memory_banks,
                                .bank_bytes = spec.sm.shared_memory_bank_bytes};
  for (std::uint32_t i = 0; i < topology_.num_sms(); ++i) {
    const core::SmConfig cfg{.id = i,
                             .timing = timing_,
                             .tensor = tensor_timing_of(spec),
                             .capacity = topology_.capacity(),
                             .banks = banks,
                             .functional = options.functional,
                             .scheduler = scheduler,
                             .page_table = &page_table_,
                             .tma = nullptr,
                             .buffers = options.check_accesses ? &allocator_.buffer_map() : nullptr,
                             .on_fault = [this](const core::CtaWork& cta,
                                                const Error& e) { kernel_faulted(cta.launch, e); },
                             .line_profile = options.line_profile};
    sms_.push_back(std::make_unique<core::Sm>(root_, fmt::format("sm{}", i), mem_->sm_clock(),
                                              memory_, *port_, cfg));
  }
  const tma::TmaParams tp = tma_params_of(spec);
  const std::uint32_t per_unit = std::max<std::uint32_t>(spec.tma.sms_per_unit, 1);
  for (std::uint32_t first = 0; first < sms_.size(); first += per_unit) {
    std::vector<std::uint32_t> served;
    for (std::uint32_t i = first; i < std::min<std::size_t>(first + per_unit, sms_.size()); ++i)
      served.push_back(i);
    tma_units_.push_back(
        std::make_unique<tma::TmaUnit>(*sms_[first], "tma", tp, *mem_, memory_, served));
    for (std::uint32_t i : served)
      sms_[i]->set_tma(*tma_units_.back());
  }
  sched::CgaTrackerConfig tracker = sched::default_tracker_config();
  tracker.memory_slots = options.cga_memory_slots;
  cwd_ = std::make_unique<sched::WorkDistributor>(root_, topology_, std::move(policy),
                                                  mem_->sm_clock(), options.distributor, tracker);
  cwd_->set_executor(this);
  cwd_->set_wave_sampling(options.wave_sampling);
  l1_bytes_.assign(sms_.size(), mem_->params().l1.bytes);
  for (std::uint32_t q = 0; q < options.queues.size(); ++q)
    launchers_.push_back(std::make_unique<QueueLauncher>(*this, q));
  queued_.resize(options.queues.size());
  cp_ = std::move(CommandProcessor::create(
                      root_, mem_->sm_clock(), memory_, options.queues, cp_timing_,
                      [this](std::uint32_t q) -> cp::GridLauncher& { return *launchers_[q]; }))
            .value();
}

Result<std::uint32_t> Chip::define_segment(std::string name, mem::SegmentShape shape) {
  const std::string what = fmt::format("segment {} PTEs", name);
  auto seg = page_table_.define_segment(std::move(name), std::move(shape));
  if (!seg) return seg.errors();
  const std::uint64_t pages = page_table_.pages(*seg);
  if (pages > allocator_.capacity() / mem::kPteBytes) {
    return Error{fmt::format("{}: {} pages x {} B exceed hbm.capacity ({} B)", what, pages,
                             mem::kPteBytes, allocator_.capacity())};
  }
  auto base = allocator_.allocate(what, pages * mem::kPteBytes);
  if (!base) return base.errors();
  if (auto st = page_table_.place_ptes(*seg, *base); !st) return st.errors();
  return *seg;
}

Chip::~Chip() = default;

Result<std::unique_ptr<Chip>> Chip::create(sim::Simulation& sim, const config::ChipSpec& spec,
                                           const ChipOptions& options, std::string_view name) {
  if (const std::uint32_t n = options.set_sampling; n != 1) {
    if (n == 0 || n > mem::kMaxSetSampling) {
      return Error{fmt::format("set_sampling {}: must be 1 to {} (1 times every line)", n,
                               mem::kMaxSetSampling)};
    }
    if (options.memory_timing != mem::MemoryTiming::kTransactions) {
      return Error{fmt::format(
          "set_sampling {}: needs memory_timing transactions (events times every line)", n)};
    }
    if (spec.l2.set_index != "hash") {
      return Error{
          fmt::format("set_sampling {}: needs l2.set_index hash (with {}, the sampled "
                      "sets would hold every {}th line, on a few of the slices)",
                      n, spec.l2.set_index, n)};
    }
  }
  if (options.memory_thread && options.memory_timing != mem::MemoryTiming::kTransactions) {
    return Error{
        "memory_thread: needs memory_timing transactions (events steps every request "
        "through the units in time order, on one thread)"};
  }
  if (const double tol = options.wave_sampling.tolerance; tol != 0) {
    if (!(tol > 0 && tol <= sched::kMaxWaveSamplingTolerance)) {
      return Error{
          fmt::format("wave_sampling {}%: must be above 0 and at most {}% (0 turns it off)",
                      tol * 100, sched::kMaxWaveSamplingTolerance * 100)};
    }
    if (options.functional) {
      return Error{
          fmt::format("wave_sampling {}%: needs timing-only mode (a skipped CTA "
                      "computes nothing, so its results would be missing)",
                      tol * 100)};
    }
  }
  if (auto st = check_queues(options.queues); !st) return st.errors();
  if (options.cga_memory_slots > sched::kMaxMemorySlots) {
    return Error{fmt::format("cga_memory_slots {}: must be 0 (unlimited) to {}",
                             options.cga_memory_slots, sched::kMaxMemorySlots)};
  }
  if (const std::uint32_t b = options.distributor.raster_delta_bits; b < 1 || b > 31) {
    return Error{fmt::format("distributor raster_delta_bits {}: must be 1 to 31", b)};
  }
  if (options.distributor.central_decode_cycles == 0 || options.distributor.id_bytes == 0 ||
      options.distributor.bus_bytes_per_cycle == 0 || options.distributor.packets_per_cycle == 0) {
    return Error{
        "distributor: central_decode_cycles, id_bytes, bus_bytes_per_cycle and "
        "packets_per_cycle must be at least 1"};
  }
  if (auto st = check_host_memory(spec, options.host_memory_limit); !st) return st.errors();
  auto policy = sched::make_policy(options.policy, {});
  if (!policy) return policy.errors();
  auto scheduler = core::make_warp_scheduler(options.scheduler);
  if (!scheduler) return scheduler.errors();
  return std::unique_ptr<Chip>(
      new Chip(sim, spec, options, name, std::move(policy).value(), std::move(scheduler).value()));
}

sched::GridSpec Chip::grid_spec(const kernel::KernelDef& k, const kernel::LaunchParams& p) const {
  const auto dims = [](const kernel::Dim3& d) { return sched::Dim3{.x = d.x, .y = d.y, .z = d.z}; };
  sched::GridSpec g;
  g.grid = dims(p.grid);
  g.cluster = dims(p.cluster);
  g.kind = p.gpc_cgas_per_ugpu_cga > 0                           ? sched::ClusterKind::kUgpuCga
           : p.gpc_cgas_per_gpu_cga > 1                          ? sched::ClusterKind::kGpuCga
           : p.cluster.count() > 1 || p.cpc_cgas_per_gpc_cga > 0 ? sched::ClusterKind::kGpcCga
                                                                 : sched::ClusterKind::kNone;
  g.gpc_cgas_per_gpu_cga = p.gpc_cgas_per_gpu_cga;
  g.gpc_cgas_per_ugpu_cga = std::max(1u, p.gpc_cgas_per_ugpu_cga);
  g.cpc_cgas_per_gpc_cga = p.cpc_cgas_per_gpc_cga;
  g.shape = {.threads = p.threads_per_block(),
             .registers_per_thread = p.registers_per_thread,
             .shared_bytes = std::uint64_t{k.static_shared_bytes} + p.dynamic_shared_bytes};
  g.multicast = p.multicast;
  g.priority = p.priority;
  return g;
}

Result<mem::Addr> Chip::place_globals(const kernel::KernelDef& k) {
  if (k.globals == nullptr) return mem::Addr{0};
  for (const PlacedGlobals& g : globals_)
    if (g.globals == k.globals) return g.address;
  const kernel::DeviceGlobals& d = *k.globals;
  auto at = allocator_.allocate_parts(d.what, d.bytes, d.parts);
  if (!at) return at.errors();
  if (options_.functional && !d.init.empty()) {
    if (auto st = memory_.write(*at, std::as_bytes(std::span(d.init))); !st) return st.errors();
  }
  if (options_.functional) {
    for (const kernel::DeviceGlobals::Relocation& r : d.relocations) {
      const std::uint64_t address = *at + r.offset;
      if (auto st = memory_.write(*at + r.at, std::as_bytes(std::span(&address, 1))); !st)
        return st.errors();
    }
  }
  globals_.push_back({.globals = k.globals, .address = *at});
  return *at;
}

Result<std::uint32_t> Chip::launch(const kernel::KernelDef& k, const kernel::LaunchParams& given,
                                   const kernel::KernelArgs& args,
                                   std::function<void(const KernelRun&)> done,
                                   const LaunchOptions& options) {
  if (auto st = args.check(k.name, k.args); !st) return st.errors();
  auto resolved = k.resolve_launch(given);
  if (!resolved) return resolved.errors();
  const kernel::LaunchParams& p = *resolved;
  if (p.block.x == 0 || p.block.y == 0 || p.block.z == 0) {
    return Error{fmt::format("{}: block ({},{},{}): every dim must be >= 1", k.name, p.block.x,
                             p.block.y, p.block.z)};
  }
  if (p.gpc_cgas_per_gpu_cga == 0) {
    return Error{fmt::format("{}: gpu_cga 0: GPC_CGAs per GPU_CGA must be >= 1", k.name)};
  }
  if (p.gpc_cgas_per_gpu_cga > 1 && p.gpc_cgas_per_ugpu_cga > 0) {
    return Error{fmt::format(
        "{}: gpu_cga {} and ugpu_cga {}: a launch groups its GPC_CGAs into GPU_CGAs or into "
        "µGPU_CGAs, not both",
        k.name, p.gpc_cgas_per_gpu_cga, p.gpc_cgas_per_ugpu_cga)};
  }
  const sched::GridSpec g = grid_spec(k, p);
  if (auto st = sched::check_grid(topology_, g, spec_.topology.max_cluster_size); !st) {
    return Error{fmt::format("{}: {}", k.name, st.error().message)};
  }
  if (auto st = sched::check_memory_slots(g, options_.cga_memory_slots); !st) {
    return Error{fmt::format("{}: {}", k.name, st.error().message)};
  }
  // HSA: workgroup_size is 16 bits and grid_size (work-items) 32 bits per dimension.
  const std::uint32_t block[3] = {p.block.x, p.block.y, p.block.z};
  const std::uint32_t grid[3] = {p.grid.x, p.grid.y, p.grid.z};
  for (int d = 0; d < 3; ++d) {
    const std::uint64_t items = std::uint64_t{grid[d]} * block[d];
    if (block[d] > 0xFFFF || items > 0xFFFF'FFFF) {
      return Error{fmt::format(
          "{}: grid {} x block {} in dimension {} is {} work-items: an AQL dispatch packet holds "
          "at most 65535 per workgroup and 4294967295 per grid dimension (HSA)",
          k.name, grid[d], block[d], "xyz"[d], items)};
    }
  }
  // In a group: the group's queue; its first launch takes the group's dependencies.
  LaunchOptions o = options;
  if (current_group_ != ~0u) {
    Group& grp = groups_[current_group_];
    if (o.queue != 0 && o.queue != grp.spec.queue) {
      return Error{fmt::format("{}: queue {}: launches of this group go on queue {}", k.name,
                               o.queue, grp.spec.queue)};
    }
    o.queue = grp.spec.queue;
    if (grp.launches.empty()) {
      const LaunchOptions& f = grp.spec.first;
      o.barrier = o.barrier || f.barrier;
      o.wait_all.insert(o.wait_all.end(), f.wait_all.begin(), f.wait_all.end());
      o.wait_any.insert(o.wait_any.end(), f.wait_any.begin(), f.wait_any.end());
    }
  }
  if (o.queue >= cp_->queues()) {
    return Error{fmt::format("{}: queue {}: the chip has {} queue{}", k.name, o.queue,
                             cp_->queues(), cp_->queues() == 1 ? "" : "s")};
  }
  bool barrier = o.barrier;
  std::vector<std::uint64_t> waits;
  const auto add = [](std::vector<std::uint64_t>& to, std::uint64_t h) {
    if (std::find(to.begin(), to.end(), h) == to.end()) to.push_back(h);
  };
  for (const std::uint64_t h : o.wait_all)
    add(waits, h);
  for (const std::uint32_t dep : o.after) {
    if (dep >= runs_.size()) {
      return Error{
          fmt::format("{}: depends on launch {}, which does not exist (launches so far: "
                      "{})",
                      k.name, dep, runs_.size())};
    }
    const KernelRun& producer = *runs_[dep];
    if (producer.queue == o.queue) {
      barrier = true;  // in-order queue: the barrier bit waits for every earlier packet
    } else if (producer.signal == 0) {
      return Error{
          fmt::format("{}: depends on launch {} ({}) on queue {}, which has no completion "
                      "signal to wait for (launch it with a signal)",
                      k.name, dep, producer.kernel->name, producer.queue)};
    } else {
      add(waits, producer.signal);
    }
  }
  std::vector<std::uint64_t> any;
  for (const std::uint64_t h : o.wait_any)
    add(any, h);
  for (const std::uint32_t dep : o.after_any) {
    if (dep >= runs_.size()) {
      return Error{
          fmt::format("{}: after_any names launch {}, which does not exist (launches so far: {})",
                      k.name, dep, runs_.size())};
    }
    const KernelRun& producer = *runs_[dep];
    if (producer.signal == 0) {
      return Error{fmt::format(
          "{}: after_any names launch {} ({}), which has no completion signal to wait for "
          "(launch it with a signal)",
          k.name, dep, producer.kernel->name)};
    }
    add(any, producer.signal);
  }
  if (any.size() > 5) {
    return Error{fmt::format(
        "{}: waits for any of {} launches: a barrier-OR packet holds at most 5 dependencies "
        "(HSA)",
        k.name, any.size())};
  }
  auto globals = place_globals(k);
  if (!globals) return Error{fmt::format("{}: {}", k.name, globals.error().message)};
  auto kernarg = encode_kernarg(args, p);
  if (!kernarg) return Error{fmt::format("{}: {}", k.name, kernarg.error().message)};
  auto address = cp_->kernarg(*kernarg);
  if (!address)
    return Error{fmt::format("{}: kernarg segment: {}", k.name, address.error().message)};

  // Fences: the kernels of one chip share its memory and the host reads results after the run,
  // so only a launch that others wait for (a completion signal) releases at system scope; the
  // rest release nothing, and inside a condensed packet they skip their cleanup (seed3 ¶146).
  cp::DispatchPacket packet;
  packet.header = {.type = cp::PacketType::kKernelDispatch,
                   .barrier = barrier,
                   .acquire = cp::FenceScope::kAgent,
                   .release = o.signal || o.completion_signal != 0 ? cp::FenceScope::kSystem
                                                                   : cp::FenceScope::kNone};
  packet.setup = static_cast<std::uint16_t>(p.block.z > 1 || p.grid.z > 1   ? 3
                                            : p.block.y > 1 || p.grid.y > 1 ? 2
                                                                            : 1);
  for (int d = 0; d < 3; ++d) {
    packet.workgroup_size[d] = static_cast<std::uint16_t>(block[d]);
    packet.grid_size[d] = grid[d] * block[d];
  }
  packet.group_segment_size =
      static_cast<std::uint32_t>(std::uint64_t{k.static_shared_bytes} + p.dynamic_shared_bytes);
  packet.kernel_object = cp_->kernel_object(&k, k.name);
  packet.kernarg_address = *address;
  const std::uint64_t signal = o.completion_signal != 0 ? o.completion_signal
                               : o.signal               ? cp_->new_signal()
                                                        : 0;
  packet.completion_signal = signal;

  const auto id = static_cast<std::uint32_t>(runs_.size());
  runs_.push_back(std::make_unique<KernelRun>(KernelRun{.kernel = &k,
                                                        .params = p,
                                                        .args = args,
                                                        .queue = o.queue,
                                                        .kernarg_address = *address,
                                                        .globals_address = *globals,
                                                        .signal = signal,
                                                        .submitted = cwd_->timeline_now(),
                                                        .group = current_group_}));
  done_.push_back(std::move(done));
  if (current_group_ != ~0u) {
    groups_[current_group_].launches.push_back(id);
    ++groups_[current_group_].outstanding;
  }
  queued_[o.queue].push_back(id);
  cp_->dispatch(o.queue, packet, std::move(waits), std::move(any));
  if (!started_) {
    started_ = true;
    cwd_->start();
  }
  return id;
}

Status Chip::dispatch(std::uint32_t q, const cp::DispatchPacket& p, cp::GridLauncher::Done done) {
  // Packets leave a queue in order, so this is the queue's oldest launch not yet dispatched.
  XPUSIM_CHECK(!queued_[q].empty(), "a dispatch on a queue with no launch waiting");
  const std::uint32_t id = queued_[q].front();
  KernelRun& r = *runs_[id];
  XPUSIM_CHECK(p.kernel_object == cp_->kernel_object(r.kernel, r.kernel->name),
               "packets leave a queue in launch order");
  queued_[q].pop_front();
  // What the agent decoded: the packet's dims and the kernarg segment in simulated memory.
  std::vector<std::byte> bytes(kernarg_bytes(r.kernel->args));
  if (auto st = memory_.read(p.kernarg_address, bytes); !st) return st.errors();
  auto decoded = decode_kernarg(bytes, r.kernel->args);
  if (!decoded) return decoded.errors();
  const auto ctas = cp::workgroups(p);
  if (!ctas) return ctas.errors();
  kernel::LaunchParams params = r.params;
  params.block = {p.workgroup_size[0], p.workgroup_size[1], p.workgroup_size[2]};
  params.grid = {(*ctas)[0], (*ctas)[1], (*ctas)[2]};
  params.cluster = decoded->cluster;
  params.gpc_cgas_per_gpu_cga = decoded->gpc_cgas_per_gpu_cga;
  params.gpc_cgas_per_ugpu_cga = decoded->gpc_cgas_per_ugpu_cga;
  params.cpc_cgas_per_gpc_cga = decoded->cpc_cgas_per_gpc_cga;
  params.priority = decoded->priority;
  params.registers_per_thread = decoded->registers_per_thread;
  params.multicast = decoded->multicast;
  params.policy = decoded->policy;
  if (p.group_segment_size < r.kernel->static_shared_bytes) {
    return Error{fmt::format("group_segment_size {} is below the kernel's static shared memory {}",
                             p.group_segment_size, r.kernel->static_shared_bytes)};
  }
  params.dynamic_shared_bytes = p.group_segment_size - r.kernel->static_shared_bytes;
  const sched::GridSpec g = grid_spec(*r.kernel, params);
  if (auto st = sched::check_grid(topology_, g, spec_.topology.max_cluster_size); !st) {
    return st.errors();
  }
  if (auto st = sched::check_memory_slots(g, options_.cga_memory_slots); !st) return st.errors();
  r.params = params;
  r.args = std::move(decoded->args);
  r.args.set_segment_address(p.kernarg_address);
  r.args.set_globals_address(r.globals_address);
  r.dispatched = cwd_->timeline_now();
  r.agent_launch = cp_->agent(q).launches().size();  // the agent records it next
  const sim::Tick skipped = cwd_->skipped_ticks();
  const sim::Tick at = root_.sim().now();
  std::unique_ptr<sched::Policy> policy;
  if (!params.policy.empty()) {
    auto made = sched::make_policy(params.policy, {});
    if (!made) return made.errors();
    policy = std::move(made).value();
  }
  r.grid = cwd_->submit(
      g,
      [this, id, skipped, at, done = std::move(done)](const sched::WorkDistributor::GridTimes& t) {
        KernelRun& run = *runs_[id];
        mem_->settle();
        run.first_start = t.first_start;
        run.completed = t.completed;
        run.done = true;
        if (done_[id]) {
          // Moved out first: a launch the callback makes grows done_. Those launches join this
          // launch's group (a workload's host side).
          const auto callback = std::move(done_[id]);
          const std::uint32_t saved = std::exchange(current_group_, run.group);
          callback(run);
          current_group_ = saved;
        }
        if (run.group != ~0u) group_launch_done(run.group);
        // The agent times on the simulation's clock: the waves skipped since dispatch are not in
        // it.
        const sim::Tick now = root_.sim().now();
        const sim::Tick first =
            std::clamp<sim::Tick>(t.first_start >= skipped ? t.first_start - skipped : at, at, now);
        done({.first_start = first, .completed = now});
      },
      std::move(policy));
  if (run_of_grid_.size() <= r.grid) run_of_grid_.resize(r.grid + 1, ~0u);
  run_of_grid_[r.grid] = id;
  return Ok{};
}

const cp::LaunchRecord* Chip::agent_record(std::uint32_t id) const {
  const KernelRun& r = *runs_[id];
  if (!r.on_distributor()) return nullptr;
  const auto& all = cp_->agent(r.queue).launches();
  return r.agent_launch < all.size() ? &all[r.agent_launch] : nullptr;
}

std::vector<std::string> Chip::queue_errors() const {
  std::vector<std::string> out;
  for (std::uint32_t q = 0; q < cp_->queues(); ++q) {
    if (const auto& e = cp_->queue(q).error()) out.push_back(e->message);
  }
  return out;
}

void Chip::start(const sched::CtaLaunch& cta) {
  const KernelRun& r = *runs_[run_of_grid_[cta.grid]];
  const kernel::Dim3& cl = r.params.cluster;
  core::ClusterContext* cluster = nullptr;
  if (cl.count() > 1) {
    auto& slot = clusters_[{cta.grid, cta.cga}];
    if (!slot) {
      slot = std::make_unique<core::ClusterContext>(static_cast<std::uint32_t>(cl.count()),
                                                    r.params.warps_per_block());
    }
    cluster = slot.get();
  }
  const sched::CtaId cid = sched::cluster_id({.x = cl.x, .y = cl.y, .z = cl.z}, cta.id);
  const core::CtaWork work{.kernel = r.kernel,
                           .params = r.params,
                           .args = &r.args,
                           .block_id = {cta.id.x, cta.id.y, cta.id.z},
                           .cluster_id = {cid.x, cid.y, cid.z},
                           .cluster_rank = cta.rank,
                           .cluster = cluster,
                           .launch = run_of_grid_[cta.grid]};
  // The carve-out follows the kernel when an idle SM takes its first CTA (the driver sets the
  // carve-out per launch; changing it flushes the L1, so only an empty SM changes).
  const std::uint64_t l1 = l1_bytes_for(*r.kernel, r.params);
  if (sms_[cta.sm]->resident_ctas() == 0 && l1 != l1_bytes_[cta.sm]) {
    mem_->set_l1_capacity(cta.sm, l1);
    l1_bytes_[cta.sm] = l1;
  }
  const Status st = sms_[cta.sm]->launch(work, [this, cta] { cta_exited(cta); });
  XPUSIM_CHECK(st.ok(), "the distributor only starts CTAs that fit their SM");
}

// The smallest carve-out (in 8 KiB steps, our simplification of CUDA's carve-out table) that
// holds as many of the kernel's CTAs as the SM's other resources allow; the L1 gets the rest.
std::uint64_t Chip::l1_bytes_for(const kernel::KernelDef& k, const kernel::LaunchParams& p) const {
  const sched::SmCapacity& cap = topology_.capacity();
  const sched::CtaShape shape{
      .threads = p.threads_per_block(),
      .registers_per_thread = p.registers_per_thread,
      .shared_bytes = std::uint64_t{k.static_shared_bytes} + p.dynamic_shared_bytes};
  const sched::CtaFootprint fp = sched::footprint(cap, shape);
  const std::uint64_t ctas = sched::free_slots(cap, {}, fp);
  constexpr std::uint64_t kStep = 8 << 10;
  const std::uint64_t need =
      fp.shared_bytes == 0 ? 0 : (ctas * fp.shared_bytes + kStep - 1) / kStep * kStep;
  const std::uint64_t carve = std::min(need, cap.shared_bytes);
  return spec_.sm.l1_shared_bytes - carve;
}

void Chip::kernel_faulted(std::uint32_t id, const Error& e) {
  KernelRun& r = *runs_[id];
  if (r.fault) return;  // a launch's first fault decides; the SMs keep their own first
  r.fault = e;
  faulted_.push_back(id);
  cwd_->cancel(r.grid);
  cp_->agent(r.queue).fault(r.agent_launch, Error{fmt::format("fault: {}", e.message)});
  // Its group never finishes: what waits for the group's signal fails, as it would for the
  // kernel's own.
  if (r.group != ~0u && groups_[r.group].spec.signal != 0) {
    cp_->fail_signal(groups_[r.group].spec.signal);
  }
  // Stop at the fault when nothing else can run (one queue: as a real GPU's context would end);
  // else the other queues go on and the run ends when they have drained.
  for (const auto& other : runs_) {
    if (!other->done && !other->fault && cp_->queue(other->queue).active()) return;
  }
  root_.sim().stop();
}

Result<std::uint32_t> Chip::begin_group(LaunchGroup g) {
  XPUSIM_CHECK(current_group_ == ~0u, "one launch group is open at a time");
  if (g.queue >= cp_->queues()) {
    return Error{fmt::format("queue {}: the chip has {} queue{}", g.queue, cp_->queues(),
                             cp_->queues() == 1 ? "" : "s")};
  }
  current_group_ = static_cast<std::uint32_t>(groups_.size());
  groups_.push_back(Group{.spec = std::move(g)});
  return current_group_;
}

void Chip::end_group() {
  XPUSIM_CHECK(current_group_ != ~0u, "end_group without begin_group");
  const std::uint32_t g = std::exchange(current_group_, ~0u);
  groups_[g].closed = true;
  if (groups_[g].outstanding == 0) {
    ++groups_[g].outstanding;  // finish through the one path
    group_launch_done(g);
  }
}

void Chip::group_launch_done(std::uint32_t g) {
  Group& grp = groups_[g];
  if (--grp.outstanding > 0 || !grp.closed || grp.finished) return;
  grp.finished = true;
  // The marker goes behind every packet of the group on its queue (HSA: a barrier-AND with the
  // barrier bit and no dependencies completes its signal once they have).
  if (grp.spec.signal != 0) cp_->marker(grp.spec.queue, grp.spec.signal);
  // Moved out first: the host may open another group in it, which grows groups_.
  if (const auto finished = std::move(grp.spec.finished)) finished();
}

void Chip::cta_exited(const sched::CtaLaunch& cta) {
  const auto it = clusters_.find({cta.grid, cta.cga});
  if (it != clusters_.end() && it->second->ctas_exited == it->second->size()) clusters_.erase(it);
  cwd_->cta_exited(cta);
}

bool Chip::all_done() const {
  for (const auto& r : runs_) {
    if (!r->done) return false;
  }
  return true;
}

std::optional<Error> Chip::fault() const {
  for (const auto& s : sms_) {
    if (s->fault()) return s->fault();
  }
  return std::nullopt;
}

std::vector<std::string> Chip::hang_report() const {
  std::vector<std::string> out;
  for (const auto& s : sms_) {
    for (std::string& line : s->hang_report())
      out.push_back(std::move(line));
  }
  // A dropped TMA request never completes its barrier (seed0 ¶88): name it.
  if (!out.empty()) {
    for (std::string& e : tma_errors())
      out.push_back(std::move(e));
  }
  return out;
}

std::vector<std::string> Chip::tma_errors() const {
  std::vector<std::string> out;
  for (const auto& s : sms_) {
    for (const std::string& e : s->tma_errors())
      out.push_back(fmt::format("{}: {}", s->path(), e));
  }
  return out;
}

}  // namespace xpusim::system
