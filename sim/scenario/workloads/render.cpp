// Workload kind `render`: frames of CPU time then GPU work, optionally capped at a frame rate (models/workload).
#include "sim/scenario/loader_state.hpp"
#include "sim/scenario/workload_kind.hpp"

namespace vgpusim {

WorkloadKindInfo render_workload_kind() {
  WorkloadKindInfo kind;
  kind.name = "render";
  kind.help = "frames; reports frames/s";
  kind.sections = {
      {"workload.render",
       "Frames, each CPU time then GPU work, optionally capped at a frame rate.",
       {{"frames", "integer", false, "", "frames to render", "until the scenario ends"},
        {"frame", "kernel (default precision fp32)", true, "", "GPU work of one frame"},
        {"kernels_per_frame", "integer", false, "1", "exact fidelity splits a frame into this many equal kernels"},
        {"cpu_time", "time or distribution", false, "0 s", "CPU time per frame before its GPU work"},
        {"fps_cap", "number", false, "", "frame-rate limit (vsync), frames per second", "uncapped"}}},
  };
  kind.read = [](Loader& loader, const MapReader& r, const ScenarioGpu& gpu) -> WorkloadRef {
    auto t = std::make_shared<RenderWorkload>();
    t->frames = r.has("frames") ? r.integer("frames", 0, 1LL << 50) : -1;
    t->kernels_per_frame = loader.count(r, "kernels_per_frame");
    t->frame = loader.kernel(r.node("frame"), r.child_path("frame"), "fp32", gpu, t->kernels_per_frame);
    t->cpu_time = loader.distribution(r, "cpu_time", units::Dim::Time);
    t->fps_cap = r.has("fps_cap") ? loader.positive(r, "fps_cap", units::Dim::Count) : 0;
    return t;
  };
  return kind;
}

}  // namespace vgpusim
