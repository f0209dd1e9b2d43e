// The registry of sharing modes: what each mode is called, what it declares (parameters, limits, memory and fault
// isolation) and how its SharingModel is built. Every mode is one file in models/sharing.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "models/gpu/gpu_spec.hpp"
#include "sim/core/params.hpp"
#include "sim/core/sharing_model.hpp"

namespace vgpusim {

// Everything a model is built from: its parameters, the device it shares, and each tenant's own parameters
// (from `tenants[].share`), in context order.
struct ModelSetup {
  ParamValues params;
  Fidelity fidelity = Fidelity::Exact;
  GpuSpec gpu;
  std::vector<ParamValues> tenants;
};

// One partition of a GPU (a MIG instance): its profile, placement slot and resources.
struct Partition {
  std::string profile;
  int slot = 0;
  GpuSpec spec;
};

struct SharingModelInfo {
  std::string name;         // scenario `mode:` value
  std::string description;  // one line
  std::string citation;     // where the mechanism is described
  std::vector<ParamSpec> params;
  std::vector<ParamSpec> tenant_params;  // per tenant, under `tenants[].share`
  int max_contexts = 0;           // 0 = unlimited
  bool memory_isolation = false;  // false: all tenants allocate from the GPU's one memory pool
  std::string device_kind = "gpu";    // the catalog `kind` this mode applies to: gpu or cpu
  bool fault_takes_down_gpu = false;  // a fatal fault in one context ends every context on the GPU
  bool partitions = false;            // splits the GPU into instances that tenants are placed on (MIG)
  // Checks what per-parameter bounds cannot (profile limits, shares that add up); "" when fine.
  std::function<std::string(const ModelSetup&)> validate;
  // Each tenant's memory capacity (bytes) when the mode partitions memory (vGPU framebuffer, SR-IOV VF);
  // unset or empty: every tenant allocates from the device's one pool.
  std::function<std::vector<double>(const ModelSetup&)> memory_partitions;
  std::function<std::unique_ptr<SharingModel>(const ModelSetup&)> create;
  // Partitioning modes only: the partitions for the requested profiles, or an error message.
  std::function<std::variant<std::vector<Partition>, std::string>(const GpuSpec&, const std::vector<std::string>&,
                                                                   const ParamValues&)>
      make_partitions;
};

// Every built-in sharing mode, in a fixed order. Adding a mode = one file in models/sharing + one line in the
// registry (sharing_model.cpp).
const std::vector<SharingModelInfo>& sharing_models();
// nullptr when unknown.
const SharingModelInfo* find_sharing_model(const std::string& name);

// The model used for a tenant's baseline: the same workload alone on the same GPU, bare metal (no overhead).
std::unique_ptr<SharingModel> make_bare_metal_model();

}  // namespace vgpusim
