// Run format `html`: the report, one file with inline CSS and SVG, readable offline and in a headless browser.
// Layout only: every number shown comes from Results; charts at most resample a utilization series for drawing.
#include "sim/report/run_formats.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "sim/report/svg.hpp"
#include "sim/report/text_format.hpp"
#include "sim/core/units.hpp"

namespace vgpusim {
namespace {

using svg::escape;

constexpr int kPalette = 10;       // series colours s0..s9 in the style sheet
constexpr size_t kMaxSteps = 600;  // utilization steps drawn per line

constexpr const char* kStyle = R"(
body{font-family:"DejaVu Sans",system-ui,sans-serif;font-size:14px;color:#1d2329;margin:24px auto;max-width:1100px;
 padding:0 16px;background:#fff}
h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:28px 0 8px;border-bottom:1px solid #d0d7de;padding-bottom:4px}
.kicker{color:#57606a;font-size:12px;text-transform:uppercase;letter-spacing:.06em}
dl.meta{display:grid;grid-template-columns:max-content 1fr;gap:2px 14px;margin:10px 0}dl.meta dt{color:#57606a}
dl.meta dd{margin:0}
table{border-collapse:collapse;font-size:13px;margin:6px 0}th,td{padding:4px 8px;border-bottom:1px solid #e4e8ec;
 text-align:right;vertical-align:top}td{white-space:nowrap}td.wrap{white-space:normal;min-width:160px}
th{background:#f3f5f7}
td.l,th.l{text-align:left}tr.failed td{background:#fdecec}
.badge{display:inline-block;padding:0 5px;border-radius:3px;font-size:11px;color:#fff;background:#c62828}
.met{color:#1b7a2c}.missed{color:#c62828;font-weight:bold}
ul.warnings li{margin:3px 0}ul.warnings .kind{font-weight:bold;color:#c62828}p.ok{color:#1b7a2c}
p.note{color:#57606a;font-size:12px;margin:4px 0}
svg.chart{display:block;margin:6px 0;font-size:12px;max-width:100%;height:auto}
svg .grid{stroke:#e4e8ec}svg .axis{stroke:#57606a}svg .ref{stroke:#1d2329;stroke-dasharray:4 3}
svg .tick{fill:#57606a;font-size:11px}svg .axis-title{fill:#1d2329;font-size:12px}svg .label{fill:#1d2329}
svg .value{fill:#1d2329;font-size:11px}svg .fail-label{fill:#c62828;font-weight:bold;font-size:11px}
svg .bar{fill:#4e79a7}svg .bar.failed{fill:#e07a7a}svg .whisker{stroke:#1d2329;stroke-width:1.5}
svg polyline{fill:none;stroke-width:1.8}svg polyline.baseline{stroke-width:1.2;stroke-dasharray:5 3}
svg circle.slo{fill:#fff;stroke-width:2}
svg .legend-line{stroke-width:3}svg .legend-line.baseline{stroke-width:1.5;stroke-dasharray:5 3}
.s0{stroke:#4e79a7}.s1{stroke:#f28e2b}.s2{stroke:#59a14f}.s3{stroke:#e15759}.s4{stroke:#76b7b2}
.s5{stroke:#edc948}.s6{stroke:#b07aa1}.s7{stroke:#ff9da7}.s8{stroke:#9c755f}.s9{stroke:#3b3b3b}
)";

constexpr const char* kMissing = "\u2013";  // an en dash where a value is not a number
std::string number(double v, int digits) { return fixed(v, digits, kMissing); }
std::string ms(double seconds) { return number(1e3 * seconds, 3); }
std::string percent(double fraction, int digits) { return number(100 * fraction, digits) + "%"; }
std::string series_class(size_t i) { return fmt::format("s{}", i % kPalette); }

std::string loss_text(const TenantResult& t) {
  if (!std::isfinite(t.vgpu_loss)) return "\u2013";
  std::string s = percent(t.vgpu_loss, 1);
  if (loss_interval_shown(t))
    s += " \u00b1 " + number(100 * t.vgpu_loss_ci95, 1);
  else if (std::isfinite(t.vgpu_loss_ci95))
    s += " (fixed input: no interval)";
  return s;
}

// The trust band's cell: the validated MAPE / p90 of this kind of prediction, or none.
std::string trust_cell(const TenantResult& t) {
  if (t.trust.cls.empty()) return "<span class=\"note\">no validation covers this case</span>";
  return fmt::format("<span title=\"{}\">{} / {} <span class=\"note\">({}{}, {} cases)</span></span>",
                     escape(trust_text(t.trust)), number(t.trust.row.mape, 1) + "%", number(t.trust.row.p90, 1) + "%",
                     escape(t.trust.cls), t.trust.match == "exact" ? "" : ", " + t.trust.match, t.trust.row.cases);
}

std::string slo_text(const SloResult& s) {
  return fmt::format("{}p{:g} \u2264 {}: {} within", s.metric.empty() ? "" : s.metric + " ", s.percentile,
                     units::format(s.bound, units::Dim::Time), percent(s.attainment, 2));
}

// A chart's legend at the right of its plot area: a coloured line and a name per entry.
std::string legend(double x, double y, const std::vector<std::pair<std::string, std::string>>& entries) {
  std::string out;
  for (size_t i = 0; i < entries.size(); ++i) {
    const double yy = y + 18.0 * static_cast<double>(i);
    if (entries[i].second.find("slo") != std::string::npos)
      out += svg::circle(x + 11, yy - 4, 4, entries[i].second);
    else
      out += svg::line(x, yy - 4, x + 22, yy - 4, "legend-line " + entries[i].second);
    out += svg::text(x + 28, yy, svg::shorten(entries[i].first, 28), "label");
  }
  return out;
}

// The smallest 1-2-5 value >= v (up) or the largest <= v (down); v > 0.
double nice_125(double v, bool up) {
  const double mag = std::pow(10.0, std::floor(std::log10(v)));
  const double steps[] = {1, 2, 5, 10};
  if (up) {
    for (double m : steps)
      if (m * mag >= v * (1 - 1e-12)) return m * mag;
    return 10 * mag;
  }
  for (int i = 3; i >= 0; --i)
    if (steps[i] * mag <= v * (1 + 1e-12)) return steps[i] * mag;
  return mag;
}

// An axis maximum >= v that falls on a linear tick, and the ticks of [0, that maximum].
std::vector<double> linear_axis(double v, int target) {
  std::vector<double> ticks = svg::linear_ticks(0, v, target);
  if (ticks.size() >= 2 && ticks.back() < v * (1 - 1e-9)) ticks.push_back(2 * ticks.back() - ticks[ticks.size() - 2]);
  return ticks;
}

std::string header(const Results& r) {
  std::string out = "<header>\n<div class=\"kicker\">vgpusim report</div>\n<h1>" + escape(r.scenario_name) + "</h1>\n";
  out += "<dl class=\"meta\">\n";
  auto item = [&](const std::string& k, const std::string& v) { out += "<dt>" + k + "</dt><dd>" + v + "</dd>\n"; };
  item("scenario file", escape(r.scenario_file));
  item("seed", std::to_string(r.seed));
  item("fidelity", escape(r.fidelity));
  item("simulated time",
       number(r.end, 3) + " s" + (std::isfinite(r.duration) ? " (duration " + number(r.duration, 3) + " s)" : ""));
  item("events", std::to_string(r.events));
  item("tenants / GPU targets", fmt::format("{} / {}", r.tenants.size(), r.gpus.size()));
  return out + "</dl>\n</header>\n";
}

std::string warnings(const Results& r) {
  std::string items;
  for (const TenantResult& t : r.tenants) {
    for (const Failure& f : t.failures)
      items += fmt::format("<li><span class=\"kind\">{}</span>: tenant <b>{}</b> at {} s: {}</li>\n",
                           f.kind == "out_of_memory" ? "out of memory" : escape(f.kind), escape(t.name),
                           number(f.time, 3), escape(f.message));
    for (const SloResult& s : t.slo)
      if (!s.met)
        items += fmt::format("<li><span class=\"kind\">missed SLO</span>: tenant <b>{}</b>: {} (needs {})</li>\n",
                             escape(t.name), escape(slo_text(s)), percent(s.percentile / 100, 2));
    for (const std::string& w : t.warnings)
      items += fmt::format("<li><span class=\"kind\">not steady</span>: tenant <b>{}</b>: {}</li>\n", escape(t.name),
                           escape(w));
  }
  std::string out = "<section id=\"warnings\">\n<h2>Warnings</h2>\n";
  if (items.empty()) return out + "<p class=\"ok\">No failures or warnings; every SLO met.</p>\n</section>\n";
  return out + "<ul class=\"warnings\">\n" + items + "</ul>\n</section>\n";
}

std::string loss_chart(const Results& r) {
  double top_value = 1.0;
  size_t name_chars = 4;
  for (const TenantResult& t : r.tenants) {
    const double ci = std::isfinite(t.vgpu_loss_ci95) ? t.vgpu_loss_ci95 : 0.0;
    if (std::isfinite(t.relative_performance)) top_value = std::max(top_value, t.relative_performance + ci);
    name_chars = std::max(name_chars, std::min<size_t>(t.name.size(), 28));
  }
  const double row = 24, label_w = std::min(230.0, 16 + 7.4 * static_cast<double>(name_chars));
  const svg::PlotArea a{label_w + 10, 26, svg::kChartWidth - 190, 26 + row * static_cast<double>(r.tenants.size())};
  const std::vector<double> ticks = linear_axis(top_value * 1.05, 6);
  const svg::Scale x{0, ticks.back(), a.left, a.right};
  std::string out = svg::open(svg::kChartWidth, a.bottom + 44, "chart-loss",
                              "Relative performance of each tenant, shared over alone (1.0 = no vGPU loss)");
  out += svg::x_axis(a, x, ticks, "relative performance (shared / alone)");
  for (size_t i = 0; i < r.tenants.size(); ++i) {
    const TenantResult& t = r.tenants[i];
    const double y = a.top + row * static_cast<double>(i), mid = y + row / 2;
    const bool failed = !t.failures.empty();
    out += svg::text(a.left - 8, mid + 4, svg::shorten(t.name, 28), "label", "end");
    double label_x = a.left + 6;
    if (std::isfinite(t.relative_performance)) {
      const double rel = std::max(0.0, t.relative_performance);
      out += svg::rect(a.left, y + 5, x(rel) - a.left, row - 10, failed ? "bar failed" : "bar",
                       t.name + ": " + number(t.relative_performance, 3));
      label_x = x(rel) + 6;
      if (std::isfinite(t.vgpu_loss_ci95) && t.vgpu_loss_ci95 > 0) {
        const double lo = x(std::max(0.0, rel - t.vgpu_loss_ci95)), hi = x(rel + t.vgpu_loss_ci95);
        out += svg::line(lo, mid, hi, mid, "whisker") + svg::line(lo, mid - 4, lo, mid + 4, "whisker") +
               svg::line(hi, mid - 4, hi, mid + 4, "whisker");
        label_x = hi + 6;
      }
    }
    const std::string value = std::isfinite(t.relative_performance)
                                  ? number(t.relative_performance, 3) + "  (loss " + loss_text(t) + ")"
                                  : "no result";
    out += svg::text(label_x, mid + 4, value, "value");
    if (failed)
      out += svg::text(std::max(label_x, svg::kChartWidth - 185), mid + 4, "FAILED: " + t.failures.front().kind,
                       "fail-label");
  }
  out += svg::line(x(1.0), a.top - 6, x(1.0), a.bottom, "ref");
  out += svg::text(x(1.0), a.top - 10, "alone = 1.0", "tick", "middle");
  return out + svg::close();
}

std::string tenant_table(const Results& r) {
  std::string out =
      "<table class=\"tenants\">\n<tr><th class=\"l\">tenant</th><th class=\"l\">GPU</th><th class=\"l\">workload"
      "</th><th>units</th><th>per s shared</th><th>per s alone</th><th>relative</th><th>vGPU loss \u00b1 95% CI</th>"
      "<th>p50 ms</th><th>p95 ms</th><th>p99 ms</th><th class=\"l\">SLO</th><th class=\"l\">trust band: validated "
      "MAPE / p90</th></tr>\n";
  for (const TenantResult& t : r.tenants) {
    const bool failed = !t.failures.empty();
    const auto& lat = t.shared.latency;
    std::string slo;
    for (const SloResult& s : t.slo)
      slo += fmt::format("{}<span class=\"{}\">{}: {}</span>", slo.empty() ? "" : "<br>", s.met ? "met" : "missed",
                         s.met ? "met" : "MISSED", escape(slo_text(s)));
    out += fmt::format(
        "<tr{}><td class=\"l\">{}{}</td><td class=\"l\">{}</td><td class=\"l\">{}</td><td>{} {}</td><td>{}</td>"
        "<td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td class=\"l wrap\">{}</td>"
        "<td class=\"l wrap\">{}</td></tr>\n",
        failed ? " class=\"failed\"" : "", escape(t.name), failed ? " <span class=\"badge\">failed</span>" : "",
        escape(t.gpu), escape(t.workload), t.shared.units, escape(t.unit), number(t.shared.throughput, 3),
        number(t.baseline.throughput, 3), number(t.relative_performance, 3), loss_text(t), lat ? ms(lat->p50) : "\u2013",
        lat ? ms(lat->p95) : "\u2013", lat ? ms(lat->p99) : "\u2013", slo.empty() ? "\u2013" : slo, trust_cell(t));
  }
  out += "</table>\n<p class=\"note\">Trust band: how far predictions of this kind missed measurements no one here "
         "made (the validation suite's held-out cases, docs/validation.md#trust-bands); the \u00b1 interval is only "
         "the spread across replications or batches.</p>\n<ul class=\"trust\">\n";
  for (const TenantResult& t : r.tenants)
    out += fmt::format("<li><b>{}</b>: {}</li>\n", escape(t.name), escape(trust_text(t.trust)));
  return out + "</ul>\n";
}

// Trace replays: where an iteration's time went (the critical path's parts), shared and alone. Empty when no
// tenant's workload says.
std::string critical_paths(const Results& r) {
  std::vector<std::string> names;  // the parts, in the first tenant's order
  for (const TenantResult& t : r.tenants)
    for (const auto& [name, seconds] : t.shared.unit_parts)
      if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  if (names.empty()) return "";
  std::string out =
      "<section id=\"critical-path\">\n<h2>Critical path</h2>\n<p class=\"note\">Trace replays: the mean critical "
      "path of one iteration, ms by part (docs/trace-replay.md): host work (<code>cpu</code>), launch latency, ops "
      "on the main stream (<code>gpu</code>), on other streams, and collectives. The parts add up to the "
      "iteration; a path that is mostly host time does not get faster on a faster GPU.</p>\n<table class=\"tenants\">"
      "\n<tr><th class=\"l\">tenant</th><th class=\"l\">run</th>";
  for (const std::string& n : names) out += "<th>" + escape(n) + "</th>";
  out += "<th>iteration</th></tr>\n";
  for (const TenantResult& t : r.tenants) {
    if (t.shared.unit_parts.empty()) continue;
    for (const auto& [label, p] : {std::pair{"shared", &t.shared}, std::pair{"alone", &t.baseline}}) {
      out += fmt::format("<tr><td class=\"l\">{}</td><td class=\"l\">{}</td>", escape(t.name), label);
      double total = 0;
      for (const std::string& n : names) {
        double v = std::numeric_limits<double>::quiet_NaN();
        for (const auto& [name, seconds] : p->unit_parts)
          if (name == n) v = seconds;
        if (std::isfinite(v)) total += v;
        out += "<td>" + ms(v) + "</td>";
      }
      out += "<td>" + ms(total) + "</td></tr>\n";
    }
  }
  return out + "</table>\n</section>\n";
}

// Why each tenant slowed: where its time went shared and alone (ContextTimes), per unit for closed-loop tenants
// (with the difference: the unit's extra time by cause), as shares of its time for open-loop ones. Empty when no
// tenant has a time split.
std::string slowdown_causes(const Results& r) {
  std::string rows;
  for (const TenantResult& t : r.tenants) {
    if (t.shared.time_split.empty() || t.baseline.time_split.empty()) continue;
    const bool per_unit = !t.slowdown_causes.empty();
    const auto row = [&](const std::string& label, const std::vector<std::pair<std::string, double>>& parts,
                         double scale) {
      std::string out = fmt::format("<tr><td class=\"l\">{}</td><td class=\"l\">{}</td>", escape(t.name), label);
      double total = 0;
      for (const auto& [name, value] : parts) {
        total += value * scale;
        out += "<td>" + number(value * scale, 3) + "</td>";
      }
      return out + "<td>" + number(total, 3) + "</td></tr>\n";
    };
    if (per_unit) {
      rows += row("shared, ms per unit", t.shared.time_split, 1e3 / t.shared.throughput);
      rows += row("alone, ms per unit", t.baseline.time_split, 1e3 / t.baseline.throughput);
      rows += row("<b>added by sharing</b>, ms per unit", t.slowdown_causes, 1e3);
    } else {
      rows += row("shared, % of its time", t.shared.time_split, 100);
      rows += row("alone, % of its time", t.baseline.time_split, 100);
    }
  }
  if (rows.empty()) return "";
  std::string out =
      "<section id=\"why\">\n<h2>Why each tenant slowed</h2>\n<p class=\"note\">Where each tenant's time went "
      "(docs/results-schema.md#why-a-tenant-slowed): <code>running</code> its GPU work at its solo speed (more of it "
      "on a slower partition), <code>slowed</code> the time lost running beside kernels that share SMs or memory "
      "bandwidth, <code>waiting</code> work queued while another tenant's kernels ran, <code>withheld</code> time "
      "the mode kept while no one else's work ran (context switches, scheduler gaps, limits, virtualization "
      "overhead), <code>off_gpu</code> no work on the "
      "GPU (host time, launch gaps, waiting for requests). Closed-loop workloads: ms per unit, and what sharing "
      "added; open-loop: shares of the tenant's time.</p>\n<table class=\"tenants\">\n<tr><th class=\"l\">tenant"
      "</th><th class=\"l\">run</th>";
  for (const char* name : kTimeParts) out += fmt::format("<th>{}</th>", name);
  return out + "<th>total</th></tr>\n" + rows + "</table>\n</section>\n";
}

// Workloads with per-request figures and counts (an LLM server's ttft, tpot, tokens/s): one row per tenant and run,
// shared and alone. Empty when no tenant has any.
std::string request_figures(const Results& r) {
  std::vector<std::string> samples, counts;  // names, in the order the tenants give them
  for (const TenantResult& t : r.tenants) {
    for (const SampleSummary& s : t.shared.samples)
      if (std::find(samples.begin(), samples.end(), s.name) == samples.end()) samples.push_back(s.name);
    for (const CountSummary& c : t.shared.counts)
      if (std::find(counts.begin(), counts.end(), c.name) == counts.end()) counts.push_back(c.name);
  }
  if (samples.empty() && counts.empty()) return "";
  std::string out =
      "<section id=\"request-figures\">\n<h2>Per-request figures</h2>\n<p class=\"note\">Workloads that time more "
      "than a request's latency (an LLM server: time to first token <code>ttft</code> and per output token "
      "<code>tpot</code>, docs/models/llm.md): p50 / p99 in ms; then what they count, per second of the tenant's "
      "run (<code>kv_cache_busy_s</code>: the mean share of the KV cache in use).</p>\n<table class=\"tenants\">\n"
      "<tr><th class=\"l\">tenant</th><th class=\"l\">run</th>";
  for (const std::string& n : samples) out += "<th>" + escape(n) + " p50 / p99</th>";
  for (const std::string& n : counts) out += "<th>" + escape(n) + " /s</th>";
  out += "</tr>\n";
  for (const TenantResult& t : r.tenants) {
    if (t.shared.samples.empty() && t.shared.counts.empty()) continue;
    for (const auto& [label, p] : {std::pair{"shared", &t.shared}, std::pair{"alone", &t.baseline}}) {
      out += fmt::format("<tr><td class=\"l\">{}</td><td class=\"l\">{}</td>", escape(t.name), label);
      for (const std::string& n : samples) {
        const auto s = std::find_if(p->samples.begin(), p->samples.end(),
                                    [&](const SampleSummary& x) { return x.name == n && x.count > 0; });
        out += s == p->samples.end() ? "<td>" + std::string(kMissing) + "</td>"
                                     : "<td>" + ms(s->p50) + " / " + ms(s->p99) + "</td>";
      }
      for (const std::string& n : counts) {
        const auto c = std::find_if(p->counts.begin(), p->counts.end(), [&](const CountSummary& x) { return x.name == n; });
        out += "<td>" + (c == p->counts.end() ? std::string(kMissing) : number(c->rate, 3)) + "</td>";
      }
      out += "</tr>\n";
    }
  }
  return out + "</table>\n</section>\n";
}

std::string latency_chart(const Results& r) {
  std::vector<const TenantResult*> inference;
  double lo = INFINITY, hi = 0;
  for (const TenantResult& t : r.tenants) {
    if (t.shared.latency_cdf.empty()) continue;
    inference.push_back(&t);
    for (const Performance* p : {&t.shared, &t.baseline})
      for (const auto& [latency, fraction] : p->latency_cdf)
        if (latency > 0) lo = std::min(lo, 1e3 * latency), hi = std::max(hi, 1e3 * latency);
    for (const SloResult& s : t.slo)
      if (s.metric.empty()) hi = std::max(hi, 1e3 * s.bound);
  }
  if (inference.empty()) return "<p class=\"note\">No inference tenant: no latency distribution to show.</p>\n";
  if (!(hi > 0)) lo = 0.1, hi = 1;
  const bool log = hi / lo > 20;
  svg::Scale x{0, 0, 80, svg::kChartWidth - 230, log};
  std::vector<double> ticks;
  if (log) {
    x.lo = nice_125(lo, false), x.hi = nice_125(hi, true);
    ticks = svg::log_ticks(x.lo, x.hi);
  } else {
    ticks = linear_axis(hi, 8);
    x.hi = ticks.back();
  }
  const double height = std::max(340.0, 80 + 18.0 * static_cast<double>(inference.size() + 2));
  const svg::PlotArea a{x.from, 14, x.to, height - 48};
  const svg::Scale y{0, 1, a.bottom, a.top};
  std::string out = svg::open(svg::kChartWidth, height, "chart-latency",
                              "Latency distribution (CDF) of each inference tenant, shared and alone");
  out += svg::x_axis(a, x, ticks, log ? "latency, ms (log scale)" : "latency, ms");
  out += svg::y_axis(a, y, {0, 0.25, 0.5, 0.75, 1}, "fraction of requests \u2264 latency");
  std::vector<std::pair<std::string, std::string>> entries;
  for (size_t i = 0; i < inference.size(); ++i) {
    for (const Performance* p : {&inference[i]->baseline, &inference[i]->shared}) {
      std::vector<std::pair<double, double>> points;
      for (const auto& [latency, fraction] : p->latency_cdf)
        points.emplace_back(x(std::clamp(1e3 * latency, x.lo, x.hi)), y(fraction));
      if (!points.empty())
        out += svg::polyline(points, "series " + series_class(i) + (p == &inference[i]->shared ? "" : " baseline"));
    }
    for (const SloResult& s : inference[i]->slo)
      if (s.metric.empty())  // targets on other figures than the latency are not on this chart
        out += svg::circle(x(std::clamp(1e3 * s.bound, x.lo, x.hi)), y(s.percentile / 100), 4, "slo " + series_class(i),
                         inference[i]->name + " SLO: " + slo_text(s) + (s.met ? ", met" : ", MISSED"));
    entries.emplace_back(inference[i]->name, series_class(i));
  }
  entries.emplace_back("dashed: same tenant alone", "s9 baseline");
  entries.emplace_back("SLO: bound at its percentile", "s9 slo");
  out += legend(a.right + 20, a.top + 12, entries);
  return out + svg::close();
}

// Averages runs of equal-width bins so that at most kMaxSteps steps are drawn; the interval grows to match.
std::pair<std::vector<double>, double> drawable(const GpuResult& g) {
  const size_t stride = (g.series.size() + kMaxSteps - 1) / kMaxSteps;
  if (stride <= 1) return {g.series, g.interval};
  std::vector<double> out;
  for (size_t k = 0; k < g.series.size(); k += stride) {
    const size_t n = std::min(stride, g.series.size() - k);
    double sum = 0;
    for (size_t j = k; j < k + n; ++j) sum += g.series[j];
    out.push_back(sum / static_cast<double>(n));
  }
  return {out, g.interval * static_cast<double>(stride)};
}

// One chart per physical GPU; a MIG GPU's partitions ("gpu/partition") share their GPU's chart.
std::string utilization_charts(const Results& r) {
  std::map<std::string, std::vector<const GpuResult*>> by_gpu;
  std::vector<std::string> order;
  for (const GpuResult& g : r.gpus) {
    const std::string gpu = g.id.substr(0, g.id.find('/'));
    if (!by_gpu.count(gpu)) order.push_back(gpu);
    by_gpu[gpu].push_back(&g);
  }
  std::string out;
  for (const std::string& gpu : order) {
    const std::vector<const GpuResult*>& members = by_gpu[gpu];
    double top_value = 1.0;
    for (const GpuResult* g : members)
      for (double v : g->series) top_value = std::max(top_value, v);
    const std::vector<double> yticks = linear_axis(top_value, 4);
    const double height = std::max(200.0, 70 + 18.0 * static_cast<double>(members.size()));
    const svg::PlotArea a{80, 12, svg::kChartWidth - 250, height - 48};
    const std::vector<double> xticks = svg::linear_ticks(0, std::max(r.end, 1e-9), 10);
    const svg::Scale x{0, std::max(r.end, 1e-9), a.left, a.right}, y{0, yticks.back(), a.bottom, a.top};
    out += "<h3>" + escape(gpu) + "</h3>\n";
    out += svg::open(svg::kChartWidth, height, "chart-utilization", "Utilization over time of GPU " + gpu);
    out += svg::x_axis(a, x, xticks, "simulated time, s");
    out += svg::y_axis(a, y, yticks, "utilization");
    std::vector<std::pair<std::string, std::string>> entries;
    for (size_t i = 0; i < members.size(); ++i) {
      const GpuResult& g = *members[i];
      const auto [values, interval] = drawable(g);
      std::vector<std::pair<double, double>> points;
      for (size_t k = 0; k < values.size(); ++k) {
        const double t0 = interval * static_cast<double>(k), t1 = std::min(r.end, t0 + interval);
        points.emplace_back(x(t0), y(values[k]));
        points.emplace_back(x(t1), y(values[k]));
      }
      if (!points.empty()) out += svg::polyline(points, "series " + series_class(i));
      entries.emplace_back(fmt::format("{} mean {}", g.id, percent(g.utilization, 1)), series_class(i));
    }
    out += legend(a.right + 20, a.top + 12, entries);
    out += svg::close();
  }
  out +=
      "<table class=\"gpus\">\n<tr><th class=\"l\">target</th><th class=\"l\">model</th><th class=\"l\">mode</th>"
      "<th>mean utilization</th><th>busy</th><th>interval s</th></tr>\n";
  for (const GpuResult& g : r.gpus)
    out += fmt::format(
        "<tr><td class=\"l\">{}</td><td class=\"l\">{}</td><td class=\"l\">{}</td><td>{}</td>"
        "<td>{}</td><td>{}</td></tr>\n",
        escape(g.id), escape(g.model), escape(g.mode), percent(g.utilization, 2), percent(g.busy_fraction, 2),
        number(g.interval, 3));
  return out + "</table>\n";
}

std::string comparisons(const Results& r) {
  if (r.comparisons.empty()) return "";
  std::string out =
      "<section id=\"comparisons\">\n<h2>Prediction vs article</h2>\n<table class=\"comparisons\">\n"
      "<tr><th class=\"l\">claim</th><th class=\"l\">metric</th><th>predicted</th><th>article</th>"
      "<th>difference</th><th class=\"l\">source</th></tr>\n";
  for (const ComparisonResult& c : r.comparisons)
    out += fmt::format(
        "<tr><td class=\"l wrap\">{}</td><td class=\"l\">{}</td><td>{}</td><td>{}</td><td>{}</td>"
        "<td class=\"l wrap\">{}</td></tr>\n",
        escape(c.name), escape(c.metric), number(c.predicted, 4), number(c.article, 4),
        std::isfinite(c.difference) ? fmt::format("{:+.1f}%", 100 * c.difference) : "\u2013", escape(c.source));
  return out + "</table>\n</section>\n";
}

}  // namespace

std::string results_html(const Results& r) {
  std::string out = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  out += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
  out += "<meta name=\"generator\" content=\"vgpusim\">\n";
  out += "<title>vgpusim: " + escape(r.scenario_name) + "</title>\n<style>" + kStyle + "</style>\n</head>\n<body>\n";
  out += header(r);
  out += warnings(r);
  out += "<section id=\"loss\">\n<h2>vGPU loss</h2>\n";
  out +=
      "<p class=\"note\">Bar: performance shared over the same tenant alone on the same GPU (1.0 = no loss). "
      "Closed-loop workloads: throughput ratio; inference: mean latency alone over shared. Whisker: 95% "
      "confidence interval from the simulation's own sampling noise. Red: the tenant failed.</p>\n";
  out += loss_chart(r) + "</section>\n";
  out += "<section id=\"tenants\">\n<h2>Tenants</h2>\n" + tenant_table(r) + "</section>\n";
  out += slowdown_causes(r);
  out += critical_paths(r);
  out += request_figures(r);
  out += "<section id=\"latency\">\n<h2>Latency distributions</h2>\n" + latency_chart(r) + "</section>\n";
  out += "<section id=\"utilization\">\n<h2>Utilization over time</h2>\n";
  out +=
      "<p class=\"note\">Useful work delivered per metrics interval: 1.0 = one bare-metal GPU's worth every "
      "second; context switches and virtualization overhead are not useful work. Partitions share their GPU's "
      "chart.</p>\n";
  out += utilization_charts(r) + "</section>\n";
  out += comparisons(r);
  out +=
      "<footer><p class=\"note\">Generated by vgpusim. Numbers as in results.json (docs/results-schema.md); this "
      "page is described in docs/report.md.</p></footer>\n</body>\n</html>\n";
  return out;
}

const char* report_css() { return kStyle; }

RunFormat html_run_format() {
  return {"html", "", "a self-contained HTML report (--report FILE)", false,
          [](const RunReport& r) { return results_html(r.results); }};
}

}  // namespace vgpusim
