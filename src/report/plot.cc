#include "report/plot.h"

#include <fmt/format.h>
#include <zlib.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <utility>

namespace xpusim::report {
namespace {

constexpr double kWidth = 860, kHeight = 300;
constexpr double kLeft = 70, kRight = 170, kTop = 34, kBottom = 46;
constexpr double kPlotW = kWidth - kLeft - kRight, kPlotH = kHeight - kTop - kBottom;

constexpr std::array<const char*, 10> kPalette = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e",
                                                  "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
                                                  "#bcbd22", "#17becf"};

const char* colour(std::size_t i) {
  return kPalette[i % kPalette.size()];
}

// About five round steps over [0, hi].
std::vector<double> ticks(double hi) {
  if (!(hi > 0) || !std::isfinite(hi) || hi > 1e300) return {0};
  const double raw = hi / 5;
  const double mag = std::pow(10, std::floor(std::log10(raw)));
  double step = mag;
  for (double m : {1.0, 2.0, 5.0, 10.0}) {
    step = m * mag;
    if (step >= raw) break;
  }
  std::vector<double> out;
  for (double v = 0; v <= hi * (1 + 1e-9) && out.size() < 12; v += step)
    out.push_back(v);
  return out;
}

std::string number(double v) {
  return fmt::format("{:.4g}", v);
}

std::string open_svg(const std::string& id, const std::string& title, double height = kHeight) {
  return fmt::format(
      "<svg class=\"plot\" data-plot=\"{0}\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{1}\" "
      "height=\"{2}\" viewBox=\"0 0 {1} {2}\" font-family=\"sans-serif\" font-size=\"11\">"
      "<text x=\"{3}\" y=\"18\" font-size=\"13\" font-weight=\"bold\">{4}</text>",
      escape(id), kWidth, height, kLeft, escape(title));
}

// Axes with linear ticks: x over [0, x_hi], y over [0, y_hi].
std::string linear_axes(double x_hi, double y_hi, const std::string& x_label,
                        const std::string& y_label, double plot_h = kPlotH) {
  std::string s = fmt::format(
      "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"#999\"/>", kLeft,
      kTop, kPlotW, plot_h);
  for (double t : ticks(x_hi)) {
    const double x = kLeft + (x_hi > 0 ? t / x_hi : 0) * kPlotW;
    s += fmt::format(
        "<line x1=\"{0:.1f}\" y1=\"{1}\" x2=\"{0:.1f}\" y2=\"{2}\" stroke=\"#999\"/>"
        "<text x=\"{0:.1f}\" y=\"{3}\" text-anchor=\"middle\">{4}</text>",
        x, kTop + plot_h, kTop + plot_h + 4, kTop + plot_h + 16, number(t));
  }
  for (double t : y_hi > 0 ? ticks(y_hi) : std::vector<double>{}) {
    const double y = kTop + plot_h - (y_hi > 0 ? t / y_hi : 0) * plot_h;
    s += fmt::format(
        "<line x1=\"{0}\" y1=\"{1:.1f}\" x2=\"{2}\" y2=\"{1:.1f}\" stroke=\"#eee\"/>"
        "<text x=\"{3}\" y=\"{4:.1f}\" text-anchor=\"end\">{5}</text>",
        kLeft, y, kLeft + kPlotW, kLeft - 4, y + 4, number(t));
  }
  s += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>", kLeft + kPlotW / 2,
                   kTop + plot_h + 34, escape(x_label));
  s += fmt::format(
      "<text transform=\"translate(14,{}) rotate(-90)\" text-anchor=\"middle\">{}</text>",
      kTop + plot_h / 2, escape(y_label));
  return s;
}

std::string legend(const std::vector<std::string>& names) {
  std::string s;
  for (std::size_t i = 0; i < names.size(); ++i) {
    const double y = kTop + 8 + 16 * static_cast<double>(i);
    s += fmt::format(
        "<rect x=\"{}\" y=\"{}\" width=\"12\" height=\"10\" fill=\"{}\"/>"
        "<text x=\"{}\" y=\"{}\">{}</text>",
        kLeft + kPlotW + 12, y - 9, colour(i), kLeft + kPlotW + 28, y, escape(names[i]));
  }
  return s;
}

// A colour from white through blue to dark blue for v in [0, 1].
std::array<unsigned char, 3> heat(double v) {
  constexpr std::array<std::array<double, 3>, 4> kStops = {
      {{255, 255, 255}, {158, 202, 225}, {33, 113, 181}, {8, 48, 107}}};
  v = std::clamp(std::isfinite(v) ? v : 0.0, 0.0, 1.0) * 3;
  const std::size_t i = std::min<std::size_t>(static_cast<std::size_t>(v), 2);
  const double f = v - static_cast<double>(i);
  std::array<unsigned char, 3> c{};
  for (std::size_t k = 0; k < 3; ++k)
    c[k] = static_cast<unsigned char>(
        std::lround(kStops[i][k] + f * (kStops[i + 1][k] - kStops[i][k])));
  return c;
}

void put_u32(std::string& out, std::uint32_t v) {
  for (int s = 24; s >= 0; s -= 8)
    out.push_back(static_cast<char>((v >> s) & 0xFF));
}

void chunk(std::string& png, const char* type, const std::string& data) {
  put_u32(png, static_cast<std::uint32_t>(data.size()));
  const std::string body = std::string(type, 4) + data;
  png += body;
  put_u32(png, static_cast<std::uint32_t>(crc32(0, reinterpret_cast<const Bytef*>(body.data()),
                                                static_cast<uInt>(body.size()))));
}

std::string base64(const std::string& in) {
  static constexpr char kDigits[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  std::size_t i = 0;
  for (; i + 2 < in.size(); i += 3) {
    const std::uint32_t v = (static_cast<unsigned char>(in[i]) << 16) |
                            (static_cast<unsigned char>(in[i + 1]) << 8) |
                            static_cast<unsigned char>(in[i + 2]);
    for (int s = 18; s >= 0; s -= 6)
      out.push_back(kDigits[(v >> s) & 63]);
  }
  if (i < in.size()) {
    const bool two = i + 1 < in.size();
    const std::uint32_t v = (static_cast<unsigned char>(in[i]) << 16) |
                            (two ? static_cast<unsigned char>(in[i + 1]) << 8 : 0);
    out.push_back(kDigits[(v >> 18) & 63]);
    out.push_back(kDigits[(v >> 12) & 63]);
    out.push_back(two ? kDigits[(v >> 6) & 63] : '=');
    out.push_back('=');
  }
  return out;
}

}  // namespace

std::string escape(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out.push_back(c);
    }
  }
  return out;
}

std::string png_base64(std::size_t width, std::size_t height,
                       const std::vector<unsigned char>& rgb) {
  std::string raw;  // each row: filter byte 0, then its pixels
  raw.reserve(height * (1 + 3 * width));
  for (std::size_t r = 0; r < height; ++r) {
    raw.push_back('\0');
    raw.append(reinterpret_cast<const char*>(rgb.data() + r * 3 * width), 3 * width);
  }
  uLongf size = compressBound(static_cast<uLong>(raw.size()));
  std::string packed(size, '\0');
  compress2(reinterpret_cast<Bytef*>(packed.data()), &size,
            reinterpret_cast<const Bytef*>(raw.data()), static_cast<uLong>(raw.size()), 9);
  packed.resize(size);
  std::string png = "\x89PNG\r\n\x1a\n";
  std::string header;
  put_u32(header, static_cast<std::uint32_t>(width));
  put_u32(header, static_cast<std::uint32_t>(height));
  header += std::string("\x08\x02\x00\x00\x00", 5);  // 8-bit RGB, no interlace
  chunk(png, "IHDR", header);
  chunk(png, "IDAT", packed);
  chunk(png, "IEND", "");
  return base64(png);
}

std::string line_chart_svg(const LineChart& c) {
  std::size_t n = 0;
  double y_hi = c.ceiling.value_or(0);
  for (const Line& l : c.lines) {
    n = std::max(n, l.y.size());
    for (double v : l.y)
      y_hi = std::max(y_hi, std::isfinite(v) ? v : 0.0);
  }
  y_hi = y_hi > 0 ? y_hi * 1.05 : 1;
  const double x_hi = static_cast<double>(std::max<std::size_t>(n, 1)) * c.x_step;
  std::string s = open_svg(c.id, c.title) + linear_axes(x_hi, y_hi, c.x_label, c.y_label);
  const auto px = [&](double x) { return kLeft + x / x_hi * kPlotW; };
  const auto py = [&](double y) { return kTop + kPlotH - y / y_hi * kPlotH; };
  std::vector<std::string> names;
  for (std::size_t i = 0; i < c.lines.size(); ++i) {
    const Line& l = c.lines[i];
    names.push_back(l.name);
    // A step line: each interval's value held over the interval.
    std::string points;
    for (std::size_t k = 0; k < l.y.size(); ++k) {
      const double y = py(std::isfinite(l.y[k]) ? l.y[k] : 0.0);
      points += fmt::format("{:.1f},{:.1f} {:.1f},{:.1f} ", px(static_cast<double>(k) * c.x_step),
                            y, px(static_cast<double>(k + 1) * c.x_step), y);
    }
    if (points.empty()) points = fmt::format("{},{} {},{}", kLeft, py(0), kLeft + kPlotW, py(0));
    s += fmt::format(
        "<polyline class=\"mark\" fill=\"none\" stroke=\"{}\" stroke-width=\"1.5\" "
        "points=\"{}\"><title>{}</title></polyline>",
        colour(i), points, escape(l.name));
  }
  if (c.ceiling) {
    s += fmt::format(
        "<line x1=\"{0}\" y1=\"{1:.1f}\" x2=\"{2}\" y2=\"{1:.1f}\" stroke=\"#555\" "
        "stroke-dasharray=\"4 3\"/><text x=\"{2}\" y=\"{3:.1f}\" text-anchor=\"end\">{4}</text>",
        kLeft, py(*c.ceiling), kLeft + kPlotW, py(*c.ceiling) - 3, escape(c.ceiling_label));
  }
  return s + legend(names) + "</svg>";
}

std::string heatmap_svg(const Heatmap& h) {
  const std::size_t rows = h.rows.size();
  std::size_t cols = 1;
  for (const auto& r : h.rows)
    cols = std::max(cols, r.size());
  const double plot_h = std::clamp(4.0 * static_cast<double>(rows), 120.0, 560.0);
  const double height = kTop + plot_h + kBottom;
  std::vector<unsigned char> rgb(std::max<std::size_t>(rows, 1) * cols * 3, 255);
  for (std::size_t r = 0; r < rows; ++r) {
    for (std::size_t k = 0; k < h.rows[r].size(); ++k) {
      const auto c = heat(h.max > 0 ? h.rows[r][k] / h.max : 0.0);
      std::copy(c.begin(), c.end(), rgb.begin() + static_cast<std::ptrdiff_t>((r * cols + k) * 3));
    }
  }
  const double x_hi = static_cast<double>(cols) * h.x_step;
  std::string s = open_svg(h.id, h.title, height);
  s += linear_axes(x_hi, 0, h.x_label, "", plot_h);
  s += fmt::format(
      "<image class=\"mark\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" "
      "preserveAspectRatio=\"none\" style=\"image-rendering:pixelated\" "
      "href=\"data:image/png;base64,{}\"/>",
      kLeft, kTop, kPlotW, plot_h, png_base64(cols, std::max<std::size_t>(rows, 1), rgb));
  for (std::size_t r : h.row_ticks) {
    if (r >= rows) continue;
    const double y = kTop + plot_h * static_cast<double>(r) / static_cast<double>(rows);
    s += fmt::format(
        "<line x1=\"{0}\" y1=\"{1:.1f}\" x2=\"{2}\" y2=\"{1:.1f}\" stroke=\"#888\"/>"
        "<text x=\"{3}\" y=\"{4:.1f}\" text-anchor=\"end\">{5}</text>",
        kLeft, y, kLeft + kPlotW, kLeft - 4, y + 10, escape(h.row_labels.at(r)));
  }
  // The colour scale.
  const double bx = kLeft + kPlotW + 20;
  for (int i = 0; i < 20; ++i) {
    const auto c = heat(1.0 - i / 19.0);
    s += fmt::format(
        "<rect x=\"{}\" y=\"{:.1f}\" width=\"14\" height=\"{:.1f}\" fill=\"rgb({},{},{})\"/>", bx,
        kTop + i * 8.0, 8.5, c[0], c[1], c[2]);
  }
  s += fmt::format(
      "<text x=\"{0}\" y=\"{1}\">{2}</text><text x=\"{0}\" y=\"{3}\">0</text>"
      "<text x=\"{4}\" y=\"{5}\">{6}</text>",
      bx + 18, kTop + 8, number(h.max), kTop + 160, bx, kTop + 180, escape(h.value_label));
  return s + "</svg>";
}

std::string stacked_bars_svg(const StackedBars& b) {
  const double bar_h = 22, gap = 8;
  const double plot_h = std::max(1.0, static_cast<double>(b.bars.size())) * (bar_h + gap) + gap;
  const double height = kTop + plot_h + kBottom;
  std::string s = open_svg(b.id, b.title, height);
  s += linear_axes(100, 0, "share of warp stall cycles (%)", "", plot_h);
  for (std::size_t i = 0; i < b.bars.size(); ++i) {
    const double y = kTop + gap + static_cast<double>(i) * (bar_h + gap);
    double x = kLeft;
    for (std::size_t p = 0; p < b.parts.size(); ++p) {
      const double v = i < b.shares.size() && p < b.shares[i].size() ? b.shares[i][p] : 0.0;
      const double w = std::max(0.0, v) / 100 * kPlotW;
      s += fmt::format(
          "<rect class=\"mark\" x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.2f}\" height=\"{}\" "
          "fill=\"{}\"><title>{}: {} {:.1f}%</title></rect>",
          x, y, w, bar_h, colour(p), escape(b.bars[i]), escape(b.parts[p]), v);
      x += w;
    }
    s += fmt::format("<text x=\"{}\" y=\"{:.1f}\" text-anchor=\"end\">{}</text>", kLeft - 4,
                     y + bar_h / 2 + 4, escape(b.bars[i]));
  }
  return s + legend(b.parts) + "</svg>";
}

std::string roofline_svg(const Roofline& r) {
  double x_lo = 1e300, x_hi = 0, y_lo = 1e300, y_hi = 0;
  for (const Roof& f : r.roofs) {
    const double ridge = f.peak / f.bandwidth;
    x_lo = std::min(x_lo, ridge / 100);
    x_hi = std::max(x_hi, ridge * 100);
    y_lo = std::min(y_lo, f.peak / 1e4);
    y_hi = std::max(y_hi, f.peak * 3);
  }
  for (const RooflinePoint& p : r.points) {
    x_lo = std::min(x_lo, p.intensity / 3);
    x_hi = std::max(x_hi, p.intensity * 3);
    y_lo = std::min(y_lo, p.rate / 3);
    y_hi = std::max(y_hi, p.rate * 3);
  }
  // At most 40 decades a side, and finite: a hostile stats file cannot make the loops below
  // endless.
  const auto decades = [](double lo, double hi) {
    double a = std::floor(std::log10(lo)), b = std::ceil(std::log10(hi));
    if (!std::isfinite(a) || !std::isfinite(b) || b <= a) a = 0, b = 1;
    return std::pair{std::max(a, b - 40), b};
  };
  // Plain doubles, not structured bindings: Clang 14 cannot capture those in the lambdas.
  const std::pair<double, double> xr = decades(x_lo, x_hi), yr = decades(y_lo, y_hi);
  const double lx_lo = xr.first, lx_hi = xr.second, ly_lo = yr.first, ly_hi = yr.second;
  const auto px = [&](double x) {
    return kLeft + (std::log10(x) - lx_lo) / (lx_hi - lx_lo) * kPlotW;
  };
  const auto py = [&](double y) {
    return kTop + kPlotH - (std::log10(y) - ly_lo) / (ly_hi - ly_lo) * kPlotH;
  };
  std::string s = open_svg(r.id, r.title);
  s += fmt::format(
      "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"#999\"/>", kLeft,
      kTop, kPlotW, kPlotH);
  for (double e = lx_lo; e <= lx_hi; ++e) {
    s += fmt::format(
        "<line x1=\"{0:.1f}\" y1=\"{1}\" x2=\"{0:.1f}\" y2=\"{2}\" stroke=\"#eee\"/>"
        "<text x=\"{0:.1f}\" y=\"{3}\" text-anchor=\"middle\">1e{4}</text>",
        px(std::pow(10, e)), kTop, kTop + kPlotH, kTop + kPlotH + 16, e);
  }
  for (double e = ly_lo; e <= ly_hi; ++e) {
    s += fmt::format(
        "<line x1=\"{0}\" y1=\"{1:.1f}\" x2=\"{2}\" y2=\"{1:.1f}\" stroke=\"#eee\"/>"
        "<text x=\"{3}\" y=\"{4:.1f}\" text-anchor=\"end\">1e{5}</text>",
        kLeft, py(std::pow(10, e)), kLeft + kPlotW, kLeft - 4, py(std::pow(10, e)) + 4, e);
  }
  s += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>", kLeft + kPlotW / 2,
                   kTop + kPlotH + 34,
                   escape(fmt::format("arithmetic intensity ({} per HBM byte)", r.work_unit)));
  s += fmt::format(
      "<text transform=\"translate(14,{}) rotate(-90)\" text-anchor=\"middle\">{}</text>",
      kTop + kPlotH / 2, escape(fmt::format("{}/s", r.work_unit)));
  std::vector<std::string> names;
  const double x0 = std::pow(10, lx_lo), x1 = std::pow(10, lx_hi), y0 = std::pow(10, ly_lo);
  for (std::size_t i = 0; i < r.roofs.size(); ++i) {
    // Bandwidth up to the ridge, then the compute peak.
    const Roof& f = r.roofs[i];
    const double ridge = f.peak / f.bandwidth;
    const double start = std::max(x0, y0 / f.bandwidth);
    names.push_back(fmt::format("roof: {}", f.label));
    s += fmt::format(
        "<polyline class=\"mark\" fill=\"none\" stroke=\"{}\" stroke-width=\"2\" "
        "stroke-dasharray=\"{}\" points=\"{:.1f},{:.1f} {:.1f},{:.1f} {:.1f},{:.1f}\"><title>{}: "
        "{} {}/s peak, {} GB/s HBM</title></polyline>",
        colour(i), i == 0 ? "none" : "6 3", px(start), py(f.bandwidth * start), px(ridge),
        py(f.peak), px(x1), py(f.peak), escape(f.label), number(f.peak), escape(r.work_unit),
        number(f.bandwidth / 1e9));
  }
  for (std::size_t i = 0; i < r.points.size(); ++i) {
    const RooflinePoint& p = r.points[i];
    const std::size_t c = r.roofs.size() + i;
    names.push_back(p.label);
    s += fmt::format(
        "<circle class=\"mark\" cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"5\" fill=\"{}\"><title>{}: {} "
        "{}/byte, {} {}/s</title></circle>",
        px(p.intensity), py(p.rate), colour(c), escape(p.label), number(p.intensity),
        escape(r.work_unit), number(p.rate), escape(r.work_unit));
  }
  return s + legend(names) + "</svg>";
}

}  // namespace xpusim::report
