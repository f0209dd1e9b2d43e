// Summaries and writers of cluster results. They format what the simulator measured; the only computation is
// order statistics of per-job times.
#include "sim/studies/cluster/cluster_metrics.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "sim/report/text_format.hpp"

namespace vgpusim {
namespace {

using nlohmann::ordered_json;

ordered_json num(double v) { return std::isfinite(v) ? ordered_json(v) : ordered_json(nullptr); }

ordered_json dist_json(const OrderSummary& d) {
  return {{"mean_s", num(d.mean)}, {"p50_s", num(d.p50)}, {"p90_s", num(d.p90)}, {"p99_s", num(d.p99)},
          {"max_s", num(d.max)}};
}

}  // namespace

OrderSummary summarize(std::vector<double> values) {
  OrderSummary d;
  if (values.empty()) return d;
  std::sort(values.begin(), values.end());
  double sum = 0;
  for (double v : values) sum += v;
  const auto at = [&](double q) {  // nearest rank
    const size_t rank = static_cast<size_t>(std::ceil(q * static_cast<double>(values.size())));
    return values[std::min(values.size() - 1, rank == 0 ? 0 : rank - 1)];
  };
  d.mean = sum / static_cast<double>(values.size());
  d.p50 = at(0.5);
  d.p90 = at(0.9);
  d.p99 = at(0.99);
  d.max = values.back();
  return d;
}

std::string cluster_results_json(const ClusterResults& r) {
  ordered_json j;
  j["schema"] = "vgpusim.cluster-results/1";
  j["scenario"] = r.scenario_name;
  j["policy"] = r.policy;
  j["nodes"] = r.nodes;
  j["gpus"] = r.gpus;
  j["jobs"] = {{"total", r.jobs}, {"started", r.started}, {"completed", r.completed},
               {"never_started", r.never_started}};
  j["events"] = r.events;
  j["makespan_s"] = r.makespan_s;
  j["sharing_efficiency"] = r.sharing_efficiency;
  j["first_failure"] = {{"time_s", num(r.first_failure_s)},
                        {"unallocated_gpus", num(r.unallocated_gpus_at_first_failure)},
                        {"allocation", num(r.allocation_at_first_failure)}};
  j["allocation"] = {{"mean", r.mean_allocation}, {"peak", r.peak_allocation}, {"final", r.final_allocation}};
  j["fragmentation"] = {{"mean_gpus", r.mean_fragmented_gpus}, {"final_gpus", r.final_fragmented_gpus},
                        {"final_ratio", num(r.final_fragmentation_ratio)}};
  j["completion_time"] = dist_json(r.completion_time);
  j["queueing_delay"] = dist_json(r.queueing_delay);
  j["preemption"] = {{"events", r.preemptions}, {"jobs_preempted", r.jobs_preempted},
                     {"lost_gpu_hours", r.lost_gpu_hours}};
  j["cost"] = {{"total_usd", r.cost_usd}, {"per_completed_job_usd", num(r.cost_per_completed_job_usd)}};
  ordered_json samples = ordered_json::array();
  for (const ClusterSample& s : r.samples)
    samples.push_back({{"time_s", s.time_s}, {"allocation", s.allocation}, {"fragmented_gpus", s.fragmented_gpus},
                       {"idle_gpus", s.idle_gpus}, {"queued", s.queued}, {"running", s.running}});
  j["samples"] = samples;
  return j.dump(2) + "\n";
}

std::string cluster_results_csv(const ClusterResults& r) {
  std::string out = "time_s,allocation,fragmented_gpus,idle_gpus,queued,running\n";
  for (const ClusterSample& s : r.samples)
    out += fmt::format("{:.3f},{:.6f},{:.6f},{:.6f},{},{}\n", s.time_s, s.allocation, s.fragmented_gpus, s.idle_gpus,
                       s.queued, s.running);
  return out;
}

std::string cluster_results_table(const ClusterResults& r) {
  std::string o;
  o += fmt::format("cluster scenario: {}\n", r.scenario_name);
  o += fmt::format("policy {}: {} nodes, {:.0f} GPUs, {} jobs ({} started, {} completed, {} never started)\n",
                   r.policy, r.nodes, r.gpus, r.jobs, r.started, r.completed, r.never_started);
  o += fmt::format("simulated {} s in {} events; sharing efficiency {:.4f}\n", fixed(r.makespan_s, 3), r.events,
                   r.sharing_efficiency);
  o += fmt::format("{:<34} {:>14}\n", "metric", "value");
  const auto row = [&](const std::string& name, const std::string& value) {
    o += fmt::format("{:<34} {:>14}\n", name, value);
  };
  row("allocation mean (utilization)", fixed(r.mean_allocation, 4));
  row("allocation peak", fixed(r.peak_allocation, 4));
  row("allocation final", fixed(r.final_allocation, 4));
  row("fragmented GPUs mean", fixed(r.mean_fragmented_gpus, 3));
  row("fragmented GPUs final", fixed(r.final_fragmented_gpus, 3));
  row("fragmentation / idle final", fixed(r.final_fragmentation_ratio, 4));
  row("first failed request at (s)", fixed(r.first_failure_s, 3));
  row("unallocated GPUs then", fixed(r.unallocated_gpus_at_first_failure, 3));
  row("allocation then", fixed(r.allocation_at_first_failure, 4));
  row("completion time mean (s)", fixed(r.completion_time.mean, 3));
  row("completion time p99 (s)", fixed(r.completion_time.p99, 3));
  row("queueing delay mean (s)", fixed(r.queueing_delay.mean, 3));
  row("queueing delay p99 (s)", fixed(r.queueing_delay.p99, 3));
  row("preemptions", std::to_string(r.preemptions));
  row("lost work (GPU-h)", fixed(r.lost_gpu_hours, 3));
  row("cost (USD)", fixed(r.cost_usd, 2));
  row("cost per completed job (USD)", fixed(r.cost_per_completed_job_usd, 4));
  return o;
}

const std::vector<ClusterFormat>& cluster_formats() {
  static const std::vector<ClusterFormat> formats = {
      {"table", "", "the table printed on stdout", false, cluster_results_table},
      {"json", "results.json", "every result, machine-readable (schema vgpusim.cluster-results/1)", false,
       cluster_results_json},
      {"csv", "results.csv", "the samples of allocation and fragmentation, one row per sample time", false,
       cluster_results_csv},
  };
  return formats;
}

}  // namespace vgpusim
