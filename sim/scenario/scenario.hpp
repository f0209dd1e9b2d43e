// A scenario as plain structs, all values in SI: what sim/scenario/loader.cpp makes of a scenario YAML file.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "models/gpu_spec.hpp"
#include "models/params.hpp"
#include "models/sharing/sharing_model.hpp"
#include "models/workload/workload.hpp"

namespace vgpusim {

struct GpuInstance {
  std::string id;            // the scenario's name for it, e.g. "g0"
  GpuSpec spec;              // catalog values with the scenario's overrides
  ParamValues performance;   // roofline parameters for kernels on this GPU
};

struct SharingConfig {
  std::string mode;  // a registered sharing model
  ParamValues params;
};

struct TenantSpec {
  std::string name;
  size_t gpu = 0;     // index into Scenario::gpus
  double memory = 0;  // bytes allocated at start
  double start = 0;   // s
  WorkloadSpec workload;
};

struct Scenario {
  std::string file;
  std::string name;
  int version = 1;
  uint64_t seed = 1;
  double duration = std::numeric_limits<double>::infinity();  // s; infinite = until every tenant is done
  Fidelity fidelity = Fidelity::Exact;
  double metrics_interval = 0;  // s, utilization bin width
  std::vector<GpuInstance> gpus;
  std::vector<SharingConfig> sharing;  // one per GPU, same order
  std::vector<TenantSpec> tenants;
};

}  // namespace vgpusim
