#include "system/chip_summary.h"

#include <algorithm>
#include <vector>

#include <fmt/format.h>

#include "config/units.h"

namespace xpusim::system {
namespace {

using config::format_bandwidth;
using config::format_frequency;
using config::format_size;

enum class Align { kLeft, kRight };

// Pads every column to its widest cell; two spaces between columns; no trailing spaces.
std::string format_table(const std::vector<std::vector<std::string>>& rows,
                         const std::vector<Align>& align, std::string_view indent) {
  std::vector<std::size_t> width(align.size(), 0);
  for (const auto& row : rows) {
    for (std::size_t c = 0; c < row.size(); ++c)
      width[c] = std::max(width[c], row[c].size());
  }
  std::string out;
  for (const auto& row : rows) {
    std::string line(indent);
    for (std::size_t c = 0; c < row.size(); ++c) {
      if (c > 0) line += "  ";
      const std::string pad(width[c] - row[c].size(), ' ');
      line += align[c] == Align::kRight ? pad + row[c] : row[c] + pad;
    }
    line.erase(line.find_last_not_of(' ') + 1);
    out += line + "\n";
  }
  return out;
}

std::string plural(std::uint64_t n, std::string_view one, std::string_view many) {
  return fmt::format("{} {}", n, n == 1 ? one : many);
}

std::string gpc_table(const config::ChipSpec& chip) {
  std::vector<std::vector<std::string>> rows{{"GPC", "TPCs", "SMs", "SM ids"}};
  for (std::uint32_t g = 0; g < chip.num_gpcs(); ++g) {
    const std::uint32_t first = chip.first_sm_of_gpc(g);
    const std::uint32_t count = chip.sms_in_gpc(g);
    rows.push_back({fmt::format("{}", g), fmt::format("{}", chip.topology.tpcs_per_gpc[g]),
                    fmt::format("{}", count), fmt::format("{}-{}", first, first + count - 1)});
  }
  return format_table(rows, {Align::kRight, Align::kRight, Align::kRight, Align::kLeft}, "  ");
}

std::string sm_table(const config::SmSpec& sm) {
  const std::vector<std::vector<std::string>> rows{
      {"sub-partitions", fmt::format("{}", sm.sub_partitions)},
      {"max warps", fmt::format("{}", sm.max_warps)},
      {"max threads", fmt::format("{}", sm.max_threads)},
      {"max threads per block", fmt::format("{}", sm.max_threads_per_block)},
      {"max blocks", fmt::format("{}", sm.max_blocks)},
      {"registers (32-bit)", fmt::format("{}", sm.registers)},
      {"max registers per thread", fmt::format("{}", sm.max_registers_per_thread)},
      {"L1 + shared memory", format_size(sm.l1_shared_bytes)},
      {"max shared memory per SM", format_size(sm.shared_memory_bytes)},
      {"max shared memory per block", format_size(sm.shared_memory_per_block_bytes)},
      {"shared memory banks",
       fmt::format("{} x {}", sm.shared_memory_banks, format_size(sm.shared_memory_bank_bytes))},
      {"tensor cores", fmt::format("{}", sm.tensor.cores)},
      {"BF16 FMA per cycle (dense)", fmt::format("{}", sm.tensor.bf16_fma_per_cycle)},
      {"INT8 MAC per cycle (dense)", fmt::format("{}", sm.tensor.int8_fma_per_cycle)},
      {"TF32 FMA per cycle (dense)", fmt::format("{}", sm.tensor.tf32_fma_per_cycle)},
      {"FP32 mm FMA per cycle", fmt::format("{}", sm.tensor.f32_fma_per_cycle)},
      {"mm registers per thread", fmt::format("{}", sm.tensor.registers_per_thread)},
  };
  return format_table(rows, {Align::kLeft, Align::kRight}, "  ");
}

}  // namespace

std::string format_chip_summary(const config::ChipSpec& chip) {
  std::string out = chip.description.empty() ? fmt::format("{}\n", chip.name)
                                             : fmt::format("{}: {}\n", chip.name, chip.description);

  out += fmt::format("\nTopology: {}, {}, {}, {} ({} per TPC)\n",
                     plural(chip.num_gpcs(), "GPC", "GPCs"), plural(chip.num_tpcs(), "TPC", "TPCs"),
                     plural(chip.num_sms(), "SM", "SMs"),
                     plural(chip.tensor_cores(), "tensor core", "tensor cores"),
                     plural(chip.topology.sms_per_tpc, "SM", "SMs"));
  out += gpc_table(chip);

  out += fmt::format("\nClocks: SM {}, L2 {}\n", format_frequency(chip.clocks.sm_hz),
                     format_frequency(chip.clocks.l2_hz));

  out += "\nSM resources (per SM)\n";
  out += sm_table(chip.sm);

  out += fmt::format(
      "\nL2: {} in {} ({} each), {} lines, {} sectors; {} of {} ways, {} set index\n",
      format_size(chip.l2.size_bytes), plural(chip.l2.partitions, "partition", "partitions"),
      format_size(chip.l2_bytes_per_partition()), format_size(chip.l2.line_bytes),
      format_size(chip.l2.sector_bytes), plural(chip.l2.slices, "slice", "slices"), chip.l2.ways,
      chip.l2.set_index == "modulo" ? "modulo" : "hashed");
  out += fmt::format(
      "HBM: {}, {}, {}, {}\n", chip.hbm.generation, plural(chip.hbm.stacks, "stack", "stacks"),
      format_size(chip.hbm.capacity_bytes), format_bandwidth(chip.hbm.bandwidth_bytes_per_s));

  out += "\nPeaks\n";
  out += format_table(
      {
          {"dense BF16", fmt::format("{:.1f} TFLOPS", chip.peak_bf16_dense_tflops())},
          {"dense INT8", fmt::format("{:.1f} TOPS", chip.peak_int8_dense_tops())},
          {"HBM bandwidth", format_bandwidth(chip.hbm_bandwidth_bytes_per_s())},
          {"max cluster size", plural(chip.topology.max_cluster_size, "CTA", "CTAs")},
      },
      {Align::kLeft, Align::kRight}, "  ");
  return out;
}

}  // namespace xpusim::system
