// The registry of workload kinds.
#include "sim/scenario/workload_kind.hpp"

#include <stdexcept>

#include "sim/core/named_registry.hpp"

namespace vgpusim {

std::vector<WorkloadKindInfo> builtin_workload_kinds();  // generated: build/generated/builtin_workload_kinds.cpp

namespace {

void check(const WorkloadKindInfo& info) {
  if (info.sections.empty() || info.sections.front().path != "workload." + info.name)
    throw std::invalid_argument("workload kind '" + info.name + "' must document its mapping as section workload." +
                                info.name);
  if (!info.read) throw std::invalid_argument("workload kind '" + info.name + "' has no reader");
}

Registry<WorkloadKindInfo>& registry() {
  static Registry<WorkloadKindInfo> kinds("workload kind", builtin_workload_kinds(), check);
  return kinds;
}

}  // namespace

const std::deque<WorkloadKindInfo>& workload_kinds() { return registry().entries(); }
const WorkloadKindInfo* find_workload_kind(const std::string& name) { return registry().find(name); }
void register_workload_kind(WorkloadKindInfo info) { registry().add(std::move(info)); }

}  // namespace vgpusim
