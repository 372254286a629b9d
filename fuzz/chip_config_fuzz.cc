// libFuzzer target: text -> the chip config reader (config::load_chip_string).
//
// The reader returns a ChipSpec or errors, each one line starting with the source name. A
// spec it accepts must hold what the simulator builds on, checked here independently of the
// reader's rules (src/config/chip_rules.cc): a topology with SMs whose numbering (GPC-major,
// TPCs adjacent) is consistent and fits 32 bits, non-zero clocks and divisors, the cross-field
// rules, and peak figures that do not wrap around 64 bits.
#include <cstddef>
#include <cstdint>

#include "config/chip_spec.h"
#include "fuzz_check.h"

namespace {

using xpusim::config::ChipSpec;

void check_spec(const ChipSpec& c) {
  const auto& t = c.topology;
  FUZZ_CHECK(t.gpcs >= 1 && t.tpcs_per_gpc.size() == t.gpcs && t.sms_per_tpc >= 1);
  unsigned __int128 sms = 0;
  for (std::uint32_t tpcs : t.tpcs_per_gpc)
    sms += static_cast<unsigned __int128>(tpcs) * t.sms_per_tpc;
  FUZZ_CHECK(sms >= 1 && sms == c.num_sms());  // no wrap-around in num_tpcs() x sms_per_tpc
  // GPC-major numbering: each GPC's SMs follow the previous GPC's (first and last SM only, so
  // a chip with many SMs stays fast).
  std::uint32_t first = 0;
  for (std::uint32_t g = 0; g < t.gpcs; ++g) {
    FUZZ_CHECK(c.first_sm_of_gpc(g) == first);
    FUZZ_CHECK(c.sms_in_gpc(g) == t.tpcs_per_gpc[g] * t.sms_per_tpc);
    if (c.sms_in_gpc(g) > 0) {
      FUZZ_CHECK(c.gpc_of_sm(first) == g);
      FUZZ_CHECK(c.gpc_of_sm(first + c.sms_in_gpc(g) - 1) == g);
    }
    first += c.sms_in_gpc(g);
  }
  FUZZ_CHECK(c.tpc_of_sm(c.num_sms() - 1) + 1 == c.num_tpcs());
  FUZZ_CHECK(t.max_cluster_size >= 1);

  FUZZ_CHECK(c.clocks.sm_hz > 0 && c.clocks.l2_hz > 0);
  FUZZ_CHECK(c.sm.sub_partitions > 0 && c.sm.registers % c.sm.sub_partitions == 0);
  FUZZ_CHECK(c.sm.max_threads <= std::uint64_t{c.sm.max_warps} * 32);
  FUZZ_CHECK(c.sm.max_threads_per_block <= c.sm.max_threads);
  FUZZ_CHECK(c.sm.shared_memory_per_block_bytes <= c.sm.shared_memory_bytes);
  FUZZ_CHECK(c.sm.shared_memory_bytes <= c.sm.l1_shared_bytes);
  FUZZ_CHECK(c.sm.tensor.cores > 0 && c.sm.tensor.cores % c.sm.sub_partitions == 0);
  FUZZ_CHECK(c.sm.tensor.bf16_fma_per_cycle % c.sm.tensor.cores == 0);
  FUZZ_CHECK(c.tma.sms_per_unit > 0 && t.sms_per_tpc % c.tma.sms_per_unit == 0);

  const auto& l2 = c.l2;
  FUZZ_CHECK(l2.partitions > 0 && l2.slices > 0 && l2.slices % l2.partitions == 0);
  FUZZ_CHECK(l2.sector_bytes > 0 && l2.line_bytes > 0 && l2.line_bytes % l2.sector_bytes == 0);
  FUZZ_CHECK(l2.ways > 0);
  const unsigned __int128 set_bytes =
      static_cast<unsigned __int128>(l2.slices) * l2.ways * l2.line_bytes;
  FUZZ_CHECK(l2.size_bytes > 0 && l2.size_bytes % set_bytes == 0);
  FUZZ_CHECK(c.hbm.stacks > 0 && c.hbm.capacity_bytes % c.hbm.stacks == 0);
  FUZZ_CHECK(c.hbm.channels > 0 && c.hbm.bandwidth_bytes_per_s > 0);
  FUZZ_CHECK(c.hbm.interleave_bytes > 0 && c.hbm.interleave_bytes % l2.sector_bytes == 0);
  const std::size_t curves =
      c.hbm.loaded_reads_ns.size() + c.hbm.loaded_mixed_ns.size() + c.hbm.loaded_writes_ns.size();
  FUZZ_CHECK(curves == 0 ||
             (c.hbm.loaded_reads_ns.size() == 9 && c.hbm.loaded_mixed_ns.size() == 9 &&
              c.hbm.loaded_writes_ns.size() == 9));

  // The headline peaks: SMs x FMA/cycle x 2 x clock must be the exact product.
  const auto peak = [&](std::uint32_t per_cycle) {
    return static_cast<unsigned __int128>(c.num_sms()) * per_cycle * 2 * c.clocks.sm_hz;
  };
  FUZZ_CHECK(peak(c.sm.tensor.bf16_fma_per_cycle) == c.peak_bf16_dense_flops());
  FUZZ_CHECK(peak(c.sm.tensor.int8_fma_per_cycle) == c.peak_int8_dense_ops());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace xpusim;
  const auto chip = config::load_chip_string(fuzz::as_text(data, size), "fuzz.yaml");
  fuzz::check_reader_errors(chip, "fuzz.yaml:");
  if (chip) check_spec(*chip);
  return 0;
}
