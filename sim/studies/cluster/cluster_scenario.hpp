// Reading a cluster scenario (top-level `kind: cluster`): nodes and jobs from the openb trace, an inline list
// or a synthetic generator, the placement policy, sharing slowdown and preemption. Keys in docs/cluster.md.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/studies/cluster/cluster_sim.hpp"
#include "sim/io/yaml_reader.hpp"
#include "sim/scenario/document.hpp"

namespace vgpusim {

// A synthetic job stream: Poisson arrivals, exponential durations, a mix of fractional, whole and multi-GPU
// requests. A scenario's defaults are those of the keys of cluster.jobs.synthetic (cluster_sections()).
struct SyntheticJobsSpec {
  int64_t count = 0;
  double rate_per_s = 0;          // arrivals per second
  double mean_duration_s = 0;     // s, exponential
  double fractional = 0;          // share of jobs asking for a fraction of one GPU (0.1 .. 0.9, uniform)
  double multi_gpu = 0;           // share of jobs asking for 2, 4 or 8 whole GPUs
  double cpu_per_gpu_milli = 0;
  double memory_per_gpu_mib = 0;
};
std::vector<ClusterJob> synthetic_cluster_jobs(const SyntheticJobsSpec& spec, uint64_t seed);

// `count` jobs drawn with replacement from `population`, arriving 1 s apart and never leaving (workload inflation
// as in the FGD paper's experiments).
std::vector<ClusterJob> sample_jobs(const std::vector<ClusterJob>& population, size_t count, uint64_t seed);

// Reads and validates a cluster scenario. Throws InputError ("FILE:LINE:COL: key.path: ...") on bad input.
ClusterConfig load_cluster_scenario(const ScenarioDocument& doc);
ClusterConfig load_cluster_scenario_text(const std::string& text, const std::string& file);

// The key tables the reader enforces, and their Markdown (the key reference in docs/cluster.md).
const std::vector<Section>& cluster_sections();
std::string cluster_reference_markdown();

}  // namespace vgpusim
