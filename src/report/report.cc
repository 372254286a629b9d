#include "report/report.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <optional>

#include "report/plot.h"
#include "sim/file_read.h"
#include "sim/one_line.h"

namespace xpusim::report {
namespace {

using nlohmann::json;

// Plots show at most this many intervals across: enough to see phases, small to embed.
constexpr std::size_t kMaxColumns = 256;

// A bounded series (sim::BoundedSeries) read back: per-interval sums, or time averages.
struct Series {
  double interval = 0;  // ps
  std::vector<double> values;
  bool average = false;
};

// j[k], or null when j is not an object or has no k: a hand-edited stats file never throws.
const json& member(const json& j, const char* k) {
  static const json kNull;
  if (!j.is_object()) return kNull;
  const auto it = j.find(k);
  return it == j.end() ? kNull : *it;
}

std::string string_at(const json& j, const char* k, std::string fallback = "") {
  const json& v = member(j, k);
  return v.is_string() ? v.get<std::string>() : fallback;
}

std::optional<Series> series_at(const json& stats, const std::string& component, const char* name) {
  const auto c = stats.find(component);
  if (c == stats.end() || !c->is_object()) return std::nullopt;
  const auto s = c->find(name);
  if (s == c->end() || !member(*s, "value").is_array() || !member(*s, "interval_ps").is_number()) {
    return std::nullopt;
  }
  Series out;
  out.interval = member(*s, "interval_ps").get<double>();
  out.average = string_at(*s, "series") == "average";
  for (const json& v : member(*s, "value"))
    out.values.push_back(v.is_number() ? v.get<double>() : 0.0);
  // Intervals are powers of two from 1024 ps: anything else is not the simulator's.
  if (!(out.interval >= 1 && out.interval <= 1e19)) return std::nullopt;
  return out;
}

// `s` over `columns` intervals of `width` ps (a power-of-two multiple of its own interval):
// sums add up, averages average.
std::vector<double> resample(const Series& s, double width, std::size_t columns) {
  std::vector<double> out(columns, 0.0);
  const double ratio = std::max(1.0, std::round(width / s.interval));
  for (std::size_t i = 0; i < s.values.size(); ++i) {
    const auto c = static_cast<std::size_t>(static_cast<double>(i) / ratio);
    if (c < columns) out[c] += s.values[i];
  }
  if (s.average) {
    for (double& v : out)
      v /= ratio;
  }
  return out;
}

double number_at(const json& j, std::initializer_list<const char*> path, double fallback = 0) {
  const json* at = &j;
  for (const char* k : path) {
    if (!at->is_object() || !at->contains(k)) return fallback;
    at = &(*at)[k];
  }
  return at->is_number() ? at->get<double>() : fallback;
}

std::string text_at(const json& j, const char* k) {
  if (!j.is_object() || !j.contains(k)) return "";
  const json& v = j[k];
  return v.is_string() ? v.get<std::string>() : v.dump();
}

std::string value_text(double v, const std::string& unit) {
  return unit == "%" ? fmt::format("{:.1f}%", v) : fmt::format("{:.4g} {}", v, unit);
}

// The chip's component prefix ("chip0"): the owner of the work distributor.
std::string chip_prefix(const json& stats) {
  for (const auto& [key, value] : stats.items()) {
    if (key.size() > 4 && key.ends_with(".cwd")) return key.substr(0, key.size() - 4);
  }
  return "chip0";
}

// The per-run part of the page.
class RunSection {
 public:
  RunSection(const RunStats& r, std::size_t index) : r_(r), index_(index) {
    const json& j = r.json;
    prefix_ = chip_prefix(j);
    const double ticks = std::clamp(number_at(j, {"header", "sim_ticks"}), 0.0, 1e19);
    for (std::uint32_t sm = 0;; ++sm) {
      auto s = series_at(j, fmt::format("{}.sm{}", prefix_, sm), "issue_series");
      if (!s) break;
      widen(*s);
      sms_.push_back(std::move(*s));
    }
    for (auto [component, name] : {std::pair{".mem.hbm", "read_bytes_series"},
                                   {".mem.hbm", "write_bytes_series"},
                                   {".mem.xbar", "response_bytes_series"},
                                   {".cwd", "running_ctas_series"},
                                   {".cwd", "busy_sms_series"}}) {
      auto s = series_at(j, prefix_ + component, name);
      if (s) widen(*s);
      other_[name] = std::move(s);
    }
    if (width_ == 0) width_ = 1024;
    while (ticks / width_ > static_cast<double>(kMaxColumns))
      width_ *= 2;
    columns_ = std::max<std::size_t>(1, static_cast<std::size_t>(std::ceil(ticks / width_)));
  }

  std::string html() const {
    const json& j = r_.json;
    std::string s = fmt::format("<section id=\"run{}\"><h2>{}</h2>", index_, escape(r_.label));
    const json& h = member(j, "header");
    s += "<table class=\"kv\">";
    for (const char* k : {"chip", "scenario", "run", "what", "mode", "memory_timing", "policy",
                          "sm_scheduler", "seed", "sim_seconds", "sim_cycles", "xpusim", "git"}) {
      if (h.contains(k)) {
        s += fmt::format("<tr><th>{}</th><td>{}</td></tr>", k, escape(text_at(h, k)));
      }
    }
    if (member(member(j, "host"), "command_line").is_array()) {
      std::string cmd;
      for (const json& a : member(member(j, "host"), "command_line"))
        cmd += (cmd.empty() ? "" : " ") + (a.is_string() ? a.get<std::string>() : a.dump());
      s += fmt::format("<tr><th>command line</th><td><code>{}</code></td></tr>", escape(cmd));
    }
    s += "</table>";
    const double skipped =
        number_at(j, {(prefix_ + ".cwd").c_str(), "sampling.waves_skipped", "value"});
    if (skipped > 0) {
      s += fmt::format(
          "<p class=\"note\">Wave sampling skipped {} waves: the plots over time show the "
          "simulated waves only; the figures count the skipped ones too.</p>",
          skipped);
    }
    s += activity();
    s += bandwidth();
    s += residency();
    return s + "</section>";
  }

 private:
  void widen(const Series& s) { width_ = std::max(width_, s.interval); }
  double x_step() const { return width_ / 1e6; }  // us

  std::string activity() const {
    if (sms_.empty()) return "<p class=\"note\">No per-SM series in this stats file.</p>";
    const json& j = r_.json;
    const double sm_hz = number_at(j, {"header", "chip_config", "clocks", "sm"});
    const double parts = number_at(j, {"figures", "sub_partitions"}, 1);
    const double slots = width_ * 1e-12 * sm_hz * std::max(parts, 1.0);
    Heatmap hm{.id = fmt::format("run{}-sm-activity", index_),
               .title = "SM activity: warp instructions issued per issue slot",
               .x_label = "simulated time (us)",
               .value_label = "issue %",
               .x_step = x_step(),
               .max = 100,
               .row_labels = {},
               .rows = {},
               .row_ticks = {}};
    for (const Series& s : sms_) {
      std::vector<double> row = resample(s, width_, columns_);
      for (double& v : row)
        v = slots > 0 ? 100 * v / slots : 0.0;
      hm.rows.push_back(std::move(row));
      hm.row_labels.emplace_back();
    }
    // GPCs from the topology: SMs are numbered GPC-major.
    std::vector<std::pair<std::size_t, std::size_t>> gpcs;  // first SM, count
    const json& topo = member(member(member(j, "header"), "chip_config"), "topology");
    const double per_tpc = number_at(topo, {"sms_per_tpc"}, 1);
    std::size_t first = 0;
    if (member(topo, "tpcs_per_gpc").is_array()) {
      for (const json& t : member(topo, "tpcs_per_gpc")) {
        const double sms = (t.is_number() ? t.get<double>() : 0) * per_tpc;
        const auto n = static_cast<std::size_t>(
            std::clamp(std::isfinite(sms) ? sms : 0.0, 0.0, static_cast<double>(sms_.size())));
        if (first >= sms_.size() || n == 0) break;
        gpcs.emplace_back(first, std::min(n, sms_.size() - first));
        hm.row_ticks.push_back(first);
        hm.row_labels[first] = fmt::format("GPC{}", gpcs.size() - 1);
        first += n;
      }
    }
    LineChart per_gpc{.id = fmt::format("run{}-gpc-activity", index_),
                      .title = "GPC activity: mean issue utilization of the GPC's SMs",
                      .x_label = "simulated time (us)",
                      .y_label = "issue %",
                      .x_step = x_step(),
                      .lines = {},
                      .ceiling = std::nullopt,
                      .ceiling_label = ""};
    for (std::size_t g = 0; g < gpcs.size(); ++g) {
      std::vector<double> mean(columns_, 0.0);
      for (std::size_t i = gpcs[g].first; i < gpcs[g].first + gpcs[g].second; ++i) {
        for (std::size_t c = 0; c < columns_; ++c)
          mean[c] += hm.rows[i][c] / static_cast<double>(gpcs[g].second);
      }
      per_gpc.lines.push_back({fmt::format("GPC{}", g), std::move(mean)});
    }
    std::string s = "<h3>Activity over time</h3>" + heatmap_svg(hm);
    if (!per_gpc.lines.empty()) s += line_chart_svg(per_gpc);
    return s;
  }

  std::string bandwidth() const {
    const double peak = number_at(r_.json, {"figures", "roofline", "peak_hbm_bytes_per_s"});
    LineChart c{.id = fmt::format("run{}-bandwidth", index_),
                .title = "L2 and HBM bandwidth over time",
                .x_label = "simulated time (us)",
                .y_label = "GB/s",
                .x_step = x_step(),
                .lines = {},
                .ceiling = peak > 0 ? std::optional<double>(peak / 1e9) : std::nullopt,
                .ceiling_label = fmt::format("HBM peak {:.0f} GB/s", peak / 1e9)};
    for (auto [name, label] : {std::pair{"read_bytes_series", "HBM read"},
                               {"write_bytes_series", "HBM write"},
                               {"response_bytes_series", "L2 -> SM (crossbar)"}}) {
      const auto& s = other_.at(name);
      if (!s) continue;
      std::vector<double> v = resample(*s, width_, columns_);
      for (double& x : v)
        x = x / width_ * 1e3;  // bytes per ps -> GB/s
      c.lines.push_back({label, std::move(v)});
    }
    if (c.lines.empty()) return "";
    return "<h3>Bandwidth over time</h3>" + line_chart_svg(c);
  }

  std::string residency() const {
    LineChart c{.id = fmt::format("run{}-residency", index_),
                .title = "Work distributor residency",
                .x_label = "simulated time (us)",
                .y_label = "count (time average per interval)",
                .x_step = x_step(),
                .lines = {},
                .ceiling = std::nullopt,
                .ceiling_label = ""};
    for (auto [name, label] : {std::pair{"running_ctas_series", "running CTAs"},
                               {"busy_sms_series", "SMs with a CTA"}}) {
      const auto& s = other_.at(name);
      if (s) c.lines.push_back({label, resample(*s, width_, columns_)});
    }
    if (c.lines.empty()) return "";
    return "<h3>Residency over time</h3>" + line_chart_svg(c);
  }

  const RunStats& r_;
  std::size_t index_;
  std::string prefix_;
  std::vector<Series> sms_;
  std::map<std::string, std::optional<Series>> other_;
  double width_ = 0;  // ps per column
  std::size_t columns_ = 1;
};

std::string comparison(const std::vector<RunStats>& runs) {
  std::vector<std::string> names;
  std::vector<std::map<std::string, json>> by_run;
  for (const RunStats& r : runs) {
    auto& m = by_run.emplace_back();
    for (const json& f : member(member(r.json, "figures"), "headline")) {
      if (!member(f, "name").is_string()) continue;
      const std::string name = string_at(f, "name");
      if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
      m[name] = f;
    }
  }
  std::string s = "<h2>Headline figures</h2><table class=\"cmp\"><tr><th>figure</th>";
  for (const RunStats& r : runs)
    s += fmt::format("<th>{}</th>", escape(r.label));
  s += "</tr>";
  for (const std::string& name : names) {
    s += fmt::format("<tr><th>{}</th>", escape(name));
    std::optional<double> base;
    for (std::size_t i = 0; i < runs.size(); ++i) {
      const auto it = by_run[i].find(name);
      if (it == by_run[i].end()) {
        s += "<td>-</td>";
        continue;
      }
      const double v = number_at(it->second, {"value"});
      std::string cell = value_text(v, string_at(it->second, "unit"));
      if (i == 0) base = v;
      if (i > 0 && base && *base != 0)
        cell += fmt::format(" <span class=\"ratio\">(x{:.3g})</span>", v / *base);
      s += fmt::format("<td title=\"{}\">{}</td>", escape(string_at(it->second, "text")), cell);
    }
    s += "</tr>";
  }
  s += "</table>";
  if (runs.size() > 1) s += "<p class=\"note\">(xN): the figure over the first run's.</p>";
  return s;
}

std::string roofline(const std::vector<RunStats>& runs) {
  Roofline r{.id = "roofline",
             .title = "Roofline: each run against its chip's roofs",
             .work_unit = "",
             .roofs = {},
             .points = {}};
  std::vector<std::string> left_out;
  for (const RunStats& run : runs) {
    const json& f = member(member(run.json, "figures"), "roofline");
    const double peak = number_at(f, {"peak_work_per_s"});
    const double bw = number_at(f, {"peak_hbm_bytes_per_s"});
    const std::string unit = string_at(f, "work_unit", "FLOP");
    if (r.work_unit.empty()) r.work_unit = unit;
    const std::string chip = text_at(member(run.json, "header"), "chip");
    if (peak > 0 && bw > 0 && std::isfinite(peak / bw) && unit == r.work_unit &&
        std::none_of(r.roofs.begin(), r.roofs.end(),
                     [&](const Roof& x) { return x.peak == peak && x.bandwidth == bw; })) {
      r.roofs.push_back({chip, peak, bw});
    }
    const double work = number_at(f, {"work"}), bytes = number_at(f, {"hbm_bytes"});
    const double rate = number_at(f, {"work_per_s"});
    if (work > 0 && bytes > 0 && rate > 0 && std::isfinite(work / bytes) && std::isfinite(rate) &&
        unit == r.work_unit) {
      r.points.push_back({run.label, work / bytes, rate});
    } else {
      left_out.push_back(fmt::format("{} ({})", run.label,
                                     unit != r.work_unit
                                         ? fmt::format("counts {}, not {}", unit, r.work_unit)
                                     : work <= 0 ? fmt::format("no {} counted", unit)
                                                 : std::string("no HBM traffic")));
    }
  }
  std::string s = "<h2>Roofline</h2>";
  if (r.roofs.empty()) return s + "<p class=\"note\">No chip peak in the stats.</p>";
  s += roofline_svg(r);
  if (!left_out.empty()) {
    std::string list;
    for (const std::string& x : left_out)
      list += (list.empty() ? "" : "; ") + x;
    s += fmt::format("<p class=\"note\">Not on the roofline: {}.</p>", escape(list));
  }
  return s +
         "<p class=\"note\">One point per run: its work (the tensor unit's, or the "
         "workload's count) over its HBM bytes read and written, at the headline's "
         "throughput.</p>";
}

std::string stalls(const std::vector<RunStats>& runs) {
  StackedBars b{.id = "stalls",
                .title = "Warp stall cycles by reason",
                .parts = {"issue", "dependency", "memory", "barrier"},
                .bars = {},
                .shares = {}};
  for (const RunStats& r : runs) {
    const json& st = member(member(r.json, "figures"), "stall_cycles");
    std::vector<double> v;
    double total = 0;
    for (const std::string& p : b.parts) {
      v.push_back(number_at(st, {p.c_str()}));
      total += v.back();
    }
    for (double& x : v)
      x = total > 0 ? 100 * x / total : 0.0;
    b.bars.push_back(r.label);
    b.shares.push_back(std::move(v));
  }
  return "<h2>Stalls</h2>" + stacked_bars_svg(b);
}

constexpr const char* kStyle =
    "body{font-family:sans-serif;margin:24px;max-width:900px;color:#222}"
    "table{border-collapse:collapse;margin:8px 0}th,td{border:1px solid #ccc;padding:3px 8px;"
    "text-align:left;font-size:13px}td{font-variant-numeric:tabular-nums}.note{color:#555;"
    "font-size:13px}.ratio{color:#777}svg.plot{display:block;margin:12px 0}";

// Counts each plot's drawn marks: the headless-browser test reads the result off <body>.
constexpr const char* kCheck =
    "(function(){var p=document.querySelectorAll('svg.plot'),ok=0;"
    "p.forEach(function(s){var n=0;s.querySelectorAll('.mark').forEach(function(m){"
    "var b=m.getBBox();if(b.width>0||b.height>0)n++;});if(n>0)ok++;else "
    "s.setAttribute('data-empty','1');});document.body.setAttribute('data-plots',p.length);"
    "document.body.setAttribute('data-plots-drawn',ok);"
    "document.body.setAttribute('data-errors',window.xpusimErrors.length);})();";

}  // namespace

nlohmann::json essentials(const nlohmann::json& stats) {
  json out = json::object();
  if (!stats.is_object()) return out;
  for (const auto& [key, value] : stats.items()) {
    if (key == "header" || key == "host" || key == "figures") {
      out[key] = value;
      continue;
    }
    if (!value.is_object()) continue;
    for (const auto& [name, stat] : value.items()) {
      if (name.ends_with("_series") || name == "sampling.waves_skipped") out[key][name] = stat;
    }
  }
  return out;
}

Result<RunStats> check_stats(nlohmann::json stats, std::string label, const std::string& what) {
  if (!stats.is_object())
    return Error{fmt::format("{}: not a stats file (not a JSON object)", what)};
  if (!stats.contains("header") || !stats["header"].is_object()) {
    return Error{fmt::format("{}: not a stats file of xpusim (no \"header\")", what)};
  }
  const json none = json::object();
  const json& f = stats.contains("figures") ? stats["figures"] : none;
  if (!f.is_object() || !f.contains("headline") || !f["headline"].is_array() ||
      !f.contains("roofline") || !f.contains("stall_cycles")) {
    return Error{fmt::format(
        "{}: no \"figures\" in this stats file (command '{}'); the report reads the stats "
        "files of `xpusim run`",
        what, sim::one_line(text_at(stats["header"], "command")))};
  }
  return RunStats{.label = std::move(label), .json = std::move(stats)};
}

Result<RunStats> read_stats(const std::string& path) {
  auto text = read_file_bounded(path, "stats file", std::size_t{1} << 30);
  if (!text) return text.errors();
  json j = json::parse(*text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return Error{fmt::format("{}: not a stats file (not valid JSON)", path)};
  if (!j.is_object()) return Error{fmt::format("{}: not a stats file (not a JSON object)", path)};
  return check_stats(essentials(j), std::filesystem::path(path).filename().string(), path);
}

std::string html_report(const std::vector<RunStats>& runs) {
  std::string s =
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>xpusim "
      "report</title><style>";
  s += kStyle;
  s += "</style><script>window.xpusimErrors=[];window.addEventListener('error',function(e){"
       "window.xpusimErrors.push(String(e.message));});</script></head><body>";
  s += "<h1>xpusim report</h1><p class=\"note\">";
  for (std::size_t i = 0; i < runs.size(); ++i)
    s += fmt::format("{}<a href=\"#run{}\">{}</a>", i == 0 ? "" : " · ", i, escape(runs[i].label));
  s += "</p>";
  s += comparison(runs);
  s += roofline(runs);
  s += stalls(runs);
  for (std::size_t i = 0; i < runs.size(); ++i)
    s += RunSection(runs[i], i).html();
  s += "<script>";
  s += kCheck;
  s += "</script></body></html>\n";
  return s;
}

}  // namespace xpusim::report
