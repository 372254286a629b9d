#include "workloads/ubench/common.h"

#include <fmt/format.h>

#include <span>

#include "sim/simulation.h"

namespace xpusim::workloads::ubench {

std::uint64_t param(const system::ParamValues& values, std::string_view name) {
  const auto it = values.find(name);
  XPUSIM_CHECK(it != values.end(), "a workload reads only parameters it declared");
  return it->second;
}

Status require_functional(const system::Chip& chip, std::string_view workload,
                          std::string_view why) {
  if (chip.options().functional) return Ok{};
  return Error{fmt::format("{}: needs functional mode: {}, and timing-only mode moves no data",
                           workload, why)};
}

Result<Buffers> allocate(system::Chip& chip, std::string_view workload, std::uint64_t results_bytes,
                         std::uint64_t data_bytes) {
  Buffers b;
  auto r = chip.allocate(fmt::format("{}: results", workload), results_bytes);
  if (!r) return r.errors();
  b.results = *r;
  if (data_bytes > 0) {
    auto d = chip.allocate(fmt::format("{}: data", workload), data_bytes);
    if (!d) return d.errors();
    b.data = *d;
  }
  return b;
}

Result<std::vector<std::uint64_t>> read_words(system::Chip& chip, kernel::Addr at, std::size_t n) {
  std::vector<std::uint64_t> out(n);
  if (auto st = chip.memory().read(at, std::as_writable_bytes(std::span(out))); !st) {
    return st.errors();
  }
  return out;
}

std::vector<std::uint32_t> busy_sms(const system::Chip& chip) {
  std::vector<std::uint32_t> out;
  for (std::uint32_t i = 0; i < chip.num_sms(); ++i) {
    if (chip.sm(i).warp_instructions() > 0) out.push_back(i);
  }
  return out;
}

Result<double> stat_value(system::Chip& chip, const std::string& path) {
  auto stat = chip.root().sim().stats().find(path);
  if (!stat) return stat.errors();
  return (*stat)->to_json()["value"].get<double>();
}

Result<double> sum_over_sms(system::Chip& chip, std::string_view stat) {
  double sum = 0;
  for (std::uint32_t i = 0; i < chip.num_sms(); ++i) {
    auto v = stat_value(chip, fmt::format("{}.{}", chip.sm(i).path(), stat));
    if (!v) return v.errors();
    sum += *v;
  }
  return sum;
}

double l2_to_sm_cycles(const config::ChipSpec& spec, double l2_cycles) {
  return l2_cycles * static_cast<double>(spec.clocks.sm_hz) /
         static_cast<double>(spec.clocks.l2_hz);
}

double ps_to_sm_cycles(const config::ChipSpec& spec, double ps) {
  return ps * static_cast<double>(spec.clocks.sm_hz) / 1e12;
}

double sm_cycles_to_ns(const config::ChipSpec& spec, double cycles) {
  return cycles * 1e9 / static_cast<double>(spec.clocks.sm_hz);
}

Status check_completed(const system::Chip& chip, std::uint32_t launch, std::string_view workload) {
  if (auto f = chip.fault()) return Error{fmt::format("{}: {}", workload, f->message)};
  if (launch >= chip.launches() || !chip.run(launch).done) {
    const std::vector<std::string> hang = chip.hang_report();
    return Error{fmt::format("{}: the kernel did not complete{}{}", workload,
                             hang.empty() ? "" : ": ", hang.empty() ? "" : hang.front())};
  }
  return Ok{};
}

std::optional<system::Measurement> l2_hit_rate(system::Chip& chip) {
  const std::string l2 = chip.memory_system().l2().path();
  auto hits = stat_value(chip, l2 + ".hits");
  auto misses = stat_value(chip, l2 + ".misses");
  auto merged = stat_value(chip, l2 + ".merged_misses");
  if (!hits || !misses || !merged || *hits + *misses + *merged == 0) return std::nullopt;
  return system::Measurement{.name = "L2 hit rate",
                             .measured = 100 * *hits / (*hits + *misses + *merged),
                             .configured = std::nullopt,
                             .unit = "%",
                             .note = "L2 reads that found their sectors resident (whole run)"};
}

}  // namespace xpusim::workloads::ubench
