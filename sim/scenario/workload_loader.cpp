// Scenario loading, workloads: the workload kinds, kernels (as work or as a measured duration), trace replays.
#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>

#include "models/gpu/roofline.hpp"
#include "models/gpu/device_names.hpp"
#include "sim/io/kineto_reader.hpp"
#include "sim/scenario/loader_state.hpp"

namespace vgpusim {

using units::Dim;

KernelSpec Loader::kernel(const YAML::Node& node, const std::string& path, const std::string& default_precision,
                  const GpuInstance& tenant_gpu) {
  MapReader r(file, node, path, section_named("kernel"));
  r.finish();
  const bool by_work = r.has("flops") || r.has("fp16") || r.has("fp32") || r.has("fp64") || r.has("bytes");
  const double blocks = static_cast<double>(r.integer_or("blocks", 1, 1LL << 40, 0));
  if (r.has("duration")) {
    if (by_work)
      fail_at(file, node, path, "give either `duration` (with `on` and `bound`) or work (flops, bytes), not both");
    const double d = r.quantity("duration", Dim::Time);
    if (!(d > 0)) fail_at(file, r.get("duration"), r.child_path("duration"), "expected a positive time");
    const GpuSpec* ref = &tenant_gpu.spec;
    ParamValues perf = tenant_gpu.performance;
    if (r.has("on")) {
      const std::string name = r.string("on");
      const CatalogEntry* e = catalog.find(name);
      if (!e) unknown_gpu_model(r.get("on"), r.child_path("on"), name);
      if (name != tenant_gpu.spec.name) {
        ref = &e->spec;
        perf = ParamValues::defaults(roofline_params());
      }
    }
    const std::string b = r.choice_or("bound", {"memory", "fp16", "fp32", "fp64"}, "memory");
    const KernelBound bound = b == "memory" ? KernelBound::Memory
                              : b == "fp16" ? KernelBound::FP16
                              : b == "fp32" ? KernelBound::FP32
                                            : KernelBound::FP64;
    return kernel_from_duration(d, *ref, bound, blocks, perf);
  }
  for (const char* key : {"on", "bound"})
    if (r.has(key)) fail_at(file, r.get(key), r.child_path(key), fmt::format("`{}` goes with `duration`", key));
  KernelSpec k;
  k.blocks = blocks;
  k.flops_fp16 = r.quantity_or("fp16", Dim::Flops, 0);
  k.flops_fp32 = r.quantity_or("fp32", Dim::Flops, 0);
  k.flops_fp64 = r.quantity_or("fp64", Dim::Flops, 0);
  k.bytes = r.quantity_or("bytes", Dim::Bytes, 0);
  if (r.has("flops")) {
    const double f = r.quantity("flops", Dim::Flops);
    const std::string p = r.choice_or("precision", {"fp16", "fp32", "fp64"}, default_precision);
    (p == "fp16" ? k.flops_fp16 : p == "fp32" ? k.flops_fp32 : k.flops_fp64) += f;
  } else if (r.has("precision")) {
    fail_at(file, r.get("precision"), r.child_path("precision"), "`precision` goes with `flops`");
  }
  for (double v : {k.flops_fp16, k.flops_fp32, k.flops_fp64, k.bytes})
    if (v < 0) fail_at(file, node, path, "work amounts must not be negative");
  if (k.flops_fp16 + k.flops_fp32 + k.flops_fp64 + k.bytes <= 0)
    fail_at(file, node, path, "expected some work: flops, fp16, fp32, fp64, bytes or duration");
  return k;
}

void Loader::unknown_gpu_model(const YAML::Node& node, const std::string& path, const std::string& name) {
  fail_at(file, node, path,
          fmt::format("unknown GPU model '{}'{} (see `vgpusim list gpus`)", name,
                      did_you_mean_suffix(name, catalog.names())));
}

int Loader::count(const MapReader& r, const std::string& key) {
  return static_cast<int>(r.integer_or(key, 1, 1000000, 1));
}

WorkloadSpec Loader::workload(const YAML::Node& node, const std::string& path, const GpuInstance& gpu) {
  MapReader w(file, node, path, section_named("tenants[].workload"));
  w.finish();
  std::vector<std::string> given;
  for (const char* k : {"kernels", "training", "inference", "render", "trace"})
    if (w.has(k)) given.push_back(k);
  if (given.size() != 1)
    fail_at(file, node, path,
            given.empty() ? "expected one workload kind: kernels, training, inference, render or trace"
                          : fmt::format("expected exactly one workload kind, found {} and {}", given[0], given[1]));
  const std::string kind = given[0];
  const std::string p = w.child_path(kind);
  if (kind == "trace") return trace(w.get(kind), p, gpu);
  if (kind == "training") {
    MapReader r(file, w.get(kind), p, section_named("workload.training"));
    r.finish();
    TrainingWorkload t;
    t.iterations = r.integer_or("iterations", 0, 1LL << 50, -1);
    t.step = kernel(r.get("step"), r.child_path("step"), "fp16", gpu);
    t.kernels_per_step = count(r, "kernels_per_step");
    t.host_time = nonnegative(r, "host_time", Dim::Time);
    return t;
  }
  if (kind == "inference") {
    MapReader r(file, w.get(kind), p, section_named("workload.inference"));
    r.finish();
    InferenceWorkload t;
    t.rate = r.quantity("rate", Dim::Rate);
    if (!(t.rate > 0)) fail_at(file, r.get("rate"), r.child_path("rate"), "expected a positive rate");
    t.request = kernel(r.get("request"), r.child_path("request"), "fp16", gpu);
    t.kernels_per_request = count(r, "kernels_per_request");
    t.requests = r.integer_or("requests", 0, 1LL << 50, -1);
    if (r.has("slo")) {
      MapReader s(file, r.get("slo"), r.child_path("slo"), section_named("workload.inference.slo"));
      s.finish();
      const std::pair<const char*, double> keys[] = {{"p50", 50}, {"p90", 90}, {"p95", 95}, {"p99", 99}, {"p999", 99.9}};
      for (const auto& [key, pct] : keys)
        if (s.has(key)) t.slo.push_back({pct, positive(s, key, Dim::Time)});
    }
    return t;
  }
  if (kind == "render") {
    MapReader r(file, w.get(kind), p, section_named("workload.render"));
    r.finish();
    RenderWorkload t;
    t.frames = r.integer_or("frames", 0, 1LL << 50, -1);
    t.frame = kernel(r.get("frame"), r.child_path("frame"), "fp32", gpu);
    t.kernels_per_frame = count(r, "kernels_per_frame");
    t.cpu_time = nonnegative(r, "cpu_time", Dim::Time);
    t.fps_cap = r.has("fps_cap") ? positive(r, "fps_cap", Dim::Count) : 0;
    return t;
  }
  MapReader r(file, w.get(kind), p, section_named("workload.kernels"));
  r.finish();
  KernelsWorkload t;
  if (r.has("mix") == r.has("kernel")) fail_at(file, r.node(), p, "expected either `mix` or `kernel`");
  if (r.has("kernel")) {
    t.mix.push_back({"kernel", 1, kernel(r.get("kernel"), r.child_path("kernel"), "fp32", gpu)});
  } else {
    const YAML::Node mix = r.get("mix");
    if (!mix.IsSequence() || mix.size() == 0)
      fail_at(file, mix, r.child_path("mix"), "expected a non-empty list of kernels");
    for (size_t i = 0; i < mix.size(); ++i) {
      const std::string mp = fmt::format("{}[{}]", r.child_path("mix"), i);
      MapReader m(file, mix[i], mp, section_named("workload.kernels.mix[]"));
      m.finish();
      KernelMixEntry e;
      e.name = m.string_or("name", fmt::format("k{}", i));
      e.weight = m.has("weight") ? positive(m, "weight", Dim::Count) : 1.0;
      e.kernel = kernel(m.get("kernel"), m.child_path("kernel"), "fp32", gpu);
      t.mix.push_back(e);
    }
  }
  t.count = r.integer_or("count", 0, 1LL << 50, -1);
  t.think = nonnegative(r, "think", Dim::Time);
  t.think_exponential = r.choice_or("think_distribution", {"constant", "exponential"}, "constant") == "exponential";
  return t;
}

// A recorded PyTorch profiler trace, its ops' work inferred on the GPU that recorded it (`source`).
TraceWorkload Loader::trace(const YAML::Node& node, const std::string& path, const GpuInstance& tenant_gpu) {
  MapReader r(file, node, path, section_named("workload.trace"));
  r.finish();
  std::filesystem::path trace_path = r.string("path");
  if (trace_path.is_relative()) trace_path = std::filesystem::path(file).parent_path() / trace_path;
  std::optional<int> device;
  if (r.has("device")) device = static_cast<int>(r.integer("device", 0, 1 << 20));
  const std::string key = fmt::format("{}#{}", trace_path.string(), device ? *device : -1);
  if (!traces.count(key)) {
    try {
      traces[key] = std::make_shared<const KinetoTrace>(read_kineto_trace(trace_path.string(), device));
    } catch (const TraceError& e) {
      fail_at(file, r.get("path"), r.child_path("path"), e.what());
    }
  }
  const KinetoTrace& recorded = *traces[key];
  std::string source;
  if (r.has("source")) {
    source = r.string("source");
    if (!catalog.find(source)) unknown_gpu_model(r.get("source"), r.child_path("source"), source);
  } else {
    const KinetoDevice* d = recorded.device_properties();
    if (d) source = catalog_name_for_device(d->name, d->total_memory, catalog.names());
    if (source.empty()) {
      std::string names;
      for (const std::string& n : catalog.names()) names += (names.empty() ? "" : ", ") + n;
      fail_at(file, node, path,
              fmt::format("cannot tell which catalog GPU recorded '{}' ({}); give `source`, one of: {}",
                          trace_path.string(),
                          d ? fmt::format("deviceProperties names '{}'", d->name)
                            : fmt::format("it has no deviceProperties for device {}", recorded.device),
                          names));
    }
  }
  // As for kernels given by duration: the tenant's own GPU (with its overrides) when it is the source.
  const GpuSpec* ref = &tenant_gpu.spec;
  ParamValues perf = tenant_gpu.performance;
  if (source != tenant_gpu.spec.name) {
    ref = &catalog.find(source)->spec;
    perf = ParamValues::defaults(roofline_params());
  }
  TraceWindow window;
  if (r.has("window")) {
    MapReader wr(file, r.get("window"), r.child_path("window"), section_named("workload.trace.window"));
    wr.finish();
    window.from = nonnegative(wr, "from", Dim::Time);
    if (wr.has("to")) window.to = positive(wr, "to", Dim::Time);
    if (window.to <= window.from) fail_at(file, wr.node(), wr.path(), "expected `to` after `from`");
  }
  TraceWorkload t;
  try {
    t.trace = std::make_shared<const TraceReplay>(make_trace_replay(recorded, *ref, perf, window));
  } catch (const TraceError& e) {
    fail_at(file, r.has("window") ? r.get("window") : node, path, e.what());
  }
  t.iterations = r.integer_or("iterations", 1, 1LL << 40, 1);
  return t;
}

}  // namespace vgpusim
