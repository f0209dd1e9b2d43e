// SVG primitives for the HTML report. Coordinates are written with two decimals so that the same Results always
// give the same bytes.
#include "sim/report/svg.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace vgpusim::svg {

std::string escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
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
        // C0 control characters are not allowed in HTML text; tab and newline are.
        if (static_cast<unsigned char>(c) >= 0x20 || c == '\t' || c == '\n')
          out += c;
        else
          out += ' ';
    }
  }
  return out;
}

std::string coord(double v) {
  if (!std::isfinite(v)) return "0";
  std::string s = fmt::format("{:.2f}", v);
  while (s.back() == '0') s.pop_back();
  if (s.back() == '.') s.pop_back();
  return s == "-0" ? "0" : s;
}

std::string shorten(std::string_view text, size_t max_chars) {
  size_t chars = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    if ((static_cast<unsigned char>(text[i]) & 0xC0) == 0x80) continue;  // UTF-8 continuation byte
    if (++chars > max_chars) return std::string(text.substr(0, i)) + "\u2026";
  }
  return std::string(text);
}

double Scale::operator()(double v) const {
  double t = 0.5;
  if (log) {
    const double a = std::log10(lo), b = std::log10(hi);
    if (b > a) t = (std::log10(std::max(v, lo)) - a) / (b - a);
  } else if (hi > lo) {
    t = (v - lo) / (hi - lo);
  }
  return from + t * (to - from);
}

std::vector<double> linear_ticks(double lo, double hi, int target) {
  std::vector<double> ticks;
  if (!(hi > lo) || target < 1) return {lo};
  const double raw = (hi - lo) / target;
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  double step = 10 * mag;
  for (double m : {1.0, 2.0, 5.0})
    if (m * mag >= raw) {
      step = m * mag;
      break;
    }
  for (double k = std::ceil(lo / step - 1e-9); k * step <= hi + 1e-9 * step; k += 1) ticks.push_back(k * step);
  return ticks;
}

std::vector<double> log_ticks(double lo, double hi) {
  std::vector<double> ticks;
  const int first = static_cast<int>(std::floor(std::log10(lo))), last = static_cast<int>(std::ceil(std::log10(hi)));
  const std::vector<double> mults = std::log10(hi / lo) <= 3 ? std::vector<double>{1, 2, 5} : std::vector<double>{1};
  for (int d = first; d <= last; ++d)
    for (double m : mults) {
      const double v = m * std::pow(10.0, d);
      if (v >= lo * (1 - 1e-9) && v <= hi * (1 + 1e-9)) ticks.push_back(v);
    }
  return ticks;
}

std::string tick_label(double v) { return fmt::format("{:.6g}", std::abs(v) < 1e-12 ? 0.0 : v); }

std::string open(double width, double height, std::string_view kind, std::string_view label) {
  return fmt::format(
      "<svg class=\"chart {}\" role=\"img\" aria-label=\"{}\" viewBox=\"0 0 {} {}\" width=\"{}\" height=\"{}\">\n",
      kind, escape(label), coord(width), coord(height), coord(width), coord(height));
}

std::string close() { return "</svg>\n"; }

std::string line(double x1, double y1, double x2, double y2, std::string_view css_class) {
  return fmt::format("<line class=\"{}\" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\"/>\n", css_class, coord(x1), coord(y1),
                     coord(x2), coord(y2));
}

std::string rect(double x, double y, double w, double h, std::string_view css_class, std::string_view tooltip) {
  const std::string attrs = fmt::format("class=\"{}\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"", css_class,
                                        coord(x), coord(y), coord(std::max(w, 0.0)), coord(std::max(h, 0.0)));
  if (tooltip.empty()) return "<rect " + attrs + "/>\n";
  return "<rect " + attrs + "><title>" + escape(tooltip) + "</title></rect>\n";
}

std::string circle(double cx, double cy, double r, std::string_view css_class, std::string_view tooltip) {
  const std::string attrs =
      fmt::format("class=\"{}\" cx=\"{}\" cy=\"{}\" r=\"{}\"", css_class, coord(cx), coord(cy), coord(r));
  if (tooltip.empty()) return "<circle " + attrs + "/>\n";
  return "<circle " + attrs + "><title>" + escape(tooltip) + "</title></circle>\n";
}

std::string text(double x, double y, std::string_view content, std::string_view css_class, std::string_view anchor) {
  return fmt::format("<text class=\"{}\" x=\"{}\" y=\"{}\" text-anchor=\"{}\">{}</text>\n", css_class, coord(x),
                     coord(y), anchor, escape(content));
}

std::string polyline(const std::vector<std::pair<double, double>>& points, std::string_view css_class) {
  std::string pts;
  for (const auto& [x, y] : points) {
    if (!pts.empty()) pts += ' ';
    pts += coord(x);
    pts += ',';
    pts += coord(y);
  }
  return fmt::format("<polyline class=\"{}\" points=\"{}\"/>\n", css_class, pts);
}

std::string x_axis(const PlotArea& a, const Scale& x, const std::vector<double>& ticks, std::string_view title) {
  std::string out;
  for (double t : ticks) {
    out += line(x(t), a.top, x(t), a.bottom, "grid");
    out += text(x(t), a.bottom + 15, tick_label(t), "tick", "middle");
  }
  out += line(a.left, a.bottom, a.right, a.bottom, "axis");
  out += text((a.left + a.right) / 2, a.bottom + 33, title, "axis-title", "middle");
  return out;
}

std::string y_axis(const PlotArea& a, const Scale& y, const std::vector<double>& ticks, std::string_view title) {
  std::string out;
  for (double t : ticks) {
    out += line(a.left, y(t), a.right, y(t), "grid");
    out += text(a.left - 6, y(t) + 4, tick_label(t), "tick", "end");
  }
  out += line(a.left, a.top, a.left, a.bottom, "axis");
  const double cx = a.left - 40, cy = (a.top + a.bottom) / 2;
  out += fmt::format(
      "<text class=\"axis-title\" x=\"{0}\" y=\"{1}\" text-anchor=\"middle\" "
      "transform=\"rotate(-90 {0} {1})\">{2}</text>\n",
      coord(cx), coord(cy), escape(title));
  return out;
}

}  // namespace vgpusim::svg
