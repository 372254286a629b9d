// Self-contained SVG plots for the HTML report: no script, no fonts or files fetched, so the
// page renders offline. Every data mark carries class "mark" (the browser test counts them);
// each <svg> has class "plot" and a data-plot name.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace xpusim::report {

// One line of a line chart: y at evenly spaced x (x_i = i x x_step).
struct Line {
  std::string name;
  std::vector<double> y;
};

struct LineChart {
  std::string id;  // data-plot
  std::string title, x_label, y_label;
  double x_step = 1;
  std::vector<Line> lines;
  std::optional<double> ceiling;  // a horizontal roof (a peak bandwidth), dashed
  std::string ceiling_label;
};
std::string line_chart_svg(const LineChart& c);

// Rows of cells over time (x_i = i x x_step), coloured from 0 to `max`; drawn as one embedded
// PNG image, one pixel per cell, so 132 SMs x 256 intervals stay a few kilobytes.
struct Heatmap {
  std::string id;
  std::string title, x_label, value_label;
  double x_step = 1;
  double max = 1;
  std::vector<std::string> row_labels;  // shown where `row_ticks` says
  std::vector<std::vector<double>> rows;
  std::vector<std::size_t> row_ticks;  // rows that start a group (a GPC): a label and a rule
};
std::string heatmap_svg(const Heatmap& h);

// Horizontal stacked bars, one per bar label, each part a share in percent.
struct StackedBars {
  std::string id;
  std::string title;
  std::vector<std::string> parts;  // the legend, in stacking order
  std::vector<std::string> bars;
  std::vector<std::vector<double>> shares;  // [bar][part], percent
};
std::string stacked_bars_svg(const StackedBars& b);

// Log-log roofline: attainable rate = min(peak, bandwidth x intensity) for each roof (one per
// chip compared), with points.
struct Roof {
  std::string label;
  double peak = 0;       // work per second
  double bandwidth = 0;  // bytes per second
};
struct RooflinePoint {
  std::string label;
  double intensity = 0;  // work per byte
  double rate = 0;       // work per second
};
struct Roofline {
  std::string id;
  std::string title, work_unit;       // "FLOP"
  std::vector<Roof> roofs;            // at least one, each positive
  std::vector<RooflinePoint> points;  // positive intensity and rate
};
std::string roofline_svg(const Roofline& r);

// Text made safe for XML/HTML content and attribute values.
std::string escape(const std::string& s);
// A PNG (8-bit RGB) of width x height pixels, `rgb` row-major; base64 for a data: URL.
std::string png_base64(std::size_t width, std::size_t height,
                       const std::vector<unsigned char>& rgb);

}  // namespace xpusim::report
