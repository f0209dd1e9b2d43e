// The interface every sharing mode implements, and the registry that names them. The engine asks a GPU's
// SharingModel for each context's share of the GPU whenever that GPU's set of busy contexts changes or the model's
// own timer (a slice boundary) fires; it never knows which mode it runs.
#pragma once

#include <functional>
#include <limits>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "models/gpu_spec.hpp"
#include "models/params.hpp"

namespace vgpusim {

enum class Fidelity { Exact, Fluid };

// What a model sees of one context (a tenant's process on this GPU).
struct ContextLoad {
  int active = 0;  // activities (kernels) in flight; 0 = the context has no work now
};

// What a model answers: each context's progress rate as a fraction of the GPU's solo speed (1 = as fast as alone
// on a bare-metal GPU), and when it wants to be asked again (a slice boundary), as an absolute time.
struct ShareDecision {
  std::vector<double> rate;
  double wake_at = std::numeric_limits<double>::infinity();
};

class SharingModel {
 public:
  virtual ~SharingModel() = default;
  // `contexts` lists this GPU's contexts in a fixed order; `out.rate` has the same size on entry.
  // Rates of contexts without work are ignored. The sum of rates must not exceed 1.
  virtual void decide(double now, std::span<const ContextLoad> contexts, ShareDecision& out) = 0;
};

struct SharingModelInfo {
  std::string name;         // scenario `mode:` value
  std::string description;  // one line
  std::string citation;     // where the mechanism is described
  std::vector<ParamSpec> params;
  int max_contexts = 0;        // 0 = unlimited
  bool memory_isolation = false;  // false: all tenants allocate from the GPU's one memory pool
  std::function<std::unique_ptr<SharingModel>(const ParamValues&, Fidelity)> create;
};

// Every built-in sharing mode, in a fixed order. Adding a mode = one file in models/sharing + one line in the
// registry (sharing_model.cpp).
const std::vector<SharingModelInfo>& sharing_models();
// nullptr when unknown.
const SharingModelInfo* find_sharing_model(const std::string& name);

// The model used for a tenant's baseline: the same workload alone on the same GPU, bare metal (no overhead).
std::unique_ptr<SharingModel> make_bare_metal_model();

}  // namespace vgpusim
