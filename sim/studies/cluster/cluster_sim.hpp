// Job-level, event-driven cluster simulator: arrivals, a FIFO queue with skipping, placement by a named
// policy, GPU-sharing slowdown, completion, and spot preemption with checkpoints. No kernels: one event per job.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "models/cluster/cluster_types.hpp"
#include "sim/core/params.hpp"
#include "sim/studies/cluster/cluster_metrics.hpp"

namespace vgpusim {

// Spot capacity reclaimed: each preemption takes one node (chosen at random among eligible nodes that are up)
// down for `downtime_s`; its jobs lose the work since their last checkpoint and go back to the queue.
struct PreemptionSpec {
  double rate_per_s = 0;            // Poisson rate of preemptions across the cluster, 1/s (0: none)
  std::vector<double> times_s;      // preemptions at fixed times, s
  double checkpoint_interval_s = 0; // work between checkpoints, s (0: no checkpoints, all work is lost)
  double restart_cost_s = 0;        // extra work when a preempted job starts again, s
  double downtime_s = 0;            // how long a preempted node stays away, s
  bool all_nodes = false;           // false: only nodes marked spot are eligible
};

struct ClusterConfig {
  std::string name;
  std::vector<ClusterNode> nodes;
  std::vector<ClusterJob> jobs;       // sorted by arrival
  std::string policy = "first_fit";
  double sharing_efficiency = 1;      // progress rate of a job while its GPU holds other jobs too
  PreemptionSpec preemption;
  bool no_departures = false;         // jobs never finish: fill the cluster as in the FGD paper's experiments
  double sample_interval_s = 3600;    // time between ClusterSamples, s
  uint64_t seed = 1;
  // The run stops with an InputError past this many events (arrivals, completions, preemptions, nodes back, and
  // samples), or when its samples would hold more than max_sample_bytes: a preemption rate or a sample interval
  // that would keep it going for ever (`vgpusim run --max-events/--max-memory` set them).
  double max_events = 1e9;
  double max_sample_bytes = 4.0 * 1024 * 1024 * 1024;
};

// The sharing slowdown's parameters (the timeslice mode's slice and switch_cost) and the efficiency they give:
// slice / (slice + switch).
const std::vector<ParamSpec>& sharing_slowdown_params();
double timeslice_efficiency(double slice_s, double switch_cost_s);

// Runs the cluster to the end (every job finished, or no event left). Throws std::invalid_argument on an
// unknown policy, InputError past the config's limits or when simulated time stops advancing.
ClusterResults run_cluster(const ClusterConfig& config);

}  // namespace vgpusim
