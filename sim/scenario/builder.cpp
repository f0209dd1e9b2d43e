// Building a valid Scenario from plain inputs (builder.hpp).
#include "sim/scenario/builder.hpp"

#include <fmt/format.h>

#include <cmath>
#include <stdexcept>

#include "sim/io/calibration_file.hpp"

namespace vgpusim {

ScenarioBuilder::ScenarioBuilder(std::string file, std::string name) {
  sc_.file = std::move(file);
  sc_.name = std::move(name);
}

size_t ScenarioBuilder::add_gpu(ScenarioGpu gpu) {
  const SharingModeInfo* passthrough = find_sharing_mode("passthrough");
  sc_.gpus.push_back(std::move(gpu));
  sc_.sharing.push_back({passthrough, ParamValues::defaults(passthrough->params)});
  return sc_.gpus.size() - 1;
}

void ScenarioBuilder::share_gpu(size_t g, SharingConfig sharing) { sc_.sharing.at(g) = std::move(sharing); }

size_t ScenarioBuilder::add_whole_gpu(size_t g) {
  const ScenarioGpu& gpu = sc_.gpus.at(g);
  Target t;
  t.id = gpu.id;
  t.gpu = g;
  t.spec = gpu.spec;
  t.sharing = sc_.sharing[g];
  sc_.targets.push_back(std::move(t));
  return sc_.targets.size() - 1;
}

size_t ScenarioBuilder::add_partition(size_t g, const std::string& id, const Partition& part,
                                      std::optional<SharingConfig> sharing, bool present) {
  const ScenarioGpu& gpu = sc_.gpus.at(g);
  Target t;
  t.id = gpu.id + "/" + id;
  t.gpu = g;
  t.partition = part.profile;
  t.slot = part.slot;
  t.spec = part.spec;
  t.present_at_start = present;
  if (sharing) {
    t.sharing = std::move(*sharing);
  } else {
    // A partition is time-sliced among its tenants unless it says otherwise, with its GPU's calibration.
    const SharingModeInfo* ts = find_sharing_mode("timeslice");
    t.sharing = {ts, with_overrides(ts->mode_params(), gpu.calibrated)};
  }
  sc_.targets.push_back(std::move(t));
  return sc_.targets.size() - 1;
}

size_t ScenarioBuilder::add_tenant(TenantSpec t, TenantGiven given) {
  const Target& target = sc_.targets.at(t.target);
  t.gpu = target.gpu;
  if (!given.share) t.share = ParamValues::defaults(target.sharing.mode->tenant_params());
  if (!given.start) t.start_distribution = Distribution::uniform(0, start_jitter_);
  if (t.stream.empty()) t.stream = t.name;
  if (!given.memory && t.workload) t.memory = t.workload->device_memory();
  t.start = 0;  // drawn once the scenario is finished (draw_starts)
  sc_.tenants.push_back(std::move(t));
  given_.push_back(given);
  return sc_.tenants.size() - 1;
}

void ScenarioBuilder::compute_setups() {
  for (size_t k = 0; k < sc_.targets.size(); ++k) {
    ModelSetup& s = sc_.targets[k].setup;
    s = ModelSetup{};
    s.params = sc_.targets[k].sharing.params;
    s.fidelity = sc_.fidelity;
    s.gpu = sc_.targets[k].spec;
  }
  for (const TenantSpec& t : sc_.tenants) sc_.targets[t.target].setup.tenants.push_back(t.share);
}

std::vector<ScenarioBuilder::Problem> ScenarioBuilder::finish() {
  if (finished_) throw std::logic_error("a scenario is finished once");
  finished_ = true;
  sc_.metrics_interval = metrics_interval_ ? *metrics_interval_ : std::isfinite(sc_.duration) ? sc_.duration / 100 : 1.0;
  compute_setups();
  std::vector<Problem> problems;
  // Checks that need every tenant of a target (profile limits, shares that must add up).
  for (size_t k = 0; k < sc_.targets.size(); ++k) {
    const SharingModeInfo& mode = *sc_.targets[k].sharing.mode;
    if (!mode.validate) continue;
    const std::string error = mode.validate(sc_.targets[k].setup);
    if (!error.empty()) problems.push_back({Problem::Where::Target, k, false, error});
  }
  if (!problems.empty()) return problems;
  // Workloads sized by the memory their process sees (an LLM server's KV cache): its partition's under a mode that
  // partitions memory (vGPU, SR-IOV, MPS limits), else its target's (a MIG instance's, or the whole GPU's); a
  // tenant that gives `memory` sees that much, within what its process sees.
  for (size_t k = 0; k < sc_.targets.size(); ++k) {
    const SharingModeInfo& mode = *sc_.targets[k].sharing.mode;
    const std::vector<double> parts =
        mode.memory_partitions ? mode.memory_partitions(sc_.targets[k].setup) : std::vector<double>{};
    size_t slot = 0;
    for (size_t i = 0; i < sc_.tenants.size(); ++i) {
      TenantSpec& t = sc_.tenants[i];
      if (t.target != k) continue;
      const double visible = slot < parts.size() ? parts[slot] : sc_.targets[k].spec.memory;
      ++slot;
      const bool given = given_[i].memory;
      WorkloadRef sized;
      std::string error;
      try {
        sized = t.workload->sized_for(given ? t.memory : visible);
      } catch (const std::invalid_argument& e) {
        error = e.what();
      }
      if (!sized && error.empty()) continue;  // it does not size itself
      if (given && t.memory > visible)
        error = fmt::format("{} is more than the {} the tenant sees", units::format(t.memory, units::Dim::Bytes),
                            units::format(visible, units::Dim::Bytes));
      if (!error.empty()) {
        problems.push_back({Problem::Where::Tenant, i, given, fmt::format("on {}: {}", sc_.targets[k].id, error)});
        continue;
      }
      t.workload = std::move(sized);
      if (!given) t.memory = t.workload->device_memory();
    }
  }
  draw_starts(sc_);
  return problems;
}

Scenario ScenarioBuilder::take() {
  if (!finished_) throw std::logic_error("take() before finish()");
  return std::move(sc_);
}

ScenarioGpu catalog_gpu(const std::string& id, const CatalogEntry& entry) {
  ScenarioGpu g;
  g.id = id;
  g.spec = entry.spec;
  g.calibrated = builtin_overrides(entry.spec.name);
  g.performance = RooflineParams::table().with(g.calibrated);
  return g;
}

}  // namespace vgpusim
