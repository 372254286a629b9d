// `xpusim tma lint`: a valid map prints its summary (exit 0), an invalid one prints one
// `error:` line per broken rule (exit 2), a narrow inner row adds a sector warning.
#include <fstream>

#include "cli_harness.h"

namespace {

namespace fs = std::filesystem;

using xpusim::test::lines;

std::string data(const std::string& name) {
  return (fs::path(XPUSIM_TEST_DATA_DIR) / "tma" / name).string();
}

struct LintResult : xpusim::test::CliRun {
  // The value printed after "LABEL:" in the summary, or "" when there is no such line.
  std::string value(const std::string& label) const {
    for (const std::string& l : lines(out)) {
      if (l.rfind(label + ":", 0) != 0) continue;
      const auto v = l.find_first_not_of(' ', label.size() + 1);
      return v == std::string::npos ? "" : l.substr(v);
    }
    return "";
  }
};

class TmaLint : public xpusim::test::CliTest {
 protected:
  LintResult run(const std::string& args) const { return {CliTest::run(args)}; }
};

TEST_F(TmaLint, ValidTiledMapPrintsTheSummary) {
  const LintResult r = run("tma lint '" + data("gemm_tile.yaml") + "'");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_EQ(r.value("tensor map"), data("gemm_tile.yaml"));
  EXPECT_EQ(r.value("mode"), "tiled");
  EXPECT_EQ(r.value("dataType"), "FLOAT16 (16 bits)");
  EXPECT_EQ(r.value("rank"), "2");
  EXPECT_EQ(r.value("globalDim"), "[4096, 4096]");
  EXPECT_EQ(r.value("boxDim"), "[64, 128]");
  EXPECT_EQ(r.value("elementStrides"), "[1, 1]");
  EXPECT_EQ(r.value("swizzle"), "128B (span 128 B)");
  EXPECT_EQ(r.value("l2Promotion"), "L2_128B");
  // 128 rows of 64 x 2 B; each row is one aligned 128 B line.
  EXPECT_EQ(r.value("bytes per box"), "16384");
  EXPECT_EQ(r.value("expect_tx bytes"), "16384 (per destination CTA)");
  EXPECT_EQ(r.value("global requests"), "128 (<= 128 B each, box at the origin)");
}

TEST_F(TmaLint, ValidIm2colJsonPrintsTheSummary) {
  const LintResult r = run("tma lint '" + data("conv_im2col.json") + "'");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_EQ(r.value("mode"), "im2col");
  EXPECT_EQ(r.value("pixelBoxLowerCorner"), "[-1, -1]");
  EXPECT_EQ(r.value("channelsPerPixel"), "64");
  EXPECT_EQ(r.value("pixelsPerColumn"), "128");
  EXPECT_EQ(r.value("boxDim"), "");
  // 128 pixels x 64 channels x 2 B. From the bounding box corner (-1, -1) of a 14 x 14 image
  // the walk covers row H = -1 (14 pixels, all padding), rows 0..7 (13 real pixels each, W =
  // -1 is padding) and 2 pixels of row 8 (one real): 105 pixels, one 128 B request each.
  EXPECT_EQ(r.value("bytes per box"), "16384");
  EXPECT_EQ(r.value("expect_tx bytes"), "16384 (per destination CTA)");
  EXPECT_EQ(r.value("global requests"), "105 (<= 128 B each, box at the origin)");
}

// oobFill: CONSTANT (seed0 ¶78-80) is xpusim's: lint shows it; --cuda refuses it by name.
TEST_F(TmaLint, ConstantFillIsAnExtensionThatCudaModeRefuses) {
  const std::string map = (dir_ / "c.yaml").string();
  std::ofstream(map) << "dataType: FLOAT16\nrank: 2\nglobalAddress: 0x1000\n"
                        "globalDim: [64, 64]\nglobalStrides: [128]\nboxDim: [64, 8]\n"
                        "oobFill: CONSTANT\noobFillValue: -1.5\n";
  const LintResult r = run("tma lint '" + map + "'");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.value("oobFill"), "CONSTANT (0xbe00; xpusim extension)");
  const LintResult c = run("tma lint --cuda '" + map + "'");
  EXPECT_EQ(c.code, 2);
  EXPECT_EQ(c.out, "");
  EXPECT_EQ(c.err, "error: " + map +
                       ": --cuda: oobFill = CONSTANT (oobFillValue = 0xbe00): an xpusim extension "
                       "(seed0 ¶78-80); CUtensorMapFloatOOBfill has only NONE and "
                       "NAN_REQUEST_ZERO_FMA\n");
  // A map CUDA can take passes --cuda as it passes lint.
  EXPECT_EQ(run("tma lint --cuda '" + data("gemm_tile.yaml") + "'").code, 0);
}

TEST_F(TmaLint, NarrowRowsGetASectorWarning) {
  const LintResult r = run("tma lint '" + data("narrow_row.yaml") + "'");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.value("bytes per box"), "1536");  // 32 rows x 24 x 2 B
  EXPECT_EQ(lines(r.err),
            std::vector<std::string>{
                "warning: the inner box row is 48 B, not a multiple of the 32 B sector: each row "
                "fetches 64 B of sectors (25% wasted bandwidth)"});
}

TEST_F(TmaLint, InvalidMapPrintsEveryViolation) {
  const std::string f = data("bad_tile.yaml");
  const LintResult r = run("tma lint '" + f + "'");
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.out, "");
  const std::vector<std::string> want = {
      "error: " + f +
          ":4:16: globalAddress = 0x10008: must be 16-byte aligned (nearest: 0x10000 or 0x10010)",
      "error: " + f +
          ":6:22: globalStrides[1] = 1000: must be a multiple of 16 (nearest: 992 or 1008)",
      "error: " + f +
          ":7:10: boxDim[0] = 128: boxDim[0] x 2 B = 256 B must be at most the 128 B span of "
          "swizzle = 128B (nearest: 64)",
      "error: " + f + ":7:19: boxDim[2] = 300: must be in [1, 256] (nearest: 256)",
      "error: " + f + ":8:24: elementStrides[2] = 9: must be in [1, 8] (nearest: 8)",
  };
  EXPECT_EQ(lines(r.err), want);
}

TEST_F(TmaLint, UnknownKeyIsOneErrorWithASuggestion) {
  const std::string f = data("typo.yaml");
  const LintResult r = run("tma lint '" + f + "'");
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.out, "");
  const auto ls = lines(r.err);
  ASSERT_EQ(ls.size(), 1u) << r.err;
  EXPECT_EQ(ls[0].rfind("error: " + f +
                            ":7:1: swizle: unknown key 'swizle' (did you mean "
                            "'swizzle'?)",
                        0),
            0u)
      << ls[0];
}

TEST_F(TmaLint, ReadsStdin) {
  const LintResult r = run("tma lint - < '" + data("conv_im2col.json") + "'");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.value("tensor map"), "<stdin>");
  EXPECT_EQ(r.value("global requests"), "105 (<= 128 B each, box at the origin)");
  const LintResult y = run("tma lint - < '" + data("gemm_tile.yaml") + "'");
  EXPECT_EQ(y.code, 0) << y.err;
  EXPECT_EQ(y.value("bytes per box"), "16384");
}

TEST_F(TmaLint, BadInvocationsAreBadInput) {
  const LintResult missing = run("tma lint nothing.yaml");
  EXPECT_EQ(missing.code, 2);
  EXPECT_EQ(lines(missing.err),
            std::vector<std::string>{
                "error: nothing.yaml: cannot open the tensor map file: No such file or directory"});
  // An endless stdin, or a file name that is a folder, is a bounded one-line error.
  const LintResult zero = run("tma lint - < /dev/zero");
  EXPECT_EQ(zero.code, 2);
  EXPECT_EQ(lines(zero.err), std::vector<std::string>{
                                 "error: <stdin>: longer than 16 MiB, the limit on this input"});
  fs::create_directory(dir_ / "d.yaml");
  const LintResult folder = run("tma lint d.yaml");
  EXPECT_EQ(lines(folder.err),
            std::vector<std::string>{"error: d.yaml: is a directory, not a tensor map file"});
  const LintResult ext = run("tma lint map.txt");
  EXPECT_EQ(ext.code, 2);
  EXPECT_EQ(lines(ext.err),
            std::vector<std::string>{"error: map.txt: unknown tensor map file "
                                     "extension '.txt' (use .yaml, .yml or .json)"});
  const LintResult none = run("tma");
  EXPECT_EQ(none.code, 2);
  EXPECT_EQ(none.err.rfind("error: ", 0), 0u) << none.err;
  const LintResult stats = run("tma lint '" + data("gemm_tile.yaml") + "' --stats s.json");
  EXPECT_EQ(stats.code, 2);
  EXPECT_NE(stats.err.find("'tma lint' runs no simulation"), std::string::npos) << stats.err;
}

// Overlapping strides are valid (the driver accepts them) but warned about; a swizzled box of
// rows shorter than the span says how much shared memory it spans (H200 silicon).
TEST_F(TmaLint, OverlappingStridesWarnAndShortSwizzledRowsShowTheirSpan) {
  const LintResult r = run("tma lint '" + data("short_rows_overlap.yaml") + "'");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.value("bytes per box"), "256");
  EXPECT_EQ(r.value("shared-memory span"),
            "2048 (each row starts its own 128 B swizzle span; the gaps are left alone)");
  const auto err = lines(r.err);
  ASSERT_EQ(err.size(), 2u) << r.err;
  EXPECT_EQ(err[0],
            "warning: globalStrides[0] = 112 is less than globalDim[0] x 2 B = 128 B, the extent "
            "of dimension 0: dimensions 0 and 1 overlap (an aliasing view; the driver accepts it)");
}

}  // namespace
