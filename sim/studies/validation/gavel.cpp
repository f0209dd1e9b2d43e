// Gavel: two training jobs as two processes on one GPU (under MPS on its V100 servers, time-sliced by the driver
// elsewhere; mode_of). Gavel names each job and gives its solo throughput; what it does on the GPU is unknown, so each job type becomes a `measured`
// workload whose gpu_util is fitted on training pairs only and the pairs of the held-out fold are predicted.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <map>
#include <random>

#include "models/workload/telemetry.hpp"
#include "sim/core/errors.hpp"
#include "sim/io/gpu_catalog.hpp"
#include "sim/io/published.hpp"
#include "sim/run/simulation.hpp"
#include "sim/scenario/loader.hpp"
#include "sim/studies/validation/published.hpp"

namespace fs = std::filesystem;

namespace vgpusim {
namespace {

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

// Simulates pairs of measured workloads time-sliced on one GPU; remembers every result.
class PairSimulator {
 public:
  PairSimulator(const std::string& gpu, const std::string& mode, std::vector<double> solo) : solo_(std::move(solo)) {
    const std::string text = fmt::format(
        "version: 1\nname: gavel pair\nduration: 1s\nfidelity: fluid\ngpus:\n  - {{id: g0, model: {}}}\n"
        "sharing:\n  g0: {{mode: {}}}\ntenants:\n"
        "  - {{name: a, on: g0, workload: {{measured: {{gpu: {}, throughput: 1/s, gpu_util: 50%, mem_util: 0%}}}}}}\n"
        "  - {{name: b, on: g0, workload: {{measured: {{gpu: {}, throughput: 1/s, gpu_util: 50%, mem_util: 0%}}}}}}\n",
        gpu, mode, gpu, gpu);
    scenario_ = load_scenario_text(text, "(gavel pair)", builtin_catalog());
  }

  // Throughputs (units/s) of jobs a and b at grid points ia, ib.
  std::pair<double, double> run(size_t a, size_t b, int ia, int ib) {
    const auto key = std::make_tuple(a, b, ia, ib);
    const auto it = cache_.find(key);
    if (it != cache_.end()) return it->second;
    Scenario sc = scenario_;
    const size_t jobs[2] = {a, b};
    const int util[2] = {ia, ib};
    double longest = 0;
    for (int i = 0; i < 2; ++i) {
      SoloTelemetry t;
      t.kernels_per_unit = 0;  // kernels of the mapping's kernel_time
      t.throughput = solo_[jobs[i]];
      t.gpu_util = grid_util(util[i] % kGrid);
      if (grid_fill(util[i]) < 1) t.sm_active = grid_fill(util[i]) * t.gpu_util;
      sc.tenants[i].workload = measured_workload(t, sc.gpus[0].spec, sc.gpus[0].performance, -1);
      longest = std::max(longest, 1.0 / t.throughput);
    }
    sc.duration = 40 * longest;
    const RunRecord rec = simulate(sc);
    double out[2];
    for (int i = 0; i < 2; ++i) {
      const TenantRecord& t = rec.tenants[i];
      if (t.unit_times.size() >= 3) {
        double sum = 0;
        for (size_t k = 1; k < t.unit_times.size(); ++k) sum += t.unit_times[k];
        out[i] = static_cast<double>(t.unit_times.size() - 1) / sum;
      } else {
        out[i] = static_cast<double>(t.units) / sc.duration;
      }
    }
    return cache_[key] = {out[0], out[1]};
  }

 private:
  std::vector<double> solo_;
  Scenario scenario_;
  std::map<std::tuple<size_t, size_t, int, int>, std::pair<double, double>> cache_;
};

// The sharing its pairs ran under. Gavel's worker ran co-located jobs under MPS on its V100 servers when these
// throughputs were measured (stanford-futuredata/gavel 578680d, scheduler/worker.py: use_mps = worker_type ==
// 'v100'; runtime/rpc/dispatcher.py starts nvidia-cuda-mps-control; the pair data were committed 84 minutes later,
// 4605a9c; MPS was made optional in 27fb65b), and plain time-slicing elsewhere.
std::string mode_of(const std::string& gpu) { return gpu == "V100" ? "mps" : "timeslice"; }

double squared_error(double measured, double predicted) {
  const double r = predicted / measured - 1;
  return r * r;
}

// Fits every job's grid point on `train` by coordinate descent over the jobs: its gpu_util, and under MPS its SM
// fill too.
std::vector<int> fit_utils(PairSimulator& sim, const std::vector<PairCase>& pairs, const std::vector<size_t>& train,
                           size_t jobs, int points) {
  std::vector<int> util(jobs, points - 1);
  std::vector<std::vector<size_t>> of_job(jobs);
  for (size_t p : train) {
    of_job[pairs[p].a].push_back(p);
    if (pairs[p].b != pairs[p].a) of_job[pairs[p].b].push_back(p);
  }
  for (int sweep = 0; sweep < 4; ++sweep) {
    bool changed = false;
    for (size_t j = 0; j < jobs; ++j) {
      if (of_job[j].empty()) continue;
      int best = util[j];
      double best_err = 1e300;
      for (int g = 0; g < points; ++g) {
        double err = 0;
        for (size_t p : of_job[j]) {
          const PairCase& c = pairs[p];
          const int ia = c.a == j ? g : util[c.a];
          const int ib = c.b == j ? g : util[c.b];
          const auto [ta, tb] = sim.run(c.a, c.b, ia, ib);
          if (c.use_a) err += squared_error(c.coloc_a, ta);
          if (c.use_b) err += squared_error(c.coloc_b, tb);
        }
        if (err < best_err - 1e-12) {
          best_err = err;
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
  PairSimulator sim(gpu, mode_of(gpu), g.solo);
  for (int fold = 0; fold < kGavelFolds; ++fold) {
    std::vector<size_t> train, test;
    for (size_t i = 0; i < order.size(); ++i)
      (static_cast<int>(i % kGavelFolds) == fold ? test : train).push_back(order[i]);
    const int points = mode_of(gpu) == "mps" ? kGrid * kFills : kGrid;
    const std::vector<int> util = fit_utils(sim, g.pairs, train, g.names.size(), points);
    // The constant-mean baseline: the training pairs' mean co-located share of solo throughput.
    double share_sum = 0;
    size_t shares = 0;
    for (size_t p : train) {
      const PairCase& c = g.pairs[p];
      if (c.use_a) share_sum += c.coloc_a / g.solo[c.a], ++shares;
      if (c.use_b) share_sum += c.coloc_b / g.solo[c.b], ++shares;
    }
    const double train_share = shares ? share_sum / static_cast<double>(shares) : 1.0;
    for (size_t p : test) {
      const PairCase& c = g.pairs[p];
      const auto [ta, tb] = sim.run(c.a, c.b, util[c.a], util[c.b]);
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
                           points > kGrid ? fmt::format(", SM fill {:.0f}%", grid_fill(util[who[i]]) * 100) : "");
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
    c.use_a = r.coloc_a >= kImplausible * r.solo_a;
    c.use_b = r.coloc_b >= kImplausible * r.solo_b;
    for (bool use : {c.use_a, c.use_b})
      if (!use)
        run.skipped.push_back({upper, "co-located below 10% of solo: solo and co-located in other units", split});
    g.pairs.push_back(c);
  }
  for (const std::string& gpu : gpus) cross_validate(gpu, by_gpu[gpu], split, run);
}

}  // namespace

std::vector<ValidationRun> validate_gavel(const std::string& dir, const PublishedOptions&) {
  ValidationRun run;
  run.dataset = "gavel";
  run.quantity = "co-located throughput (steps/s)";
  run.method =
      "Gavel measured the training throughput of 26 job types alone and with a second job on the same GPU (two "
      "processes; on its V100 servers Gavel's worker ran them under MPS (stanford-futuredata/gavel 578680d, "
      "scheduler/worker.py), elsewhere the driver time-slices them). Each job type becomes a `measured` workload "
      "with Gavel's solo throughput on that GPU; its gpu_util (the share of a step its kernels run) and, under MPS, "
      "the share of the SMs its kernels fill are the unknowns, fitted on the training folds only: 5-fold over the "
      "unordered single-GPU pairs (fixed shuffle, seed 1), each job type's gpu_util chosen on a 5% grid (its SM "
      "fill on a 25% grid) by coordinate descent to minimize the squared relative error of the training pairs it "
      "appears in. The held-out fold's pairs are then simulated (mode mps on V100, timeslice elsewhere, with their "
      "defaults, fluid fidelity, 40 steps of the slower job) and each job's co-located throughput is compared with "
      "the measurement (split \"5-fold held-out\"). mem_util is 0. Baselines: no interference (solo throughput), "
      "each gets half, and train_mean (the training folds' mean co-located share of solo throughput, times the "
      "job's solo throughput).";
  bool any = false;
  for (const char* name : {"gavel_pairs_physical.csv", "gavel_pairs_simulation.csv"}) {
    const fs::path file = fs::path(dir) / name;
    if (!fs::exists(file)) continue;
    any = true;
    validate_file(file, run);
  }
  if (!any) throw InputError(fmt::format("{}: expected gavel_pairs_physical.csv or gavel_pairs_simulation.csv", dir));
  return {run};
}

}  // namespace vgpusim
