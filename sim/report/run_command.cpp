// The scenario run command, with its progress bar.
#include "sim/report/run_command.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <thread>

#include "sim/run/runs.hpp"
#include "sim/core/units.hpp"
#include "sim/io/gpu_catalog.hpp"
#include "sim/report/run_formats.hpp"

namespace vgpusim {
namespace {

std::chrono::steady_clock::time_point g_run_started;

void draw_progress(double now, double end, uint64_t events) {
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - g_run_started).count();
  if (wall < 1.0) return;  // quick runs stay silent
  const int width = 30;
  const int filled = static_cast<int>(width * now / end);
  // The rest of this run at the pace so far (the baselines and further replications come after it).
  const std::string eta = now > 0 && now < end ? units::format(wall * (end - now) / now, units::Dim::Time) : "-";
  std::fprintf(stderr, "\r[%s%s] %5.1f%% simulated %s  %.3g events/s  ETA %s ",
               std::string(static_cast<size_t>(filled), '#').c_str(),
               std::string(static_cast<size_t>(width - filled), ' ').c_str(), 100 * now / end,
               units::format(now, units::Dim::Time).c_str(), static_cast<double>(events) / wall, eta.c_str());
  if (now >= end) std::fprintf(stderr, "\n");
}

}  // namespace

int run_scenario_command(ScenarioDocument doc, const RunOptions& options) {
  const Scenario sc = load_scenario(std::move(doc), builtin_catalog(), options.overrides);
  const auto outputs = select_outputs<RunReport>(run_formats(), options);
  bool record = false;
  for (const auto& [format, path] : outputs) record = record || format->needs_recording;
  check_run_limits(estimate_run(sc, record, options.limits), options.limits);
  g_run_started = std::chrono::steady_clock::now();
  const bool bar = options.progress && !options.quiet && ::isatty(STDERR_FILENO);
  Timeline timeline(options.timeline_window.first, options.timeline_window.second);
  const unsigned threads = options.threads > 0 ? options.threads : std::max(1u, std::thread::hardware_concurrency());
  const Results results = run_scenario(sc, bar ? draw_progress : nullptr, record ? &timeline : nullptr, threads);
  const RunReport report{results, record ? &timeline : nullptr};
  write_outputs(outputs, report);
  if (!options.quiet) std::cout << stdout_text(run_formats(), report, options.json, [&] { return results_table(results); });
  // Problems also go to stderr, quiet or not, so that scripts and CI see them.
  bool failed = false, oom = false, missed = false, warned = false;
  for (const TenantResult& t : results.tenants) {
    for (const Failure& f : t.failures) {
      std::cerr << fmt::format("warning: tenant {} failed at {}: {}\n", t.name,
                               units::format(f.time, units::Dim::Time), f.message);
      failed = true;
      oom = oom || f.kind == "out_of_memory";
    }
    for (const std::string& w : t.warnings) {
      std::cerr << fmt::format("warning: tenant {}: {}\n", t.name, w);
      warned = true;
    }
    for (const SloResult& slo : t.slo)
      if (!slo.met) {
        std::cerr << fmt::format("warning: tenant {} missed its {}p{:g} SLO of {}: {:.2f}% of requests within it\n",
                                 t.name, slo.metric.empty() ? "" : slo.metric + " ", slo.percentile, units::format(slo.bound, units::Dim::Time),
                                 100 * slo.attainment);
        missed = true;
      }
  }
  const auto asked = [&](const char* what) {
    return std::find(options.fail_on.begin(), options.fail_on.end(), what) != options.fail_on.end();
  };
  const bool any = failed || missed || warned;
  return (failed && asked("failure")) || (oom && asked("oom")) || (missed && asked("slo")) ||
                 (any && asked("warning"))
             ? kExitFailOn
             : 0;
}

}  // namespace vgpusim
