// Metrics: raw run records -> per-tenant and per-GPU results, including each tenant's vGPU loss against its
// baseline. Output writers only format what is computed here.
#pragma once

#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "sim/scenario/scenario.hpp"
#include "sim/run/simulation.hpp"
#include "sim/run/trust.hpp"

namespace vgpusim {

// Linear interpolation between closest ranks (numpy's default); `sorted` must be sorted, non-empty.
double percentile(const std::vector<double>& sorted, double pct);
// Half-width of a 95% confidence interval for the mean by batch means (10 batches), or NaN below 20 values.
double mean_ci95_halfwidth(const std::vector<double>& values);
// The two-sided 95% quantile of Student's t with `dof` degrees of freedom.
double student_t95(size_t dof);
// Half-width of a 95% interval for the mean of independent values (replications): t x sd / sqrt(n) over the finite
// ones; exactly 0 when they agree exactly; NaN below 2 finite values.
double replication_ci95_halfwidth(const std::vector<double>& values);

struct LatencySummary {
  double mean = 0, p50 = 0, p95 = 0, p99 = 0, max = 0;  // s
  // 95% half-widths of p50 and p99 across replications (s); NaN with one replication.
  double p50_ci95 = std::numeric_limits<double>::quiet_NaN();
  double p99_ci95 = std::numeric_limits<double>::quiet_NaN();
};

struct SloResult {
  double percentile = 0;  // e.g. 99
  double bound = 0;       // s
  double attainment = 0;  // fraction of requests within the bound
  bool met = false;       // attainment >= percentile / 100
  double achieved = std::numeric_limits<double>::quiet_NaN();  // s: the latency at that percentile; NaN: no units
  std::string metric = "";  // "" = the unit's latency; else a sampled figure, e.g. "ttft"
};

// A named per-request figure's distribution (e.g. an LLM server's ttft), s.
struct SampleSummary {
  std::string name;
  long long count = 0;
  double mean = 0, p50 = 0, p90 = 0, p99 = 0;
  double p50_ci95 = std::numeric_limits<double>::quiet_NaN();  // across replications
  double p99_ci95 = std::numeric_limits<double>::quiet_NaN();
};
// A named amount: its total and its rate over the tenant's active window.
struct CountSummary {
  std::string name;
  double total = 0, rate = 0;
  double rate_ci95 = std::numeric_limits<double>::quiet_NaN();  // across replications
};

struct Performance {
  long long units = 0;
  std::vector<std::pair<double, double>> latency_cdf;  // inference: (latency s, fraction <= it), <= 101 points
  double throughput = 0;  // units per second of the tenant's active window
  double throughput_ci95 = std::numeric_limits<double>::quiet_NaN();  // across replications; NaN with one
  double unit_time_mean = 0;
  double unit_time_ci95 = 0;  // NaN when too few units
  std::optional<LatencySummary> latency;  // inference only
  // Where a unit's time went, s per unit by named part (a trace replay's critical path); empty when the workload
  // does not say.
  std::vector<std::pair<std::string, double>> unit_parts;
  // Where the tenant's time went, as shares of its active window, by the parts of kTimeParts (ContextTimes; the
  // last, off_gpu, is the rest: its host time, launch gaps, waiting for requests). Empty when the window is empty.
  std::vector<std::pair<std::string, double>> time_split;
  std::vector<SampleSummary> samples;  // the workload's named per-request figures
  std::vector<CountSummary> counts;    // the workload's named amounts
};

// The parts of Performance::time_split, in order.
inline constexpr const char* kTimeParts[] = {"running", "slowed", "waiting", "withheld", "off_gpu"};

struct TenantResult {
  std::string name, gpu, workload, unit;
  double start = 0;
  double completion = 0;  // s; NaN when not finished
  bool finished = false;
  double gpu_work = 0;  // solo-seconds
  Performance shared;
  Performance baseline;
  std::vector<SloResult> slo;
  std::vector<Failure> failures;
  // vGPU loss: performance relative to the baseline. For closed-loop workloads relative throughput is
  // throughput / baseline throughput; for inference it is baseline mean latency / mean latency.
  double relative_performance = 0;
  double slowdown = 0;         // 1 / relative_performance
  double vgpu_loss = 0;        // 1 - relative_performance
  // Half-width of its 95% interval: across replications when there are several, else from the run's own
  // sampling noise (batch means); NaN when too few units.
  double vgpu_loss_ci95 = 0;
  std::vector<double> vgpu_loss_replications;  // each replication's, when there are several
  // Why a unit took longer shared than alone (closed-loop tenants): s per unit by time_split part, shared minus
  // alone (each part's share of the window over the throughput). `running` grows on a slower target (a partition),
  // `slowed` beside kernels that share SMs or memory bandwidth, `waiting` while others' kernels ran, `withheld`
  // while no one else's did (switches, scheduler gaps, limits, virtualization overhead), `off_gpu` when its own
  // host time changed. Empty for open-loop tenants (their loss is by latency) and when either run finished no unit.
  std::vector<std::pair<std::string, double>> slowdown_causes;
  // What makes the figures doubtful, e.g. a request queue that keeps growing (results then depend on the run's
  // length); printed to stderr and written to results.json.
  std::vector<std::string> warnings;
  // How the workload was described (WorkloadSpec::facts: a trace's ops by the evidence of their work).
  std::vector<std::pair<std::string, double>> workload_facts;
  // How far predictions of its kind matched measurements (sim/run/trust.hpp); no class when none covers it.
  TrustBand trust;
};

// Open-loop tenants: a warning when the queue does not reach a steady state, i.e. the mean latency of the last
// quarter of the requests (in completion order) is more than 1.5x that of the second quarter and more than twice
// the tenant's mean latency alone. Empty when steady (or under 40 requests, too few to tell).
// Open-loop tenants with a steady queue are still warned about when the mean latency's 95% half-width (batch means
// within the run) exceeds this share of it.
inline constexpr double kMaxLatencySpread = 0.10;
std::string queue_growth_warning(const std::vector<double>& unit_times, double baseline_mean);

struct GpuResult {
  std::string id, model, mode;
  double utilization = 0;    // mean delivered rate (1 = one bare-metal GPU's worth of work)
  double busy_fraction = 0;  // fraction of time some tenant had work on it
  double interval = 0;       // s
  std::vector<double> series;  // utilization per interval
};

struct ComparisonResult {
  std::string name, metric, source;
  double predicted = 0;
  double article = 0;
  double difference = 0;  // (predicted - article) / article; NaN when the article's figure is 0
};

struct Results {
  std::string scenario_name, scenario_file, scenario_hash, fidelity;
  uint64_t seed = 0;
  int replications = 1;  // several: tenant and GPU figures are means over them (CDFs and series: the first's)
  double duration = 0;  // s; infinite when unbounded
  double end = 0;       // s
  uint64_t events = 0;
  // The factor the tenants' host time took beside each other on the server's CPU (`host`; 1: not oversubscribed,
  // 0: the scenario gives no `host`).
  double host_stretch = 0;
  std::vector<TenantResult> tenants;
  std::vector<GpuResult> gpus;
  std::vector<ComparisonResult> comparisons;
};

Results compute_results(const Scenario& sc, const RunRecord& shared, const std::vector<const RunRecord*>& baselines);
// What a tenant's vgpu_loss_ci95 is: "replications", "batch means", or why there is none ("none: the replications
// agree exactly (a fixed input), which is not a certainty" where it is 0, "none: too few units" where NaN).
std::string interval_kind(const Results& r, const TenantResult& t);
// Whether the vGPU loss has an interval worth printing as "±x" (finite and not 0).
bool loss_interval_shown(const TenantResult& t);
// TenantResult::slowdown_causes from its shared and alone performance; `open_loop`: its loss is by latency (none).
std::vector<std::pair<std::string, double>> slowdown_causes(const TenantResult& t, bool open_loop);
// The scenario's comparisons (compare[]) of these results, replacing any it had.
void add_comparisons(const Scenario& sc, Results& res);

}  // namespace vgpusim
