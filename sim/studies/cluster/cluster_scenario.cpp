// The cluster scenario reader: strict MapReaders over documented Sections, paths relative to the scenario file,
// units parsed in sim/core/units. Builds a ClusterConfig; runs nothing.
#include "sim/studies/cluster/cluster_scenario.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <map>
#include <random>

#include "models/descriptions/model_descriptions.hpp"
#include "sim/io/gpu_catalog.hpp"
#include "sim/io/openb.hpp"
#include "models/cluster/placement.hpp"
#include "sim/io/reference_markdown.hpp"

namespace vgpusim {

using units::Dim;

const std::vector<Section>& cluster_sections() {
  static const std::vector<Section> sections = {
      {"", "A cluster scenario: a job-level study of many nodes.",
       {{"version", "integer", true, "", "format version; must be 1"},
        {"name", "string", false, "", "shown in the output", "file name"},
        {"kind", "string", true, "", "must be `cluster` (other scenarios are GPU-level, see scenario-reference.md)"},
        {"seed", "integer", false, "1", "seed of synthetic jobs and preemptions"},
        {"cluster", "mapping", true, "", "nodes, jobs and policy"}}},
      {"cluster", "What runs where.",
       {{"nodes", "mapping or list", true, "", "`{openb: PATH}` or a list of node groups (`cluster.nodes[]`)"},
        {"jobs", "mapping", true, "", "`{openb: PATH}` or `{synthetic: {...}}`"},
        {"policy", "string", false, "first_fit", "placement policy: first_fit, best_fit, spread, fgd, mig_aware"},
        {"sharing_slowdown", "mapping", false, "", "progress rate of jobs on a shared GPU", "timeslice defaults"},
        {"preemption", "mapping", false, "", "spot capacity reclaimed", "none"},
        {"data_parallel", "mapping", false, "",
         "multi-GPU jobs are data-parallel training: their durations stretch by the network model's efficiency",
         "none"},
        {"sample_interval", "time", false, "1h", "time between samples of allocation and fragmentation"}}},
      {"cluster.nodes", "Nodes from an openb node list.",
       {{"openb", "path", true, "", "openb_node_list_*.csv, relative to the scenario file"},
        {"cpu_nodes", "boolean", false, "false", "also keep nodes without GPUs"},
        {"gpu_price", "money rate", false, "$0/h", "price of each node per GPU, e.g. `$1.2/h`"},
        {"spot", "boolean", false, "false", "every node may be preempted"}}},
      {"cluster.nodes[]", "One group of identical nodes.",
       {{"name", "string", true, "", "node name; with count > 1, `name-0`, `name-1`, ..."},
        {"gpu_model", "string", false, "GPU", "GPU model (jobs may restrict models)"},
        {"gpus", "integer", true, "", "GPUs per node"},
        {"cpu_milli", "number", false, "64000", "CPU capacity, milli-cores"},
        {"memory", "bytes", false, "256GiB", "host memory"},
        {"price", "money rate", false, "$0/h", "price per node, e.g. `$12/h`"},
        {"spot", "boolean", false, "false", "may be preempted"},
        {"count", "integer", false, "1", "identical nodes in this group"}}},
      {"cluster.jobs", "The jobs.",
       {{"openb", "path", false, "", "openb_pod_list_*.csv, relative to the scenario file"},
        {"limit", "integer", false, "", "with openb: keep the first N pods", "all"},
        {"sample", "integer", false, "",
         "with openb: draw N pods with replacement (seeded), arriving 1 s apart and never leaving: the FGD paper's "
         "workload inflation",
         "none"},
        {"synthetic", "mapping", false, "", "generated jobs (`cluster.jobs.synthetic`)"},
        {"no_departures", "boolean", false, "false",
         "jobs never finish: the cluster fills up as in the FGD paper's experiments"}}},
      {"cluster.jobs.synthetic", "Poisson arrivals, exponential durations.",
       {{"count", "integer", true, "", "number of jobs"},
        {"rate", "rate", true, "", "arrivals, e.g. `2/s`"},
        {"duration", "time", false, "1h", "mean run time (exponential)"},
        {"fractional", "fraction", false, "0.5", "share of jobs asking for 0.1 .. 0.9 of one GPU"},
        {"multi_gpu", "fraction", false, "0.1", "share of jobs asking for 2, 4 or 8 whole GPUs"},
        {"cpu_per_gpu", "number", false, "4000", "milli-cores per GPU asked"},
        {"memory_per_gpu", "bytes", false, "16GiB", "host memory per GPU asked"}}},
      {"cluster.data_parallel",
       "Multi-GPU jobs as data-parallel training (docs/models/network.md): a job's duration is its time at perfect "
       "scaling, stretched by 1 / efficiency on its GPU count, the efficiency from the roofline (one step on `gpu`) "
       "and the ring all-reduce of its gradients over `link` (SimGrid). Needs the network model "
       "(-DVGPUSIM_NETWORK=ON).",
       {{"gpu", "string", true, "", "catalog GPU the step's compute time is taken on (`vgpusim list gpus`)"},
        {"link", "string", true, "", "link kind joining a node's GPUs: a network preset, e.g. nvlink3, pcie4"},
        {"flops", "amount of work", true, "", "FLOP of one step's forward + backward on one GPU (tensor cores)"},
        {"bytes", "size", false, "0 B", "device-memory traffic of one step"},
        {"parameters", "number", true, "", "model parameters (their gradients are all-reduced every step)"},
        {"bytes_per_gradient", "size", false, "4 B", "bytes of one gradient (fp32)"}}},
      {"cluster.sharing_slowdown", "A job on a GPU that holds other jobs progresses at slice / (slice + switch_cost).",
       {{"mode", "string", false, "timeslice", "`timeslice` or `none` (no slowdown)"},
        // The timeslice mode's parameters: their defaults are its declarations' (ParamSpec), used as declared.
        {"slice", "time", false, "",
         sharing_slowdown_params()[0].help + " (`timeslice.slice`); " + sharing_slowdown_params()[0].source,
         sharing_slowdown_params()[0].default_text()},
        {"switch_cost", "time", false, "",
         sharing_slowdown_params()[1].help + " (`timeslice.switch_cost`); " + sharing_slowdown_params()[1].source,
         sharing_slowdown_params()[1].default_text()}}},
      {"cluster.preemption", "Each preemption takes one eligible node down; its jobs lose work since their last "
                             "checkpoint and go back to the queue.",
       {{"rate", "rate", false, "0/s", "Poisson rate of preemptions across the cluster, e.g. `2/h` (at most 1/s)"},
        {"times", "list of times", false, "", "preemptions at fixed times", "[]"},
        {"checkpoint_interval", "time", false, "0s", "work between checkpoints; 0: none"},
        {"restart_cost", "time", false, "0s", "extra work when a preempted job starts again"},
        {"downtime", "time", false, "0s", "how long a preempted node stays away"},
        {"nodes", "string", false, "spot", "`spot` (nodes marked spot) or `all`"}}},
  };
  return sections;
}

namespace {

const Section& section(const std::string& path) {
  for (const Section& s : cluster_sections())
    if (s.path == path) return s;
  throw std::logic_error("no cluster section " + path);
}

std::string relative_to(const std::string& file, const std::string& path) {
  std::filesystem::path p = path;
  if (p.is_relative()) p = std::filesystem::path(file).parent_path() / p;
  return p.string();
}

double at_least(const MapReader& r, const std::string& key, Dim dim, double min) {
  const double v = r.quantity(key, dim);
  if (v < min || !std::isfinite(v))
    fail_at(r.file(), r.node(key), r.child_path(key), fmt::format("expected a value >= {}", units::format(min, dim)));
  return v;
}

double fraction(const MapReader& r, const std::string& key) {
  const double v = r.quantity(key, Dim::Ratio);
  if (v < 0 || v > 1) fail_at(r.file(), r.node(key), r.child_path(key), "expected a fraction from 0 to 1");
  return v;
}

std::vector<ClusterNode> read_nodes(const std::string& file, const YAML::Node& node) {
  std::vector<ClusterNode> nodes;
  if (node.IsMap()) {
    MapReader r(file, node, "cluster.nodes", section("cluster.nodes"));
    r.finish();
    nodes = read_openb_nodes(relative_to(file, r.string("openb")), !r.boolean("cpu_nodes"));
    const double price = at_least(r, "gpu_price", Dim::MoneyRate, 0);
    const bool spot = r.boolean("spot");
    for (ClusterNode& n : nodes) {
      n.price_per_s = price * n.gpus;
      n.spot = spot;
    }
    return nodes;
  }
  if (!node.IsSequence() || node.size() == 0)
    fail_at(file, node, "cluster.nodes", "expected {openb: PATH} or a non-empty list of node groups");
  for (size_t i = 0; i < node.size(); ++i) {
    MapReader r(file, node[i], fmt::format("cluster.nodes[{}]", i), section("cluster.nodes[]"));
    r.finish();
    ClusterNode n;
    n.name = r.string("name");
    n.gpu_model = r.string("gpu_model");
    n.gpus = static_cast<int>(r.integer("gpus", 0, 64));
    n.cpu_milli = at_least(r, "cpu_milli", Dim::Count, 0);
    n.memory_mib = at_least(r, "memory", Dim::Bytes, 0) / (1024.0 * 1024.0);
    n.price_per_s = at_least(r, "price", Dim::MoneyRate, 0);
    n.spot = r.boolean("spot");
    const long long count = r.integer("count", 1, 1000000);
    for (long long k = 0; k < count; ++k) {
      nodes.push_back(n);
      if (count > 1) nodes.back().name = fmt::format("{}-{}", n.name, k);
    }
  }
  return nodes;
}

std::vector<ClusterJob> read_jobs(const std::string& file, const YAML::Node& node, uint64_t seed, bool& no_departures) {
  MapReader r(file, node, "cluster.jobs", section("cluster.jobs"));
  r.finish();
  no_departures = r.boolean("no_departures");
  if (r.has("openb") == r.has("synthetic"))
    fail_at(file, node, "cluster.jobs", "expected exactly one of `openb` and `synthetic`");
  if (r.has("openb")) {
    const size_t limit = r.has("limit") ? static_cast<size_t>(r.integer("limit", 1, 100000000)) : 0;
    std::vector<ClusterJob> pods = read_openb_pods(relative_to(file, r.string("openb")), limit);
    if (!r.has("sample")) return pods;
    return sample_jobs(pods, static_cast<size_t>(r.integer("sample", 1, 100000000)), seed);
  }
  for (const char* key : {"limit", "sample"})
    if (r.has(key)) fail_at(file, r.node(key), r.child_path(key), fmt::format("`{}` applies to openb jobs only", key));
  MapReader s(file, r.node("synthetic"), r.child_path("synthetic"), section("cluster.jobs.synthetic"));
  s.finish();
  SyntheticJobsSpec spec;
  spec.count = s.integer("count", 1, 100000000);
  spec.rate_per_s = s.quantity("rate", Dim::Rate);
  if (!(spec.rate_per_s > 0)) fail_at(file, s.node("rate"), s.child_path("rate"), "expected a rate > 0");
  spec.mean_duration_s = at_least(s, "duration", Dim::Time, 0);
  spec.fractional = fraction(s, "fractional");
  spec.multi_gpu = fraction(s, "multi_gpu");
  if (spec.fractional + spec.multi_gpu > 1)
    fail_at(file, s.node(), s.path(), "fractional + multi_gpu must not exceed 1");
  spec.cpu_per_gpu_milli = at_least(s, "cpu_per_gpu", Dim::Count, 0);
  spec.memory_per_gpu_mib = at_least(s, "memory_per_gpu", Dim::Bytes, 0) / 1048576.0;
  return synthetic_cluster_jobs(spec, seed);
}

void read_preemption(const std::string& file, const YAML::Node& node, PreemptionSpec& p) {
  MapReader r(file, node, "cluster.preemption", section("cluster.preemption"));
  r.finish();
  p.rate_per_s = at_least(r, "rate", Dim::Rate, 0);
  // Spot preemptions come minutes to days apart; one a second across the cluster is already far beyond any cloud's.
  if (p.rate_per_s > 1)
    fail_at(file, r.node("rate"), r.child_path("rate"),
            fmt::format("{}/s is more than one preemption a second across the cluster; at most 1/s (3600/h)",
                        p.rate_per_s));
  if (r.has("times")) {
    const YAML::Node list = r.node("times");
    if (!list.IsSequence()) fail_at(file, list, r.child_path("times"), "expected a list of times");
    for (size_t i = 0; i < list.size(); ++i)
      p.times_s.push_back(read_quantity(file, list[i], fmt::format("{}[{}]", r.child_path("times"), i), Dim::Time));
  }
  p.checkpoint_interval_s = at_least(r, "checkpoint_interval", Dim::Time, 0);
  p.restart_cost_s = at_least(r, "restart_cost", Dim::Time, 0);
  p.downtime_s = at_least(r, "downtime", Dim::Time, 0);
  p.all_nodes = r.choice("nodes", {"spot", "all"}) == "all";
}

// Stretches each multi-GPU job's duration by 1 / the data-parallel efficiency on its GPU count.
void apply_data_parallel(const std::string& file, const YAML::Node& node, std::vector<ClusterJob>& jobs) {
  MapReader r(file, node, "cluster.data_parallel", section("cluster.data_parallel"));
  r.finish();
  const DataParallelEfficiency& efficiency = data_parallel_efficiency();
  if (!efficiency)
    fail_at(file, node, "cluster.data_parallel",
            "this build has no network model: configure with -DVGPUSIM_NETWORK=ON (needs SimGrid)");
  DataParallelQuery q;
  const std::string gpu = r.string("gpu");
  const CatalogEntry* entry = builtin_catalog().find(gpu);
  if (!entry) fail_at(file, r.node("gpu"), r.child_path("gpu"), fmt::format("unknown GPU '{}' (see `vgpusim list gpus`)", gpu));
  q.gpu = entry->spec;
  q.link = r.string("link");
  q.step.flops_fp16 = at_least(r, "flops", Dim::Flops, 0);
  if (!(q.step.flops_fp16 > 0)) fail_at(file, r.node("flops"), r.child_path("flops"), "expected work > 0");
  q.step.bytes = at_least(r, "bytes", Dim::Bytes, 0);
  q.parameters = at_least(r, "parameters", Dim::Count, 0);
  if (r.has("bytes_per_gradient")) q.bytes_per_gradient = at_least(r, "bytes_per_gradient", Dim::Bytes, 0);
  std::map<int, double> by_gpus;
  for (ClusterJob& j : jobs) {
    if (j.num_gpu < 2) continue;
    auto it = by_gpus.find(j.num_gpu);
    if (it == by_gpus.end()) {
      q.gpus = j.num_gpu;
      double e = 0;
      try {
        e = efficiency(q);
      } catch (const std::invalid_argument& err) {  // an unknown link kind
        fail_at(file, r.node("link"), r.child_path("link"), err.what());
      } catch (const std::exception& err) {
        fail_at(file, node, "cluster.data_parallel",
                fmt::format("the network model failed for {}-GPU jobs: {}", j.num_gpu, err.what()));
      }
      if (!(e > 0 && e <= 1))
        fail_at(file, node, "cluster.data_parallel",
                fmt::format("the network model gave an efficiency of {} for {}-GPU jobs", e, j.num_gpu));
      it = by_gpus.emplace(j.num_gpu, e).first;
    }
    j.duration_s /= it->second;
  }
}

double read_sharing_efficiency(const std::string& file, const YAML::Node& node) {
  MapReader r(file, node, "cluster.sharing_slowdown", section("cluster.sharing_slowdown"));
  r.finish();
  if (r.choice("mode", {"timeslice", "none"}) == "none") return 1;
  const std::vector<ParamSpec>& ps = sharing_slowdown_params();
  double v[2];
  for (size_t i = 0; i < 2; ++i) v[i] = r.has(ps[i].name) ? r.number_param(ps[i]) : ps[i].default_value;
  return timeslice_efficiency(v[0], v[1]);
}

}  // namespace

std::vector<ClusterJob> synthetic_cluster_jobs(const SyntheticJobsSpec& spec, uint64_t seed) {
  std::mt19937_64 rng(seed);
  const auto uniform = [&] { return static_cast<double>(rng() >> 11) * 0x1.0p-53; };
  std::vector<ClusterJob> jobs(static_cast<size_t>(spec.count));
  double t = 0;
  for (size_t i = 0; i < jobs.size(); ++i) {
    ClusterJob& j = jobs[i];
    j.name = fmt::format("job-{}", i);
    t += -std::log1p(-uniform()) / spec.rate_per_s;
    j.arrival_s = t;
    j.duration_s = -std::log1p(-uniform()) * spec.mean_duration_s;
    const double kind = uniform(), pick = uniform();
    double gpus = 1;
    if (kind < spec.fractional) {
      j.num_gpu = 1;
      j.gpu_units = (1 + static_cast<int>(pick * 9)) * 100 * kUnitsPerMilliGpu;
      gpus = j.gpu_units / static_cast<double>(kGpuUnits);
    } else if (kind < spec.fractional + spec.multi_gpu) {
      j.num_gpu = 2 << static_cast<int>(pick * 3);
      j.gpu_units = kGpuUnits;
      gpus = j.num_gpu;
    } else {
      j.num_gpu = 1;
      j.gpu_units = kGpuUnits;
    }
    j.cpu_milli = std::round(spec.cpu_per_gpu_milli * gpus);
    j.memory_mib = std::round(spec.memory_per_gpu_mib * gpus);
  }
  return jobs;
}

std::vector<ClusterJob> sample_jobs(const std::vector<ClusterJob>& population, size_t count, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<ClusterJob> jobs;
  if (population.empty()) return jobs;
  jobs.reserve(count);
  for (size_t i = 0; i < count; ++i) {
    const double u = static_cast<double>(rng() >> 11) * 0x1.0p-53;
    jobs.push_back(population[std::min(population.size() - 1, static_cast<size_t>(u * static_cast<double>(population.size())))]);
    jobs.back().arrival_s = static_cast<double>(i);
    jobs.back().duration_s = std::numeric_limits<double>::infinity();
  }
  return jobs;
}

ClusterConfig load_cluster_scenario_text(const std::string& text, const std::string& file) {
  return load_cluster_scenario(parse_scenario_document(text, file));
}

ClusterConfig load_cluster_scenario(const ScenarioDocument& doc) {
  const std::string& file = doc.file;
  MapReader top(file, doc.root, "", section(""));
  top.finish();
  top.integer("version", 1, 1);
  if (top.string("kind") != "cluster") fail_at(file, top.node("kind"), "kind", "expected `cluster`");
  ClusterConfig c;
  c.name = top.has("name") ? top.string("name") : std::filesystem::path(file).filename().string();
  c.seed = static_cast<uint64_t>(top.integer("seed", 0, 1LL << 62));
  MapReader cl(file, top.node("cluster"), "cluster", section("cluster"));
  cl.finish();
  c.nodes = read_nodes(file, cl.node("nodes"));
  c.jobs = read_jobs(file, cl.node("jobs"), c.seed, c.no_departures);
  std::vector<std::string> names;
  for (const PlacementPolicyInfo& p : placement_policies()) names.push_back(p.name);
  c.policy = cl.choice("policy", names);
  // Without a sharing_slowdown mapping, its keys' defaults (the timeslice mode's).
  c.sharing_efficiency = read_sharing_efficiency(file, cl.has("sharing_slowdown") ? cl.node("sharing_slowdown")
                                                                                  : YAML::Node(YAML::NodeType::Map));
  if (cl.has("preemption")) read_preemption(file, cl.node("preemption"), c.preemption);
  if (cl.has("data_parallel")) apply_data_parallel(file, cl.node("data_parallel"), c.jobs);
  c.sample_interval_s = cl.quantity("sample_interval", Dim::Time);
  if (!(c.sample_interval_s > 0))
    fail_at(file, cl.node("sample_interval"), cl.child_path("sample_interval"), "expected a time > 0");
  return c;
}

std::string cluster_reference_markdown() {
  std::string md = keys_markdown(cluster_sections(), "###", "(top level)");
  md += "### Placement policies (`cluster.policy`)\n\n| name | what it does | citation |\n|---|---|---|\n";
  for (const PlacementPolicyInfo& p : placement_policies())
    md += fmt::format("| `{}` | {} | {} |\n", p.name, p.description, p.citation);
  return md + "\n";
}

}  // namespace vgpusim
