// SVG primitives for the HTML report: escaped text, axis scales with readable ticks, and elements as strings.
// Everything here is layout; no metric is computed.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace vgpusim::svg {

// The width of every chart of the run report and the sweep page, px.
inline constexpr double kChartWidth = 1060;

// Escapes & < > " ' so that `text` is safe in HTML/SVG text and in double-quoted attributes.
std::string escape(std::string_view text);
// A coordinate with two decimals and no trailing zeros, e.g. "12.5".
std::string coord(double v);
// `text` cut to `max_chars` characters (UTF-8 aware), with an ellipsis when cut.
std::string shorten(std::string_view text, size_t max_chars);

// Maps the data interval [lo, hi] onto the pixel interval [from, to], linearly or logarithmically.
struct Scale {
  double lo = 0, hi = 1;    // data
  double from = 0, to = 1;  // pixels
  bool log = false;         // log10 scale; lo and hi must then be > 0
  double operator()(double v) const;
};

// Tick values in [lo, hi] at a 1-2-5 step, about `target` of them.
std::vector<double> linear_ticks(double lo, double hi, int target);
// Tick values in [lo, hi] (lo > 0): 1-2-5 multiples of powers of ten, only decades past three decades.
std::vector<double> log_ticks(double lo, double hi);
// A tick label without needless digits, e.g. 0.5, 2, 1000, 0.02.
std::string tick_label(double v);

// Opens a chart: <svg class="chart {kind}" role="img" aria-label="..."> with a viewBox of width x height.
std::string open(double width, double height, std::string_view kind, std::string_view label);
std::string close();
std::string line(double x1, double y1, double x2, double y2, std::string_view css_class);
// A rectangle; `tooltip`, when not empty, becomes its <title>.
std::string rect(double x, double y, double w, double h, std::string_view css_class, std::string_view tooltip = "");
// Text at (x, y); `anchor` is start, middle or end. `content` is escaped here.
std::string text(double x, double y, std::string_view content, std::string_view css_class,
                 std::string_view anchor = "start");
// A circle; `tooltip`, when not empty, becomes its <title>.
std::string circle(double cx, double cy, double r, std::string_view css_class, std::string_view tooltip = "");
std::string polyline(const std::vector<std::pair<double, double>>& points, std::string_view css_class);

// Axes of a plot area from (left, top) to (right, bottom): frame, grid lines, tick labels and axis titles.
struct PlotArea {
  double left = 0, top = 0, right = 0, bottom = 0;
};
std::string x_axis(const PlotArea& a, const Scale& x, const std::vector<double>& ticks, std::string_view title);
std::string y_axis(const PlotArea& a, const Scale& y, const std::vector<double>& ticks, std::string_view title);

}  // namespace vgpusim::svg
