// The HTML report: every section and chart is there, scenario text is escaped, nothing is fetched from outside,
// missing numbers never print as nan; plus the SVG primitives' ticks and escaping.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <regex>

#include "sim/io/gpu_catalog.hpp"
#include "sim/run/metrics.hpp"
#include "sim/report/run_formats.hpp"
#include "sim/scenario/loader.hpp"
#include "sim/run/simulation.hpp"
#include "sim/report/svg.hpp"
#include "tests/unit/scenario_helpers.hpp"

namespace unit_report_html {

using namespace vgpusim;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) ++n;
  return n;
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

TenantResult tenant(const std::string& name, const std::string& gpu, double relative) {
  TenantResult t;
  t.name = name;
  t.gpu = gpu;
  t.workload = "training";
  t.unit = "iterations";
  t.finished = false;
  t.completion = kNaN;
  t.shared.units = 120;
  t.shared.throughput = 12 * relative;
  t.baseline.units = 240;
  t.baseline.throughput = 12;
  t.relative_performance = relative;
  t.slowdown = 1 / relative;
  t.vgpu_loss = 1 - relative;
  t.vgpu_loss_ci95 = 0.02;
  return t;
}

Performance inference_perf(double scale) {
  Performance p;
  p.units = 400;
  p.throughput = 40;
  p.latency = LatencySummary{0.010 * scale, 0.008 * scale, 0.02 * scale, 0.03 * scale, 0.05 * scale};
  for (int k = 0; k <= 100; ++k) p.latency_cdf.emplace_back(scale * (0.004 + 0.0004 * k), k / 100.0);
  return p;
}

// Two trainers and an inference service on a time-sliced g0, one trainer on a MIG instance of g1 that ran out
// of memory, and a comparison with an article.
Results hand_built() {
  Results r;
  r.scenario_name = "chat & <b>bold</b> next to trainers";
  r.scenario_file = "scenarios/test.yaml";
  r.fidelity = "exact";
  r.seed = 42;
  r.duration = 10;
  r.end = 10;
  r.events = 12345;
  r.tenants.push_back(tenant("<script>alert('x')</script>", "g0", 0.48));
  r.tenants.push_back(tenant("trainer-b", "g0", 0.47));
  TenantResult chat = tenant("chat", "g0", 0.8);
  chat.workload = "inference";
  chat.unit = "requests";
  chat.shared = inference_perf(1.25);
  chat.baseline = inference_perf(1.0);
  chat.slo.push_back({99, 0.025, 0.93, false});
  r.tenants.push_back(chat);
  TenantResult oom = tenant("oom-job", "g1/i1", kNaN);
  oom.vgpu_loss_ci95 = kNaN;
  oom.shared.units = 0;
  oom.failures.push_back({"out_of_memory", 1.0, "needs 6 GiB, 2 GiB free"});
  r.tenants.push_back(oom);
  for (const std::string id : {"g0", "g1/i0", "g1/i1"}) {
    GpuResult g;
    g.id = id;
    g.model = "H100-SXM";
    g.mode = id == "g0" ? "timeslice" : "mig";
    g.utilization = 0.9;
    g.busy_fraction = 0.95;
    g.interval = 0.5;
    for (int k = 0; k < 20; ++k) g.series.push_back(0.8 + 0.01 * k);
    r.gpus.push_back(g);
  }
  r.comparisons.push_back({"trainer keeps half the GPU", "relative_performance", "seed article", 0.48, 0.5, -0.04});
  return r;
}

Results run_text(const std::string& text) { return testing_support::run_text(text, "test.yaml"); }

}  // namespace

TEST(ReportHtml, HasEverySectionAndChart) {
  const std::string html = results_html(hand_built());
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_NE(html.find("<meta charset=\"utf-8\">"), std::string::npos);
  for (const char* id : {"warnings", "loss", "tenants", "latency", "utilization", "comparisons"})
    EXPECT_NE(html.find(std::string("<section id=\"") + id + "\">"), std::string::npos) << id;
  EXPECT_EQ(count(html, "class=\"chart chart-loss\""), 1u);
  EXPECT_EQ(count(html, "class=\"chart chart-latency\""), 1u);
  EXPECT_EQ(count(html, "class=\"chart chart-utilization\""), 2u);  // g0, and g1 with its two MIG instances
  EXPECT_EQ(count(html, "<svg "), 4u);
  EXPECT_EQ(count(html, "<svg "), count(html, "</svg>"));
  EXPECT_EQ(count(html, "role=\"img\" aria-label=\""), 4u);
  EXPECT_NE(html.find("Prediction vs article"), std::string::npos);
  EXPECT_NE(html.find("-4.0%"), std::string::npos);
}

TEST(ReportHtml, EscapesScenarioText) {
  const std::string html = results_html(hand_built());
  EXPECT_EQ(lower(html).find("<script"), std::string::npos);
  EXPECT_NE(html.find("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;"), std::string::npos);
  EXPECT_NE(html.find("chat &amp; &lt;b&gt;bold&lt;/b&gt; next to trainers"), std::string::npos);
  EXPECT_EQ(html.find("<b>bold"), std::string::npos);
}

TEST(ReportHtml, ReferencesNothingOutside) {
  const std::string html = lower(results_html(hand_built()));
  for (const char* ref : {"http", "src=", "href=", "url(", "@import", "<link", "<img", "<iframe", "<object"})
    EXPECT_EQ(html.find(ref), std::string::npos) << ref;
}

TEST(ReportHtml, WarnsOfFailuresAndMissedSlos) {
  const std::string html = results_html(hand_built());
  const std::string warnings = html.substr(html.find("<section id=\"warnings\">"),
                                           html.find("<section id=\"loss\">") - html.find("<section id=\"warnings\">"));
  EXPECT_NE(warnings.find("out of memory</span>: tenant <b>oom-job</b> at 1.000 s: needs 6 GiB, 2 GiB free"),
            std::string::npos);
  EXPECT_NE(warnings.find("missed SLO</span>: tenant <b>chat</b>: p99 \u2264 25 ms: 93.00% within"), std::string::npos);
  EXPECT_NE(html.find("FAILED: out_of_memory"), std::string::npos);  // marked in the loss chart
  EXPECT_NE(html.find("<tr class=\"failed\">"), std::string::npos);  // and in the table
  EXPECT_NE(html.find("class=\"bar\""), std::string::npos);
  EXPECT_NE(html.find("class=\"whisker\""), std::string::npos);
  EXPECT_NE(html.find("0.480  (loss 52.0% \u00b1 2.0)"), std::string::npos);
}

TEST(ReportHtml, QuietRunHasNoWarningsNorComparisons) {
  Results r = hand_built();
  r.comparisons.clear();
  r.tenants.erase(r.tenants.begin() + 2, r.tenants.end());
  const std::string html = results_html(r);
  EXPECT_NE(html.find("No failures or warnings; every SLO met."), std::string::npos);
  EXPECT_EQ(html.find("id=\"comparisons\""), std::string::npos);
  EXPECT_EQ(html.find("chart-latency"), std::string::npos);
  EXPECT_NE(html.find("No inference tenant"), std::string::npos);
}

TEST(ReportHtml, MissingNumbersNeverPrintAsNan) {
  const std::string html = results_html(hand_built());
  EXPECT_FALSE(std::regex_search(html, std::regex("\\b(nan|inf)\\b", std::regex::icase)));
}

TEST(ReportHtml, WholePipelineDrawsEachInferenceTenantSharedAndAlone) {
  const Results r = run_text(R"(version: 1
name: chat next to a trainer
duration: 2s
gpus: [{id: g0, model: H100-SXM}]
sharing: {g0: {mode: timeslice, slice: 2ms, switch_cost: 40us}}
tenants:
  - name: chat
    on: g0
    workload: {inference: {rate: 50/s, request: {flops: 0.2TFLOP}, kernels_per_request: 4, slo: {p99: 20ms}}}
  - {name: train, on: g0, workload: {training: {step: {flops: 20TFLOP}, kernels_per_step: 20}}}
)");
  ASSERT_FALSE(r.tenants[0].shared.latency_cdf.empty());
  const std::string html = results_html(r);
  EXPECT_EQ(count(html, "<polyline class=\"series s0\""), 2u);  // chat's CDF, and g0's utilization
  EXPECT_EQ(count(html, "<polyline class=\"series s0 baseline\""), 1u);
  EXPECT_EQ(count(html, "<svg "), 3u);
  EXPECT_NE(html.find("latency, ms"), std::string::npos);
  EXPECT_EQ(lower(html).find("<script"), std::string::npos);
}

TEST(ReportSvg, TicksFallOnOneTwoFiveSteps) {
  const std::vector<double> tenths = svg::linear_ticks(0, 1.1, 6);
  ASSERT_EQ(tenths.size(), 6u);  // 0, 0.2, ..., 1.0
  for (size_t k = 0; k < tenths.size(); ++k) EXPECT_NEAR(tenths[k], 0.2 * static_cast<double>(k), 1e-12);
  EXPECT_EQ(svg::linear_ticks(0, 60, 10).size(), 7u);  // 0, 10, ..., 60
  const std::vector<double> log = svg::log_ticks(0.5, 200);
  ASSERT_EQ(log.size(), 9u);  // 0.5 1 2 5 10 20 50 100 200
  EXPECT_DOUBLE_EQ(log.front(), 0.5);
  EXPECT_DOUBLE_EQ(log.back(), 200);
  EXPECT_EQ(svg::log_ticks(0.01, 1e4).size(), 7u);  // decades only past three decades
  EXPECT_EQ(svg::tick_label(0.30000000000000004), "0.3");
  EXPECT_EQ(svg::tick_label(1000), "1000");
}

TEST(ReportSvg, EscapesAndShortensText) {
  EXPECT_EQ(svg::escape("a<b & \"c\" 'd'>"), "a&lt;b &amp; &quot;c&quot; &#39;d&#39;&gt;");
  EXPECT_EQ(svg::shorten("abcdef", 4), "abcd\u2026");
  EXPECT_EQ(svg::shorten("\u00e9\u00e9\u00e9", 2), "\u00e9\u00e9\u2026");  // counts characters, not bytes
  EXPECT_EQ(svg::shorten("abc", 3), "abc");
  EXPECT_EQ(svg::coord(12.5), "12.5");
  EXPECT_EQ(svg::coord(-0.001), "0");
  const svg::Scale log{1, 100, 0, 200, true};
  EXPECT_DOUBLE_EQ(log(10), 100);
}

// An LLM server's per-request figures and counts get a table, shared and alone; other runs do not.
TEST(ReportHtml, LlmServersShowTheirPerRequestFigures) {
  EXPECT_EQ(results_html(hand_built()).find("<section id=\"request-figures\">"), std::string::npos);
  Results r = hand_built();
  r.tenants[0].workload = "llm";
  r.tenants[0].shared.samples = {{"ttft", 100, 0.05, 0.040, 0.080, 0.250}, {"tpot", 100, 0.02, 0.015, 0.018, 0.030}};
  r.tenants[0].baseline.samples = {{"ttft", 100, 0.03, 0.020, 0.040, 0.100}};
  r.tenants[0].shared.counts = {{"output_tokens", 6000, 600}};
  const std::string html = results_html(r);
  const size_t at = html.find("<section id=\"request-figures\">");
  ASSERT_NE(at, std::string::npos);
  const std::string section = html.substr(at, html.find("</section>", at) - at);
  EXPECT_NE(section.find("<th>ttft p50 / p99</th>"), std::string::npos) << section;
  EXPECT_NE(section.find("<td>40.000 / 250.000</td>"), std::string::npos) << section;  // shared ttft
  EXPECT_NE(section.find("<td>20.000 / 100.000</td>"), std::string::npos) << section;  // alone ttft
  EXPECT_NE(section.find("<td>600.000</td>"), std::string::npos) << section;           // tokens/s shared
  EXPECT_EQ(count(section, "<td class=\"l\">shared</td>"), 1u);  // one tenant, shared and alone
  EXPECT_EQ(count(section, "<td class=\"l\">alone</td>"), 1u);
}

// A trace replay's critical path gets a table, shared and alone, with the parts and their sum; other runs do not.
TEST(ReportHtml, TraceReplaysShowTheirCriticalPath) {
  EXPECT_EQ(results_html(hand_built()).find("<section id=\"critical-path\">"), std::string::npos);
  Results r = hand_built();
  r.tenants[1].workload = "trace";
  r.tenants[1].shared.unit_parts = {{"cpu", 0.030}, {"launch_latency", 0.001}, {"gpu", 0.050}};
  r.tenants[1].baseline.unit_parts = {{"cpu", 0.030}, {"launch_latency", 0.001}, {"gpu", 0.020}};
  const std::string html = results_html(r);
  const size_t at = html.find("<section id=\"critical-path\">");
  ASSERT_NE(at, std::string::npos);
  const std::string section = html.substr(at, html.find("</section>", at) - at);
  EXPECT_NE(section.find("<th>launch_latency</th>"), std::string::npos);
  EXPECT_NE(section.find("<td>81.000</td>"), std::string::npos) << section;  // shared: 30 + 1 + 50 ms
  EXPECT_NE(section.find("<td>51.000</td>"), std::string::npos) << section;  // alone
  EXPECT_EQ(count(section, "<td class=\"l\">trainer-b</td>"), 2u);
}

// Why each tenant slowed: a closed-loop tenant gets ms per unit shared, alone and what sharing added; an open-loop
// one shares of its time; a run without time splits gets no section.
TEST(ReportHtml, WhyEachTenantSlowedSplitsItsTime) {
  EXPECT_EQ(results_html(hand_built()).find("<section id=\"why\">"), std::string::npos);
  Results r = hand_built();
  TenantResult& t = r.tenants[1];
  t.shared.throughput = 10;   // 100 ms per unit
  t.baseline.throughput = 20;  // 50 ms
  t.shared.time_split = {{"running", 0.5}, {"slowed", 0}, {"waiting", 0.4}, {"withheld", 0.1}, {"off_gpu", 0}};
  t.baseline.time_split = {{"running", 1}, {"slowed", 0}, {"waiting", 0}, {"withheld", 0}, {"off_gpu", 0}};
  t.slowdown_causes = slowdown_causes(t, false);
  const std::string html = results_html(r);
  const size_t at = html.find("<section id=\"why\">");
  ASSERT_NE(at, std::string::npos);
  const std::string section = html.substr(at, html.find("</section>", at) - at);
  EXPECT_NE(section.find("<th>withheld</th>"), std::string::npos);
  EXPECT_NE(section.find("<td>40.000</td><td>10.000</td><td>0.000</td><td>100.000</td>"), std::string::npos) << section;
  EXPECT_NE(section.find("<td>50.000</td>"), std::string::npos) << section;  // added: 0 + 0 + 40 + 10 + 0
  EXPECT_EQ(count(section, "<tr><td class=\"l\">"), 3u);
}

}  // namespace unit_report_html
