// Workload kind `training`: iterations, each a host-side delay then one step of GPU work (models/workload).
#include "sim/scenario/loader_state.hpp"
#include "sim/scenario/workload_kind.hpp"

namespace vgpusim {

WorkloadKindInfo training_workload_kind() {
  WorkloadKindInfo kind;
  kind.name = "training";
  kind.help = "training iterations; reports iterations/s";
  kind.sections = {
      {"workload.training",
       "Iterations, each a host-side delay then one step of GPU work.",
       {{"iterations", "integer", false, "", "iterations to run", "until the scenario ends"},
        {"step", "kernel (default precision fp16)", true, "", "GPU work of one iteration"},
        {"kernels_per_step", "integer", false, "1", "exact fidelity splits a step into this many equal kernels"},
        {"host_time", "time or distribution", false, "0 s", "CPU time per iteration during which the GPU is idle"}}},
  };
  kind.read = [](Loader& loader, const MapReader& r, const ScenarioGpu& gpu) -> WorkloadRef {
    auto t = std::make_shared<TrainingWorkload>();
    t->iterations = r.has("iterations") ? r.integer("iterations", 0, 1LL << 50) : -1;
    t->kernels_per_step = loader.count(r, "kernels_per_step");
    t->step = loader.kernel(r.node("step"), r.child_path("step"), "fp16", gpu, t->kernels_per_step);
    t->host_time = loader.distribution(r, "host_time", units::Dim::Time);
    return t;
  };
  return kind;
}

}  // namespace vgpusim
