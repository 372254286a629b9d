#include "config/chip_spec.h"

#include <algorithm>
#include <cerrno>
#include <fstream>
#include <numeric>
#include <sstream>
#include <system_error>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "config/chip_schema.h"
#include "config/yaml_reader.h"
#include "sim/file_read.h"
#include "sim/suggest.h"

namespace xpusim::config {

std::uint32_t ChipSpec::num_tpcs() const {
  return std::accumulate(topology.tpcs_per_gpc.begin(), topology.tpcs_per_gpc.end(),
                         std::uint32_t{0});
}

std::uint32_t ChipSpec::sms_in_gpc(std::uint32_t gpc) const {
  XPUSIM_CHECK(gpc < topology.tpcs_per_gpc.size(), "GPC index out of range");
  return topology.tpcs_per_gpc[gpc] * topology.sms_per_tpc;
}

std::uint32_t ChipSpec::first_sm_of_gpc(std::uint32_t gpc) const {
  XPUSIM_CHECK(gpc < topology.tpcs_per_gpc.size(), "GPC index out of range");
  std::uint32_t first = 0;
  for (std::uint32_t g = 0; g < gpc; ++g)
    first += sms_in_gpc(g);
  return first;
}

std::uint32_t ChipSpec::gpc_of_sm(std::uint32_t sm) const {
  std::uint32_t end = 0;
  for (std::uint32_t g = 0; g < topology.tpcs_per_gpc.size(); ++g) {
    end += sms_in_gpc(g);
    if (sm < end) return g;
  }
  check_failed("sm < num_sms()", __FILE__, __LINE__, "SM id out of range");
}

std::uint64_t ChipSpec::peak_bf16_dense_flops() const {
  return std::uint64_t{num_sms()} * sm.tensor.bf16_fma_per_cycle * 2 * clocks.sm_hz;
}

std::uint64_t ChipSpec::peak_int8_dense_ops() const {
  return std::uint64_t{num_sms()} * sm.tensor.int8_fma_per_cycle * 2 * clocks.sm_hz;
}

Result<ChipSpec> load_chip_string(std::string_view yaml, std::string_view source_name) {
  Diagnostics diag{std::string(source_name)};
  const std::vector<FieldDecl> fields = chip_fields();
  const FieldValues values = read_yaml_fields(yaml, fields, diag);
  ChipSpec spec = bind_chip_fields(values);
  check_chip_rules(spec, values, diag);
  if (!diag.empty()) return diag.take();
  return spec;
}

Result<ChipSpec> load_chip_file(const std::filesystem::path& path) {
  auto text = read_file_bounded(path, "chip file");
  if (!text) return text.errors();
  return load_chip_string(*text, path.string());
}

Result<std::filesystem::path> resolve_chip(std::string_view name_or_path,
                                           const std::filesystem::path& config_dir) {
  const bool is_path =
      name_or_path.find('/') != std::string_view::npos || name_or_path.ends_with(".yaml");
  const std::filesystem::path path =
      is_path ? std::filesystem::path(name_or_path)
              : config_dir / "chips" / (std::string(name_or_path) + ".yaml");
  std::error_code ec;
  if (std::filesystem::is_regular_file(path, ec)) return path;
  if (is_path) return Error{fmt::format("{}: no such chip file", path.string())};
  const std::vector<std::string> names = list_chips(config_dir);
  return Error{fmt::format(
      "unknown chip '{}'{}; available chips in {}: {}", name_or_path,
      sim::did_you_mean(name_or_path, names), (config_dir / "chips").string(),
      names.empty() ? std::string("(none)") : fmt::format("{}", fmt::join(names, ", ")))};
}

std::vector<std::string> list_chips(const std::filesystem::path& config_dir) {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(config_dir / "chips", ec)) {
    if (entry.is_regular_file(ec) && entry.path().extension() == ".yaml") {
      names.push_back(entry.path().stem().string());
    }
  }
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace xpusim::config
