// `xpusim tma copy` and `xpusim tma layout`, checked from outside: output bytes are
// recomputed here from the documented pattern (splitmix64) and the documented swizzle rule,
// independently of the simulator's code.
#include "cli_harness.h"

namespace {

namespace fs = std::filesystem;

std::uint64_t splitmix64(std::uint64_t x) {  // Steele/Lea/Flood with Vigna's constants
  std::uint64_t z = x + 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}
std::uint8_t splitmix_byte(std::uint64_t a) {
  return static_cast<std::uint8_t>(splitmix64(a));
}

// SWIZZLE_128B as PTX/CUTLASS define it: 16 B chunk c of 128 B row r holds chunk c ^ (r % 8).
std::uint64_t unswizzle128(std::uint64_t smem_offset) {
  const std::uint64_t r = smem_offset / 128, c = (smem_offset % 128) / 16, b = smem_offset % 16;
  return r * 128 + 16 * (c ^ (r % 8)) + b;
}

using OpResult = xpusim::test::CliRun;

class TmaOps : public xpusim::test::CliTest {
 protected:
  static std::string data(const std::string& name) {
    return fmt::format("'{}/tma/{}'", XPUSIM_TEST_DATA_DIR, name);
  }
  std::string bytes(const std::string& name) const { return file(name); }
};

constexpr std::uint64_t kBase = 0x10000;  // globalAddress of swizzle128_f16_8x64.yaml

TEST_F(TmaOps, LoadWritesThePatternThroughTheSwizzle) {
  const OpResult r =
      run("tma copy " + data("swizzle128_f16_8x64.yaml") + " --coords 0,0 --out o.bin");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("expect_tx 1024 bytes per destination"), std::string::npos) << r.out;
  const std::string out = bytes("o.bin");
  ASSERT_EQ(out.size(), 1024u);
  for (std::uint64_t o = 0; o < out.size(); ++o) {
    ASSERT_EQ(static_cast<std::uint8_t>(out[o]), splitmix_byte(kBase + unswizzle128(o))) << o;
  }
}

TEST_F(TmaOps, MulticastWritesEveryMaskedCtaAndFillsOutOfBounds) {
  const OpResult r = run("tma copy " + data("swizzle128_f16_8x64.yaml") +
                         " --coords 0,-1 --mcast 0x5 --global-init address --out o.bin");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("2 destination(s)"), std::string::npos);
  EXPECT_NE(r.out.find("64 out of bounds"), std::string::npos);
  const std::string out = bytes("o.bin");
  ASSERT_EQ(out.size(), 2048u);
  EXPECT_EQ(out.substr(0, 1024), out.substr(1024));  // CTAs 0 and 2 got the same box
  for (std::uint64_t o = 0; o < 1024; ++o) {
    const std::uint64_t src = unswizzle128(o);  // box row r is global row r - 1
    const std::uint8_t want = src < 128 ? 0 : static_cast<std::uint8_t>((kBase + src - 128) & 0xff);
    ASSERT_EQ(static_cast<std::uint8_t>(out[o]), want) << o;
  }
}

TEST_F(TmaOps, StoreScattersSharedMemoryBackThroughTheSwizzle) {
  const OpResult r =
      run("tma copy " + data("swizzle128_f16_8x64.yaml") +
          " --op store --coords 0,0 --smem-init address --global-init zero --out g.bin");
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string g = bytes("g.bin");
  ASSERT_EQ(g.size(), 1024u);  // the whole tensor
  for (std::uint64_t o = 0; o < 1024; ++o) {
    // Shared byte o (value o & 0xff) lands at global offset unswizzle128(o).
    ASSERT_EQ(static_cast<std::uint8_t>(g[unswizzle128(o)]), o & 0xff) << o;
  }
}

TEST_F(TmaOps, Im2colLoadGathersPixels) {
  // conv_im2col.json: bf16 NHWC, 64 channels (one 128 B row per pixel), 128 pixels.
  const OpResult r =
      run("tma copy " + data("conv_im2col.json") + " --coords 0,0,0,0 --offsets 0,0 --out o.bin");
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string out = bytes("o.bin");
  ASSERT_EQ(out.size(), 128u * 128u);
  const std::uint64_t base = 1048576;
  for (std::uint64_t o = 0; o < 2 * 128; ++o) {  // pixels (0,0,0) and (0,0,1): w = 0 and 1
    ASSERT_EQ(static_cast<std::uint8_t>(out[o]), splitmix_byte(base + unswizzle128(o))) << o;
  }
}

TEST_F(TmaOps, BadRequestsAreOneLineErrors) {
  const std::string map = data("swizzle128_f16_8x64.yaml");
  for (const auto& [args, needle] : std::vector<std::pair<std::string, std::string>>{
           {"--coords 0 --out o.bin", "1 coordinates given for a rank-2 tensor map"},
           {"--coords 0,x --out o.bin", "--coords = 0,x: item 1 ('x')"},
           {"--coords 0,0 --mcast 0 --out o.bin", "--mcast = 0: must be a non-zero 16-bit"},
           {"--coords 0,0 --op frob", "--op = frob: must be load, store, prefetch"},
           {"--coords 0,0 --global-init nope --out o.bin", "--global-init = nope"},
           {"--coords 0,0 --out /nonexistent-dir/o.bin", "--out = /nonexistent-dir/o.bin"},
           // Bounded reads: a folder, an endless device, a file longer than the tensor.
           {"--coords 0,0 --global-init . --out o.bin", ".: is a directory"},
           {"--coords 0,0 --global-init /dev/zero --out o.bin", "longer than 1024 bytes"},
       }) {
    const OpResult r = run("tma copy " + map + " " + args);
    EXPECT_EQ(r.code, 2) << args;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_EQ(r.err.rfind("error: ", 0), 0u) << r.err;
    EXPECT_NE(r.err.find(needle), std::string::npos) << args << " -> " << r.err;
  }
  EXPECT_EQ(run("--stats s.json tma copy " + map + " --coords 0,0 --out o.bin").code, 2);
}

TEST_F(TmaOps, AMapWhoseExtentWrapsPast64BitsIsAnError) {
  // 2^39-byte rows x 2^32 rows: the product wraps to 0, which once initialized nothing and
  // copied zeros with exit 0.
  std::ofstream(dir_ / "wrap.yaml") << "mode: tiled\ndataType: FLOAT16\nrank: 2\n"
                                       "globalAddress: 0x1000\nglobalDim: [16, 4294967296]\n"
                                       "globalStrides: [549755813888]\nboxDim: [16, 16]\n";
  const OpResult r = run("tma copy wrap.yaml --coords 0,0 --out o.bin");
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err,
            "error: wrap.yaml: the tensor's end (globalAddress + the outermost globalStrides x "
            "globalDim) does not fit in 64-bit addresses\n");
}

TEST_F(TmaOps, LayoutShowsTheSwizzleAsTextAndSvg) {
  const OpResult r = run("tma layout " + data("swizzle128_f16_8x64.yaml") + " --svg l.svg");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("  offset  b0-3  b4-7 b8-11 b12-15"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("    0x80   1,8   1,0  1,24  1,16  1,40  1,32  1,56  1,48"),
            std::string::npos)
      << r.out;
  const std::string svg = bytes("l.svg");
  EXPECT_EQ(svg.rfind("<svg", 0), 0u);
  EXPECT_NE(svg.find("banks 28-31"), std::string::npos);
  const OpResult e = run("tma layout " + data("swizzle128_f16_8x64.yaml") + " --elements");
  ASSERT_EQ(e.code, 0);
  EXPECT_EQ(std::count(e.out.begin(), e.out.end(), '\n'), 1 + 512);
  EXPECT_NE(e.out.find("       0x10    4 0,8\n"), std::string::npos) << e.out.substr(0, 400);
}

TEST_F(TmaOps, LayoutOfAnIm2colMap) {
  const OpResult r = run("tma layout " + data("conv_im2col.json") + " --coords 0,0,0,0");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1 + 128);  // one row per pixel
}

}  // namespace
