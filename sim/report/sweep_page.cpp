// The sweep's HTML page (sweep_html in sweep_command.hpp): per tenant, horizontal bar charts over the combinations
// of vGPU loss and, for tenants with latencies, p99; whiskers are the 95% intervals over replications. The same
// stylesheet as the run report; no script and no outside reference.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "sim/report/run_formats.hpp"
#include "sim/report/svg.hpp"
#include "sim/report/sweep_command.hpp"

namespace vgpusim {
namespace {


struct Bar {
  std::string label;  // the combination
  double value = 0;   // NaN: no result
  double ci = 0;      // 95% half-width; NaN or 0: none
  bool failed = false;
  std::string text;   // printed beside the bar
};

std::string values_text(const SweepCombination& c) {
  std::string out;
  for (const Override& o : c.values) out += fmt::format("{}{}={}", out.empty() ? "" : " ", o.path, o.value);
  return out;
}

// "#k key=value ...": the number leads, so a label cut short still names its row of the combinations table.
std::string combination_label(const SweepCombination& c) { return fmt::format("#{} {}", c.index, values_text(c)); }

// A horizontal bar per combination on an axis from 0 (or the lowest value) to the largest value plus its interval.
std::string bar_chart(const std::string& kind, const std::string& aria, const std::string& axis,
                      const std::vector<Bar>& bars) {
  double lo = 0, hi = 0;
  for (const Bar& b : bars) {
    if (!std::isfinite(b.value)) continue;
    const double ci = std::isfinite(b.ci) ? b.ci : 0;
    lo = std::min(lo, b.value - ci);
    hi = std::max(hi, b.value + ci);
  }
  if (!(hi > lo)) hi = lo + 1;
  const std::vector<double> ticks = svg::linear_ticks(lo, hi * 1.05, 6);
  const double row = 24, label_w = 330;
  const svg::PlotArea a{label_w + 10, 10, svg::kChartWidth - 200, 10 + row * static_cast<double>(bars.size())};
  const svg::Scale x{std::min(lo, ticks.front()), std::max(hi * 1.05, ticks.back()), a.left, a.right};
  std::string out = svg::open(svg::kChartWidth, a.bottom + 44, kind, aria);
  out += svg::x_axis(a, x, ticks, axis);
  for (size_t i = 0; i < bars.size(); ++i) {
    const Bar& b = bars[i];
    const double y = a.top + row * static_cast<double>(i), mid = y + row / 2;
    out += svg::text(a.left - 8, mid + 4, svg::shorten(b.label, 46), "label", "end");
    double label_x = a.left + 6;
    if (std::isfinite(b.value)) {
      const double x0 = x(std::min(0.0, b.value)), x1 = x(std::max(0.0, b.value));
      out += svg::rect(x0, y + 5, std::max(0.5, x1 - x0), row - 10, b.failed ? "bar failed" : "bar",
                       b.label + ": " + b.text);
      label_x = x1 + 6;
      if (std::isfinite(b.ci) && b.ci > 0) {
        const double w0 = x(b.value - b.ci), w1 = x(b.value + b.ci);
        out += svg::line(w0, mid, w1, mid, "whisker") + svg::line(w0, mid - 4, w0, mid + 4, "whisker") +
               svg::line(w1, mid - 4, w1, mid + 4, "whisker");
        label_x = std::max(label_x, w1 + 6);
      }
    }
    out += svg::text(label_x, mid + 4, std::isfinite(b.value) ? b.text : "no result", "value");
    if (b.failed) out += svg::text(svg::kChartWidth - 190, mid + 4, "FAILED", "fail-label");
  }
  return out + svg::close();
}

}  // namespace

std::string sweep_html(const std::string& scenario, const std::vector<SweepCombination>& combinations) {
  using svg::escape;
  std::string out = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  out += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
  out += "<meta name=\"generator\" content=\"vgpusim\">\n";
  out += "<title>vgpusim sweep: " + escape(scenario) + "</title>\n<style>" + std::string(report_css()) +
         "</style>\n</head>\n<body>\n";
  out += "<header>\n<div class=\"kicker\">vgpusim sweep</div>\n<h1>" + escape(scenario) + "</h1>\n";
  out += fmt::format("<p class=\"note\">{} combination(s). Each combination is a full run of the scenario with the "
                     "values below (its results.json in c&lt;k&gt;/).</p>\n</header>\n",
                     combinations.size());
  out += "<section id=\"combinations\">\n<h2>Combinations</h2>\n<table class=\"combinations\">\n<tr><th>#</th>"
         "<th class=\"l\">values</th></tr>\n";
  for (const SweepCombination& c : combinations)
    out += fmt::format("<tr><td>{}</td><td class=\"l\">{}</td></tr>\n", c.index, escape(values_text(c)));
  out += "</table>\n</section>\n";

  // Tenants in order of first appearance; a tenant absent from a combination has no bar there.
  std::vector<std::string> tenants;
  for (const SweepCombination& c : combinations)
    for (const SweepTenantRow& t : c.tenants)
      if (std::find(tenants.begin(), tenants.end(), t.tenant) == tenants.end()) tenants.push_back(t.tenant);
  out += "<section id=\"tenants\">\n<h2>Per tenant</h2>\n<p class=\"note\">vGPU loss: 1 - performance shared over "
         "the same tenant alone (closed-loop workloads: throughput; inference: mean latency). p99: the tenant's "
         "request latency, inference only. Whisker: 95% confidence interval over the scenario's replications (none "
         "when they agree or there is one). Red: the tenant failed. Trust band: how far predictions of this kind "
         "missed measurements in the validation suite.</p>\n";
  for (const std::string& name : tenants) {
    std::vector<Bar> loss, p99;
    for (const SweepCombination& c : combinations)
      for (const SweepTenantRow& t : c.tenants) {
        if (t.tenant != name) continue;
        const bool failed = !t.failure.empty();
        loss.push_back({combination_label(c), 100 * t.vgpu_loss, 100 * t.relative_ci95, failed,
                        std::isfinite(t.vgpu_loss) ? fmt::format("{:.1f}%", 100 * t.vgpu_loss) : "-"});
        if (t.has_latency)
          p99.push_back({combination_label(c), 1e3 * t.p99, 1e3 * t.p99_ci95, failed,
                         std::isfinite(t.p99) ? fmt::format("{:.2f} ms", 1e3 * t.p99) : "-"});
      }
    out += "<h3>" + escape(name) + "</h3>\n";
    out += bar_chart("chart-sweep-loss", "vGPU loss of " + name + " in each combination", "vGPU loss (%)", loss);
    if (!p99.empty())
      out += bar_chart("chart-sweep-p99", "p99 latency of " + name + " in each combination", "p99 latency (ms)", p99);
    // What the validation suite says of predictions of this kind (docs/validation.md#trust-bands).
    out += "<table class=\"tenants trust\">\n<tr><th class=\"l\">combination</th><th class=\"l\">trust band</th></tr>\n";
    for (const SweepCombination& c : combinations)
      for (const SweepTenantRow& t : c.tenants)
        if (t.tenant == name)
          out += fmt::format("<tr><td class=\"l\">{}</td><td class=\"l wrap\">{}</td></tr>\n",
                             escape(combination_label(c)), escape(t.trust));
    out += "</table>\n";
  }
  out += "</section>\n<footer><p class=\"note\">Generated by vgpusim sweep. Numbers as in sweep.json and sweep.csv "
         "(docs/scale.md, docs/user-guide.md).</p></footer>\n</body>\n</html>\n";
  return out;
}

}  // namespace vgpusim
