// What a cluster run measures (allocation and fragmentation over time, the state at the first failed request,
// job completion time, queueing delay, utilization, cost) and its writers: results.json/.csv and a text table.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "sim/report/output_format.hpp"

namespace vgpusim {

inline constexpr double kNotMeasured = std::numeric_limits<double>::quiet_NaN();

struct ClusterSample {
  double time_s = 0;
  double allocation = 0;          // allocated GPU capacity / all GPU capacity
  double fragmented_gpus = 0;     // FGD fragmentation of the cluster against the target workload, GPUs
  double idle_gpus = 0;           // unallocated GPU capacity on nodes that are up, GPUs
  int64_t queued = 0;
  int64_t running = 0;
};

// Order statistics of one per-job quantity, s.
struct OrderSummary {
  double mean = kNotMeasured, p50 = kNotMeasured, p90 = kNotMeasured, p99 = kNotMeasured, max = kNotMeasured;
};
OrderSummary summarize(std::vector<double> values);

struct ClusterResults {
  std::string scenario_name, policy;
  int64_t nodes = 0;
  double gpus = 0;                       // physical GPUs
  int64_t jobs = 0, started = 0, completed = 0, never_started = 0;
  int64_t events = 0;                    // arrivals, completions, preemptions, nodes back
  double makespan_s = 0;                 // time of the last event
  double sharing_efficiency = 1;         // progress rate of a job on a shared GPU
  // The first request that found no room: when, and how much GPU capacity was idle then (NaN: none failed).
  double first_failure_s = kNotMeasured;
  double unallocated_gpus_at_first_failure = kNotMeasured;
  double allocation_at_first_failure = kNotMeasured;
  double mean_allocation = 0;            // time average of ClusterSample::allocation = GPU utilization
  double peak_allocation = 0;
  double final_allocation = 0;
  double mean_fragmented_gpus = 0;       // time average
  double final_fragmented_gpus = 0;
  double final_fragmentation_ratio = kNotMeasured;  // fragmented / idle GPU capacity at the end
  OrderSummary completion_time, queueing_delay;      // s, over completed / started jobs
  int64_t preemptions = 0, jobs_preempted = 0;
  double lost_gpu_hours = 0;             // work redone after preemptions, GPU-hours
  double cost_usd = 0;                   // sum of node prices x makespan
  double cost_per_completed_job_usd = kNotMeasured;
  std::vector<ClusterSample> samples;
};

std::string cluster_results_json(const ClusterResults& r);  // schema vgpusim.cluster-results/1
std::string cluster_results_csv(const ClusterResults& r);   // the samples, one row per sample time
std::string cluster_results_table(const ClusterResults& r); // for people; fixed precision (golden tests)

// The outputs of a cluster run: table (stdout), json (results.json), csv (results.csv).
using ClusterFormat = OutputFormat<ClusterResults>;
const std::vector<ClusterFormat>& cluster_formats();

}  // namespace vgpusim
