// `xpusim report` and `run --report`: the HTML report renders in a real browser (headless
// Chromium: every plot drew, no script error), compares runs, and refuses what is not a run's
// stats file with one line.
#include <algorithm>
#include <cstdio>

#include "cli_harness.h"

namespace xpusim::test {
namespace {

constexpr const char* kGemm =
    "chip: tiny\nworkload: gemm.mm\nparams: {m: 256, n: 128, k: 128, tile_n: 64}\n";
constexpr const char* kCopy = R"(chip: tiny
kernel: stream_copy
launch: {grid: [4, 1, 1], block: [64, 1, 1]}
buffers:
  src: {bytes: 16384, fill: random32}
  dst: {bytes: 16384}
args: [{ptr: src}, {ptr: dst}, {u64: 4096}]
)";
constexpr const char* kTwoRuns =
    "chip: tiny\nworkload: gemm.mm\nparams: {m: 256, n: 128, k: 128, tile_n: 64}\nruns:\n"
    "  - {name: base}\n  - {name: wider, params: {n: 256}}\n";

// The browser: XPUSIM_CHROMIUM, else chromium on the PATH; "" when there is none.
std::string browser() {
  if (const char* c = std::getenv("XPUSIM_CHROMIUM"); c != nullptr && *c != '\0') return c;
  for (const char* name : {"chromium", "chromium-browser", "google-chrome"}) {
    if (std::system(fmt::format("command -v {} >/dev/null 2>&1", name).c_str()) == 0) return name;
  }
  return "";
}

class ReportCli : public CliTest {
 protected:
  void write(const std::string& name, const std::string& text) const {
    std::ofstream(dir_ / name) << text;
  }
  // The page's <body> after its scripts ran, from headless Chromium's --dump-dom.
  std::string rendered_body(const std::string& html) const {
    const std::string b = browser();
    if (b.empty()) return "";
    const fs::path out = dir_ / "dom.html";
    const std::string cmd = fmt::format(
        "'{}' --headless --no-sandbox --disable-gpu --user-data-dir='{}' --dump-dom 'file://{}' "
        ">'{}' 2>/dev/null",
        b, (dir_ / "profile").string(), (dir_ / html).string(), out.string());
    EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
    const std::string dom = slurp(out);
    const auto at = dom.find("<body");
    const auto end = dom.find('>', at);
    EXPECT_NE(end, std::string::npos) << dom.substr(0, 500);
    return end == std::string::npos ? "" : dom.substr(at, end + 1 - at);
  }
};

// NAME="DIGITS" in `body` (std::regex trips GCC 12's -Wmaybe-uninitialized under ASan).
int attribute(const std::string& body, const std::string& name) {
  const std::string key = " " + name + "=\"";
  const auto at = body.find(key);
  if (at == std::string::npos) return -1;
  const auto digits = body.find_first_not_of("0123456789", at + key.size());
  if (digits == at + key.size() || digits == std::string::npos || body[digits] != '"') return -1;
  return std::stoi(body.substr(at + key.size(), digits - at - key.size()));
}

TEST_F(ReportCli, EveryPlotDrawsInHeadlessChromiumWithoutScriptErrors) {
  write("gemm.yaml", kGemm);
  write("copy.yaml", kCopy);
  ASSERT_EQ(run("run gemm.yaml --stats gemm.json").code, 0);
  ASSERT_EQ(run("run copy.yaml --stats copy.json").code, 0);
  const CliRun r = run("report gemm.json copy.json -o report.html");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "report report.html: 2 runs\n");
  const std::string html = file("report.html");
  // Self-contained: nothing fetched from anywhere.
  EXPECT_EQ(html.find("http://www."), html.find("http://www.w3.org/2000/svg"));
  EXPECT_EQ(html.find("https://"), std::string::npos);
  EXPECT_EQ(html.find(" src="), std::string::npos);
  // Roofline and stalls, then per run: SM heatmap, GPC lines, bandwidth, residency.
  constexpr int kPlots = 2 + 2 * 4;
  std::size_t svgs = 0;
  for (std::size_t at = html.find("<svg class=\"plot\""); at != std::string::npos;
       at = html.find("<svg class=\"plot\"", at + 1))
    ++svgs;
  EXPECT_EQ(svgs, static_cast<std::size_t>(kPlots));
  if (browser().empty()) {
    if (std::getenv("XPUSIM_REQUIRE_BROWSER") != nullptr) FAIL() << "no chromium on the PATH";
    GTEST_SKIP() << "no chromium on the PATH (CI installs it and sets XPUSIM_REQUIRE_BROWSER)";
  }
  const std::string body = rendered_body("report.html");
  EXPECT_EQ(attribute(body, "data-plots"), kPlots) << body;
  EXPECT_EQ(attribute(body, "data-plots-drawn"), kPlots) << body;
  EXPECT_EQ(attribute(body, "data-errors"), 0) << body;
}

// The series the plots draw add up to the run's counters: every issued instruction, HBM byte and
// crossbar byte lands in exactly one interval; the residency's time integral is the CTAs' time.
TEST_F(ReportCli, TheSeriesAddUpToTheRunsCounters) {
  write("gemm.yaml", kGemm);
  ASSERT_EQ(run("run gemm.yaml --stats s.json").code, 0);
  const auto j = nlohmann::json::parse(file("s.json"));
  const auto sum = [](const nlohmann::json& series) {
    double t = 0;
    for (const auto& v : series["value"])
      t += v.get<double>();
    return t;
  };
  double issued = 0, counted = 0, hbm = 0;
  for (int sm = 0; j.contains(fmt::format("chip0.sm{}", sm)); ++sm) {
    const auto& c = j[fmt::format("chip0.sm{}", sm)];
    issued += sum(c["issue_series"]);
    counted += c["warp_instructions"]["value"].get<double>();
  }
  EXPECT_GT(counted, 0);
  EXPECT_EQ(issued, counted);
  for (int ch = 0; j.contains(fmt::format("chip0.mem.hbm.ch{}", ch)); ++ch)
    hbm += j[fmt::format("chip0.mem.hbm.ch{}", ch)]["read_bytes"]["value"].get<double>();
  EXPECT_GT(hbm, 0);
  EXPECT_EQ(sum(j["chip0.mem.hbm"]["read_bytes_series"]), hbm);
  EXPECT_EQ(sum(j["chip0.mem.xbar"]["response_bytes_series"]),
            j["chip0.mem.xbar"]["response_bytes"]["value"].get<double>());
  const auto& ctas = j["chip0.cwd"]["running_ctas_series"];
  EXPECT_EQ(ctas["series"], "average");
  // Average CTAs x interval, summed: CTA-picoseconds, at least one CTA for one cycle (1 ns).
  EXPECT_GE(sum(ctas) * ctas["interval_ps"].get<double>(), 1000.0);
}

TEST_F(ReportCli, RunReportComparesTheRunsOfAFileSideBySide) {
  write("two.yaml", kTwoRuns);
  const CliRun r = run("run two.yaml --report two.html");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("\nreport two.html: 2 runs\n"), std::string::npos) << r.out;
  const std::string html = file("two.html");
  EXPECT_NE(html.find("<th>figure</th><th>base</th><th>wider</th>"), std::string::npos);
  // The wider GEMM does twice the work: its throughput row has a ratio to the first run's.
  const auto row = html.find("<tr><th>throughput</th>");
  ASSERT_NE(row, std::string::npos);
  EXPECT_NE(html.find("class=\"ratio\">(x", row), std::string::npos);
  // Deterministic: the same command gives the same bytes.
  fs::rename(dir_ / "two.html", dir_ / "first.html");
  ASSERT_EQ(run("run two.yaml --report two.html").code, 0);
  EXPECT_TRUE(file("two.html") == html);
}

TEST_F(ReportCli, WhatIsNotARunsStatsFileIsOneLineAndExit2) {
  write("gemm.yaml", kGemm);
  ASSERT_EQ(run("launch --chip tiny --grid 4,1,1 --stats launch.json").code, 0);
  write("bad.json", "{\"header\": ");
  write("list.json", "[1, 2]");
  const std::pair<std::string, std::string> cases[] = {
      {"report nope.json -o r.html", "error: nope.json: cannot open the stats file"},
      {"report bad.json -o r.html", "error: bad.json: not a stats file (not valid JSON)\n"},
      {"report list.json -o r.html", "error: list.json: not a stats file (not a JSON object)\n"},
      {"report launch.json -o r.html",
       "error: launch.json: no \"figures\" in this stats file (command 'launch'); the report "
       "reads the stats files of `xpusim run`\n"},
      {"report . -o r.html", "error: .: is a directory, not a stats file\n"},
  };
  for (const auto& [args, want] : cases) {
    const CliRun r = run(args);
    EXPECT_EQ(r.code, 2) << args;
    EXPECT_EQ(r.err.substr(0, want.size()), want) << args;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_FALSE(fs::exists(dir_ / "r.html")) << args;
  }
  ASSERT_EQ(run("run gemm.yaml --stats ok.json").code, 0);
  const CliRun r = run("report ok.json -o no/such/dir/r.html");
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err.rfind("error: no/such/dir/r.html: cannot write the report: ", 0), 0u) << r.err;
}

}  // namespace
}  // namespace xpusim::test
