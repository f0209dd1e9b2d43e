// Scenario loading: YAML -> Scenario. Every key goes through a MapReader bound to a documented Section.
#include "sim/scenario/loader.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "models/kernel_perf.hpp"
#include "models/workload/kineto.hpp"

namespace vgpusim {

const Section& section_named(const std::string& path);  // sections.cpp

namespace {

using units::Dim;

struct Loader {
  const std::string& file;
  const Catalog& catalog;
  Scenario sc;

  KernelSpec kernel(const YAML::Node& node, const std::string& path, const std::string& default_precision,
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

  [[noreturn]] void unknown_gpu_model(const YAML::Node& node, const std::string& path, const std::string& name) {
    const std::string hint = did_you_mean(name, catalog.names());
    fail_at(file, node, path,
            fmt::format("unknown GPU model '{}'{} (see `vgpusim list gpus`)", name,
                        hint.empty() ? "" : fmt::format("; did you mean '{}'?", hint)));
  }

  int count(const MapReader& r, const std::string& key) {
    return static_cast<int>(r.integer_or(key, 1, 1000000, 1));
  }

  WorkloadSpec workload(const YAML::Node& node, const std::string& path, const GpuInstance& gpu) {
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
  TraceWorkload trace(const YAML::Node& node, const std::string& path, const GpuInstance& tenant_gpu) {
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
      if (d) source = catalog_gpu_for(*d, catalog.names());
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
  std::map<std::string, std::shared_ptr<const KinetoTrace>> traces;  // read once per file and device

  double nonnegative(const MapReader& r, const std::string& key, Dim dim) {
    const double v = r.quantity_or(key, dim, 0);
    if (v < 0) fail_at(file, r.get(key), r.child_path(key), "expected a value >= 0");
    return v;
  }
  double positive(const MapReader& r, const std::string& key, Dim dim) {
    const double v = r.quantity(key, dim);
    if (!(v > 0)) fail_at(file, r.get(key), r.child_path(key), "expected a value > 0");
    return v;
  }

  void gpus(const MapReader& top) {
    const YAML::Node list = top.get("gpus");
    if (!list.IsSequence() || list.size() == 0) fail_at(file, list, "gpus", "expected a non-empty list of GPUs");
    for (size_t i = 0; i < list.size(); ++i) {
      const std::string path = fmt::format("gpus[{}]", i);
      MapReader r(file, list[i], path, section_named("gpus[]"));
      r.finish();
      GpuInstance g;
      g.id = r.string("id");
      for (const GpuInstance& other : sc.gpus)
        if (other.id == g.id) fail_at(file, r.get("id"), r.child_path("id"), "duplicate GPU id '" + g.id + "'");
      const std::string model = r.string("model");
      const CatalogEntry* e = catalog.find(model);
      if (!e) unknown_gpu_model(r.get("model"), r.child_path("model"), model);
      g.spec = e->spec;
      for (const GpuField& f : gpu_fields())
        if (r.has(f.name)) g.spec.*f.member = positive(r, f.name, static_cast<Dim>(f.dim));
      g.performance = ParamValues::defaults(roofline_params());
      for (const ParamSpec& p : roofline_params())
        if (r.has(p.name)) g.performance.set(p.name, bounded(r, p));
      sc.gpus.push_back(std::move(g));
    }
  }

  double bounded(const MapReader& r, const ParamSpec& p) {
    const double v = r.quantity(p.name, p.dim);
    if (v < p.min || v > p.max)
      fail_at(file, r.get(p.name), r.child_path(p.name),
              fmt::format("expected a value from {} to {}, found {}", units::format(p.min, p.dim),
                          units::format(p.max, p.dim), units::format(v, p.dim)));
    return v;
  }

  std::vector<std::string> gpu_ids() const {
    std::vector<std::string> ids;
    for (const GpuInstance& g : sc.gpus) ids.push_back(g.id);
    return ids;
  }

  size_t gpu_index(const YAML::Node& node, const std::string& path, const std::string& id) {
    for (size_t i = 0; i < sc.gpus.size(); ++i)
      if (sc.gpus[i].id == id) return i;
    const std::string hint = did_you_mean(id, gpu_ids());
    fail_at(file, node, path,
            fmt::format("no GPU with id '{}'{}", id, hint.empty() ? "" : fmt::format("; did you mean '{}'?", hint)));
  }

  [[noreturn]] void unknown_mode(const YAML::Node& node, const std::string& path, const std::string& mode) {
    std::vector<std::string> names;
    for (const SharingModelInfo& m : sharing_models()) names.push_back(m.name);
    const std::string hint = did_you_mean(mode, names);
    fail_at(file, node, path,
            fmt::format("unknown sharing mode '{}'{} (see `vgpusim list models`)", mode,
                        hint.empty() ? "" : fmt::format("; did you mean '{}'?", hint)));
  }

  // Reads `mode` and its parameters from a sharing mapping; `extra` keys (e.g. `instances`) are allowed beside.
  SharingConfig sharing_config(const YAML::Node& node, const std::string& path, const GpuSpec& device,
                               const SharingModelInfo*& info, const std::vector<KeySpec>& extra = {}) {
    MapReader head(file, node, path, section_named("sharing.<gpu>"));
    const std::string mode = head.string("mode");
    info = find_sharing_model(mode);
    if (!info) unknown_mode(head.get("mode"), path + ".mode", mode);
    if (info->device_kind != device.kind)
      fail_at(file, head.get("mode"), path + ".mode",
              fmt::format("mode '{}' shares {} devices, but {} is a {} device{}", mode, info->device_kind, device.name,
                          device.kind, device.kind == "cpu" ? " (use mode: software)" : ""));
    Section params{"sharing.<gpu> (" + mode + ")", "", {{"mode", "string", true, "", ""}}};
    for (const ParamSpec& p : info->params) params.keys.push_back({p.name, "", false, "", p.help});
    if (info->partitions) {
      params.keys.push_back({"instances", "list", true, "", "the partitions"});
      params.keys.push_back({"reconfigure", "list", false, "", "layout changes during the run"});
    }
    for (const KeySpec& k : extra) params.keys.push_back(k);
    MapReader r(file, node, path, params);
    r.finish();
    return {info->name, read_params(r, info->params)};
  }

  ParamValues read_params(const MapReader& r, const std::vector<ParamSpec>& specs) {
    ParamValues values = ParamValues::defaults(specs);
    for (const ParamSpec& p : specs) {
      if (!r.has(p.name)) continue;
      if (p.text)
        values.set_word(p.name, r.string(p.name));
      else if (p.is_choice())
        values.set_word(p.name, r.choice_or(p.name, p.choices, p.default_word()));
      else
        values.set(p.name, bounded(r, p));
    }
    return values;
  }

  void sharing(const MapReader& top) {
    const SharingModelInfo* passthrough = find_sharing_model("passthrough");
    for (size_t i = 0; i < sc.gpus.size(); ++i)
      sc.sharing.push_back({passthrough->name, ParamValues::defaults(passthrough->params)});
    std::vector<YAML::Node> nodes(sc.gpus.size());
    std::vector<bool> given(sc.gpus.size(), false);
    if (top.has("sharing")) {
      const YAML::Node map = top.get("sharing");
      if (!map.IsMap()) fail_at(file, map, "sharing", "expected a mapping from GPU id to its sharing");
      for (auto it = map.begin(); it != map.end(); ++it) {
        const std::string id = it->first.Scalar();
        const size_t g = gpu_index(it->first, "sharing." + id, id);
        nodes[g].reset(it->second);
        given[g] = true;
      }
    }
    for (size_t g = 0; g < sc.gpus.size(); ++g) {
      const GpuInstance& gpu = sc.gpus[g];
      const std::string path = "sharing." + gpu.id;
      const SharingModelInfo* info = passthrough;
      if (given[g]) {
        sc.sharing[g] = sharing_config(nodes[g], path, gpu.spec, info);
      } else if (gpu.spec.kind != passthrough->device_kind) {
        fail_at(file, top.node(), gpu.id,
                fmt::format("GPU '{}' is a {} device ({}): give it a sharing mode for {} devices, e.g. software",
                            gpu.id, gpu.spec.kind, gpu.spec.name, gpu.spec.kind));
      }
      if (!info->partitions) {
        sc.targets.push_back({gpu.id, g, "", -1, gpu.spec, sc.sharing[g]});
        target_nodes.push_back(given[g] ? nodes[g] : top.node());
        continue;
      }
      partitions(g, nodes[g], path, *info);
    }
  }

  struct LayoutEntry {
    std::string id, profile;
    YAML::Node sharing;
    bool has_sharing = false;
  };

  std::vector<LayoutEntry> read_layout(const YAML::Node& list, const std::string& path) {
    if (!list.IsSequence() || list.size() == 0) fail_at(file, list, path, "expected a non-empty list of instances");
    std::vector<LayoutEntry> entries;
    for (size_t i = 0; i < list.size(); ++i) {
      MapReader r(file, list[i], fmt::format("{}[{}]", path, i), section_named("sharing.<gpu>.instances[]"));
      r.finish();
      LayoutEntry e{r.string("id"), r.string("profile"), YAML::Node(), r.has("sharing")};
      for (const LayoutEntry& other : entries)
        if (other.id == e.id) fail_at(file, r.get("id"), r.child_path("id"), "duplicate instance id '" + e.id + "'");
      if (e.has_sharing) e.sharing.reset(r.get("sharing"));
      entries.push_back(e);
    }
    return entries;
  }

  std::vector<Partition> place(const GpuInstance& gpu, const SharingModelInfo& info, size_t g,
                               const std::vector<LayoutEntry>& entries, const YAML::Node& list, const std::string& path) {
    std::vector<std::string> profiles;
    for (const LayoutEntry& e : entries) profiles.push_back(e.profile);
    auto made = info.make_partitions(gpu.spec, profiles, sc.sharing[g].params);
    if (const auto* error = std::get_if<std::string>(&made)) fail_at(file, list, path, *error);
    return std::get<std::vector<Partition>>(made);
  }

  void add_instance(size_t g, const LayoutEntry& e, const Partition& part, const YAML::Node& where,
                    const std::string& path, bool present) {
    Target t{sc.gpus[g].id + "/" + e.id, g, part.profile, part.slot, part.spec, {}, present};
    if (e.has_sharing) {
      const SharingModelInfo* inner = nullptr;
      t.sharing = sharing_config(e.sharing, path + ".sharing", t.spec, inner);
      if (inner->partitions) fail_at(file, e.sharing, path + ".sharing", "an instance cannot be partitioned again");
    } else {
      const SharingModelInfo* ts = find_sharing_model("timeslice");
      t.sharing = {ts->name, ParamValues::defaults(ts->params)};
    }
    sc.targets.push_back(std::move(t));
    target_nodes.push_back(e.has_sharing ? e.sharing : where);
  }

  void partitions(size_t g, const YAML::Node& node, const std::string& path, const SharingModelInfo& info) {
    const GpuInstance& gpu = sc.gpus[g];
    const YAML::Node list = node["instances"];
    const std::vector<LayoutEntry> first = read_layout(list, path + ".instances");
    const std::vector<Partition> parts = place(gpu, info, g, first, list, path + ".instances");
    std::map<std::string, size_t> target_of;  // instance id -> target index
    std::map<std::string, std::pair<std::string, int>> current;  // id -> (profile, slot) in the layout now
    for (size_t i = 0; i < parts.size(); ++i) {
      target_of[first[i].id] = sc.targets.size();
      current[first[i].id] = {parts[i].profile, parts[i].slot};
      add_instance(g, first[i], parts[i], list[i], fmt::format("{}.instances[{}]", path, i), true);
    }
    if (!node["reconfigure"]) return;
    const YAML::Node changes = node["reconfigure"];
    if (!changes.IsSequence()) fail_at(file, changes, path + ".reconfigure", "expected a list of layout changes");
    double last = 0;
    for (size_t c = 0; c < changes.size(); ++c) {
      const std::string cp = fmt::format("{}.reconfigure[{}]", path, c);
      MapReader r(file, changes[c], cp, section_named("sharing.<gpu>.reconfigure[]"));
      r.finish();
      LayoutChange change;
      change.gpu = g;
      change.at = positive(r, "at", Dim::Time);
      if (change.at <= last) fail_at(file, r.get("at"), r.child_path("at"), "layout changes must come in time order");
      last = change.at;
      change.reconfiguration_time = sc.sharing[g].params.get("reconfiguration_time");
      const YAML::Node layout = r.get("instances");
      const std::vector<LayoutEntry> entries = read_layout(layout, r.child_path("instances"));
      const std::vector<Partition> placed = place(gpu, info, g, entries, layout, r.child_path("instances"));
      std::map<std::string, std::pair<std::string, int>> next;
      for (size_t i = 0; i < entries.size(); ++i) {
        const LayoutEntry& e = entries[i];
        next[e.id] = {placed[i].profile, placed[i].slot};
        auto known = target_of.find(e.id);
        if (known == target_of.end()) {  // a new instance: absent until this change completes
          target_of[e.id] = sc.targets.size();
          add_instance(g, e, placed[i], layout[i], fmt::format("{}.instances[{}]", r.path(), i), false);
          change.changes.push_back({target_of[e.id], false, placed[i].profile, placed[i].slot, placed[i].spec});
          continue;
        }
        if (e.has_sharing)
          fail_at(file, e.sharing, fmt::format("{}.instances[{}].sharing", r.path(), i),
                  "an instance keeps its sharing across layout changes; give `sharing` where it first appears");
        const auto was = current.find(e.id);
        if (was == current.end() || was->second != next[e.id])
          change.changes.push_back({known->second, false, placed[i].profile, placed[i].slot, placed[i].spec});
      }
      for (const auto& [id, where] : current)
        if (!next.count(id)) change.changes.push_back({target_of[id], true, "", -1, {}});
      current = next;
      sc.layout_changes.push_back(std::move(change));
    }
  }

  size_t target_index(const YAML::Node& node, const std::string& path, const std::string& id) {
    std::vector<std::string> ids;
    for (size_t i = 0; i < sc.targets.size(); ++i) {
      if (sc.targets[i].id == id) return i;
      ids.push_back(sc.targets[i].id);
    }
    for (const GpuInstance& g : sc.gpus)
      if (g.id == id) {
        std::string inside;
        for (const Target& t : sc.targets)
          if (sc.gpus[t.gpu].id == id) inside += (inside.empty() ? "" : ", ") + t.id;
        fail_at(file, node, path, fmt::format("GPU '{}' is split into instances; put the tenant on one of: {}", id, inside));
      }
    const std::string hint = did_you_mean(id, ids);
    fail_at(file, node, path,
            fmt::format("no GPU or instance with id '{}'{}", id,
                        hint.empty() ? "" : fmt::format("; did you mean '{}'?", hint)));
  }

  void tenants(const MapReader& top) {
    const YAML::Node list = top.get("tenants");
    if (!list.IsSequence() || list.size() == 0) fail_at(file, list, "tenants", "expected a non-empty list of tenants");
    for (size_t i = 0; i < list.size(); ++i) {
      const std::string path = fmt::format("tenants[{}]", i);
      MapReader r(file, list[i], path, section_named("tenants[]"));
      r.finish();
      TenantSpec t;
      t.name = r.string("name");
      for (const TenantSpec& other : sc.tenants)
        if (other.name == t.name) fail_at(file, r.get("name"), r.child_path("name"), "duplicate tenant name '" + t.name + "'");
      t.target = target_index(r.get("on"), r.child_path("on"), r.string("on"));
      const Target& target = sc.targets[t.target];
      t.gpu = target.gpu;
      t.memory = nonnegative(r, "memory", Dim::Bytes);
      t.start = nonnegative(r, "start", Dim::Time);
      t.stream = r.string_or("stream", t.name);
      const SharingModelInfo* info = find_sharing_model(target.sharing.mode);
      Section share{"tenants[].share (" + info->name + ")", "", {}};
      for (const ParamSpec& p : info->tenant_params) share.keys.push_back({p.name, "", false, "", p.help});
      if (r.has("share")) {
        if (info->tenant_params.empty())
          fail_at(file, r.get("share"), r.child_path("share"),
                  fmt::format("mode '{}' of {} takes no per-tenant parameters", info->name, target.id));
        MapReader sr(file, r.get("share"), r.child_path("share"), share);
        sr.finish();
        t.share = read_params(sr, info->tenant_params);
      } else {
        t.share = ParamValues::defaults(info->tenant_params);
      }
      t.workload = workload(r.get("workload"), r.child_path("workload"), sc.gpus[t.gpu]);
      if (!workload_is_bounded(t.workload) && !std::isfinite(sc.duration))
        fail_at(file, r.get("workload"), r.child_path("workload"),
                "this workload has no count, so it runs until the scenario ends, but the scenario has no `duration`");
      int on_same = 0;
      for (const TenantSpec& other : sc.tenants) on_same += other.target == t.target ? 1 : 0;
      if (info->max_contexts > 0 && on_same >= info->max_contexts)
        fail_at(file, r.get("on"), r.child_path("on"),
                fmt::format("'{}' is shared in mode '{}', which takes at most {} tenant(s){}", target.id, info->name,
                            info->max_contexts,
                            info->max_contexts == 1 ? "; use a sharing mode such as timeslice to put several tenants on it"
                                                    : ""));
      sc.tenants.push_back(std::move(t));
    }
    // Checks that need every tenant of a target (profile limits, shares that must add up).
    for (size_t k = 0; k < sc.targets.size(); ++k) {
      const SharingModelInfo* info = find_sharing_model(sc.targets[k].sharing.mode);
      if (!info->validate) continue;
      const std::string error = info->validate(model_setup(sc, k));
      if (!error.empty()) fail_at(file, target_nodes[k], "sharing." + sc.targets[k].id, error);
    }
  }

  void faults(const MapReader& top) {
    if (!top.has("faults")) return;
    const YAML::Node list = top.get("faults");
    if (!list.IsSequence()) fail_at(file, list, "faults", "expected a list of faults");
    for (size_t i = 0; i < list.size(); ++i) {
      const std::string path = fmt::format("faults[{}]", i);
      MapReader r(file, list[i], path, section_named("faults[]"));
      r.finish();
      const std::string name = r.string("tenant");
      FaultSpec f;
      f.time = nonnegative(r, "at", Dim::Time);
      bool found = false;
      std::vector<std::string> names;
      for (size_t t = 0; t < sc.tenants.size(); ++t) {
        names.push_back(sc.tenants[t].name);
        if (sc.tenants[t].name == name) {
          f.tenant = t;
          found = true;
        }
      }
      if (!found) {
        const std::string hint = did_you_mean(name, names);
        fail_at(file, r.get("tenant"), r.child_path("tenant"),
                fmt::format("no tenant named '{}'{}", name, hint.empty() ? "" : fmt::format("; did you mean '{}'?", hint)));
      }
      sc.faults.push_back(f);
    }
  }

  size_t tenant_named(const MapReader& r, const std::string& key) {
    const std::string name = r.string(key);
    std::vector<std::string> names;
    for (size_t t = 0; t < sc.tenants.size(); ++t) {
      if (sc.tenants[t].name == name) return t;
      names.push_back(sc.tenants[t].name);
    }
    const std::string hint = did_you_mean(name, names);
    fail_at(file, r.get(key), r.child_path(key),
            fmt::format("no tenant named '{}'{}", name, hint.empty() ? "" : fmt::format("; did you mean '{}'?", hint)));
  }

  void comparisons(const MapReader& top) {
    if (!top.has("compare")) return;
    const YAML::Node list = top.get("compare");
    if (!list.IsSequence()) fail_at(file, list, "compare", "expected a list of comparisons");
    for (size_t i = 0; i < list.size(); ++i) {
      MapReader r(file, list[i], fmt::format("compare[{}]", i), section_named("compare[]"));
      r.finish();
      Comparison c;
      c.name = r.string("name");
      c.tenant = tenant_named(r, "tenant");
      c.metric = r.choice_or("metric",
                             {"throughput_ratio", "time_ratio", "latency_ratio", "p99_ratio", "relative_performance",
                              "slowdown", "vgpu_loss", "throughput", "failed"},
                             "");
      if (c.metric.empty()) r.get("metric");  // names the missing key
      const bool pair = c.metric == "throughput_ratio" || c.metric == "time_ratio" || c.metric == "latency_ratio" ||
                        c.metric == "p99_ratio";
      if (pair != r.has("versus"))
        fail_at(file, r.node(), r.path(),
                pair ? "metric '" + c.metric + "' compares two tenants: give `versus`"
                     : "`versus` goes only with the *_ratio metrics");
      if (pair) c.versus = static_cast<long>(tenant_named(r, "versus"));
      c.article = r.quantity("article", Dim::Count);
      c.source = r.string("source");
      sc.compare.push_back(c);
    }
  }

  std::vector<YAML::Node> target_nodes;  // where each target's sharing was given, for messages

  void load(const YAML::Node& root) {
    sc.file = file;
    MapReader top(file, root, "", section_named(""));
    top.finish();
    sc.version = static_cast<int>(top.integer("version", 1, 1));
    sc.name = top.string("name");
    sc.seed = static_cast<uint64_t>(top.integer_or("seed", 0, 1LL << 62, 1));
    if (top.has("duration")) sc.duration = positive(top, "duration", Dim::Time);
    sc.fidelity = top.choice_or("fidelity", {"exact", "fluid"}, "exact") == "fluid" ? Fidelity::Fluid : Fidelity::Exact;
    gpus(top);
    sharing(top);
    tenants(top);
    faults(top);
    comparisons(top);
    sc.metrics_interval = std::isfinite(sc.duration) ? sc.duration / 100 : 1.0;
    if (top.has("metrics")) {
      MapReader m(file, top.get("metrics"), "metrics", section_named("metrics"));
      m.finish();
      if (m.has("interval")) sc.metrics_interval = positive(m, "interval", Dim::Time);
    }
  }
};

// Applies one --set override to the YAML tree.
void apply_override(YAML::Node root, const Override& o) {
  std::vector<std::string> parts;
  std::string part;
  for (char c : o.path) {
    if (c == '.' || c == '[') {
      if (!part.empty()) parts.push_back(part);
      part.clear();
    } else if (c != ']') {
      part += c;
    }
  }
  if (!part.empty()) parts.push_back(part);
  YAML::Node cur = root;
  for (size_t i = 0; i < parts.size(); ++i) {
    const std::string& key = parts[i];
    const bool last = i + 1 == parts.size();
    YAML::Node next;
    if (cur.IsSequence()) {
      const bool numeric = !key.empty() && std::all_of(key.begin(), key.end(), ::isdigit);
      bool found = false;
      if (numeric && std::stoul(key) < cur.size()) {
        next.reset(cur[std::stoul(key)]);
        found = true;
      } else {
        for (size_t j = 0; j < cur.size() && !found; ++j) {
          const YAML::Node el = cur[j];
          for (const char* id_key : {"name", "id"})
            if (!found && el.IsMap() && el[id_key] && el[id_key].IsScalar() && el[id_key].Scalar() == key) {
              next.reset(cur[j]);
              found = true;
            }
        }
      }
      if (!found) throw InputError(fmt::format("--set {}: no list element '{}'", o.path, key));
      if (last) throw InputError(fmt::format("--set {}: cannot replace a whole list element", o.path));
    } else {
      if (!cur.IsMap() && !cur.IsNull())
        throw InputError(fmt::format("--set {}: '{}' is not inside a mapping", o.path, key));
      if (last) {
        YAML::Node value = YAML::Load(o.value);
        cur[key] = value.IsScalar() ? YAML::Node(value.Scalar()) : value;
        return;
      }
      if (!cur[key]) cur[key] = YAML::Node(YAML::NodeType::Map);
      next.reset(cur[key]);
    }
    cur.reset(next);
  }
}

}  // namespace

Override parse_override(const std::string& text) {
  const auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0)
    throw InputError(fmt::format("--set '{}': expected key.path=value", text));
  return {text.substr(0, eq), text.substr(eq + 1)};
}

Scenario load_scenario_text(const std::string& text, const std::string& file, const Catalog& catalog,
                            const std::vector<Override>& overrides) {
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::ParserException& e) {
    throw InputError(fmt::format("{}:{}:{}: YAML syntax error: {}", file, e.mark.line + 1, e.mark.column + 1, e.msg));
  }
  if (!root.IsMap()) throw InputError(fmt::format("{}:1:1: expected a mapping at the top level", file));
  for (const Override& o : overrides) apply_override(root, o);
  Loader loader{file, catalog, {}, {}, {}};
  loader.load(root);
  return std::move(loader.sc);
}

Scenario load_scenario_file(const std::string& path, const Catalog& catalog, const std::vector<Override>& overrides) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(fmt::format("{}: cannot open the scenario file", path));
  std::ostringstream text;
  text << in.rdbuf();
  return load_scenario_text(text.str(), path, catalog, overrides);
}

}  // namespace vgpusim
