// Scenario loading: YAML -> Scenario. Every key goes through a MapReader bound to a documented Section.
#include "sim/scenario/loader.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <optional>

#include "sim/io/calibration_file.hpp"
#include "sim/scenario/loader_state.hpp"

namespace vgpusim {

using units::Dim;

double Loader::nonnegative(const MapReader& r, const std::string& key, Dim dim) {
  const double v = r.quantity(key, dim);
  if (v < 0) fail_at(file, r.node(key), r.child_path(key), "expected a value >= 0");
  return v;
}

Distribution Loader::distribution(const MapReader& r, const std::string& key, Dim dim,
                                  std::optional<Distribution> fallback) {
  if (!r.has(key)) return fallback ? *fallback : Distribution::constant(nonnegative(r, key, dim));
  const YAML::Node node = r.node(key);
  if (!node.IsMap()) return Distribution::constant(nonnegative(r, key, dim));
  const std::string path = r.child_path(key);
  MapReader d(file, node, path, section_named("distribution"));
  d.finish();
  const std::string name = d.choice("distribution", {"constant", "uniform", "normal", "lognormal", "exponential", "gamma"});
  // Which keys each distribution takes; any other is an error.
  const std::map<std::string, std::vector<std::string>> takes = {{"constant", {"value"}},
                                                                 {"uniform", {"min", "max"}},
                                                                 {"normal", {"mean", "sd"}},
                                                                 {"lognormal", {"mean", "sd"}},
                                                                 {"exponential", {"mean"}},
                                                                 {"gamma", {"mean", "sd"}}};
  const std::vector<std::string>& keys = takes.at(name);
  for (const char* k : {"value", "min", "max", "mean", "sd"})
    if (d.has(k) && std::find(keys.begin(), keys.end(), k) == keys.end())
      fail_at(file, d.node(k), d.child_path(k),
              fmt::format("`{}` does not go with distribution {} (it takes: {})", k, name, fmt::join(keys, ", ")));
  for (const std::string& k : keys)
    if (!d.has(k))
      fail_at(file, node, path, fmt::format("distribution {} needs `{}` (it takes: {})", name, k, fmt::join(keys, ", ")));
  auto value = [&](const char* k) { return nonnegative(d, k, dim); };
  if (name == "constant") return Distribution::constant(value("value"));
  if (name == "uniform") {
    const double low = value("min"), high = value("max");
    if (!(high >= low)) fail_at(file, d.node("max"), d.child_path("max"), "expected max >= min");
    return Distribution::uniform(low, high);
  }
  if (name == "exponential") return {Distribution::Kind::Exponential, value("mean"), 0};
  const double mean = value("mean"), sd = value("sd");
  if ((name == "lognormal" || name == "gamma") && !(mean > 0) && sd > 0)
    fail_at(file, d.node("mean"), d.child_path("mean"), fmt::format("a {} with a spread needs a mean > 0", name));
  if (name == "gamma") return {Distribution::Kind::Gamma, mean, sd};
  return {name == "normal" ? Distribution::Kind::Normal : Distribution::Kind::Lognormal, mean, sd};
}

double Loader::positive(const MapReader& r, const std::string& key, Dim dim) {
  const double v = r.quantity(key, dim);
  if (!(v > 0)) fail_at(file, r.node(key), r.child_path(key), "expected a value > 0");
  return v;
}

void Loader::gpus(const MapReader& top) {
  const YAML::Node list = top.node("gpus");
  if (!list.IsSequence() || list.size() == 0) fail_at(file, list, "gpus", "expected a non-empty list of GPUs");
  for (size_t i = 0; i < list.size(); ++i) {
    const std::string path = fmt::format("gpus[{}]", i);
    MapReader r(file, list[i], path, section_named("gpus[]"));
    r.finish();
    ScenarioGpu g;
    g.id = r.string("id");
    for (const ScenarioGpu& other : sc.gpus)
      if (other.id == g.id) fail_at(file, r.node("id"), r.child_path("id"), "duplicate GPU id '" + g.id + "'");
    const std::string model = r.string("model");
    const CatalogEntry* e = catalog.find(model);
    if (!e) unknown_gpu_model(r.node("model"), r.child_path("model"), model);
    g.spec = e->spec;
    for (const GpuField& f : gpu_fields())
      if (r.has(f.name)) g.spec.*f.member = positive(r, f.name, static_cast<Dim>(f.dim));
    if (r.has("calibration") && r.string("calibration") == "none") {
      // The models' defaults, without the GPU's shipped calibration.
    } else if (r.has("calibration")) {
      std::filesystem::path cal = r.string("calibration");
      if (cal.is_relative()) cal = std::filesystem::path(file).parent_path() / cal;
      const Calibration c = read_calibration_file(cal.string());
      if (c.gpu != model)
        fail_at(file, r.node("calibration"), r.child_path("calibration"),
                fmt::format("{} is a calibration of {}, but this GPU is {}", cal.string(), c.gpu, model));
      g.calibrated = c.overrides();
    } else if (const Calibration* shipped = builtin_calibration(model)) {
      g.calibrated = shipped->overrides();
    }
    // Parameters: the model's default, then the calibration's value, then the scenario's own.
    g.performance = RooflineParams::table().read(read_params(r, roofline_params(), g.calibrated));
    sc.gpus.push_back(std::move(g));
  }
}

std::vector<std::string> Loader::gpu_ids() const {
  std::vector<std::string> ids;
  for (const ScenarioGpu& g : sc.gpus) ids.push_back(g.id);
  return ids;
}

size_t Loader::gpu_index(const YAML::Node& node, const std::string& path, const std::string& id) {
  for (size_t i = 0; i < sc.gpus.size(); ++i)
    if (sc.gpus[i].id == id) return i;
  fail_at(file, node, path,
          fmt::format("no GPU with id '{}'{}", id, did_you_mean_suffix(id, gpu_ids())));
}

void Loader::tenants(const MapReader& top) {
  const YAML::Node list = top.node("tenants");
  if (!list.IsSequence() || list.size() == 0) fail_at(file, list, "tenants", "expected a non-empty list of tenants");
  for (size_t i = 0; i < list.size(); ++i) {
    const std::string path = fmt::format("tenants[{}]", i);
    MapReader r(file, list[i], path, section_named("tenants[]"));
    r.finish();
    TenantSpec t;
    t.name = r.string("name");
    for (const TenantSpec& other : sc.tenants)
      if (other.name == t.name) fail_at(file, r.node("name"), r.child_path("name"), "duplicate tenant name '" + t.name + "'");
    t.target = target_index(r.node("on"), r.child_path("on"), r.string("on"));
    const Target& target = sc.targets[t.target];
    t.gpu = target.gpu;
    t.memory = nonnegative(r, "memory", Dim::Bytes);
    // Without `start`, tenants begin at a random offset in [0, start_jitter): processes launched together never
    // start in the same microsecond, and identical tenants would otherwise stay in lockstep.
    t.start_distribution = distribution(r, "start", Dim::Time, Distribution::uniform(0, start_jitter));
    t.start = 0;  // drawn once the seed is known (draw_starts)
    t.stream = r.has("stream") ? r.string("stream") : t.name;
    const SharingModeInfo* info = find_sharing_mode(target.sharing.mode);
    const std::vector<ParamSpec> tenant_params = info->tenant_params();
    const auto imported_it = target.partition.empty() ? imported.find(t.gpu) : imported.end();
    const ImportedLimits* imported_here = imported_it == imported.end() ? nullptr : &imported_it->second;
    const ParamOverrides tenant_defaults = imported_here ? imported_here->tenant_defaults : ParamOverrides{};
    Section share{"tenants[].share (" + info->name + ")", "", {}};
    for (const ParamSpec& p : tenant_params) share.keys.push_back({p.name, "", false, "", p.help});
    if (r.has("share")) {
      if (tenant_params.empty())
        fail_at(file, r.node("share"), r.child_path("share"),
                fmt::format("mode '{}' of {} takes no per-tenant parameters", info->name, target.id));
      MapReader sr(file, r.node("share"), r.child_path("share"), share);
      sr.finish();
      t.share = read_params(sr, tenant_params, tenant_defaults);
      // Under an imported device plugin config the MPS daemon's defaults are upper limits: a client may only
      // lower them.
      for (const ParamSpec& p : tenant_params) {
        const auto limit = tenant_defaults.find(p.qualified());
        if (limit != tenant_defaults.end() && sr.has(p.name) && t.share.get(p.name) > limit->second)
          fail_at(file, sr.node(p.name), sr.child_path(p.name),
                  fmt::format("above the {} the imported device plugin config gives each of its {} replicas ({})",
                              units::format(limit->second, p.dim), imported_here->replicas, imported_here->source));
      }
    } else {
      t.share = with_overrides(tenant_params, tenant_defaults);
    }
    t.workload = workload(r.node("workload"), r.child_path("workload"), sc.gpus[t.gpu]);
    if (!r.has("memory")) t.memory = t.workload->device_memory();
    if (!t.workload->bounded() && !std::isfinite(sc.duration))
      fail_at(file, r.node("workload"), r.child_path("workload"),
              "this workload has no count, so it runs until the scenario ends, but the scenario has no `duration`");
    int on_same = 0;
    for (const TenantSpec& other : sc.tenants) on_same += other.target == t.target ? 1 : 0;
    if (imported_here && on_same >= imported_here->replicas)
      fail_at(file, r.node("on"), r.child_path("on"),
              fmt::format("'{}' is shared by the imported device plugin config as {} replica(s) ({}): Kubernetes "
                          "would not place more containers on it",
                          target.id, imported_here->replicas, imported_here->source));
    if (info->max_contexts > 0 && on_same >= info->max_contexts)
      fail_at(file, r.node("on"), r.child_path("on"),
              fmt::format("'{}' is shared in mode '{}', which takes at most {} tenant(s){}", target.id, info->name,
                          info->max_contexts,
                          info->max_contexts == 1 ? "; use a sharing mode such as timeslice to put several tenants on it"
                                                  : ""));
    sc.tenants.push_back(std::move(t));
  }
  // Checks that need every tenant of a target (profile limits, shares that must add up).
  for (size_t k = 0; k < sc.targets.size(); ++k) {
    const SharingModeInfo* info = find_sharing_mode(sc.targets[k].sharing.mode);
    if (!info->validate) continue;
    const std::string error = info->validate(model_setup(sc, k));
    if (!error.empty()) fail_at(file, target_nodes[k], "sharing." + sc.targets[k].id, error);
  }
  // Workloads sized by the memory their process sees (an LLM server's KV cache), once every tenant is known and
  // the sharing is valid.
  std::vector<bool> memory_given;
  for (size_t i = 0; i < list.size(); ++i) memory_given.push_back(list[i].IsMap() && list[i]["memory"].IsDefined());
  for (const auto& [i, why] : size_workloads(sc, memory_given)) {
    const char* key = memory_given[i] ? "memory" : "workload";
    fail_at(file, list[i][key], fmt::format("tenants[{}].{}", i, key), why);
  }
}

std::vector<std::pair<size_t, std::string>> size_workloads(Scenario& sc, const std::vector<bool>& memory_given) {
  std::vector<std::pair<size_t, std::string>> failed;
  for (size_t k = 0; k < sc.targets.size(); ++k) {
    const SharingModeInfo* info = find_sharing_mode(sc.targets[k].sharing.mode);
    const std::vector<double> parts = info->memory_partitions ? info->memory_partitions(model_setup(sc, k))
                                                              : std::vector<double>{};
    size_t slot = 0;
    for (size_t i = 0; i < sc.tenants.size(); ++i) {
      TenantSpec& t = sc.tenants[i];
      if (t.target != k) continue;
      const double visible = slot < parts.size() ? parts[slot] : sc.targets[k].spec.memory;
      ++slot;
      // A tenant that gives `memory` sees that much, within what its process sees.
      const bool given = i < memory_given.size() && memory_given[i];
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
        failed.emplace_back(i, fmt::format("on {}: {}", sc.targets[k].id, error));
        continue;
      }
      t.workload = std::move(sized);
      if (!given) t.memory = t.workload->device_memory();
    }
  }
  return failed;
}

void Loader::faults(const MapReader& top) {
  if (!top.has("faults")) return;
  const YAML::Node list = top.node("faults");
  if (!list.IsSequence()) fail_at(file, list, "faults", "expected a list of faults");
  for (size_t i = 0; i < list.size(); ++i) {
    const std::string path = fmt::format("faults[{}]", i);
    MapReader r(file, list[i], path, section_named("faults[]"));
    r.finish();
    FaultSpec f;
    f.tenant = tenant_named(r, "tenant");
    f.time = nonnegative(r, "at", Dim::Time);
    sc.faults.push_back(f);
  }
}

size_t Loader::tenant_named(const MapReader& r, const std::string& key) {
  const std::string name = r.string(key);
  std::vector<std::string> names;
  for (size_t t = 0; t < sc.tenants.size(); ++t) {
    if (sc.tenants[t].name == name) return t;
    names.push_back(sc.tenants[t].name);
  }
  fail_at(file, r.node(key), r.child_path(key),
          fmt::format("no tenant named '{}'{}", name, did_you_mean_suffix(name, names)));
}

void Loader::comparisons(const MapReader& top) {
  if (!top.has("compare")) return;
  const YAML::Node list = top.node("compare");
  if (!list.IsSequence()) fail_at(file, list, "compare", "expected a list of comparisons");
  for (size_t i = 0; i < list.size(); ++i) {
    MapReader r(file, list[i], fmt::format("compare[{}]", i), section_named("compare[]"));
    r.finish();
    Comparison c;
    c.name = r.string("name");
    c.tenant = tenant_named(r, "tenant");
    c.metric = r.choice("metric", {"throughput_ratio", "time_ratio", "latency_ratio", "p99_ratio",
                                   "relative_performance", "slowdown", "vgpu_loss", "throughput", "failed"});
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

void Loader::load(const YAML::Node& root) {
  sc.file = file;
  MapReader top(file, root, "", section_named(""));
  top.finish();
  sc.version = static_cast<int>(top.integer("version", 1, 1));
  sc.name = top.string("name");
  sc.seed = static_cast<uint64_t>(top.integer("seed", 0, 1LL << 62));
  sc.replications = static_cast<int>(top.integer("replications", 1, 1000));
  start_jitter = nonnegative(top, "start_jitter", Dim::Time);
  if (top.has("duration")) sc.duration = positive(top, "duration", Dim::Time);
  sc.fidelity = top.choice("fidelity", {"exact", "fluid"}) == "fluid" ? Fidelity::Fluid : Fidelity::Exact;
  gpus(top);
  sharing(top);
  tenants(top);
  draw_starts(sc);
  faults(top);
  comparisons(top);
  sc.metrics_interval = std::isfinite(sc.duration) ? sc.duration / 100 : 1.0;
  if (top.has("metrics")) {
    MapReader m(file, top.node("metrics"), "metrics", section_named("metrics"));
    m.finish();
    if (m.has("interval")) sc.metrics_interval = positive(m, "interval", Dim::Time);
  }
}

namespace {

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
      // An index of more than 9 digits names no element (and would overflow stoul).
      const bool numeric = !key.empty() && key.size() <= 9 && std::all_of(key.begin(), key.end(), ::isdigit);
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
        YAML::Node value = parse_yaml(o.value, "--set " + o.path);
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

Scenario load_scenario(ScenarioDocument&& doc, const Catalog& catalog, const std::vector<Override>& overrides) {
  YAML::Node& root = doc.root;  // overrides go into its own tree: a clone would lose the marks messages cite
  if (!root.IsMap()) throw InputError(fmt::format("{}:1:1: expected a mapping at the top level", doc.file));
  for (const Override& o : overrides) apply_override(root, o);
  Loader loader{doc.file, catalog, {}, {}, {}, 0};
  loader.load(root);
  loader.sc.file_hash = doc.hash;
  return std::move(loader.sc);
}

Scenario load_scenario_text(const std::string& text, const std::string& file, const Catalog& catalog,
                            const std::vector<Override>& overrides) {
  return load_scenario(parse_scenario_document(text, file), catalog, overrides);
}

Scenario load_scenario_file(const std::string& path, const Catalog& catalog, const std::vector<Override>& overrides) {
  return load_scenario(read_scenario_document(path), catalog, overrides);
}

}  // namespace vgpusim
