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
#include "tma/tensor_map_io.h"

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
  const std::size_t w = c.element == "f64" || c.element == "u64" || c.element == "s64"    ? 8
                        : c.element == "u16" || c.element == "f16" || c.element == "bf16" ? 2
                        : c.element == "u8"                                               ? 1
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
    if (c.element == "f16" || c.element == "bf16") {  // NaN: exponent all ones, fraction not 0
      const std::uint64_t e = c.element == "f16" ? 0x7C00 : 0x7F80;
      const auto nan = [e](std::uint64_t h) { return (h & e) == e && (h & 0x7FFF & ~e) != 0; };
      if (nan(a) && nan(b)) continue;
      return fmt::format("{}[{}] = {:#06x}, want {:#06x}", buffer, i / w, a, b);
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

// The case's map through our encoder (cuTensorMapEncodeTiled's rules), as `xpusim tma` reads it.
Result<tma::TensorMap> encode(const corpus::TensorMapSpec& s, kernel::Addr address) {
  auto list = [](const auto& v) {
    std::string out;
    for (const auto& x : v)
      out += (out.empty() ? "" : ", ") + std::to_string(x);
    return "[" + out + "]";
  };
  const std::string yaml = fmt::format(
      "dataType: {}\nrank: {}\nglobalAddress: {:#x}\nglobalDim: {}\nglobalStrides: {}\nboxDim: {}\n"
      "elementStrides: {}\ninterleave: {}\nswizzle: {}\nl2Promotion: {}\noobFill: {}\n",
      s.data_type, s.rank, address, list(s.global_dim), list(s.global_strides), list(s.box_dim),
      list(s.element_strides), s.interleave, s.swizzle, s.l2_promotion, s.oob_fill);
  return tma::parse_tensor_map_yaml(yaml, "case");
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
        args.u32(static_cast<std::uint32_t>(a.bits));
        break;
      case corpus::ArgKind::kS32:
        args.s32(static_cast<std::int32_t>(a.bits));
        break;
      case corpus::ArgKind::kF32:
        args.f32(std::bit_cast<float>(static_cast<std::uint32_t>(a.bits)));
        break;
      case corpus::ArgKind::kU64:
        args.u64(a.bits);
        break;
      case corpus::ArgKind::kS64:
        args.s64(static_cast<std::int64_t>(a.bits));
        break;
      case corpus::ArgKind::kF64:
        args.f64(std::bit_cast<double>(a.bits));
        break;
      case corpus::ArgKind::kTensorMap: {
        auto map = encode(a.tensor_map, where.at(a.tensor_map.buffer));
        ASSERT_TRUE(map.ok()) << map.error().message;
        const tma::TensorMapBlob blob = tma::to_blob(*map);
        args.tensor_map(blob);
        break;
      }
    }
  }
  const kernel::LaunchParams p{.grid = {c.grid.x, c.grid.y, c.grid.z},
                               .cluster = {c.cluster.x, c.cluster.y, c.cluster.z},
                               .block = {c.block.x, c.block.y, c.block.z},
                               .dynamic_shared_bytes = c.dynamic_shared_bytes};
  auto id = chip->launch(*def, p, args);
  ASSERT_TRUE(id.ok()) << id.error().message;
  sim.run();
  ASSERT_FALSE(chip->fault()) << chip->fault()->message;
  ASSERT_TRUE(chip->run(*id).done) << [&] {
    std::string r;
    for (const std::string& line : chip->hang_report())
      r += line + "\n";
    for (const std::string& line : chip->tma_errors())
      r += line + "\n";
    return r;
  }();
  EXPECT_TRUE(chip->tma_errors().empty()) << chip->tma_errors().front();
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
INSTANTIATE_TEST_SUITE_P(Hopper, Corpus, testing::ValuesIn(corpus::hopper_cases()),
                         [](const testing::TestParamInfo<corpus::Case>& i) {
                           return i.param.entry;
                         });

}  // namespace
}  // namespace xpusim::ptx
