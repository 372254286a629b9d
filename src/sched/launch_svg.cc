#include "sched/launch_svg.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

namespace xpusim::sched {

namespace {

constexpr int kCell = 22, kLeft = 70, kTop = 40, kCurveHeight = 160;

// Distinct, stable colours per launch unit: golden-angle hue steps.
std::string colour(std::uint64_t unit) {
  const double hue = std::fmod(static_cast<double>(unit) * 137.508, 360.0);
  return fmt::format("hsl({:.0f},65%,55%)", hue);
}

}  // namespace

std::string launch_svg(const Topology& topo, const LaunchReport& r, const std::string& title) {
  std::uint32_t widest = 0;
  for (std::uint32_t g = 0; g < topo.num_gpcs(); ++g)
    widest = std::max(widest, topo.sms_in_gpc(g));
  const int map_w = static_cast<int>(widest) * kCell;
  const int map_h = static_cast<int>(topo.num_gpcs()) * kCell;
  const int width = kLeft + std::max(map_w, 480) + 20;
  const int curve_top = kTop + map_h + 50;
  const int height = curve_top + kCurveHeight + 50;
  std::string s = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" "
      "font-family=\"sans-serif\" font-size=\"11\">\n"
      "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
      "<text x=\"{}\" y=\"20\" font-size=\"14\">{}</text>\n"
      "<text x=\"{}\" y=\"{}\">placement at peak residency ({} clusters, {} CTAs); one cell per "
      "SM, one slice per CTA, colour = cluster</text>\n",
      width, height, kLeft, title, kLeft, kTop - 6, r.max_clusters, r.peak_placement.size());
  std::map<std::uint32_t, std::vector<std::uint64_t>> on_sm;  // SM → unit keys
  for (const auto& p : r.peak_placement)
    on_sm[p.sm].push_back((std::uint64_t{p.grid} << 44) | p.unit);
  for (std::uint32_t g = 0; g < topo.num_gpcs(); ++g) {
    const int y = kTop + static_cast<int>(g) * kCell;
    s += fmt::format("<text x=\"4\" y=\"{}\">GPC {}</text>\n", y + 15, g);
    for (std::uint32_t i = 0; i < topo.sms_in_gpc(g); ++i) {
      const std::uint32_t sm = topo.first_sm(g) + i;
      const int x = kLeft + static_cast<int>(i) * kCell;
      s += fmt::format(
          "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"#eee\" stroke=\"#999\">"
          "<title>SM {}</title></rect>\n",
          x, y, kCell - 2, kCell - 2, sm);
      const auto it = on_sm.find(sm);
      if (it == on_sm.end()) continue;
      const auto& units = it->second;
      const double slice = static_cast<double>(kCell - 2) / static_cast<double>(units.size());
      for (std::size_t k = 0; k < units.size(); ++k) {
        s += fmt::format(
            "<rect x=\"{}\" y=\"{:.2f}\" width=\"{}\" height=\"{:.2f}\" fill=\"{}\">"
            "<title>SM {}: grid {} unit {}</title></rect>\n",
            x, y + slice * static_cast<double>(k), kCell - 2, slice, colour(units[k]), sm,
            units[k] >> 44, units[k] & ((std::uint64_t{1} << 44) - 1));
      }
    }
  }
  // Utilization curve: busy SMs over time, a step function.
  const int cw = std::max(map_w, 480);
  const double span = static_cast<double>(std::max<std::uint64_t>(1, r.makespan_cycles));
  const auto px = [&](std::uint64_t c) { return kLeft + static_cast<double>(c) / span * cw; };
  const auto py = [&](std::uint32_t busy) {
    return curve_top + kCurveHeight -
           static_cast<double>(busy) / std::max(1u, r.num_sms) * kCurveHeight;
  };
  s += fmt::format(
      "<text x=\"{}\" y=\"{}\">busy SMs over time (makespan {} cycles, utilization {:.1f}%)"
      "</text>\n<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" "
      "stroke=\"#999\"/>\n",
      kLeft, curve_top - 6, r.makespan_cycles, 100 * r.utilization, kLeft, curve_top, cw,
      kCurveHeight);
  std::string path = fmt::format("M{:.1f},{:.1f}", px(0), py(0));
  for (const ResidencyPoint& p : r.curve) {
    path += fmt::format(" H{:.1f} V{:.1f}", px(p.tick), py(p.busy_sms));
  }
  path += fmt::format(" H{:.1f}", px(r.makespan_cycles));
  s += fmt::format("<path d=\"{}\" fill=\"none\" stroke=\"#2a6\" stroke-width=\"1.5\"/>\n", path);
  s += fmt::format("<text x=\"{}\" y=\"{}\">0</text><text x=\"{}\" y=\"{}\">{} SMs</text>\n",
                   kLeft - 12, curve_top + kCurveHeight, kLeft - 50, curve_top + 10, r.num_sms);
  s += "</svg>\n";
  return s;
}

}  // namespace xpusim::sched
