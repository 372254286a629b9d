#include "fabric/svg.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>

namespace xpusim::fabric {
namespace {

std::string colour(double u) {
  const double x = std::clamp(u, 0.0, 1.0);
  const int r = static_cast<int>(40 + 215 * x), b = static_cast<int>(220 - 200 * x);
  return fmt::format("rgb({},{},{})", r, 60, b);
}

}  // namespace

std::string utilization_svg(const Topology& topo, const nlohmann::json& links) {
  constexpr int kCell = 60, kPad = 40, kChip = 14;
  const auto& d = topo.dims();
  const std::uint32_t planes = topo.is_grid() ? d[2] : 1;
  const std::uint32_t w = topo.is_grid() ? d[0] : topo.chips(), h = topo.is_grid() ? d[1] : 1;
  const int panel_w = static_cast<int>(w) * kCell + kPad;
  const int width = static_cast<int>(planes) * panel_w + kPad;
  const int height = static_cast<int>(h) * kCell + 2 * kPad + 20;
  std::map<std::uint32_t, double> util;  // link index -> busier direction
  for (const auto& l : links) {
    const auto& pi = topo.port(l["chip"].get<std::uint32_t>(), l["port"].get<std::uint32_t>());
    util[pi.link] = std::max(util[pi.link], l["utilization"].get<double>());
  }
  auto centre = [&](std::uint32_t chip) {
    const auto c = topo.is_grid() ? topo.coord(chip) : std::array<std::uint32_t, 3>{chip, 0, 0};
    return std::pair<int, int>{
        kPad + static_cast<int>(c[2]) * panel_w + static_cast<int>(c[0]) * kCell,
        kPad + 20 + static_cast<int>(c[1]) * kCell};
  };
  std::string out = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" "
      "font-family=\"sans-serif\" font-size=\"10\">\n<rect width=\"100%\" height=\"100%\" "
      "fill=\"white\"/>\n<text x=\"{}\" y=\"16\">{} — link utilization (blue idle, red busy)"
      "</text>\n",
      width, height, kPad, topo.spec().name);
  for (std::uint32_t z = 0; z < planes && topo.is_grid() && planes > 1; ++z) {
    out += fmt::format("<text x=\"{}\" y=\"{}\">z = {}</text>\n",
                       kPad + static_cast<int>(z) * panel_w, height - 8, z);
  }
  for (std::uint32_t i = 0; i < topo.links().size(); ++i) {
    const LinkInfo& l = topo.links()[i];
    const auto [ax, ay] = centre(l.chip_a);
    const auto [bx, by] = centre(l.chip_b);
    const double u = util.count(i) ? util[i] : 0.0;
    const std::string stroke = l.used ? colour(u) : "#cccccc";
    const char* dash = l.used ? "" : " stroke-dasharray=\"3,3\"";
    const bool planar = topo.is_grid() && l.dim < 2 && !l.wraps;
    if (planar || !topo.is_grid()) {
      out += fmt::format(
          "<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"{}\" stroke-width=\"4\"{}>"
          "<title>chip {} port {} - chip {} port {}: {:.0f}%</title></line>\n",
          ax, ay, bx, by, stroke, dash, l.chip_a, l.port_a, l.chip_b, l.port_b, 100 * u);
      continue;
    }
    // Wrap-around and z links: a stub from each end (x/y outward, z as a diagonal).
    const int dx = l.dim == 0 ? kCell / 3 : (l.dim == 2 ? kCell / 5 : 0);
    const int dy = l.dim == 1 ? kCell / 3 : (l.dim == 2 ? -kCell / 5 : 0);
    for (int end = 0; end < 2; ++end) {
      const auto [x, y] = end == 0 ? std::pair<int, int>{ax, ay} : std::pair<int, int>{bx, by};
      const int s = (end == 0) == l.wraps ? 1 : -1;
      out += fmt::format(
          "<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"{}\" stroke-width=\"3\"{}>"
          "<title>{} link chip {} port {} - chip {} port {}: {:.0f}%</title></line>\n",
          x, y, x + s * dx, y + s * dy, stroke, dash, l.wraps ? "wrap" : "z", l.chip_a, l.port_a,
          l.chip_b, l.port_b, 100 * u);
    }
  }
  for (std::uint32_t c = 0; c < topo.chips(); ++c) {
    const auto [x, y] = centre(c);
    out += fmt::format(
        "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\" stroke=\"black\"/>\n",
        x - kChip / 2, y - kChip / 2, kChip, kChip, topo.active(c) ? "#eeeeee" : "#444444");
  }
  out += "</svg>\n";
  return out;
}

}  // namespace xpusim::fabric
