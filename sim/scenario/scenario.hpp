// A scenario as plain structs, all values in SI: what sim/scenario/loader.cpp makes of a scenario YAML file.
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "models/gpu/gpu_spec.hpp"
#include "sim/core/params.hpp"
#include "models/sharing/mode_registry.hpp"
#include "models/workload/distribution.hpp"
#include "models/workload/workload.hpp"
#include "sim/core/rng.hpp"

namespace vgpusim {

// A physical GPU of the scenario: a catalog device with the scenario's overrides and calibration.
struct ScenarioGpu {
  std::string id;            // the scenario's name for it, e.g. "g0"
  GpuSpec spec;              // catalog values with the scenario's overrides
  RooflineParams performance;  // roofline parameters for kernels on this GPU
  ParamOverrides calibrated;  // model parameters from its calibration file, by qualified name (SI)
};

// A sharing mode, resolved: its registry entry (entries stay valid while the program runs) and its parameters.
struct SharingConfig {
  const SharingModeInfo* mode = nullptr;
  ParamValues params;

  const std::string& mode_name() const { return mode->name; }
};

// Where tenants run: a whole GPU, or one partition of it (MIG). Each target is one engine GPU with
// its own sharing model.
struct Target {
  std::string id;         // "g0", or "g0/<partition id>"
  size_t gpu = 0;         // index into Scenario::gpus
  std::string partition;  // "" for a whole GPU, else the profile, e.g. "1g.10gb"
  int slot = -1;          // placement start slot of a partition
  GpuSpec spec;           // the whole GPU's, or the partition's share of it
  SharingConfig sharing;  // how the target is shared among its tenants
  bool present_at_start = true;  // false: a partition that a later layout change creates
  // What its sharing model is built from (parameters, device, its tenants' shares and starts in tenant order),
  // computed once by the ScenarioBuilder; the starts are each replication's (draw_starts).
  ModelSetup setup;
};

// A partitioned GPU's layout change during the run: the affected partitions drain (their running kernels finish,
// no new ones start), the GPU is reconfigured, then they come back with their new resources or are gone.
struct LayoutChange {
  size_t gpu = 0;
  double at = 0;                   // s
  double reconfiguration_time = 0;  // s
  struct Change {
    size_t target;
    bool removed = false;
    std::string profile;  // the new profile (when not removed)
    int slot = -1;
    GpuSpec spec;
  };
  std::vector<Change> changes;
};

struct TenantSpec {
  std::string name;
  size_t gpu = 0;     // index into Scenario::gpus (the physical GPU; the baseline runs on all of it)
  size_t target = 0;  // index into Scenario::targets
  double memory = 0;  // bytes allocated at start
  double start = 0;   // s: one replication's draw of start_distribution (run_scenario draws it)
  Distribution start_distribution;  // when the tenant starts
  std::string stream;  // name of its random stream (default: its name)
  ParamValues share;  // the target's sharing mode's per-tenant parameters (tenants[].share)
  WorkloadRef workload;
  double host_threads = 1;  // CPU threads its process keeps runnable (main thread + data loaders), for `host`
};

// The CPU of the server the scenario's GPUs sit in (`host`), shared by every tenant's threads and by other
// processes': while the runnable threads outnumber the cores, each gets cores / threads of one, and every tenant's
// host time takes threads / cores times longer (a mean field: all the threads of the tenants of a run are counted
// as runnable all the time). cores 0: no limit.
struct HostCpu {
  double cores = 0;
  double background_threads = 0;  // runnable threads of processes outside the scenario
  // The factor host time is stretched by when these tenants' threads run on it.
  double stretch(double tenant_threads) const {
    if (!(cores > 0)) return 1;
    const double threads = tenant_threads + background_threads;
    return threads > cores ? threads / cores : 1.0;
  }
};

// A figure from an article to print beside the simulation's prediction of it.
struct Comparison {
  std::string name;
  size_t tenant = 0;
  long versus = -1;    // tenant index, or -1
  std::string metric;  // see the compare[] section in sections.cpp
  double article = 0;  // the article's figure in the metric's terms
  std::string source;
};

// A fatal fault injected into one tenant at a time (e.g. an illegal memory access).
struct FaultSpec {
  size_t tenant = 0;
  double time = 0;  // s
};

struct Scenario {
  std::string file;
  std::string file_hash;  // the fingerprint of the text it was loaded from (before --set), text_fingerprint()
  std::string name;
  int version = 1;
  uint64_t seed = 1;
  // Independent runs with seeds derived from `seed` (the first uses `seed`); results are their means and the
  // uncertainty is across them (one: batch means within the run).
  int replications = 1;
  double duration = std::numeric_limits<double>::infinity();  // s; infinite = until every tenant is done
  Fidelity fidelity = Fidelity::Exact;
  double metrics_interval = 0;  // s, utilization bin width
  // Where the file gave the settings that size a run (`duration`, `replications`, `metrics.interval`): FILE:LINE:COL
  // by key, for refusals of a run too large to name them; "FILE (--set)" for an override.
  std::map<std::string, std::string> places;
  std::vector<ScenarioGpu> gpus;
  std::vector<SharingConfig> sharing;  // one per GPU, same order (for a partitioned GPU: the partitioning mode)
  std::vector<Target> targets;         // whole GPUs and partitions, GPU order
  std::vector<TenantSpec> tenants;
  HostCpu host;
  std::vector<FaultSpec> faults;
  std::vector<LayoutChange> layout_changes;  // by time
  std::vector<Comparison> compare;
};

// Draws each tenant's start from its distribution with the scenario's seed, and gives each target's setup its
// tenants' starts (the builder does it, so a built scenario is its first replication; sim/run's replication() does
// it again for the others).
inline void draw_starts(Scenario& sc) {
  for (Target& k : sc.targets) k.setup.tenant_start.clear();
  for (TenantSpec& t : sc.tenants) {
    Rng rng(stream_seed(sc.seed, t.stream + "/start"));
    t.start = t.start_distribution.sample(rng);
    sc.targets[t.target].setup.tenant_start.push_back(t.start);
  }
}

}  // namespace vgpusim
