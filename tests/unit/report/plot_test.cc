#include "report/plot.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include <cstdint>
#include <string>
#include <vector>

#include "report/report.h"

namespace xpusim::report {
namespace {

// An independent decoder: base64, then the PNG's chunks with their CRCs, then zlib.
std::string unbase64(const std::string& s) {
  const std::string digits = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  std::uint32_t acc = 0;
  int bits = 0;
  for (char c : s) {
    if (c == '=') break;
    acc = (acc << 6) | static_cast<std::uint32_t>(digits.find(c));
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((acc >> bits) & 0xFF));
    }
  }
  return out;
}

std::uint32_t be32(const std::string& s, std::size_t at) {
  std::uint32_t v = 0;
  for (std::size_t i = 0; i < 4; ++i)
    v = (v << 8) | static_cast<unsigned char>(s[at + i]);
  return v;
}

struct Decoded {
  std::uint32_t width = 0, height = 0;
  std::vector<unsigned char> rgb;
};

Decoded decode_png(const std::string& b64) {
  const std::string png = unbase64(b64);
  EXPECT_EQ(png.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
  Decoded d;
  std::string idat;
  for (std::size_t at = 8; at + 12 <= png.size();) {
    const std::uint32_t len = be32(png, at);
    const std::string type = png.substr(at + 4, 4);
    const std::string body = png.substr(at + 4, 4 + len);
    EXPECT_EQ(be32(png, at + 8 + len),
              crc32(0, reinterpret_cast<const Bytef*>(body.data()), static_cast<uInt>(body.size())))
        << type;
    if (type == "IHDR") {
      d.width = be32(png, at + 8);
      d.height = be32(png, at + 12);
      EXPECT_EQ(png[at + 16], 8);  // bit depth
      EXPECT_EQ(png[at + 17], 2);  // RGB
    }
    if (type == "IDAT") idat += png.substr(at + 8, len);
    at += 12 + len;
  }
  std::vector<unsigned char> raw(d.height * (1 + 3 * d.width));
  uLongf size = raw.size();
  EXPECT_EQ(uncompress(raw.data(), &size, reinterpret_cast<const Bytef*>(idat.data()),
                       static_cast<uLong>(idat.size())),
            Z_OK);
  EXPECT_EQ(size, raw.size());
  for (std::uint32_t r = 0; r < d.height; ++r) {
    EXPECT_EQ(raw[r * (1 + 3 * d.width)], 0) << "row filter";
    d.rgb.insert(d.rgb.end(), raw.begin() + r * (1 + 3 * d.width) + 1,
                 raw.begin() + (r + 1) * (1 + 3 * d.width));
  }
  return d;
}

TEST(Png, DecodesToTheSamePixels) {
  std::vector<unsigned char> rgb;
  for (int i = 0; i < 5 * 3 * 3; ++i)
    rgb.push_back(static_cast<unsigned char>(i * 37));
  const Decoded d = decode_png(png_base64(5, 3, rgb));
  EXPECT_EQ(d.width, 5u);
  EXPECT_EQ(d.height, 3u);
  EXPECT_EQ(d.rgb, rgb);
}

TEST(Heatmap, ZeroIsWhiteAndTheMaximumDarkest) {
  const Heatmap h{.id = "t",
                  .title = "t",
                  .x_label = "x",
                  .value_label = "v",
                  .x_step = 1,
                  .max = 10,
                  .row_labels = {"a", "b"},
                  .rows = {{0, 10, 20}, {5}},
                  .row_ticks = {0}};
  const std::string svg = heatmap_svg(h);
  const auto at = svg.find("base64,") + 7;
  const Decoded d = decode_png(svg.substr(at, svg.find('"', at) - at));
  ASSERT_EQ(d.width, 3u);
  ASSERT_EQ(d.height, 2u);
  const auto px = [&](int r, int c) {
    const auto* p = &d.rgb[static_cast<std::size_t>((r * 3 + c) * 3)];
    return std::vector<int>{p[0], p[1], p[2]};
  };
  EXPECT_EQ(px(0, 0), (std::vector<int>{255, 255, 255}));
  EXPECT_EQ(px(0, 1), (std::vector<int>{8, 48, 107}));
  EXPECT_EQ(px(0, 2), px(0, 1));  // above the maximum: clamped
  EXPECT_EQ(px(1, 1), px(0, 0));  // a short row: blank
  const auto mid = px(1, 0);
  EXPECT_LT(mid[0], 255);
  EXPECT_GT(mid[0], 8);
}

TEST(LineChart, HugeValuesStillDrawAFiniteAxis) {
  const LineChart c{.id = "t",
                    .title = "t",
                    .x_label = "x",
                    .y_label = "y",
                    .x_step = 1e300,
                    .lines = {{"a", {1e308, 0, -1e308}}},
                    .ceiling = 1e308,
                    .ceiling_label = "roof"};
  const std::string svg = line_chart_svg(c);
  EXPECT_NE(svg.find("</svg>"), std::string::npos);
}

TEST(Escape, MakesTextSafeInsideTagsAndAttributes) {
  EXPECT_EQ(escape("a<b>&\"c'"), "a&lt;b&gt;&amp;&quot;c&#39;");
}

TEST(Report, KeepsOnlyWhatItReadsAndRefusesStatsWithoutFigures) {
  const nlohmann::json stats = nlohmann::json::parse(R"({
    "header": {"command": "launch"}, "host": {"command_line": ["x"]},
    "chip0.sm0": {"issue_series": {"value": [1], "interval_ps": 1024},
                  "warp_instructions": {"value": 1}},
    "chip0.cwd": {"sampling.waves_skipped": {"value": 0}, "steps": {"value": 3}}})");
  const nlohmann::json kept = essentials(stats);
  EXPECT_EQ(kept["chip0.sm0"].size(), 1u);
  EXPECT_TRUE(kept["chip0.sm0"].contains("issue_series"));
  EXPECT_EQ(kept["chip0.cwd"].size(), 1u);
  EXPECT_TRUE(kept.contains("host"));
  const auto r = check_stats(kept, "a", "a.json");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.errors().front().message,
            "a.json: no \"figures\" in this stats file (command 'launch'); the report reads the "
            "stats files of `xpusim run`");
}

// A hand-edited stats file: wrong types, hostile numbers and missing parts draw what they can
// and never throw or loop.
TEST(Report, HostileStatsDrawWithoutThrowing) {
  const char* cases[] = {
      R"({"header": {"sim_ticks": 1e308, "chip_config": 3}, "figures": {"headline": [1, {"name": 2},
          {"name": "x", "unit": 5, "value": "y"}], "roofline": {"work": 1e308, "hbm_bytes": 1e-300,
          "work_per_s": 1e300, "peak_work_per_s": 1e-300, "peak_hbm_bytes_per_s": 1e300},
          "stall_cycles": {"issue": -5, "memory": "x"}, "sub_partitions": -1},
          "host": {"command_line": "x"},
          "chip0.cwd": {"running_ctas_series": {"value": [1, "a", null], "interval_ps": -4}},
          "chip0.sm0": {"issue_series": {"value": [1e308, -1], "interval_ps": 1024}}})",
      R"({"header": {"sim_ticks": -7, "chip_config": {"topology": {"tpcs_per_gpc": [-3, 1e30],
          "sms_per_tpc": 1e30}, "clocks": {"sm": "fast"}}}, "figures": {"headline": [],
          "roofline": {}, "stall_cycles": {}},
          "chip0.sm0": {"issue_series": {"value": {}, "interval_ps": 1024}},
          "chip0.sm1": {"issue_series": {"value": [2], "interval_ps": 1e300}}})",
  };
  for (const char* text : cases) {
    auto r = check_stats(nlohmann::json::parse(text), "hostile", "hostile.json");
    ASSERT_TRUE(r.ok()) << text;
    std::string html;
    EXPECT_NO_THROW(html = html_report({*r, *r})) << text;
    EXPECT_NE(html.find("</html>"), std::string::npos);
  }
}

}  // namespace
}  // namespace xpusim::report
