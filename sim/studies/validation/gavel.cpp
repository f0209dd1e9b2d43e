// Gavel: two training jobs as two processes on one GPU (under MPS on its V100 servers, time-sliced by the driver
// elsewhere; mode_of). Gavel names each job and gives its solo throughput; what it does on the GPU is unknown, so each job type becomes a `measured`
// workload whose gpu_util is fitted on training pairs only and the pairs of the held-out fold are predicted.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <random>
#include <set>
#include <thread>
#include <tuple>

#include "models/gpu/op_model.hpp"
#include "models/workload/model_shapes.hpp"
#include "models/workload/telemetry.hpp"
#include "sim/core/errors.hpp"
#include "sim/core/parallel.hpp"
#include "sim/io/gpu_catalog.hpp"
#include "sim/io/published.hpp"
#include "sim/run/simulation.hpp"
#include "sim/scenario/loader.hpp"
#include "sim/studies/validation/gavel_host.hpp"
#include "sim/studies/validation/published.hpp"

namespace fs = std::filesystem;

namespace vgpusim {
namespace {

using gavel::default_loaders;
using gavel::fit_families;
using gavel::job_threads;
using gavel::Loaders;
using gavel::profiler_queue;
using gavel::ProfilerQueue;
using gavel::round_background;
using gavel::round_mates;

constexpr int kGavelFolds = 5;
constexpr int kGrid = 20;  // gpu_util candidates 5%, 10%, ... 100%
double grid_util(int i) { return 0.05 * (i + 1); }
// Under MPS a job's kernels also have an SM fill (the share of the SMs they occupy: sm_active / gpu_util), fitted
// with its gpu_util; a job type's grid point is util index + kGrid x fill index.
constexpr int kFills = 4;  // 25%, 50%, 75%, 100%
double grid_fill(int i) { return 0.25 * (i / kGrid + 1); }

struct PairCase {
  size_t a = 0, b = 0;  // job indices, a <= b
  double coloc_a = 0, coloc_b = 0;
  bool use_a = true, use_b = true;  // false: that side's measurement is implausible (skipped, not fitted)
};

// Below this share of its solo throughput, a co-located measurement is taken to be in other units than the solo
// one: two processes time-sliced each keep about half of the GPU, and even a job that only computes cannot fall to
// a tenth. (It catches the physical file's Recommendation jobs, whose solo steps/s are 10x the scale of their
// co-located ones.)
constexpr double kImplausible = 0.1;

// A job whose solo throughput in the physical file was measured again after its pairs were: Gavel replaced the
// Recommendation jobs' solo throughputs on every GPU (stanford-futuredata/gavel 9aef842, "Update with recommendation
// throughputs", 2020-05-17; V100 7.47 -> 88.2 steps/s at batch 2048, P100 x3-4, K80 x1.8) and kept the co-located
// ones measured with the earlier code (4605a9c, 2020-05-06). Its own co-located speeds are then not comparable with
// its solo, and are skipped; as a partner it keeps the solo it is given. When Gavel made the simulation file from
// the same file it put the earlier solos back (156116e: those 15 values and one other), and that file is used whole.
bool solo_remeasured(const std::string& source, const std::string& job) {
  return source == "physical_cluster_throughputs" && job.starts_with("Recommendation");
}

// The server's effective cores, fitted on the training folds: none (no limit: the CPU never slows a job) or one of
// these.
constexpr double kHostCores[] = {0, 16, 24, 32};
constexpr int kHostPoints = static_cast<int>(std::size(kHostCores));

// Simulates pairs of measured workloads sharing one GPU; remembers every result.
class PairSimulator {
 public:
  PairSimulator(const std::string& gpu, const std::string& mode, std::vector<double> solo,
                const std::vector<std::string>& names)
      : solo_(std::move(solo)), names_(names) {
    for (const std::string& a : names) kernels_.push_back(gavel_kernels_per_step(a));
    // Each pair's round, once; the threads with the loaders of the jobs' code.
    const ProfilerQueue queue = profiler_queue();
    for (const std::string& a : names) {
      mates_.emplace_back();
      for (const std::string& b : names) mates_.back().push_back(round_mates(queue, a, b));
    }
    threads_.resize(names.size());
    background_.assign(names.size(), std::vector<double>(names.size()));
    set_loaders(default_loaders());
    const std::string text = fmt::format(
        "version: 1\nname: gavel pair\nduration: 1s\nfidelity: fluid\ngpus:\n  - {{id: g0, model: {}}}\n"
        "sharing:\n  g0: {{mode: {}}}\ntenants:\n"
        "  - {{name: a, on: g0, workload: {{measured: {{gpu: {}, throughput: 1/s, gpu_util: 50%, mem_util: 0%}}}}}}\n"
        "  - {{name: b, on: g0, workload: {{measured: {{gpu: {}, throughput: 1/s, gpu_util: 50%, mem_util: 0%}}}}}}\n",
        gpu, mode, gpu, gpu);
    scenario_ = load_scenario_text(text, "(gavel pair)", builtin_catalog());
  }

  // Each job family's runnable loaders: the jobs' threads and every pair's round background again.
  void set_loaders(const Loaders& loaders) {
    for (size_t i = 0; i < names_.size(); ++i) {
      threads_[i] = job_threads(names_[i], loaders);
      for (size_t j = 0; j < names_.size(); ++j) background_[i][j] = round_background(mates_[i][j], loaders);
    }
  }

  // A simulation of jobs a and b at grid points ia, ib, the server's cores kHostCores[host].
  struct Query {
    size_t a, b;
    int ia, ib, host;
  };

  // Throughputs (units/s) of the query's jobs.
  std::pair<double, double> run(size_t a, size_t b, int ia, int ib, int host) {
    const Query q{a, b, ia, ib, host};
    const Key key = key_of(q);
    const auto it = cache_.find(key);
    if (it != cache_.end()) return it->second;
    return cache_[key] = simulate_pair(q);
  }

  // Simulates the queries not yet remembered, on every core (each simulation is independent and deterministic, so
  // run() then answers them as it would have one by one).
  void prefetch(const std::vector<Query>& queries) {
    std::vector<Query> missing;
    std::set<Key> seen;
    for (const Query& q : queries) {
      const Key key = key_of(q);
      if (!cache_.count(key) && seen.insert(key).second) missing.push_back(q);
    }
    std::vector<std::pair<double, double>> out(missing.size());
    run_parallel(missing.size(), std::max(1u, std::thread::hardware_concurrency()),
                 [&](size_t i) { out[i] = simulate_pair(missing[i]); });
    for (size_t i = 0; i < missing.size(); ++i) cache_[key_of(missing[i])] = out[i];
  }

 private:
  using Key = std::tuple<size_t, size_t, int, int, int, double, double, double>;
  Key key_of(const Query& q) const {
    return std::make_tuple(q.a, q.b, q.ia, q.ib, q.host, threads_[q.a], threads_[q.b], background_[q.a][q.b]);
  }

  // One simulation of the query (const: safe on several threads at once).
  std::pair<double, double> simulate_pair(const Query& q) const {
    Scenario sc = scenario_;
    const size_t jobs[2] = {q.a, q.b};
    const int util[2] = {q.ia, q.ib};
    double longest = 0;
    for (int i = 0; i < 2; ++i) {
      SoloTelemetry t;
      t.kernels_per_unit = static_cast<int>(kernels_[jobs[i]]);
      t.throughput = solo_[jobs[i]];
      t.gpu_util = grid_util(util[i] % kGrid);
      if (grid_fill(util[i]) < 1) t.sm_active = grid_fill(util[i]) * t.gpu_util;
      sc.tenants[i].workload = measured_workload(t, sc.gpus[0].spec, sc.gpus[0].performance, -1, mapping_);
      longest = std::max(longest, 1.0 / t.throughput);
    }
    sc.duration = 40 * longest;
    sc.metrics_interval = 0;  // only the steps' times are read: no utilization series
    sc.host.cores = kHostCores[q.host];
    sc.host.background_threads = background_[q.a][q.b];
    sc.tenants[0].host_threads = threads_[q.a];
    sc.tenants[1].host_threads = threads_[q.b];
    const RunRecord rec = simulate(sc);
    std::pair<double, double> out;
    for (int i = 0; i < 2; ++i) {
      const TenantRecord& t = rec.tenants[i];
      double& o = i == 0 ? out.first : out.second;
      if (t.unit_times.size() >= 3) {
        double sum = 0;
        for (size_t k = 1; k < t.unit_times.size(); ++k) sum += t.unit_times[k];
        o = static_cast<double>(t.unit_times.size() - 1) / sum;
      } else {
        o = static_cast<double>(t.units) / sc.duration;
      }
    }
    return out;
  }

  std::vector<double> solo_;
  // Each job's gpu_util is the fitted share of a step its kernels run, not an nvidia-smi reading: taken at its word.
  const TelemetryMapping mapping_ = busy_share_mapping();
  std::vector<double> kernels_;                   // per job: kernels per step, 0 = of the mapping's kernel_time
  std::vector<double> threads_;                   // per job
  std::vector<std::vector<double>> background_;  // per pair of jobs
  std::vector<std::vector<ProfilerQueue>> mates_;  // per pair of jobs: the other tasks of its profiler round
  Scenario scenario_;
  std::vector<std::string> names_;
  std::map<Key, std::pair<double, double>> cache_;
};

// The sharing its pairs ran under. Gavel's worker ran co-located jobs under MPS on its V100 servers when these
// throughputs were measured (stanford-futuredata/gavel 578680d, scheduler/worker.py: use_mps = worker_type ==
// 'v100'; runtime/rpc/dispatcher.py starts nvidia-cuda-mps-control; the pair data were committed 84 minutes later,
// 4605a9c; MPS was made optional in 27fb65b), and plain time-slicing elsewhere.
std::string mode_of(const std::string& gpu) { return gpu == "V100" ? "mps" : "timeslice"; }

// The catalog entry of a Gavel worker type. Its P100 workers were cloud instances (its price tables cover AWS, GCP and
// Azure, scheduler/utils.py): AWS offers no P100, and GCP's and Azure's (NCv2) P100s are all the PCIe 16 GB board.
std::string catalog_gpu(const std::string& worker) { return worker == "P100" ? "P100-PCIe-16GB" : worker; }

double squared_error(double measured, double predicted) {
  const double r = predicted / measured - 1;
  return r * r;
}

// A pair's squared relative errors, of the sides that are used.
double pair_error(const PairCase& c, const std::pair<double, double>& predicted) {
  return (c.use_a ? squared_error(c.coloc_a, predicted.first) : 0) +
         (c.use_b ? squared_error(c.coloc_b, predicted.second) : 0);
}

// The simulations of the pairs `which` at the jobs' grid points `util`, the server's cores kHostCores[host].
std::vector<PairSimulator::Query> queries_of(const std::vector<PairCase>& pairs, const std::vector<size_t>& which,
                                             const std::vector<int>& util, int host) {
  std::vector<PairSimulator::Query> queries;
  for (size_t p : which) queries.push_back({pairs[p].a, pairs[p].b, util[pairs[p].a], util[pairs[p].b], host});
  return queries;
}

// Fits every job's grid point on `train` by coordinate descent over the jobs, from `util`, at most `sweeps` sweeps,
// the server's cores kHostCores[host]: its gpu_util, and under MPS its SM fill too. A job's points are scanned in
// order and the first of the smallest summed error kept. The errors are sums of non-negative terms, so a point whose
// partial sum already exceeds the error of the job's current point cannot be kept: the job's pairs are simulated one
// at a time, at every point still in the running at once, and a point's other pairs once it is out are not. The
// points kept, and so every result, are those of simulating every pair at every point (about 45% of the simulations
// of Gavel's three GPUs are left out).
std::vector<int> fit_utils(PairSimulator& sim, const std::vector<PairCase>& pairs, const std::vector<size_t>& train,
                           std::vector<int> util, int points, int host, int sweeps = 4) {
  const size_t jobs = util.size();
  std::vector<std::vector<size_t>> of_job(jobs);
  for (size_t p : train) {
    of_job[pairs[p].a].push_back(p);
    if (pairs[p].b != pairs[p].a) of_job[pairs[p].b].push_back(p);
  }
  for (int sweep = 0; sweep < sweeps; ++sweep) {
    bool changed = false;
    for (size_t j = 0; j < jobs; ++j) {
      const std::vector<size_t>& mine = of_job[j];
      if (mine.empty()) continue;
      const auto query = [&](int g, size_t p) {
        const PairCase& c = pairs[p];
        return PairSimulator::Query{c.a, c.b, c.a == j ? g : util[c.a], c.b == j ? g : util[c.b], host};
      };
      const auto error = [&](int g, size_t p) {
        const PairSimulator::Query q = query(g, p);
        return pair_error(pairs[p], sim.run(q.a, q.b, q.ia, q.ib, q.host));
      };
      std::vector<PairSimulator::Query> queries;
      for (size_t p : mine) queries.push_back(query(util[j], p));
      sim.prefetch(queries);
      double current = 0;
      for (size_t p : mine) current += error(util[j], p);
      // Above this a point is out of the running (a margin far above the 1e-12 that decides between two points).
      const double limit = current + 1e-9 * std::max(1.0, current);
      std::vector<double> err(static_cast<size_t>(points), 0.0);
      std::vector<bool> running(static_cast<size_t>(points), true);
      for (size_t p : mine) {
        queries.clear();
        for (int g = 0; g < points; ++g)
          if (running[static_cast<size_t>(g)]) queries.push_back(query(g, p));
        sim.prefetch(queries);
        for (int g = 0; g < points; ++g) {
          const size_t at = static_cast<size_t>(g);
          if (!running[at]) continue;
          err[at] += error(g, p);
          if (err[at] > limit) running[at] = false;
        }
      }
      int best = util[j];
      double best_err = 1e300;
      for (int g = 0; g < points; ++g) {
        const size_t at = static_cast<size_t>(g);
        if (running[at] && err[at] < best_err - 1e-12) {
          best_err = err[at];
          best = g;
        }
      }
      if (best != util[j]) changed = true;
      util[j] = best;
    }
    if (!changed) break;
  }
  return util;
}

// The summed error of the `train` pairs at the jobs' grid points `util`, the server's cores kHostCores[host].
double training_error(PairSimulator& sim, const std::vector<PairCase>& pairs, const std::vector<size_t>& train,
                      const std::vector<int>& util, int host) {
  sim.prefetch(queries_of(pairs, train, util, host));
  double err = 0;
  for (size_t p : train) {
    const PairCase& c = pairs[p];
    err += pair_error(c, sim.run(c.a, c.b, util[c.a], util[c.b], host));
  }
  return err;
}

// Each job family's runnable loaders, fitted on `train` (the rounds' CPU demand is not their jobs' loader counts: an
// ImageNet loader decodes JPEGs, a CIFAR-10 or text loader mostly waits on a full queue): two sweeps of coordinate
// descent over the families from the counts of their code, each followed by two sweeps of the jobs' points `util`.
// Leaves `sim` set to the loaders it returns.
Loaders fit_loaders(PairSimulator& sim, const std::vector<PairCase>& pairs, const std::vector<std::string>& names,
                    const std::vector<size_t>& train, std::vector<int>& util, int points, int host) {
  constexpr double kLoaderGrid[] = {0, 1, 2, 4, 8};
  Loaders loaders = default_loaders();
  const std::vector<std::string> families = fit_families(names);
  for (int sweep = 0; sweep < 2; ++sweep) {
    for (const std::string& f : families) {
      double best_v = loaders[f], best_e = 1e300;
      for (double v : kLoaderGrid) {
        loaders[f] = v;
        sim.set_loaders(loaders);
        const double e = training_error(sim, pairs, train, util, host);
        if (e < best_e - 1e-12) best_e = e, best_v = v;
      }
      loaders[f] = best_v;
    }
    sim.set_loaders(loaders);
    util = fit_utils(sim, pairs, train, util, points, host, 2);
  }
  return loaders;
}

// The pairs of one GPU: its job types (with their solo throughput there) and the unordered pairs measured.
struct GpuPairs {
  std::vector<std::string> names;
  std::vector<double> solo;
  std::vector<PairCase> pairs;
  size_t job(const std::string& name, double tput) {
    const auto it = std::find(names.begin(), names.end(), name);
    if (it != names.end()) return static_cast<size_t>(it - names.begin());
    names.push_back(name);
    solo.push_back(tput);
    return names.size() - 1;
  }
};

// 5-fold cross-validation of one GPU's pairs: fit on four folds, predict the fifth.
void cross_validate(const std::string& gpu, const GpuPairs& g, const std::string& split, ValidationRun& run) {
  if (g.pairs.empty()) return;
  // Folds: a fixed shuffle (seed 1) dealt round robin.
  std::vector<size_t> order(g.pairs.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::mt19937_64 rng(1);
  for (size_t i = order.size() - 1; i > 0; --i) std::swap(order[i], order[rng() % (i + 1)]);
  PairSimulator sim(gpu, mode_of(gpu), g.solo, g.names);
  for (int fold = 0; fold < kGavelFolds; ++fold) {
    std::vector<size_t> train, test;
    for (size_t i = 0; i < order.size(); ++i)
      (static_cast<int>(i % kGavelFolds) == fold ? test : train).push_back(order[i]);
    const int points = mode_of(gpu) == "mps" ? kGrid * kFills : kGrid;
    sim.set_loaders(default_loaders());
    // The jobs' grid points with no CPU limit; from there one sweep of them with each of the server's core counts;
    // the count with the smallest training error, and the sweeps finished with it.
    const std::vector<int> unlimited =
        fit_utils(sim, g.pairs, train, std::vector<int>(g.names.size(), points - 1), points, 0);
    std::vector<int> util;
    int host = 0;
    double best = 1e300;
    for (int h = 0; h < kHostPoints; ++h) {
      std::vector<int> u = h ? fit_utils(sim, g.pairs, train, unlimited, points, h, 1) : unlimited;
      const double err = training_error(sim, g.pairs, train, u, h);
      if (err < best - 1e-12) best = err, host = h, util = std::move(u);
    }
    if (host) util = fit_utils(sim, g.pairs, train, util, points, host, 3);
    // Each job family's runnable loaders too, where the CPU binds.
    const Loaders loaders = host ? fit_loaders(sim, g.pairs, g.names, train, util, points, host) : default_loaders();
    // The constant-mean baseline: the training pairs' mean co-located share of solo throughput.
    double share_sum = 0;
    size_t shares = 0;
    for (size_t p : train) {
      const PairCase& c = g.pairs[p];
      if (c.use_a) share_sum += c.coloc_a / g.solo[c.a], ++shares;
      if (c.use_b) share_sum += c.coloc_b / g.solo[c.b], ++shares;
    }
    const double train_share = shares ? share_sum / static_cast<double>(shares) : 1.0;
    sim.prefetch(queries_of(g.pairs, test, util, host));
    for (size_t p : test) {
      const PairCase& c = g.pairs[p];
      const auto [ta, tb] = sim.run(c.a, c.b, util[c.a], util[c.b], host);
      const double measured[2] = {c.coloc_a, c.coloc_b};
      const double predicted[2] = {ta, tb};
      const size_t who[2] = {c.a, c.b};
      const bool use[2] = {c.use_a, c.use_b};
      for (int i = 0; i < 2; ++i) {
        if (!use[i]) continue;
        ValidationCase v;
        v.gpu = gpu;
        v.split = split;
        v.id = fmt::format("{} beside {}: {} (gpu_util {:.0f}%{})", g.names[c.a], g.names[c.b], g.names[who[i]],
                           grid_util(util[who[i]] % kGrid) * 100,
                           points > kGrid ? fmt::format(", SM fill {:.0f}%", grid_fill(util[who[i]]) * 100) : "") +
               (host ? fmt::format(" (server {:g} cores; its loaders {:g})", kHostCores[host],
                                   job_threads(g.names[who[i]], loaders) - 1)
                     : "");
        v.measured = measured[i];
        v.predicted = predicted[i];
        v.baseline["no_interference"] = g.solo[who[i]];
        v.baseline["half"] = 0.5 * g.solo[who[i]];
        v.baseline["train_mean"] = train_share * g.solo[who[i]];
        run.cases.push_back(v);
      }
    }
  }
}

void validate_file(const fs::path& file, ValidationRun& run) {
  const std::vector<GavelPair> rows = read_gavel_pairs(file.string());
  const std::string source = file.stem().string() == "gavel_pairs_simulation" ? "simulation_throughputs"
                                                                               : "physical_cluster_throughputs";
  const std::string split = "5-fold held-out (" + source + ")";
  std::map<std::string, GpuPairs> by_gpu;  // each GPU on its own: its jobs' solo throughputs differ
  std::vector<std::string> gpus;           // in the file's order
  for (const GavelPair& r : rows) {
    std::string upper = r.gpu.substr(0, r.gpu.find('_'));
    std::transform(upper.begin(), upper.end(), upper.begin(), [](unsigned char ch) { return std::toupper(ch); });
    upper = catalog_gpu(upper);
    // The file lists each pair in both orders: a skipped row is counted once per unordered pair.
    const bool first_order = r.job_a <= r.job_b;
    if (r.gpu.find("unconsolidated") != std::string::npos) {
      if (first_order) run.skipped.push_back({upper, "multi-GPU jobs spread over servers", split});
      continue;
    }
    if (!builtin_catalog().find(upper)) {
      if (first_order) run.skipped.push_back({upper, "GPU not in the catalog", split});
      continue;
    }
    if (r.scale_a != 1 || r.scale_b != 1) {
      if (first_order) run.skipped.push_back({upper, "multi-GPU job (scale > 1)", split});
      continue;
    }
    if (!by_gpu.count(upper)) gpus.push_back(upper);
    GpuPairs& g = by_gpu[upper];
    const size_t a = g.job(r.job_a, r.solo_a);
    const size_t b = g.job(r.job_b, r.solo_b);
    if (a > b) continue;  // each unordered pair once
    if (!(r.coloc_a > 0) || !(r.coloc_b > 0) || !(r.solo_a > 0) || !(r.solo_b > 0)) {
      run.skipped.push_back({upper, "co-located throughput 0 (likely out of memory)", split});
      continue;
    }
    PairCase c{a, b, r.coloc_a, r.coloc_b};
    const std::string* jobs[2] = {&r.job_a, &r.job_b};
    const double coloc[2] = {r.coloc_a, r.coloc_b}, solo[2] = {r.solo_a, r.solo_b};
    bool* use[2] = {&c.use_a, &c.use_b};
    for (int i = 0; i < 2; ++i) {
      if (solo_remeasured(source, *jobs[i])) {
        *use[i] = false;
        run.skipped.push_back({upper, "solo measured again after the pairs (Gavel 9aef842): not comparable", split});
      } else if (coloc[i] < kImplausible * solo[i]) {
        *use[i] = false;
        run.skipped.push_back({upper, "co-located below 10% of solo: solo and co-located in other units", split});
      }
    }
    g.pairs.push_back(c);
  }
  for (const std::string& gpu : gpus) cross_validate(gpu, by_gpu[gpu], split, run);
}

}  // namespace

double gavel_kernels_per_step(const std::string& job) {
  std::vector<FxNode> step;
  if (job == "CycleGAN") {
    step = cyclegan_step_nodes(1);  // batch 1 of 256-pixel images, the workload's defaults
  } else {
    // The translation model's sentence lengths and vocabulary (Multi30k's, not recorded) set its kernels' sizes,
    // not their number: 25 tokens and 10000 words stand in.
    const std::pair<std::string, std::vector<FxNode> (*)(double)> models[] = {
        {"ResNet-50 (batch size ", [](double b) { return resnet50_nodes(b); }},
        {"ResNet-18 (batch size ", [](double b) { return resnet18_cifar_nodes(b); }},
        {"Transformer (batch size ", [](double b) { return translation_transformer_nodes(b, 25, 25, 10000); }}};
    for (const auto& [prefix, nodes] : models) {
      if (!job.starts_with(prefix)) continue;
      const double batch = std::strtod(job.c_str() + prefix.size(), nullptr);
      if (batch >= 1 && batch <= 1e6) step = nodes(batch);
    }
  }
  return step.empty() ? 0.0 : OpGraph(graph_kernels(step, true)).launches();
}

std::vector<ValidationRun> validate_gavel(const std::string& dir, const PublishedOptions&) {
  ValidationRun run;
  run.dataset = "gavel";
  run.quantity = "co-located throughput (steps/s)";
  run.method =
      "Gavel measured the training throughput of 26 job types alone and with a second job on the same GPU (two "
      "processes; on its V100 servers Gavel's worker ran them under MPS (stanford-futuredata/gavel 578680d, "
      "scheduler/worker.py), elsewhere the driver time-slices them; its P100 workers were cloud instances, all of "
      "which are the PCIe 16 GB board: the catalog's P100-PCIe-16GB; a K80 worker is one of a K80 board's two GPUs, as "
      "the catalog's K80 entry is). Each job type becomes a `measured` workload with Gavel's solo throughput on that "
      "GPU; its gpu_util (the share of a step its kernels run) and, under MPS, "
      "the share of the SMs its kernels fill are the unknowns, fitted on the training folds only: 5-fold over the "
      "unordered single-GPU pairs (fixed shuffle, seed 1), each job type's gpu_util chosen on a 5% grid (its SM "
      "fill on a 25% grid) by coordinate descent to minimize the squared relative error of the training pairs it "
      "appears in. The held-out fold's pairs are then simulated (mode mps on V100, timeslice elsewhere, with their "
      "defaults, fluid fidelity, 40 steps of the slower job) and each job's co-located throughput is compared with "
      "the measurement (split \"5-fold held-out\"). mem_util is 0. A step launches the telemetry mapping's 52 us "
      "kernels, except where the operator model knows the job's layers: a ResNet-50 step (ImageNet, 224 pixels) "
      "launches the kernels of its training graph at its batch (forward, backward and accumulation), a ResNet-18 "
      "step those of the CIFAR-10 ResNet-18 (32 pixels), a Transformer step those of the 6 + 6-layer translation "
      "Transformer Gavel trains (1255 a step: its sentence lengths change their sizes, not their number), a "
      "CycleGAN step those of its two generators' six passes and its two discriminators' six (1932); under MPS "
      "the SMs go to the clients kernel by kernel. The "
      "pair shares the server's CPU with the other "
      "tasks of the profiler's round it ran in (docs/models/host-cpu.md): Gavel's profiler (scheduler/scripts/"
      "profiling/measure_throughput.py at 1606bc4) queued every job alone and then every pair (i, j >= i) in its job "
      "table's order and ran them in rounds filling every worker GPU, unpinned; each job runs 1 + its data loader "
      "workers as threads (1606bc4: ResNet-50 8, ResNet-18 and Transformer 2, CycleGAN and A3C 4, LM 0, "
      "Recommendation one per host thread, counted up to the GPU's share of 64 / 8), rounds of 8 tasks (8-GPU "
      "servers of 64 threads; neither is recorded), and the server's effective cores (none, 16, 24 or 32) are "
      "fitted on the training folds with the jobs' points: the jobs' points with no CPU limit, one sweep of them "
      "with each core count, the count with the smallest training error, and three more sweeps with it. Then "
      "each job family's runnable loaders (0, 1, 2, 4 or 8; a loader mostly waiting on a full queue is not "
      "runnable) are fitted on the training folds too: two sweeps over the families, from their code's counts, "
      "each followed by two sweeps of the jobs' points (the V100's folds chose 8 for ResNet-50's ImageNet "
      "decoders and 0 for ResNet-18's CIFAR-10 and the Transformer's text loaders in every fold; a case names its "
      "job's count; a family outside Gavel's job table starts from none and is fitted the same way). Without "
      "that fit: V100 17.4% / 22.4% (physical / simulation file), P100 9.6% / 16.0%, K80 9.2% / 10.9%. "
      "Counting the Recommendation jobs' 64 loaders as runnable gave 30.5% / 33.5%; without the "
      "CPU, 33.5% / 37.6% (V100, both before the skip below). Skipped: a job's co-located throughput under a "
      "tenth of its solo one (the two "
      "in other units), and in the physical file the Recommendation jobs' own co-located speeds, on every GPU: Gavel "
      "replaced their solo throughputs there after the pairs were measured (9aef842, 2020-05-17: V100 x11.8 at "
      "batch 2048, P100 x3.2, K80 x1.8) and kept the co-located ones, so the two do not compare (as a partner the "
      "job keeps its solo; in the simulation file Gavel put the earlier solos back, 156116e). Before that skip the "
      "physical file gave V100 18.1%, P100 13.3%, K80 11.4%. Baselines: no interference (solo throughput), "
      "each gets half, and train_mean (the training folds' mean co-located share of solo throughput, times the "
      "job's solo throughput).";
  std::vector<fs::path> files;
  for (const char* name : {"gavel_pairs_physical.csv", "gavel_pairs_simulation.csv"})
    if (fs::exists(fs::path(dir) / name)) files.push_back(fs::path(dir) / name);
  if (files.empty())
    throw InputError(fmt::format("{}: expected gavel_pairs_physical.csv or gavel_pairs_simulation.csv", dir));
  // The files' fits are independent: one thread each, their cases and skips kept in file order.
  std::vector<ValidationRun> parts(files.size());
  run_parallel(files.size(), std::max(1u, std::thread::hardware_concurrency()),
               [&](size_t i) { validate_file(files[i], parts[i]); });
  for (ValidationRun& part : parts) {
    run.cases.insert(run.cases.end(), part.cases.begin(), part.cases.end());
    run.skipped.insert(run.skipped.end(), part.skipped.begin(), part.skipped.end());
  }
  return {run};
}

}  // namespace vgpusim
