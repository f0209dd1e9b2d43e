// The registry of sharing modes: what each mode is called, what it declares (parameters, limits, memory and fault
// isolation) and how its SharingModel is built. A built-in mode is one file, models/sharing/<name>.cpp, defining
// `SharingModeInfo <name>_sharing_mode()`, and its name in VGPUSIM_SHARING_MODES (CMakeLists.txt), which generates
// the list; other modes (a plug-in, a test) call register_sharing_mode.
#pragma once

#include <deque>
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
  std::vector<double> tenant_start;  // per tenant: when it starts (its context appears); empty: all at t = 0
};

// One partition of a GPU (a MIG partition, NVIDIA's "GPU instance"): its profile, placement slot and resources.
struct Partition {
  std::string profile;
  int slot = 0;
  GpuSpec spec;
};

struct SharingModeInfo {
  std::string name;         // scenario `mode:` value
  std::string description;  // one line
  std::string citation;     // where the mechanism is described
  std::string doc;          // its page under docs/models, e.g. "timeslice.md"
  // Every parameter the mode reads: its own (owner = name) and those of component models it uses (e.g. the
  // contention model's), the per-tenant ones included (ParamSpec::per_tenant).
  std::vector<ParamSpec> params;
  int max_contexts = 0;               // 0 = unlimited
  bool memory_isolation = false;      // false: all tenants allocate from the GPU's one memory pool
  std::string device_kind = "gpu";    // the catalog `kind` this mode applies to: gpu or cpu
  bool fault_takes_down_gpu = false;  // a fatal fault in one context ends every context on the GPU
  bool partitions = false;            // splits the GPU into partitions that tenants are placed on (MIG)
  // Checks what per-parameter bounds cannot (profile limits, shares that add up); "" when fine.
  std::function<std::string(const ModelSetup&)> validate;
  // Each tenant's memory capacity (bytes) when the mode partitions memory (vGPU framebuffer, SR-IOV VF);
  // unset or empty: every tenant allocates from the device's one pool.
  std::function<std::vector<double>(const ModelSetup&)> memory_partitions;
  // Optional: what a partition's capacity is made of, for out-of-memory messages (e.g. a reservation taken out).
  std::function<std::string(const ModelSetup&)> memory_partition_note;
  std::function<std::unique_ptr<SharingModel>(const ModelSetup&)> create;
  // Partitioning modes only: the partitions for the requested profiles, or an error message.
  std::function<std::variant<std::vector<Partition>, std::string>(const GpuSpec&, const std::vector<std::string>&,
                                                                  const ParamValues&)>
      make_partitions;
  // Partitioning modes only: how long a layout change takes once the affected partitions have drained (s), from
  // the mode's parameters.
  std::function<double(const ParamValues&)> reconfiguration_time;

  // The parameters set beside `mode` (not per tenant), and those set per tenant under tenants[].share.
  std::vector<ParamSpec> mode_params() const;
  std::vector<ParamSpec> tenant_params() const;
};

// Every sharing mode: the built-in ones in the order of VGPUSIM_SHARING_MODES, then registered ones. References
// stay valid when modes are registered later.
const std::deque<SharingModeInfo>& sharing_modes();
// nullptr when unknown.
const SharingModeInfo* find_sharing_mode(const std::string& name);
// Adds a mode. Throws std::invalid_argument when its name is taken, it declares no `create`, or two of its
// parameters share a name.
void register_sharing_mode(SharingModeInfo info);

// The model used for a tenant's baseline: the same workload alone on the same GPU, bare metal (no overhead).
std::unique_ptr<SharingModel> make_bare_metal_model();

}  // namespace vgpusim
