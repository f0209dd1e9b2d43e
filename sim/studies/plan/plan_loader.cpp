// Reads plan files. Workload and sharing entries go through the scenario loader's own readers, so their keys,
// units and messages are the scenario format's.
#include "sim/io/calibration_file.hpp"
#include "sim/studies/plan/plan_loader.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <stdexcept>

#include "sim/io/instance_catalog.hpp"
#include "sim/scenario/builder.hpp"
#include "sim/scenario/loader.hpp"
#include "sim/scenario/pieces.hpp"

namespace vgpusim {

using units::Dim;

namespace {

// A fraction 0..1 ("40%" or 0.4).
double read_fraction(ScenarioPieces& loader, const MapReader& r, const std::string& key) {
  const double v = loader.nonnegative(r, key, Dim::Ratio);
  if (v >= 1) fail_at(r.file(), r.node(key), r.child_path(key), "expected a fraction below 1, e.g. 40% or 0.4");
  return v;
}

// A short name for a sharing option: its mode and the values it sets.
std::string label_of(const SharingConfig& c, const SharingModeInfo& info) {
  std::string label = c.mode_name();
  const std::vector<ParamSpec> specs = info.mode_params();
  const ParamValues defaults = ParamValues::defaults(specs);
  for (const ParamSpec& p : specs) {
    switch (p.type) {
      case ParamType::Choice:
      case ParamType::Text:
        if (c.params.word(p.name) != defaults.word(p.name)) label += " " + c.params.word(p.name);
        break;
      case ParamType::Flag:
        if (c.params.flag(p.name) != defaults.flag(p.name))
          label += fmt::format(" {}={}", p.name, c.params.flag(p.name) ? "true" : "false");
        break;
      case ParamType::Number:
        if (c.params.get(p.name) != defaults.get(p.name)) {
          std::string v = units::format(c.params.get(p.name), p.dim);
          v.erase(std::remove(v.begin(), v.end(), ' '), v.end());
          label += fmt::format(" {}={}", p.name, v);
        }
        break;
    }
  }
  return label;
}

}  // namespace

PlanSpec load_plan(const ScenarioDocument& doc, const InstanceLookup& lookup) {
  const std::string& file = doc.file;
  const YAML::Node& root = doc.root;
  ScenarioPieces loader(file, builtin_catalog());
  MapReader top(file, root, "", section_named("plan"));
  top.finish();
  top.integer("version", 1, 1);
  top.choice("kind", {"plan"});
  PlanSpec plan;
  plan.file = file;
  plan.name = top.string("name");
  plan.seed = static_cast<uint64_t>(top.integer("seed", 0, 1LL << 62));
  plan.duration = loader.positive(top, "duration", Dim::Time);
  plan.fidelity = top.choice("fidelity", {"exact", "fluid"}) == "exact" ? Fidelity::Exact : Fidelity::Fluid;
  plan.max_instances = static_cast<int>(top.integer("max_instances", 1, 64));
  plan.search_placement = top.choice("placement", {"search", "fewest_tenants"}) == "search";

  // Instance types: catalog names, or {name, gpu, gpus, price_per_hour} of the user's own.
  const YAML::Node instances = top.node("instances");
  if (!instances.IsSequence() || instances.size() == 0)
    fail_at(file, instances, "instances", "expected a non-empty list of instance types");
  for (size_t i = 0; i < instances.size(); ++i) {
    const std::string path = fmt::format("instances[{}]", i);
    if (instances[i].IsScalar()) {
      const std::string name = instances[i].Scalar();
      const auto found = lookup ? lookup(name) : std::nullopt;
      if (!found) fail_at(file, instances[i], path, fmt::format("unknown instance type '{}' (see `vgpusim list instances`)", name));
      if (found->gpus < 1 || found->fraction <= 0 || found->fraction > 1)
        fail_at(file, instances[i], path,
                fmt::format("'{}' has {} GPUs; plans take whole GPUs or one fraction of one", name, found->gpus));
      plan.instances.push_back(*found);
      continue;
    }
    MapReader r(file, instances[i], path, section_named("plan.instances[]"));
    r.finish();
    PlanInstanceType it;
    it.name = r.string("name");
    it.gpu = r.string("gpu");
    if (!builtin_catalog().find(it.gpu)) loader.unknown_gpu_model(r.node("gpu"), r.child_path("gpu"), it.gpu);
    it.gpus = static_cast<int>(r.integer("gpus", 1, 64));
    it.price_per_hour = loader.positive(r, "price", Dim::MoneyRate) * 3600;
    if (r.has("spot_discount")) it.spot_discount = read_fraction(loader, r, "spot_discount");
    plan.instances.push_back(it);
  }

  // Spot capacity: every candidate also on spot instances.
  if (top.has("spot")) {
    MapReader r(file, top.node("spot"), "spot", section_named("plan.spot"));
    r.finish();
    plan.spot.enabled = true;
    if (r.has("discount")) plan.spot.discount = read_fraction(loader, r, "discount");
    plan.spot.interruptions = loader.positive(r, "interruptions", Dim::Rate);
    plan.spot.restart = loader.nonnegative(r, "restart", Dim::Time);
    if (r.has("checkpoint_interval"))
      plan.spot.checkpoint_interval = loader.nonnegative(r, "checkpoint_interval", Dim::Time);
    if (plan.spot.discount < 0)
      for (const PlanInstanceType& it : plan.instances)
        if (it.spot_discount < 0)
          fail_at(file, r.node(), "spot",
                  fmt::format("no spot discount is known for {}: give spot.discount (or spot_discount on the "
                              "instance type)",
                              it.name));
  }

  // Workloads, as in scenarios; a kernel given by duration without `on` refers to the first instance's GPU.
  const ScenarioGpu reference = catalog_gpu("", *builtin_catalog().find(plan.instances.front().gpu));
  const YAML::Node workloads = top.node("workloads");
  if (!workloads.IsSequence() || workloads.size() == 0)
    fail_at(file, workloads, "workloads", "expected a non-empty list of workloads");
  for (size_t i = 0; i < workloads.size(); ++i) {
    const std::string path = fmt::format("workloads[{}]", i);
    MapReader r(file, workloads[i], path, section_named("plan.workloads[]"));
    r.finish();
    PlanWorkload w;
    w.name = r.string("name");
    w.replicas = static_cast<int>(r.integer("replicas", 1, 1000));
    w.memory = loader.nonnegative(r, "memory", Dim::Bytes);
    w.workload = loader.workload(r.node("workload"), r.child_path("workload"), reference);
    // A workload that sizes itself by the memory it sees (an LLM server) sees the `memory` the plan gives it.
    if (w.workload->kind() == "llm" && !r.has("memory"))
      fail_at(file, workloads[i], path,
              "an llm workload in a plan needs `memory`: what each replica's server takes of a GPU (weights, "
              "activations and KV cache)");
    // Its sizing is the scenario builder's, against the memory the replica sees; an amount it cannot live in is
    // refused here, where the plan says it.
    if (r.has("memory")) try {
        w.workload->sized_for(w.memory);
      } catch (const std::invalid_argument& e) {
        fail_at(file, r.node("memory"), r.child_path("memory"), e.what());
      }
    if (r.has("slo")) {
      MapReader s(file, r.node("slo"), r.child_path("slo"), section_named("plan.workloads[].slo"));
      s.finish();
      if (s.has("throughput")) w.slo.throughput = loader.positive(s, "throughput", Dim::Rate);
      if (s.has("deadline")) w.slo.deadline = loader.positive(s, "deadline", Dim::Time);
    }
    plan.workloads.push_back(std::move(w));
  }

  // Sharing options: each a `sharing.<gpu>` mapping (mode and parameters).
  const YAML::Node sharing = top.node("sharing");
  if (!sharing.IsSequence() || sharing.size() == 0)
    fail_at(file, sharing, "sharing", "expected a non-empty list of sharing options");
  GpuSpec any_gpu;
  any_gpu.kind = "gpu";
  for (size_t i = 0; i < sharing.size(); ++i) {
    const SharingModeInfo* info = nullptr;
    PlanSharing s;
    s.config = loader.sharing(sharing[i], fmt::format("sharing[{}]", i), any_gpu, info, {}, true);
    for (const PlanInstanceType& it : plan.instances)
      if (!s.by_gpu.count(it.gpu))
        s.by_gpu[it.gpu] = loader.sharing(sharing[i], fmt::format("sharing[{}]", i), any_gpu, info,
                                          builtin_overrides(it.gpu), true);
    s.label = label_of(s.config, *info);
    for (const PlanSharing& other : plan.sharing)
      if (other.label == s.label) fail_at(file, sharing[i], fmt::format("sharing[{}]", i), "duplicate sharing option");
    plan.sharing.push_back(s);
  }
  return plan;
}

PlanSpec load_plan_text(const std::string& text, const std::string& file, const InstanceLookup& lookup) {
  return load_plan(parse_scenario_document(text, file), lookup);
}

InstanceLookup builtin_instance_lookup() {
  return [](const std::string& name) -> std::optional<PlanInstanceType> {
    const Instance* i = builtin_instance_catalog().find(name);
    if (!i) return std::nullopt;
    // Whole GPUs, or one SR-IOV slice (a fraction) of one GPU; anything else (1.5 GPUs) gpus 0, refused.
    const bool whole = i->gpu_count >= 1 && i->gpu_count == static_cast<int>(i->gpu_count);
    const int gpus = whole ? static_cast<int>(i->gpu_count) : i->gpu_count < 1 ? 1 : 0;
    // The catalog's spot discount is a range; plans take its low end (the dearer spot price).
    return PlanInstanceType{i->name,
                            i->gpu_model,
                            gpus,
                            whole ? 1.0 : i->gpu_count,
                            i->on_demand * 3600,
                            i->spot_discount_max > 0 ? i->spot_discount_min : -1};
  };
}

}  // namespace vgpusim
