// The scenario loader's state and steps, shared by loader.cpp (top level, tenants, faults, comparisons),
// sharing_loader.cpp (sharing modes, partitions, layout changes) and workload_loader.cpp (workloads, kernels, traces).
#pragma once

#include <yaml-cpp/yaml.h>

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "models/workload/distribution.hpp"
#include "models/workload/trace_graph.hpp"
#include "sim/io/kineto_reader.hpp"
#include "sim/io/gpu_catalog.hpp"
#include "sim/scenario/builder.hpp"
#include "sim/scenario/loader.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/io/yaml_reader.hpp"

namespace vgpusim {

// The tenants[].workload section with a key per registered kind (sections.cpp); section_named is in loader.hpp.
Section workload_section();

// The loader's state while it reads one file, and its helpers. A workload kind's reader (sim/scenario/workloads)
// uses `kernel`, `count`, `nonnegative`, `positive`, `unknown_gpu_model`, `catalog` and the trace cache `traces`.
struct Loader {
  const std::string& file;
  const Catalog& catalog;
  ScenarioBuilder build;  // what the file says goes in here; load() finishes it
  const Scenario& sc() const { return build.draft(); }

  std::map<std::string, std::shared_ptr<const KinetoTrace>> traces;  // read once per file and device

  struct LayoutEntry {
    std::string id, profile;
    YAML::Node sharing;
    bool has_sharing = false;
  };

  std::vector<YAML::Node> target_nodes;  // where each target's sharing was given, for messages

  YAML::Node tenant_list;  // tenants[], for messages about a tenant that finish() finds

  // A GPU shared by an imported device plugin config: how many containers it takes, and the per-tenant defaults
  // the plugin's MPS daemon sets (a tenant may only lower them).
  struct ImportedLimits {
    long long replicas = 0;
    ParamOverrides tenant_defaults;
    std::string source;  // "FILE:LINE:COL" of `replicas`
  };
  std::map<size_t, ImportedLimits> imported = {};  // by GPU index
  // Trace graphs, built once per trace, source GPU, window and options however many tenants replay them.
  std::map<std::string, std::shared_ptr<const TraceGraph>> trace_graphs = {};
  // Workloads by GPU and text: tenants given the same workload on the same GPU share one spec (and so one baseline
  // run, sim/run/simulation.hpp).
  std::map<std::string, WorkloadRef> workloads = {};

  // `kernels`: how many kernels the unit runs (its `kernels_per_*`): a measured `duration` holds their launch
  // overhead.
  KernelSpec kernel(const YAML::Node& node, const std::string& path, const std::string& default_precision,
                    const ScenarioGpu& tenant_gpu, int kernels = 1);
  [[noreturn]] void unknown_gpu_model(const YAML::Node& node, const std::string& path, const std::string& name);
  int count(const MapReader& r, const std::string& key);
  // The tenant's workload: exactly one registered kind, read by that kind (sim/scenario/workload_kind.hpp).
  WorkloadRef workload(const YAML::Node& node, const std::string& path, const ScenarioGpu& gpu);
  double nonnegative(const MapReader& r, const std::string& key, units::Dim dim);
  // A nonnegative quantity that may vary: a plain value (constant) or {distribution: NAME, ...} (section
  // `distribution`); when the key is absent, `fallback` (a computed default), else the key's declared default.
  Distribution distribution(const MapReader& r, const std::string& key, units::Dim dim,
                            std::optional<Distribution> fallback = std::nullopt);
  double positive(const MapReader& r, const std::string& key, units::Dim dim);
  // A count of CPU threads or cores (`host`), from `least` to kMaxThreads.
  static constexpr double kMaxThreads = 1e6;
  double threads(const MapReader& r, const std::string& key, double least);
  void gpus(const MapReader& top);
  std::vector<std::string> gpu_ids() const;
  size_t gpu_index(const YAML::Node& node, const std::string& path, const std::string& id);
  [[noreturn]] void unknown_mode(const YAML::Node& node, const std::string& path, const std::string& mode);
  // Reads `mode` and its parameters from a sharing mapping; a partitioning mode's `partitions` and `reconfigure`
  // are allowed beside.
  // `calibrated` (the GPU's calibration) sets defaults that the mapping's own values override. With
  // `layout_searched` (plans) a partitioning mode comes without `partitions`: its layouts are searched.
  SharingConfig sharing_config(const YAML::Node& node, const std::string& path, const GpuSpec& device,
                               const SharingModeInfo*& info, const ParamOverrides& calibrated,
                               bool layout_searched = false);
  ParamValues read_params(const MapReader& r, const std::vector<ParamSpec>& specs,
                          const ParamOverrides& calibrated = {});
  void sharing(const MapReader& top);
  // `sharing.<gpu>: {import: ...}`: sets the GPU's sharing (and its partitions or target) from the file; returns
  // its mode.
  const SharingModeInfo* imported_sharing(size_t g, const YAML::Node& node, const std::string& path);
  std::vector<LayoutEntry> read_layout(const YAML::Node& list, const std::string& path);
  std::vector<Partition> place(const ScenarioGpu& gpu, const SharingModeInfo& info, size_t g,
                               const std::vector<LayoutEntry>& entries, const YAML::Node& list, const std::string& path);
  void add_partition(size_t g, const LayoutEntry& e, const Partition& part, const YAML::Node& where,
                    const std::string& path, bool present);
  void partitions(size_t g, const YAML::Node& node, const std::string& path, const SharingModeInfo& info);
  size_t target_index(const YAML::Node& node, const std::string& path, const std::string& id);
  void tenants(const MapReader& top);
  void faults(const MapReader& top);
  size_t tenant_named(const MapReader& r, const std::string& key);
  void comparisons(const MapReader& top);
  void load(const YAML::Node& root);
};

}  // namespace vgpusim
