// The corpus (tests/ptx/corpus): CUDA kernels compiled by nvcc 13 for sm_90a, their checked-in
// PTX run on the whole modelled chip, every output compared element by element with the
// case's independent C++ reference.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <filesystem>

#include "config/chip_spec.h"
#include "ptx/corpus/cases.h"
#include "ptx/parser.h"
#include "ptx/ptx_kernel.h"
#include "sim/simulation.h"
#include "system/chip.h"

namespace xpusim::ptx_corpus {
// gtest names a failing case by file and entry, not by its bytes.
void PrintTo(const Case& c, std::ostream* os) {
  *os << c.file << "/" << c.entry;
}
}  // namespace xpusim::ptx_corpus

namespace xpusim::ptx {
namespace {

namespace corpus = ptx_corpus;

config::ChipSpec h100() {
  return config::load_chip_file(std::filesystem::path(XPUSIM_CONFIG_DIR) / "chips/h100-sxm5.yaml")
      .value();
}

std::string describe_mismatch(const corpus::Case& c, const std::string& buffer,
                              const corpus::Bytes& got, const corpus::Bytes& want) {
  if (got.size() != want.size())
    return fmt::format("{}: {} bytes, want {}", buffer, got.size(), want.size());
  const std::size_t w = c.element == "f64" || c.element == "u64" || c.element == "s64" ? 8
                        : c.element == "u16"                                           ? 2
                        : c.element == "u8"                                            ? 1
                                                                                       : 4;
  for (std::size_t i = 0; i + w <= got.size(); i += w) {
    std::uint64_t a = 0, b = 0;
    std::memcpy(&a, got.data() + i, w);
    std::memcpy(&b, want.data() + i, w);
    if (a == b) continue;
    if (c.element == "f32") {
      const float x = std::bit_cast<float>(static_cast<std::uint32_t>(a));
      const float y = std::bit_cast<float>(static_cast<std::uint32_t>(b));
      if (std::isnan(x) && std::isnan(y)) continue;
      return fmt::format("{}[{}] = {} ({:#010x}), want {} ({:#010x})", buffer, i / w, x, a, y, b);
    }
    if (c.element == "f64") {
      const double x = std::bit_cast<double>(a), y = std::bit_cast<double>(b);
      if (std::isnan(x) && std::isnan(y)) continue;
      return fmt::format("{}[{}] = {}, want {}", buffer, i / w, x, y);
    }
    return fmt::format("{}[{}] = {:#x}, want {:#x}", buffer, i / w, a, b);
  }
  return "";
}

class Corpus : public testing::TestWithParam<corpus::Case> {};

TEST_P(Corpus, MatchesTheReferenceElementByElement) {
  const corpus::Case& c = GetParam();
  const std::string path = std::string(XPUSIM_PTX_CORPUS_DIR) + "/" + c.file + ".ptx";
  auto module = load_module(path);
  ASSERT_TRUE(module.ok()) << module.error().message;
  auto shared = std::make_shared<const Module>(std::move(module).value());
  auto def = make_kernel(shared, c.entry);
  ASSERT_TRUE(def.ok()) << def.error().message;

  sim::Simulation sim{1};
  auto chip = system::Chip::create(sim, h100(), {}).value();
  std::map<std::string, kernel::Addr> where;
  corpus::BufferMap inputs;
  for (const corpus::Buffer& b : c.buffers) {
    auto a = chip->allocate(b.name, std::max<std::uint64_t>(b.init.size(), 1));
    ASSERT_TRUE(a.ok()) << a.error().message;
    where[b.name] = *a;
    ASSERT_TRUE(chip->memory().write(*a, std::as_bytes(std::span(b.init))).ok());
    inputs[b.name] = b.init;
  }
  kernel::KernelArgs args;
  for (const corpus::Arg& a : c.args) {
    switch (a.kind) {
      case corpus::ArgKind::kPtr:
        args.ptr(where.at(a.buffer));
        break;
      case corpus::ArgKind::kU32:
      case corpus::ArgKind::kS32:
        args.u32(static_cast<std::uint32_t>(a.bits));
        break;
      case corpus::ArgKind::kF32:
        args.f32(std::bit_cast<float>(static_cast<std::uint32_t>(a.bits)));
        break;
      case corpus::ArgKind::kU64:
      case corpus::ArgKind::kS64:
      case corpus::ArgKind::kF64:
        args.u64(a.bits);
        break;
    }
  }
  const kernel::LaunchParams p{.grid = {c.grid.x, c.grid.y, c.grid.z},
                               .block = {c.block.x, c.block.y, c.block.z},
                               .dynamic_shared_bytes = c.dynamic_shared_bytes};
  auto id = chip->launch(*def, p, args);
  ASSERT_TRUE(id.ok()) << id.error().message;
  sim.run();
  ASSERT_FALSE(chip->fault()) << chip->fault()->message;
  ASSERT_TRUE(chip->run(*id).done);
  const corpus::BufferMap want = c.reference(inputs);
  for (const std::string& name : c.outputs) {
    corpus::Bytes got(inputs.at(name).size());
    ASSERT_TRUE(chip->memory().read(where.at(name), std::as_writable_bytes(std::span(got))).ok());
    EXPECT_EQ(describe_mismatch(c, name, got, want.at(name)), "") << c.file << "/" << c.entry;
  }
}

INSTANTIATE_TEST_SUITE_P(Kernels, Corpus, testing::ValuesIn(corpus::corpus_cases()),
                         [](const testing::TestParamInfo<corpus::Case>& i) {
                           return i.param.entry;
                         });

}  // namespace
}  // namespace xpusim::ptx
