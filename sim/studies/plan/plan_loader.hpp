// Plan files (`kind: plan`): workloads with SLOs, candidate instance types and sharing options. Read with the
// scenario format's strict reader; workloads are written exactly as in scenarios.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "sim/scenario/document.hpp"
#include "sim/studies/plan/plan.hpp"

namespace vgpusim {

// Resolves an instance type by name (the instance catalog), or nullopt.
using InstanceLookup = std::function<std::optional<PlanInstanceType>(const std::string&)>;

PlanSpec load_plan(const ScenarioDocument& doc, const InstanceLookup& lookup);
PlanSpec load_plan_text(const std::string& text, const std::string& file, const InstanceLookup& lookup);

// The instance types of the built-in instance catalog (models/catalog/instances.yaml) that plans can use.
InstanceLookup builtin_instance_lookup();

}  // namespace vgpusim
