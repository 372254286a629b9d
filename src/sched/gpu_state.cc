#include "sched/gpu_state.h"

#include <algorithm>

#include "sim/result.h"

namespace xpusim::sched {

GpuState::GpuState(const Topology& topo) : topo_(topo), usage_(topo.num_sms()) {}

const SmUsage& GpuState::usage(std::uint32_t sm) const {
  XPUSIM_CHECK(sm < usage_.size(), "SM id out of range");
  return usage_[sm];
}

void GpuState::launch(std::uint32_t sm, const CtaFootprint& f) {
  XPUSIM_CHECK(free_slots(sm, f) > 0, "launching a CTA on an SM without a free slot");
  usage_[sm].add(f);
  ++resident_;
}

void GpuState::retire(std::uint32_t sm, const CtaFootprint& f) {
  XPUSIM_CHECK(sm < usage_.size(), "SM id out of range");
  usage_[sm].remove(f);
  --resident_;
}

std::uint32_t GpuState::free_slots(std::uint32_t sm, const CtaFootprint& f) const {
  return sched::free_slots(topo_.capacity(), usage(sm), f);
}

ShadowState::ShadowState(const GpuState& live, const CtaFootprint& f)
    : topo_(&live.topology()),
      free_(live.topology().num_sms()),
      launch_(live.topology().num_sms(), 0) {
  for (std::uint32_t sm = 0; sm < free_.size(); ++sm)
    free_[sm] = live.free_slots(sm, f);
}

std::uint32_t ShadowState::free(std::uint32_t sm) const {
  XPUSIM_CHECK(sm < free_.size(), "SM id out of range");
  return free_[sm] - launch_[sm];  // ¶209: effective free = free − launch
}

std::vector<std::uint32_t> ShadowState::free_range(std::uint32_t first, std::uint32_t count) const {
  XPUSIM_CHECK(first + count <= free_.size(), "SM range out of range");
  std::vector<std::uint32_t> out(count);
  for (std::uint32_t i = 0; i < count; ++i)
    out[i] = free_[first + i] - launch_[first + i];
  return out;
}

void ShadowState::reserve(std::uint32_t sm, std::uint32_t n) {
  XPUSIM_CHECK(n <= free(sm), "reserving more CTAs than the SM has free slots");
  launch_[sm] += n;
  reserved_total_ += n;
}

void ShadowState::reserve_range(std::uint32_t first, std::span<const std::uint32_t> per_sm) {
  for (std::uint32_t i = 0; i < per_sm.size(); ++i)
    if (per_sm[i] > 0) reserve(first + i, per_sm[i]);
}

void ShadowState::cancel() {
  std::fill(launch_.begin(), launch_.end(), 0u);
  reserved_total_ = 0;
}

void ShadowState::commit(GpuState& live, const CtaFootprint& f) {
  XPUSIM_CHECK(&live.topology() == topo_, "committing a shadow to a state it was not taken from");
  for (std::uint32_t sm = 0; sm < launch_.size(); ++sm) {
    for (std::uint32_t k = 0; k < launch_[sm]; ++k)
      live.launch(sm, f);
    free_[sm] -= launch_[sm];
  }
  cancel();
}

}  // namespace xpusim::sched
