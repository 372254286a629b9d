// One test per error kind of the chip file reader: each asserts the exact FILE:LINE:COL, the
// key path and the rule in the one-line message.
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "config/chip_spec.h"

namespace xpusim::config {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::StartsWith;

const std::filesystem::path kData = XPUSIM_TEST_DATA_DIR;

std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

// data/base.yaml with one whole line replaced (so later line numbers stay put unless
// `replacement` spans several lines).
std::string base_with(std::string_view line, std::string_view replacement) {
  std::string text = read_text(kData / "base.yaml");
  const std::string needle = std::string(line) + "\n";
  const std::size_t at = text.find(needle);
  EXPECT_NE(at, std::string::npos) << "base.yaml has no line '" << line << "'";
  if (at != std::string::npos) text.replace(at, needle.size(), std::string(replacement) + "\n");
  return text;
}

std::vector<std::string> errors_of(std::string_view yaml) {
  Result<ChipSpec> r = load_chip_string(yaml, "chip.yaml");
  std::vector<std::string> out;
  if (!r.ok()) {
    for (const Error& e : r.errors())
      out.push_back(e.message);
  }
  return out;
}

TEST(ChipErrors, BaseFileIsValid) {
  Result<ChipSpec> r = load_chip_file(kData / "base.yaml");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->num_sms(), 16u);
  EXPECT_EQ(r->sm.shared_memory_banks, 32u);  // default
  EXPECT_EQ(r->l2.line_bytes, 128u);          // default
  EXPECT_EQ(r->description, "");              // default
}

TEST(ChipErrors, UnknownKeySuggestsClosestAndListsValidKeys) {
  const auto errors =
      errors_of(base_with("  shared_memory_bytes: 228KiB",
                          "  shared_memory_bytes: 228KiB\n  shared_mem_bytes: 100KiB"));
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_THAT(errors[0],
              StartsWith("chip.yaml:16:3: sm.shared_mem_bytes: unknown key 'shared_mem_bytes' "
                         "(did you mean 'shared_memory_bytes'?); valid keys here: "
                         "sub_partitions, max_warps,"));
  EXPECT_THAT(errors[0], HasSubstr("shared_memory_per_block_bytes"));
}

TEST(ChipErrors, UnknownTopLevelKeyHasNoSuggestionWhenNothingIsClose) {
  const auto errors = errors_of(base_with("name: test-chip", "name: test-chip\nwidgets: 3"));
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(
      errors[0],
      "chip.yaml:2:1: widgets: unknown key 'widgets'; valid keys here: name, description, "
      "clocks, topology, sm, sm_latency, l1, dsmem, tma, crossbar, l2, hbm, command_processor");
}

TEST(ChipErrors, MissingRequiredKeyIsReportedAtTheParentMapping) {
  const auto errors = errors_of(base_with("  max_warps: 64", "  # max_warps removed"));
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0],
            "chip.yaml:9:3: sm.max_warps: missing required key 'max_warps' (integer: Resident "
            "warps per SM)");
}

TEST(ChipErrors, MissingRequiredSectionIsOneError) {
  std::string text = read_text(kData / "base.yaml");
  text = text.substr(0, text.find("hbm:"));
  const auto errors = errors_of(text);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(
      errors[0],
      "chip.yaml:1:1: hbm: missing required section 'hbm' (keys: generation, stacks, "
      "capacity, bandwidth, channels, latency, turnaround, loaded_latency, interleave_bytes)");
}

TEST(ChipErrors, WrongTypeExpectedInteger) {
  const auto errors = errors_of(base_with("  max_warps: 64", "  max_warps: abc"));
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0], "chip.yaml:10:14: sm.max_warps: expected an integer, got \"abc\"");
}

TEST(ChipErrors, WrongTypeExpectedMappingSequenceString) {
  EXPECT_THAT(
      errors_of(base_with("  tensor:", "  tensor: 4\n  old_tensor:")),
      testing::Contains(StartsWith(
          "chip.yaml:17:11: sm.tensor: expected a mapping with keys cores, "
          "bf16_fma_per_cycle, int8_fma_per_cycle, tf32_fma_per_cycle, "
          "f32_fma_per_cycle, registers_per_thread, translation_cache_entries, got \"4\"")));
  EXPECT_THAT(errors_of(base_with("  tpcs_per_gpc: [4, 4]", "  tpcs_per_gpc: 4")),
              ElementsAre("chip.yaml:7:17: topology.tpcs_per_gpc: expected a sequence of "
                          "integers, got \"4\""));
  EXPECT_THAT(errors_of(base_with("name: test-chip", "name: [a, b]")),
              ElementsAre("chip.yaml:1:7: name: expected a string, got a sequence"));
  EXPECT_THAT(errors_of(base_with("  size: 2MiB", "  size:")),
              ElementsAre("chip.yaml:25:3: l2.size: expected a size such as \"50MiB\", got an "
                          "empty value"));
}

TEST(ChipErrors, OutOfRangeValue) {
  const auto errors = errors_of(base_with("  sub_partitions: 4", "  sub_partitions: 0"));
  // tensor.cores % sub_partitions is not checked: sub_partitions did not read cleanly.
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0], "chip.yaml:9:19: sm.sub_partitions: 0 is out of range [1, 16]");
}

TEST(ChipErrors, OutOfRangeNegativeAndQuantity) {
  EXPECT_THAT(errors_of(base_with("  max_blocks: 32", "  max_blocks: -3")),
              ElementsAre("chip.yaml:12:15: sm.max_blocks: -3 is out of range [1, 1024]"));
  EXPECT_THAT(errors_of(base_with("  sm: 1GHz", "  sm: 20GHz")),
              ElementsAre("chip.yaml:3:7: clocks.sm: 20 GHz is out of range [1 MHz, 10 GHz]"));
}

TEST(ChipErrors, OutOfRangeStoreQueueAndTurnaround) {
  EXPECT_THAT(errors_of(base_with("  max_blocks: 32", "  max_blocks: 32\n  store_queue: -1")),
              ElementsAre("chip.yaml:13:16: sm.store_queue: -1 is out of range [0, 1048576]"));
  EXPECT_THAT(errors_of(base_with("  stacks: 1", "  stacks: 1\n  turnaround: 2us")),
              ElementsAre("chip.yaml:30:15: hbm.turnaround: 2 us is out of range [0 ps, 1 us]"));
}

TEST(ChipErrors, OutOfRangeTensorKeys) {
  EXPECT_THAT(errors_of(base_with("    registers_per_thread: 512", "    registers_per_thread: 4")),
              ElementsAre("chip.yaml:23:27: sm.tensor.registers_per_thread: 4 is out of range "
                          "[8, 65536]"));
  EXPECT_THAT(errors_of(base_with("    int8_fma_per_cycle: 4096", "    int8_fma_per_cycle: 0")),
              ElementsAre("chip.yaml:20:25: sm.tensor.int8_fma_per_cycle: 0 is out of range "
                          "[1, 1048576]"));
}

TEST(ChipErrors, OutOfRangeListElementHasIndexInPath) {
  EXPECT_THAT(errors_of(base_with("  tpcs_per_gpc: [4, 4]", "  tpcs_per_gpc: [4, 0]")),
              ElementsAre("chip.yaml:7:21: topology.tpcs_per_gpc[1]: 0 is out of range [1, 64]"));
}

TEST(ChipErrors, BadUnitString) {
  const auto errors = errors_of(base_with("  size: 2MiB", "  size: 2 MiBs"));
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_THAT(errors[0], StartsWith("chip.yaml:25:9: l2.size: unknown size unit \"MiBs\" in "
                                    "\"2 MiBs\"; valid units: B, KB, MB, GB, TB, KiB, MiB"));
}

TEST(ChipErrors, NonWholeQuantity) {
  EXPECT_THAT(errors_of(base_with("  capacity: 1GiB", "  capacity: 1.5B")),
              ElementsAre("chip.yaml:30:13: hbm.capacity: \"1.5B\" is not a whole number of "
                          "bytes"));
}

TEST(ChipErrors, NotAPowerOfTwo) {
  EXPECT_THAT(errors_of(base_with("  partitions: 2", "  partitions: 2\n  line_bytes: 96")),
              ElementsAre("chip.yaml:27:15: l2.line_bytes: 96 is not a power of two"));
}

TEST(ChipErrors, NotOneOfTheChoices) {
  EXPECT_THAT(errors_of(base_with("  generation: HBM3", "  generation: HMB3")),
              ElementsAre("chip.yaml:28:15: hbm.generation: \"HMB3\" is not one of HBM2, HBM2e, "
                          "HBM3, HBM3e (did you mean 'HBM3'?)"));
}

TEST(ChipErrors, UnknownL2SetIndex) {
  EXPECT_THAT(errors_of(base_with("  partitions: 2", "  partitions: 2\n  set_index: xor")),
              ElementsAre(HasSubstr("l2.set_index: \"xor\" is not one of hash, modulo")));
}

TEST(ChipErrors, DuplicateKey) {
  EXPECT_THAT(errors_of(base_with("  stacks: 1", "  stacks: 1\n  stacks: 2")),
              ElementsAre("chip.yaml:30:3: hbm.stacks: duplicate key; first given at line 29"));
}

TEST(ChipErrors, CrossFieldRuleNamesTheOtherKeyAndItsValue) {
  const auto errors =
      errors_of(base_with("  shared_memory_bytes: 228KiB", "  shared_memory_bytes: 300KiB"));
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0],
            "chip.yaml:15:3: sm.shared_memory_bytes: 300 KiB exceeds sm.l1_shared_bytes = 256 KiB "
            "(shared memory is carved out of the L1/shared array)");
}

TEST(ChipErrors, CrossFieldTpcListLengthMustMatchGpcs) {
  EXPECT_THAT(errors_of(base_with("  tpcs_per_gpc: [4, 4]", "  tpcs_per_gpc: [4, 4, 4]")),
              ElementsAre("chip.yaml:7:3: topology.tpcs_per_gpc: has 3 entries but "
                          "topology.gpcs = 2 (one TPC count per GPC)"));
}

// A loaded-latency curve holds 9 points (10 % to 90 %); one short curve is reported at its key,
// and a curve given alone leaves the other two empty, which are reported too.
TEST(ChipErrors, CrossFieldLoadedLatencyCurvesHaveNinePointsEach) {
  const std::string nine = "[0, 0, 3, 9, 22, 45, 82, 139, 219]";
  const auto curves = [&](std::string_view reads, std::string_view mixed, std::string_view writes) {
    return fmt::format(
        "  stacks: 1\n  loaded_latency:\n    reads: {}\n    mixed: {}\n"
        "    writes: {}",
        reads, mixed, writes);
  };
  EXPECT_THAT(errors_of(base_with("  stacks: 1", curves(nine, nine, nine))), ElementsAre());
  EXPECT_THAT(errors_of(base_with("  stacks: 1", curves(nine, "[1, 2, 3]", nine))),
              ElementsAre("chip.yaml:32:5: hbm.loaded_latency.mixed: has 3 entries, not 9 (one "
                          "extra latency per tenth of a channel's bandwidth (10 % to 90 %) for "
                          "each traffic mix; all three empty: none)"));
  EXPECT_EQ(
      errors_of(base_with("  stacks: 1", "  stacks: 1\n  loaded_latency:\n    reads: " + nine))
          .size(),
      2u);
}

TEST(ChipErrors, CrossFieldRulesEachFire) {
  struct Case {
    std::string_view line, replacement, expected;
  };
  const Case cases[] = {
      {"  max_threads: 2048", "  max_threads: 4096",
       "chip.yaml:11:3: sm.max_threads: 4096 exceeds sm.max_warps x 32 = 2048"},
      {"  shared_memory_per_block_bytes: 227KiB", "  shared_memory_per_block_bytes: 229KiB",
       "chip.yaml:16:3: sm.shared_memory_per_block_bytes: 229 KiB exceeds "
       "sm.shared_memory_bytes = 228 KiB"},
      {"    bf16_fma_per_cycle: 2048", "    bf16_fma_per_cycle: 2047",
       "chip.yaml:19:5: sm.tensor.bf16_fma_per_cycle: 2047 is not divisible by "
       "sm.tensor.cores = 4"},
      {"    int8_fma_per_cycle: 4096", "    int8_fma_per_cycle: 4094",
       "chip.yaml:20:5: sm.tensor.int8_fma_per_cycle: 4094 is not divisible by "
       "sm.tensor.cores = 4"},
      {"    tf32_fma_per_cycle: 1024", "    tf32_fma_per_cycle: 1022",
       "chip.yaml:21:5: sm.tensor.tf32_fma_per_cycle: 1022 is not divisible by "
       "sm.tensor.cores = 4"},
      {"    f32_fma_per_cycle: 128", "    f32_fma_per_cycle: 126",
       "chip.yaml:22:5: sm.tensor.f32_fma_per_cycle: 126 is not divisible by "
       "sm.tensor.cores = 4"},
      {"    cores: 4", "    cores: 2",
       "chip.yaml:18:5: sm.tensor.cores: 2 is not a multiple of sm.sub_partitions = 4"},
      {"  registers: 65536", "  registers: 65534",
       "chip.yaml:13:3: sm.registers: 65534 is not divisible by sm.sub_partitions = 4"},
      {"  partitions: 2", "  partitions: 2\n  sector_bytes: 256",
       "chip.yaml:25:3: l2.line_bytes: 128 is not a multiple of l2.sector_bytes = 256"},
      // A defaulted key (l2.slices = 16) breaks the rule: reported once, not again at l2.size.
      {"  partitions: 2", "  partitions: 3",
       "chip.yaml:25:3: l2.slices: 16 is not a multiple of l2.partitions = 3"},
      {"  partitions: 2", "  partitions: 2\n  slices: 6",
       "chip.yaml:25:3: l2.size: 2 MiB is not divisible by l2.slices x l2.ways x l2.line_bytes "
       "= 6 x 16 x 128"},
      {"  stacks: 1", "  stacks: 1\n  interleave_bytes: 16",
       "chip.yaml:30:3: hbm.interleave_bytes: 16 is not a multiple of l2.sector_bytes = 32"},
      {"  stacks: 1", "  stacks: 3",
       "chip.yaml:30:3: hbm.capacity: 1 GiB is not divisible by hbm.stacks = 3"},
      {"  tpcs_per_gpc: [4, 4]", "  tpcs_per_gpc: [4, 4]\n  max_cluster_size: 9",
       "chip.yaml:8:3: topology.max_cluster_size: 9 exceeds the SMs of the largest GPC, "
       "max(topology.tpcs_per_gpc) x topology.sms_per_tpc = 8 (a cluster runs within one GPC)"},
      {"  max_blocks: 32", "  max_blocks: 32\n  max_threads_per_block: 4096",
       "chip.yaml:13:3: sm.max_threads_per_block: 4096 exceeds sm.max_threads = 2048"},
  };
  for (const Case& c : cases) {
    const auto errors = errors_of(base_with(c.line, c.replacement));
    ASSERT_EQ(errors.size(), 1u) << c.replacement;
    EXPECT_THAT(errors[0], StartsWith(c.expected));
    EXPECT_EQ(errors[0].back(), ')') << "every rule message ends with its reason";
  }
}

// Found by fuzz/chip_config_fuzz: every key at its schema maximum gave a peak BF16 figure of
// 6.9e20 flop/s, which wrapped around 64 bits in ChipSpec::peak_bf16_dense_flops().
TEST(ChipErrors, PeakFiguresMustFitIn64Bits) {
  std::string big = base_with("  sm: 1GHz", "  sm: 10GHz");
  const std::string tpcs = "  tpcs_per_gpc: [4, 4]\n";
  std::string list;
  for (int i = 0; i < 64; ++i)
    list += i == 0 ? "64" : ", 64";
  big.replace(big.find(tpcs), tpcs.size(), "  tpcs_per_gpc: [" + list + "]\n  sms_per_tpc: 8\n");
  big.replace(big.find("  gpcs: 2"), 9, "  gpcs: 64");
  const auto with_bf16 = [&](std::string_view v) {
    std::string text = big;
    const std::string line = "    bf16_fma_per_cycle: 2048";
    text.replace(text.find(line), line.size(), "    bf16_fma_per_cycle: " + std::string(v));
    return text;
  };
  // 32768 SMs x 2 x 10 GHz: at most (2^64 - 1) / 2e10 / 32768 = 28147 FMA per SM per cycle.
  const auto errors = errors_of(with_bf16("1048576"));
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_THAT(errors[0],
              StartsWith("chip.yaml:20:5: sm.tensor.bf16_fma_per_cycle: 1048576 x 32768 SMs x 2 "
                         "x clocks.sm = 6.87e+20 op/s does not fit in 64 bits (at most 28147 "
                         "with these SMs and clock)"));
  Result<ChipSpec> largest = load_chip_string(with_bf16("28144"), "chip.yaml");
  ASSERT_TRUE(largest.ok()) << largest.error().message;
  EXPECT_EQ(largest->num_sms(), 32768u);
  EXPECT_EQ(largest->peak_bf16_dense_flops(), 28144ull * 32768 * 2 * 10'000'000'000ull);
}

// Found by the fuzz targets: a quoted key or value may hold a line break, and the message
// quoted it as it was; an error is one line.
TEST(ChipErrors, QuotedLineBreaksAreEscaped) {
  const auto errors = errors_of(base_with("  gpcs: 2", "  gpcs: \"2\\n3\"\n  \"a\\rb\": 1"));
  ASSERT_EQ(errors.size(), 2u);
  EXPECT_THAT(errors[0], StartsWith("chip.yaml:6:9: topology.gpcs: expected an integer, got "
                                    "\"2\\n3\""));
  EXPECT_THAT(errors[1], StartsWith("chip.yaml:7:3: topology.a\\rb: unknown key 'a\\rb'"));
}

TEST(ChipErrors, YamlSyntaxErrorIsOneLineWithPosition) {
  Result<ChipSpec> r = load_chip_file(kData / "syntax_error.yaml");
  ASSERT_FALSE(r.ok());
  ASSERT_EQ(r.errors().size(), 1u);
  EXPECT_EQ(r.error().message, (kData / "syntax_error.yaml").string() +
                                   ":5:3: YAML syntax error: end of sequence flow not found");
}

TEST(ChipErrors, DocumentMustBeAMapping) {
  EXPECT_THAT(errors_of("- a\n- b\n"),
              ElementsAre("chip.yaml:1:1: expected a mapping at the top level, got a sequence"));
  EXPECT_THAT(errors_of(""), ElementsAre(StartsWith("chip.yaml:1:1: empty document")));
}

TEST(ChipErrors, AllErrorsAreReportedAtOnceInFileOrder) {
  const std::filesystem::path path = kData / "three_mistakes.yaml";
  Result<ChipSpec> r = load_chip_file(path);
  ASSERT_FALSE(r.ok());
  std::vector<std::string> lines;
  for (const Error& e : r.errors())
    lines.push_back(e.message);
  const std::string f = path.string();
  EXPECT_THAT(lines,
              ElementsAre(StartsWith(f + ":3:7: clocks.sm: unknown frequency unit \"Ghz\""),
                          StartsWith(f + ":15:3: sm.shared_memory_bytes: 300 KiB exceeds"),
                          StartsWith(f + ":27:3: l2.line_size: unknown key 'line_size' (did you "
                                         "mean 'line_bytes'?)")));
}

TEST(ChipErrors, UnreadableFileNamesThePath) {
  Result<ChipSpec> r = load_chip_file(kData / "no-such-file.yaml");
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.error().message,
              StartsWith((kData / "no-such-file.yaml").string() + ": cannot open the chip file"));
}

}  // namespace
}  // namespace xpusim::config
