// The registry of workload kinds.
#include "sim/scenario/workload_kind.hpp"

#include <stdexcept>

namespace vgpusim {

std::vector<WorkloadKindInfo> builtin_workload_kinds();  // generated: build/generated/builtin_workload_kinds.cpp

namespace {

void check(const WorkloadKindInfo& info, const std::deque<WorkloadKindInfo>& known) {
  if (info.name.empty()) throw std::invalid_argument("a workload kind needs a name");
  for (const WorkloadKindInfo& k : known)
    if (k.name == info.name) throw std::invalid_argument("workload kind '" + info.name + "' is registered twice");
  if (info.sections.empty() || info.sections.front().path != "workload." + info.name)
    throw std::invalid_argument("workload kind '" + info.name + "' must document its mapping as section workload." +
                                info.name);
  if (!info.read) throw std::invalid_argument("workload kind '" + info.name + "' has no reader");
}

std::deque<WorkloadKindInfo>& registry() {
  static std::deque<WorkloadKindInfo> kinds = [] {
    std::deque<WorkloadKindInfo> built;
    for (WorkloadKindInfo& k : builtin_workload_kinds()) {
      check(k, built);
      built.push_back(std::move(k));
    }
    return built;
  }();
  return kinds;
}

}  // namespace

const std::deque<WorkloadKindInfo>& workload_kinds() { return registry(); }

const WorkloadKindInfo* find_workload_kind(const std::string& name) {
  for (const WorkloadKindInfo& k : workload_kinds())
    if (k.name == name) return &k;
  return nullptr;
}

void register_workload_kind(WorkloadKindInfo info) {
  check(info, registry());
  registry().push_back(std::move(info));
}

}  // namespace vgpusim
