// timeslice.paced re-simulation: two engine clients on one GPU under exact time-slicing.
#include "sim/studies/calibration/paced_replay.hpp"

#include <algorithm>

#include "models/sharing/mode_registry.hpp"
#include "sim/core/engine.hpp"

namespace vgpusim {
namespace {

// A host that launches kernels one gap apart into an in-order queue and waits for them every sync_every launches
// and after the last. The context runs one kernel at a time: the next starts when the previous ends.
struct PacedHost : EngineClient {
  Engine* engine = nullptr;
  Engine::ClientIndex client = 0;
  Engine::ContextIndex context = 0;
  double kernel_s = 0, gap_s = 0;
  int launches = 0, sync_every = 0;
  int launched = 0, done = 0;
  bool running = false, waiting = false;
  double started = -1, finished = -1;

  void begin(double at) { engine->set_launch_timer(client, at, 0); }
  void start_next() {
    running = true;
    engine->start_activity(context, kernel_s, 0);
  }
  void on_timer(uint64_t) override {
    if (started < 0) started = engine->now();
    ++launched;
    if (!running) start_next();
    if (launched == launches || (sync_every > 0 && launched % sync_every == 0)) {
      waiting = true;  // until every launched kernel has run
      return;
    }
    engine->set_launch_timer(client, engine->now() + gap_s, 0);
  }
  void on_activity_done(uint64_t) override {
    ++done;
    running = false;
    if (done < launched) {
      start_next();
      return;
    }
    if (!waiting) return;
    waiting = false;
    if (launched == launches) {
      finished = engine->now();
      engine->allow_idle_holds(context, false);
    } else {
      engine->set_launch_timer(client, engine->now() + gap_s, 0);
    }
  }
};

// Runs the light host alone (busy false) or beside the busy process; returns the light run's length.
double light_run_s(const ModelSetup& setup, const PacedExperiment& x, const PacedPoint& p, bool busy) {
  Engine engine;
  const auto g = engine.add_gpu(find_sharing_mode("timeslice")->create(setup));
  PacedHost light, heavy;
  PacedHost* hosts[2] = {&heavy, &light};
  for (PacedHost* h : hosts) {
    h->engine = &engine;
    h->client = engine.add_client(h);
    h->context = engine.add_context(g, h->client);
  }
  light.kernel_s = x.light_kernel_s;
  light.gap_s = p.gap_s;
  light.launches = p.launches;
  light.sync_every = p.sync_every;
  double lead = 0;
  if (busy) {
    heavy.kernel_s = x.busy_kernel_s;
    heavy.launches = x.busy_launches;
    heavy.sync_every = 0;
    heavy.gap_s = 0;  // every launch at once
    heavy.begin(0);
    lead = x.busy_lead_s;
  }
  light.begin(lead);
  engine.run();
  return light.finished - light.started;
}

}  // namespace

PacedPrediction predict_paced(const PacedExperiment& x, const PacedPoint& p, const GpuSpec& gpu,
                              const ParamOverrides& params) {
  ModelSetup setup;
  setup.fidelity = Fidelity::Exact;
  setup.gpu = gpu;
  const SharingModeInfo* info = find_sharing_mode("timeslice");
  setup.params = with_overrides(info->mode_params(), params);
  for (int i = 0; i < 2; ++i) setup.tenants.push_back(ParamValues::defaults(info->tenant_params()));
  PacedPrediction out;
  const double alone = light_run_s(setup, x, p, false);
  const double beside = light_run_s(setup, x, p, true);
  out.speed = beside > 0 ? alone / beside : 0;
  out.gpu_share_alone = alone > 0 ? std::min(1.0, p.launches * x.light_kernel_s / alone) : 0;
  return out;
}

}  // namespace vgpusim
