// Workload kind `trace`: a recorded PyTorch profiler (Kineto) trace, its ops' work inferred on the GPU that recorded
// it (`source`), replayed op by op (models/workload/trace_replay.hpp; the file is read by sim/io/kineto_reader).
#include <fmt/format.h>

#include <filesystem>

#include "sim/io/calibration_file.hpp"
#include "models/gpu/device_names.hpp"
#include "models/workload/trace_graph.hpp"
#include "sim/io/kineto_reader.hpp"
#include "sim/scenario/loader_state.hpp"
#include "sim/scenario/workload_kind.hpp"

namespace vgpusim {
namespace {

WorkloadRef read_trace(Loader& loader, const MapReader& r, const ScenarioGpu& tenant_gpu) {
  const std::string& file = r.file();
  std::filesystem::path trace_path = r.string("path");
  if (trace_path.is_relative()) trace_path = std::filesystem::path(file).parent_path() / trace_path;
  std::optional<int> device;
  if (r.has("device")) device = static_cast<int>(r.integer("device", 0, 1 << 20));
  // A trace is read once per file and device, however many tenants replay it.
  const std::string key = fmt::format("{}#{}", trace_path.string(), device ? *device : -1);
  if (!loader.traces.count(key)) {
    try {
      loader.traces[key] = std::make_shared<const KinetoTrace>(read_kineto_trace(trace_path.string(), device));
    } catch (const TraceError& e) {
      fail_at(file, r.node("path"), r.child_path("path"), e.what());
    }
  }
  const KinetoTrace& recorded = *loader.traces[key];
  const Catalog& catalog = loader.catalog;
  std::string source;
  if (r.has("source")) {
    source = r.string("source");
    if (!catalog.find(source)) loader.unknown_gpu_model(r.node("source"), r.child_path("source"), source);
  } else {
    const KinetoDevice* d = recorded.device_properties();
    if (d) source = catalog_name_for_device(d->name, d->total_memory, catalog.names());
    if (source.empty()) {
      std::string names;
      for (const std::string& n : catalog.names()) names += (names.empty() ? "" : ", ") + n;
      fail_at(file, r.node(), r.path(),
              fmt::format("cannot tell which catalog GPU recorded '{}' ({}); give `source`, one of: {}",
                          trace_path.string(),
                          d ? fmt::format("deviceProperties names '{}'", d->name)
                            : fmt::format("it has no deviceProperties for device {}", recorded.device),
                          names));
    }
  }
  // As for kernels given by duration: the tenant's own GPU (with its overrides) when it is the source.
  const GpuSpec* ref = &tenant_gpu.spec;
  RooflineParams perf = tenant_gpu.performance;
  if (source != tenant_gpu.spec.name) {
    ref = &catalog.find(source)->spec;
    perf = RooflineParams::table().with(builtin_overrides(source));
  }
  TraceWindow window;
  if (r.has("window")) {
    MapReader wr(file, r.node("window"), r.child_path("window"), section_named("workload.trace.window"));
    wr.finish();
    window.from = loader.nonnegative(wr, "from", units::Dim::Time);
    if (wr.has("to")) window.to = loader.positive(wr, "to", units::Dim::Time);
    if (window.to <= window.from) fail_at(file, wr.node(), wr.path(), "expected `to` after `from`");
  }
  // How the replay knows what waits for what: the dependency graph of the trace's CPU and GPU sides, or each
  // stream alone with its recorded gaps.
  std::string model = "graph";
  if (r.has("model")) {
    model = r.string("model");
    if (model != "graph" && model != "streams")
      fail_at(file, r.node("model"), r.child_path("model"),
              fmt::format("unknown trace model '{}'; expected graph or streams", model));
  }
  TraceGraphOptions options;
  if (r.has("launch_queue")) options.launch_queue = static_cast<size_t>(r.integer("launch_queue", 1, 1 << 24));
  if (r.has("recorded_launch_queue"))
    options.recorded_launch_queue = static_cast<size_t>(r.integer("recorded_launch_queue", 1, 1 << 24));
  if (r.has("handoff_gap")) options.handoff_gap = loader.positive(r, "handoff_gap", units::Dim::Time);
  if (r.has("kernels")) {
    const std::string kernels = r.string("kernels");
    if (kernels != "shapes" && kernels != "names")
      fail_at(file, r.node("kernels"), r.child_path("kernels"),
              fmt::format("unknown kernels '{}'; expected shapes or names", kernels));
    options.shapes = kernels == "shapes";
  }
  auto t = std::make_shared<TraceWorkload>();
  try {
    if (model != "streams") {
      // The tenant's own GPU spec matters only when it is the source (with its overrides): then its name and the
      // performance parameters' values make the key.
      std::string graph_key =
          fmt::format("{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}", key, source, window.from, window.to,
                      options.shapes, options.launch_queue, options.recorded_launch_queue, options.handoff_gap, ref->name,
                      ref->compute_units, ref->fp64, ref->fp32, ref->fp16_tensor, ref->memory_bandwidth, ref->l2_cache);
      const ParamValues values = RooflineParams::table().values(perf);
      for (const ParamSpec& p : roofline_params()) graph_key += fmt::format("|{}={}", p.name, values.get(p.name));
      auto [cached, added] = loader.trace_graphs.try_emplace(graph_key);
      if (added) cached->second = make_trace_graph(recorded, *ref, perf, window, options);
      t->graph = cached->second;
      if (t->graph) t->notes = t->graph->warnings;
    }
    // The per-stream replay: asked for, or the fallback.
    if (!t->graph) t->trace = std::make_shared<const TraceReplay>(make_trace_replay(recorded, *ref, perf, window, options.shapes));
  } catch (const TraceError& e) {
    fail_at(file, r.has("window") ? r.node("window") : r.node(), r.path(), e.what());
  }
  if (!t->graph && model == "graph")
    t->notes.push_back(fmt::format(
        "trace '{}' has no CPU-side runtime calls linked to its GPU ops (recorded without ProfilerActivity.CPU?): it "
        "is replayed per stream with the recorded gaps as fixed host time, so results on another GPU or under "
        "sharing assume the host waits as long as it did when recorded",
        trace_path.filename().string()));
  t->iterations = r.integer("iterations", 1, 1LL << 40);
  return t;
}

}  // namespace

WorkloadKindInfo trace_workload_kind() {
  WorkloadKindInfo kind;
  kind.name = "trace";
  kind.help =
      "a recorded PyTorch profiler trace replayed op by op (docs/trace-replay.md); reports iterations/s, one "
      "iteration = one pass";
  kind.sections = {
      {"workload.trace",
       "Replays one device of a PyTorch profiler (Kineto) trace through its dependency graph: host threads run their "
       "recorded CPU time and runtime calls ahead of the GPU, ops start when launched, their stream is free and the "
       "events they wait for are recorded; synchronising calls wait for the GPU. Each op's work is inferred from its "
       "duration on the source GPU (docs/trace-replay.md).",
       {{"path", "file", true, "", "the trace, .json or .json.gz, relative to the scenario file"},
        {"source", "catalog name", false, "", "the GPU the trace was recorded on, e.g. A100-40GB",
         "matched from the trace's deviceProperties"},
        {"device", "integer", false, "", "which CUDA device of the trace to replay (args.device)",
         "the device with the most kernels"},
        {"iterations", "integer >= 1", false, "1", "passes through the trace"},
        {"window", "workload.trace.window", false, "", "replay only the ops that start in this part of the trace",
         "the whole trace"},
        {"model", "graph | streams", false, "graph",
         "graph: host threads, launches, synchronisation and cross-stream events as recorded (docs/trace-replay.md); "
         "streams: each stream alone with its recorded gaps as fixed host time (the fallback, with a warning, for a "
         "trace without CPU-side runtime calls)"},
        {"launch_queue", "integer >= 1", false, "1024",
         "ops one stream holds launched but unfinished before a launch blocks the host, in the replay (graph)"},
        {"recorded_launch_queue", "integer >= 1", false, "1024",
         "the same in the recording: launches made into a full queue were waiting, not working (graph)"},
        {"handoff_gap", "time", false, "1 ms",
         "a host thread idle this long, resumed after another thread's last call before that one idles as long, waits "
         "for it (graph)"},
        {"kernels", "shapes | names", false, "shapes",
         "shapes: a kernel whose launching op has input shapes (recorded with record_shapes) gets its time on another "
         "GPU from the operator model's ratio between the GPUs; names: every kernel scaled by the roofline from its "
         "name and grid (what kernels without shapes get); results.json's workload_facts count each kind"}}},
      {"workload.trace.window",
       "A part of the trace, in time since its first GPU op; kept ops start in [from, to). The graph also keeps "
       "the runtime calls that start in it and the kept ops' launches wherever they are; a pass starts at the first "
       "of them (the per-stream replay: at `from`).",
       {{"from", "time", false, "0 s", "start of the window"},
        {"to", "time", false, "", "end of the window", "the trace's end"}}},
  };
  kind.read = read_trace;
  return kind;
}

}  // namespace vgpusim
