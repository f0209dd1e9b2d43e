// The workload kinds a scenario can name under tenants[].workload: each its key, its documented sections (the
// keys the loader accepts and docs/scenario-reference.md lists) and its reader. A built-in kind is one file,
// sim/scenario/workloads/<name>.cpp, defining `WorkloadKindInfo <name>_workload_kind()`, and its name in
// VGPUSIM_WORKLOAD_KINDS (CMakeLists.txt), which generates the list; its state machine is a model
// (models/workload) or, for a small kind, lives in the same file. Other kinds (a plug-in, a test) call
// register_workload_kind before scenarios are loaded.
#pragma once

#include <deque>
#include <functional>
#include <string>
#include <vector>

#include "models/workload/workload.hpp"
#include "sim/io/yaml_reader.hpp"

namespace vgpusim {

struct Loader;       // the scenario loader's state and helpers (sim/scenario/loader_state.hpp)
struct ScenarioGpu;  // sim/scenario/scenario.hpp

struct WorkloadKindInfo {
  std::string name;  // its key under tenants[].workload
  std::string help;  // one line, for the tenants[].workload table of the reference
  // Its documented sections: the first, `workload.<name>`, is its mapping; nested ones follow (e.g. its SLOs).
  std::vector<Section> sections;
  // Reads the kind's mapping (`r`, bound to its first section) for a tenant on `gpu`. Fails through fail_at.
  std::function<WorkloadRef(Loader& loader, const MapReader& r, const ScenarioGpu& gpu)> read;
};

// Every kind: the built-in ones in the order of VGPUSIM_WORKLOAD_KINDS, then registered ones. References stay valid.
const std::deque<WorkloadKindInfo>& workload_kinds();
// nullptr when unknown.
const WorkloadKindInfo* find_workload_kind(const std::string& name);
// Adds a kind. Throws std::invalid_argument when its name is taken, or it has no sections or no reader.
void register_workload_kind(WorkloadKindInfo info);

}  // namespace vgpusim
