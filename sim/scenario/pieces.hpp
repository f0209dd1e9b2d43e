// Pieces of the scenario format read inside another file: a plan's workloads and sharing options, with the
// scenario format's keys, units and messages. The loader's state stays inside the scenario room.
#pragma once

#include <yaml-cpp/yaml.h>

#include <memory>
#include <string>

#include "sim/io/gpu_catalog.hpp"
#include "sim/io/yaml_reader.hpp"
#include "sim/scenario/scenario.hpp"

namespace vgpusim {

struct Loader;

class ScenarioPieces {
 public:
  ScenarioPieces(std::string file, const Catalog& catalog);
  ~ScenarioPieces();
  ScenarioPieces(const ScenarioPieces&) = delete;
  ScenarioPieces& operator=(const ScenarioPieces&) = delete;

  // A tenants[].workload mapping for a tenant on `gpu`.
  WorkloadRef workload(const YAML::Node& node, const std::string& path, const ScenarioGpu& gpu);
  // A sharing.<gpu> mapping: its mode (into `info`) and parameters over `calibrated`. With `layout_searched` a
  // partitioning mode comes without `partitions` (a plan searches its layouts).
  SharingConfig sharing(const YAML::Node& node, const std::string& path, const GpuSpec& device,
                        const SharingModeInfo*& info, const ParamOverrides& calibrated, bool layout_searched);
  double positive(const MapReader& r, const std::string& key, units::Dim dim);
  double nonnegative(const MapReader& r, const std::string& key, units::Dim dim);
  [[noreturn]] void unknown_gpu_model(const YAML::Node& node, const std::string& path, const std::string& name);

 private:
  std::string file_;
  std::unique_ptr<Loader> loader_;
};

}  // namespace vgpusim
