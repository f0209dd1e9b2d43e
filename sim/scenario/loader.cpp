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

double Loader::threads(const MapReader& r, const std::string& key, double least) {
  const double v = r.quantity(key, Dim::Count);
  if (!(v >= least) || v > kMaxThreads)
    fail_at(file, r.node(key), r.child_path(key), fmt::format("expected a number from {:g} to {:g}", least, kMaxThreads));
  return v;
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
    for (const ScenarioGpu& other : sc().gpus)
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
    build.add_gpu(std::move(g));
  }
}

std::vector<std::string> Loader::gpu_ids() const {
  std::vector<std::string> ids;
  for (const ScenarioGpu& g : sc().gpus) ids.push_back(g.id);
  return ids;
}

size_t Loader::gpu_index(const YAML::Node& node, const std::string& path, const std::string& id) {
  for (size_t i = 0; i < sc().gpus.size(); ++i)
    if (sc().gpus[i].id == id) return i;
  fail_at(file, node, path,
          fmt::format("no GPU with id '{}'{}", id, did_you_mean_suffix(id, gpu_ids())));
}

void Loader::tenants(const MapReader& top) {
  const YAML::Node list = top.node("tenants");
  if (!list.IsSequence() || list.size() == 0) fail_at(file, list, "tenants", "expected a non-empty list of tenants");
  tenant_list.reset(list);
  for (size_t i = 0; i < list.size(); ++i) {
    const std::string path = fmt::format("tenants[{}]", i);
    MapReader r(file, list[i], path, section_named("tenants[]"));
    r.finish();
    TenantSpec t;
    ScenarioBuilder::TenantGiven given;
    t.name = r.string("name");
    for (const TenantSpec& other : sc().tenants)
      if (other.name == t.name) fail_at(file, r.node("name"), r.child_path("name"), "duplicate tenant name '" + t.name + "'");
    t.target = target_index(r.node("on"), r.child_path("on"), r.string("on"));
    const Target& target = sc().targets[t.target];
    t.gpu = target.gpu;
    given.memory = r.has("memory");
    t.memory = nonnegative(r, "memory", Dim::Bytes);
    // Without `start`, the builder starts it within the start jitter.
    if (r.has("start")) {
      t.start_distribution = distribution(r, "start", Dim::Time);
      given.start = true;
    }
    t.stream = r.has("stream") ? r.string("stream") : t.name;
    if (r.has("host_threads")) t.host_threads = positive(r, "host_threads", Dim::Count);
    if (t.host_threads > kMaxThreads)
      fail_at(file, r.node("host_threads"), r.child_path("host_threads"), fmt::format("expected at most {:g}", kMaxThreads));
    const SharingModeInfo* info = target.sharing.mode;
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
      given.share = true;
    } else if (imported_here) {
      t.share = with_overrides(tenant_params, tenant_defaults);
      given.share = true;
    }
    t.workload = workload(r.node("workload"), r.child_path("workload"), sc().gpus[t.gpu]);
    if (!t.workload->bounded() && !std::isfinite(sc().duration))
      fail_at(file, r.node("workload"), r.child_path("workload"),
              "this workload has no count, so it runs until the scenario ends, but the scenario has no `duration`");
    int on_same = 0;
    for (const TenantSpec& other : sc().tenants) on_same += other.target == t.target ? 1 : 0;
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
    build.add_tenant(std::move(t), given);
  }
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
    build.add_fault(f);
  }
}

size_t Loader::tenant_named(const MapReader& r, const std::string& key) {
  const std::string name = r.string(key);
  std::vector<std::string> names;
  for (size_t t = 0; t < sc().tenants.size(); ++t) {
    if (sc().tenants[t].name == name) return t;
    names.push_back(sc().tenants[t].name);
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
    build.add_comparison(c);
  }
}

void Loader::load(const YAML::Node& root) {
  MapReader top(file, root, "", section_named(""));
  top.finish();
  build.set_version(static_cast<int>(top.integer("version", 1, 1)));
  build.set_name(top.string("name"));
  build.set_seed(static_cast<uint64_t>(top.integer("seed", 0, 1LL << 62)));
  build.set_replications(static_cast<int>(top.integer("replications", 1, 1000)));
  build.set_start_jitter(nonnegative(top, "start_jitter", Dim::Time));
  if (top.has("duration")) build.set_duration(positive(top, "duration", Dim::Time));
  for (const char* key : {"duration", "replications"})
    if (top.has(key)) build.set_place(key, where(file, top.node(key)));
  build.set_fidelity(top.choice("fidelity", {"exact", "fluid"}) == "fluid" ? Fidelity::Fluid : Fidelity::Exact);
  gpus(top);
  sharing(top);
  if (top.has("host")) {
    MapReader h(file, top.node("host"), "host", section_named("host"));
    h.finish();
    HostCpu host;
    host.cores = threads(h, "cores", 1);
    host.background_threads = h.has("background_threads") ? threads(h, "background_threads", 0) : 0;
    build.set_host(host);
  }
  tenants(top);
  faults(top);
  comparisons(top);
  if (top.has("metrics")) {
    MapReader m(file, top.node("metrics"), "metrics", section_named("metrics"));
    m.finish();
    if (m.has("interval")) {
      build.set_metrics_interval(positive(m, "interval", Dim::Time));
      build.set_place("metrics.interval", where(file, m.node("interval")));
    }
  }
  // The builder's invariants; what it finds wrong is reported where the file said it.
  for (const ScenarioBuilder::Problem& p : build.finish()) {
    if (p.where == ScenarioBuilder::Problem::Where::Target)
      fail_at(file, target_nodes[p.index], "sharing." + sc().targets[p.index].id, p.message);
    const char* key = p.memory_given ? "memory" : "workload";
    fail_at(file, tenant_list[p.index][key], fmt::format("tenants[{}].{}", p.index, key), p.message);
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
  Loader loader{doc.file, catalog, ScenarioBuilder(doc.file), {}, {}, {}};
  loader.build.set_file_hash(doc.hash);
  loader.load(root);
  return loader.build.take();
}

Scenario load_scenario_text(const std::string& text, const std::string& file, const Catalog& catalog,
                            const std::vector<Override>& overrides) {
  return load_scenario(parse_scenario_document(text, file), catalog, overrides);
}

Scenario load_scenario_file(const std::string& path, const Catalog& catalog, const std::vector<Override>& overrides) {
  return load_scenario(read_scenario_document(path), catalog, overrides);
}

}  // namespace vgpusim
