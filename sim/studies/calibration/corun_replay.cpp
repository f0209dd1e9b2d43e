// Co-run re-simulation. Forms map onto modes: two streams of one process and MPS clients share SMs and bandwidth
// (mps, uncapped or capped); two processes time-slice (timeslice, exact); disjoint green contexts are SM
// partitions that still share DRAM bandwidth and L2 (mps capped at each partition's SMs).
#include "sim/studies/calibration/corun_replay.hpp"

#include <stdexcept>

#include "models/gpu/roofline.hpp"
#include "models/sharing/mode_registry.hpp"
#include "sim/core/engine.hpp"

namespace vgpusim {
namespace {


// Launches a kernel sequence one launch after another; records when the last one ends.
struct Sequence : EngineClient {
  Engine* engine = nullptr;
  Engine::ContextIndex context = 0;
  double solo = 0;
  ActivityDemand demand;
  int left = 0;
  double finished = -1;
  void launch() { engine->start_activity(context, solo, 0, demand); }
  void on_activity_done(uint64_t) override {
    if (--left > 0)
      launch();
    else
      finished = engine->now();
  }
  void on_timer(uint64_t) override {}
};

struct Setup {
  std::string mode;
  ModelSetup model;
};

// Runs the kernels given (a and/or b) with the form's model; returns their completion times.
std::pair<double, double> run(const Setup& s, const CorunKernel* a, const CorunKernel* b, const GpuSpec& gpu,
                              const RooflineParams& perf) {
  Engine engine;
  const auto g = engine.add_gpu(find_sharing_mode(s.mode)->create(s.model));
  Sequence seq[2];
  const CorunKernel* kernels[2] = {a, b};
  for (int i = 0; i < 2; ++i) {
    seq[i].engine = &engine;
    seq[i].context = engine.add_context(g, engine.add_client(&seq[i]));
    if (!kernels[i]) continue;
    KernelSpec k;
    const double per = 1.0 / std::max(1, kernels[i]->launches);
    k.flops_fp32 = kernels[i]->flops * per;
    k.bytes = kernels[i]->bytes * per;
    k.blocks = kernels[i]->blocks_per_launch;
    const KernelTimes t = kernel_times(k, gpu, perf);
    seq[i].solo = t.solo();
    if (seq[i].solo > 0) seq[i].demand = activity_demand(k, t, gpu);
    seq[i].left = std::max(1, kernels[i]->launches);
    seq[i].launch();
  }
  engine.run();
  return {seq[0].finished, seq[1].finished};
}

}  // namespace

CorunPrediction predict_corun(const CorunExperiment& e, const GpuSpec& gpu, const ParamOverrides& params) {
  const RooflineParams perf = RooflineParams::table().with(params);
  Setup s;
  s.model.fidelity = Fidelity::Exact;
  s.model.gpu = gpu;
  double cap_a = 1, cap_b = 1;
  if (e.form == "processes") {
    s.mode = "timeslice";
  } else if (e.form == "streams" || e.form == "mps" || e.form == "green_ctx") {
    s.mode = "mps";
    if (e.form == "mps") {
      cap_a = e.a_cap;
      cap_b = e.b_cap;
    } else if (e.form == "green_ctx") {
      cap_a = e.a_sms / gpu.compute_units;
      cap_b = e.b_sms / gpu.compute_units;
    }
  } else {
    throw std::invalid_argument("unknown co-run form '" + e.form + "'");
  }
  const SharingModeInfo* info = find_sharing_mode(s.mode);
  const std::vector<ParamSpec> mode_params = info->mode_params();
  s.model.params = with_overrides(mode_params, params);
  // Streams of one process and green contexts are played by the MPS model, but their launches do not go through an
  // MPS server.
  if (e.form != "mps" && s.model.params.has("launch_overhead")) s.model.params.set("launch_overhead", 0.0);
  for (double cap : {cap_a, cap_b}) {
    ParamValues t = ParamValues::defaults(info->tenant_params());
    if (t.has("active_threads")) t.set("active_threads", std::min(1.0, std::max(0.01, cap)));
    s.model.tenants.push_back(t);
  }
  const auto [solo_a, unused_b] = run(s, &e.a, nullptr, gpu, perf);
  const auto [unused_a, solo_b] = run(s, nullptr, &e.b, gpu, perf);
  const auto [together_a, together_b] = run(s, &e.a, &e.b, gpu, perf);
  (void)unused_a;
  (void)unused_b;
  CorunPrediction p;
  p.model = s.mode;
  p.slowdown_a = together_a / solo_a;
  p.slowdown_b = together_b / solo_b;
  return p;
}

}  // namespace vgpusim
