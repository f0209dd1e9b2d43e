// The one place that turns plain inputs into a valid Scenario. The YAML loader (document -> builder) and the
// planner's candidates (search result -> builder) both add GPUs, their sharing, targets, tenants, faults, layout
// changes and comparisons here; finish() then applies every invariant a scenario holds: a partition without a
// sharing of its own is time-sliced (with its GPU's calibration), tenants without a start begin within the start
// jitter, the metrics interval is the duration / 100, each tenant's per-tenant parameters default to its mode's,
// every target's model setup is computed once, each mode validates its setup, workloads that size themselves by
// the memory their process sees are sized, and the starts are drawn. Problems come back by index, so that each
// caller can say where they came from (a file's line, a candidate's description).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "sim/io/gpu_catalog.hpp"
#include "sim/scenario/scenario.hpp"

namespace vgpusim {

class ScenarioBuilder {
 public:
  // Tenants without a `start` begin uniformly within this much of the run's start (scenario key start_jitter):
  // processes launched together never start in the same microsecond, and identical tenants would otherwise stay
  // in lockstep.
  static constexpr double kStartJitter = 1e-3;  // s

  explicit ScenarioBuilder(std::string file = "", std::string name = "");

  void set_name(std::string name) { sc_.name = std::move(name); }
  void set_file_hash(std::string hash) { sc_.file_hash = std::move(hash); }
  void set_version(int version) { sc_.version = version; }
  void set_seed(uint64_t seed) { sc_.seed = seed; }
  void set_replications(int n) { sc_.replications = n; }
  void set_duration(double s) { sc_.duration = s; }
  void set_fidelity(Fidelity f) { sc_.fidelity = f; }
  void set_host(HostCpu host) { sc_.host = host; }
  void set_start_jitter(double s) { start_jitter_ = s; }
  double start_jitter() const { return start_jitter_; }
  // Default: duration / 100, or 1 s without a duration.
  void set_metrics_interval(double s) { metrics_interval_ = s; }
  void set_place(const std::string& key, std::string where) { sc_.places[key] = std::move(where); }

  // A physical GPU, shared by `passthrough` until share_gpu says otherwise. Returns its index.
  size_t add_gpu(ScenarioGpu gpu);
  // How GPU `g` is shared: its mode and parameters (for a partitioning mode, the partitioning's).
  void share_gpu(size_t g, SharingConfig sharing);
  // The whole GPU `g` as one target, shared by its GPU's sharing. Returns the target's index.
  size_t add_whole_gpu(size_t g);
  // A partition of GPU `g`, as target "<gpu id>/<id>", shared by `sharing` or, without one, time-sliced with the
  // GPU's calibration. `present`: false for a partition a later layout change creates.
  size_t add_partition(size_t g, const std::string& id, const Partition& part,
                       std::optional<SharingConfig> sharing = std::nullopt, bool present = true);

  // What of a tenant its input gave, for the defaults the builder applies.
  struct TenantGiven {
    bool memory = false;  // `memory`: else the workload's own (a sized workload's, once sized)
    bool share = false;   // its per-tenant parameters: else its target's mode's defaults
    bool start = false;   // its start distribution: else uniform within the start jitter
  };
  size_t add_tenant(TenantSpec tenant, TenantGiven given);
  void add_fault(const FaultSpec& f) { sc_.faults.push_back(f); }
  void add_layout_change(LayoutChange change) { sc_.layout_changes.push_back(std::move(change)); }
  void add_comparison(Comparison c) { sc_.compare.push_back(std::move(c)); }

  // What has been added so far (for lookups by id and messages); finish() completes it.
  const Scenario& draft() const { return sc_; }

  // A problem finish() found: with a target's setup (its mode's validation), or with a tenant's memory or workload
  // (sizing: `memory_given` says which the message is about).
  struct Problem {
    enum class Where { Target, Tenant } where;
    size_t index = 0;
    bool memory_given = false;
    std::string message;
  };
  // Applies the invariants above. Problems stop at the first kind that has any: targets that do not validate are
  // reported without sizing workloads on them.
  std::vector<Problem> finish();
  // The finished scenario (finish() must have returned no problem).
  Scenario take();

 private:
  void compute_setups();

  Scenario sc_;
  std::vector<TenantGiven> given_;
  double start_jitter_ = kStartJitter;
  std::optional<double> metrics_interval_;
  bool finished_ = false;
};

// A catalog GPU as a scenario has it without overrides: its spec, its shipped calibration and the roofline's
// parameters with it.
ScenarioGpu catalog_gpu(const std::string& id, const CatalogEntry& entry);

}  // namespace vgpusim
