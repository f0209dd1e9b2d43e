// Lucid: two PyTorch training jobs time-sliced on one RTX 3090, each known by its solo speed and nvidia-smi
// utilization. Each job becomes a `measured` workload from its solo profile alone; the pair is simulated on the
// GPU under process time-slicing and each job's speed over its solo speed is compared with the measurement. Folds
// are job families (a model's name): a pair is predicted with what was fitted on the pairs of the other families
// only, and the naive baselines are computed on the same cases.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <thread>
#include <filesystem>
#include <map>
#include <set>

#include "models/workload/telemetry.hpp"
#include "sim/core/errors.hpp"
#include "sim/core/parallel.hpp"
#include "sim/io/gpu_catalog.hpp"
#include "sim/io/published.hpp"
#include "sim/run/simulation.hpp"
#include "sim/scenario/loader.hpp"
#include "sim/studies/validation/published.hpp"

namespace fs = std::filesystem;

namespace vgpusim {
namespace {

constexpr int kLucidFolds = 5;
constexpr const char* kGpu = "RTX-3090";
// Steps simulated per pair: kSteps of the faster job, and at least kSlowSteps of the slower. Where the two jobs'
// steps are alike, that is kSteps of the slower (two similar jobs keep a relative phase for many steps); where one
// job's step is many of the other's, the slower job's steps each average over many of the faster job's, and
// kSteps of them would only lengthen the run (a 6 s reinforcement-learning step beside a 0.1 s one: 180 s of the
// faster job's kernels, where 36 s give speeds within 0.03 of them; docs/models/telemetry-workload.md).
constexpr int kSteps = 30;
constexpr int kSlowSteps = 6;
constexpr int kPhases = 3;  // offsets of the second job's start over one of its steps

// The file of `dir` whose name starts with `stem` (colocate_info_dev.csv, colocate_info.csv, ...).
fs::path find_file(const std::string& dir, const std::string& stem) {
  std::vector<fs::path> found;
  for (const fs::directory_entry& e : fs::directory_iterator(dir))
    if (e.is_regular_file() && e.path().filename().string().starts_with(stem) && e.path().extension() == ".csv")
      found.push_back(e.path());
  std::sort(found.begin(), found.end());
  if (found.empty()) throw InputError(fmt::format("{}: expected a Lucid {}*.csv", dir, stem));
  return found.front();
}

// The summed solo utilization's band, for the table by band.
std::string band_of(double summed_util) {
  if (summed_util < 1.0) return "summed solo gpu_util < 100%";
  if (summed_util < 1.3) return "summed solo gpu_util 100-130%";
  if (summed_util < 1.6) return "summed solo gpu_util 130-160%";
  return "summed solo gpu_util >= 160%";
}

// Each job's co-located speed over its solo speed when the two run time-sliced on the GPU, their telemetry read
// with `mapping` and each job's host phase beside the GPU by its input pipeline's share (`overlap`; null: the
// mapping's own host_overlap for both).
std::pair<double, double> simulate_pair(const Scenario& base, const LucidSolo& a, const LucidSolo& b,
                                        const TelemetryMapping& shared,
                                        const std::map<const LucidSolo*, double>* overlap) {
  Scenario sc = base;
  const LucidSolo* jobs[2] = {&a, &b};
  double longest = 0, shortest = 1e300;
  double solo[2];
  for (int i = 0; i < 2; ++i) {
    SoloTelemetry t;
    t.kernels_per_unit = 0;  // kernels of the mapping's kernel_time
    t.throughput = jobs[i]->speed / jobs[i]->job.batch;  // iterations/s
    t.gpu_util = std::min(1.0, jobs[i]->gpu_util);
    t.mem_util = std::min(t.gpu_util, jobs[i]->mem_util);
    t.memory = jobs[i]->memory;
    solo[i] = t.throughput;
    TelemetryMapping mapping = shared;
    if (overlap) mapping.host_overlap = overlap->at(jobs[i]);
    sc.tenants[i].workload = measured_workload(t, sc.gpus[0].spec, sc.gpus[0].performance, -1, mapping);
    longest = std::max(longest, 1.0 / t.throughput);
    shortest = std::min(shortest, 1.0 / t.throughput);
  }
  sc.duration = std::max(kSteps * shortest, kSlowSteps * longest);
  sc.metrics_interval = 0;  // only the steps' times are read: no utilization series
  // Two processes started together do not begin their steps in step (start-up, data loading and autotuning
  // differ): the second job starts at each of kPhases offsets over one of its steps, and the speeds are averaged.
  double out[2] = {0, 0};
  for (int phase = 0; phase < kPhases; ++phase) {
    sc.tenants[1].start_distribution = Distribution::constant(phase / (kPhases * solo[1]));
    draw_starts(sc);
    const RunRecord rec = simulate(sc);
    for (int i = 0; i < 2; ++i) {
      const TenantRecord& t = rec.tenants[i];
      // Steady state: the units after the first.
      double sum = 0;
      for (size_t k = 1; k < t.unit_times.size(); ++k) sum += t.unit_times[k];
      const double tput = t.unit_times.size() >= 3 ? static_cast<double>(t.unit_times.size() - 1) / sum
                                                   : static_cast<double>(t.units) / sc.duration;
      out[i] += tput / solo[i] / kPhases;
    }
  }
  return {out[0], out[1]};
}

// The values of measured.busy_exponent fitted on the training folds.
constexpr double kExponentGrid[] = {1.0, 1.25, 1.5, 1.75, 2.0, 2.5};
constexpr size_t kGridSize = std::size(kExponentGrid);

constexpr const char* kShippedSplit = "shipped defaults, no fit";

// A pair that can be predicted: its two jobs' solo profiles and the folds of their families.
struct Usable {
  const LucidPair* pair;
  const LucidSolo *a, *b;
  std::set<int> folds;
};

// The pairs that can be predicted, each with the folds of its two families (a model's name; the families dealt into
// kLucidFolds in name order); the others go to `run`'s skipped cases with their reason.
std::vector<Usable> usable_pairs(const std::vector<LucidPair>& pairs, const std::vector<LucidSolo>& solos,
                                 ValidationRun& run) {
  std::map<std::string, const LucidSolo*> solo_of;
  for (const LucidSolo& s : solos) solo_of[s.job.key()] = &s;
  std::vector<Usable> usable;
  for (const LucidPair& p : pairs) {
    if (p.gpus_a != 1 || p.gpus_b != 1) {
      run.skipped.push_back(
          {kGpu, "a job of the pair spans several GPUs (gpu_num > 1; the solo profiles are one GPU's)", kShippedSplit});
      continue;
    }
    const auto a = solo_of.find(p.a.key()), b = solo_of.find(p.b.key());
    if (a == solo_of.end() || b == solo_of.end()) {
      run.skipped.push_back({kGpu, "a job of the pair has no solo profile", kShippedSplit});
      continue;
    }
    if (!(a->second->speed > 0) || !(b->second->speed > 0) || !(a->second->gpu_util > 0) ||
        !(b->second->gpu_util > 0) || !(p.speed_a > 0) || !(p.speed_b > 0)) {
      run.skipped.push_back({kGpu, "a speed or solo gpu_util of 0", kShippedSplit});
      continue;
    }
    usable.push_back({&p, a->second, b->second, {}});
  }
  std::set<std::string> families;
  for (const Usable& u : usable) families.insert({u.pair->a.model, u.pair->b.model});
  std::map<std::string, int> fold_of;
  int next = 0;
  for (const std::string& f : families) fold_of[f] = next++ % kLucidFolds;
  for (Usable& u : usable) u.folds = {fold_of[u.pair->a.model], fold_of[u.pair->b.model]};
  return usable;
}

// Each job's input pipeline share, from its profiles at every batch size (same model, data set and precision).
std::map<const LucidSolo*, double> input_pipeline_shares(const std::vector<LucidSolo>& solos) {
  std::map<const LucidSolo*, double> overlap;
  for (const LucidSolo& x : solos) {
    std::vector<BatchProfile> same_job;
    for (const LucidSolo& y : solos)
      if (y.job.model == x.job.model && y.job.dataset == x.job.dataset && y.job.amp == x.job.amp)
        same_job.push_back({static_cast<double>(y.job.batch), y.speed / y.job.batch, y.gpu_util});
    overlap[&x] = input_pipeline_share(same_job, x.job.batch);
  }
  return overlap;
}

}  // namespace

std::vector<ValidationRun> validate_lucid(const std::string& dir, const PublishedOptions&) {
  ValidationRun run;
  run.dataset = "lucid";
  run.quantity = "normalized speed (co-located / solo)";
  run.method = fmt::format(
      "Lucid (S-Lab-System-Group/Lucid, ASPLOS'23) measured pairs of PyTorch training jobs launched together as two "
      "processes on one RTX 3090 under the driver's default time-slicing, and each job alone: its speed and "
      "nvidia-smi utilization.gpu / utilization.memory. Each job becomes a `measured` workload from its solo "
      "profiles only (throughput = speed / batch size, gpu_util, mem_util, memory; its kernels, launch gaps and "
      "host phase from the `measured` model's parameters, the share of it that grows in proportion to the batch size "
      "across the job's solo profiles (same model, data set and precision) taken as its input pipeline, run beside "
      "the GPU: host_overlap, docs/models/telemetry-workload.md); the pair runs under mode timeslice with its "
      "defaults, exact fidelity, for 30 steps of the faster job and at least 6 of the slower, three times, the second "
      "job starting 0, 1/3 and 2/3 of its step "
      "after the first (two processes started together do not run their steps in lockstep), and each job's steady "
      "speed (its units after the first) over its solo throughput, averaged over the three, is compared with Lucid's "
      "normalized speed. Four splits: the shipped defaults "
      "(nothing fitted here; their busy_exponent, {:g}, is the grid value with the smallest error over all of these "
      "pairs, so this split is not held out), measured.busy_exponent chosen for each pair from 1 to 2.5 (6 values) to "
      "minimize the mean absolute percentage error of its training pairs, the same fit as a scenario with one "
      "profile per job gets it (no input pipeline share: host phase serial; the exponent chosen on the training "
      "pairs predicted that way), and the grid value with the smallest error over all the pairs (in sample, not held "
      "out: the shipped default's source, the same cases as the first split while the default is that value). "
      "Folds are job families (the model's name), dealt into 5 folds in name order; a pair is a held-out case of "
      "the folds of both its jobs, and its training pairs (for the fit and the constant-mean baseline) are those of "
      "no family of those folds. Baselines on the same cases: no_interference (1), half (0.5), util_rule "
      "min(1, 1 / (u1 + u2)) on the two solo gpu_util, and train_mean (the mean normalized speed of the training "
      "pairs; in the in-sample split, of every pair). The table by band groups the cases by the pair's summed solo "
      "gpu_util. License: the Lucid files are non-commercial (S-Lab License 1.0) and are not shipped; tests use a "
      "hand-made fixture in the same format.",
      TelemetryMapping::table().defaults().busy_exponent);
  const fs::path pairs_file = find_file(dir, "colocate_info");
  const fs::path solo_file = find_file(dir, "single_data");
  const std::vector<LucidPair> pairs = read_lucid_pairs(pairs_file.string());
  const std::vector<LucidSolo> solos = read_lucid_solo(solo_file.string());
  const std::vector<Usable> usable = usable_pairs(pairs, solos, run);
  const std::map<const LucidSolo*, double> overlap = input_pipeline_shares(solos);
  if (usable.empty()) throw InputError(fmt::format("{}: no pair with both solo profiles", dir));

  const std::string text = fmt::format(
      "version: 1\nname: lucid pair\nduration: 1s\nstart_jitter: 0s\nreplications: 1\ngpus:\n  - {{id: g0, model: {}}}\n"
      "sharing:\n  g0: {{mode: timeslice}}\ntenants:\n"
      "  - {{name: a, on: g0, workload: {{measured: {{gpu: {}, throughput: 1/s, gpu_util: 50%, mem_util: 0%}}}}}}\n"
      "  - {{name: b, on: g0, workload: {{measured: {{gpu: {}, throughput: 1/s, gpu_util: 50%, mem_util: 0%}}}}}}\n",
      kGpu, kGpu, kGpu);
  const Scenario base = load_scenario_text(text, "(lucid pair)", builtin_catalog());
  // Every pair with each busy_exponent of the grid (columns 0 to kGridSize - 1), the same as a scenario with one
  // profile per job gets them (columns kGridSize to 2 kGridSize - 1: no input pipeline share, the host phase
  // serial), and with the shipped mapping: its grid column when its exponent is on the grid, else column
  // 2 kGridSize, simulated only then.
  const TelemetryMapping shipped = TelemetryMapping::table().defaults();
  constexpr size_t kShipped = 2 * kGridSize, kColumns = kShipped + 1;
  const size_t on_grid = static_cast<size_t>(
      std::find(std::begin(kExponentGrid), std::end(kExponentGrid), shipped.busy_exponent) - std::begin(kExponentGrid));
  const size_t shipped_at = on_grid < kGridSize ? on_grid : kShipped;
  const size_t simulated = shipped_at == kShipped ? kColumns : kShipped;
  std::vector<std::array<std::pair<double, double>, kColumns>> predicted(usable.size());
  // A pair whose two jobs have no input pipeline share beyond the mapping's own (four of Lucid's six families have
  // none) is the same simulation in its input pipeline and serial columns: run once, copied below.
  const auto pipeline_is_serial = [&](size_t p) {
    return overlap.at(usable[p].a) == shipped.host_overlap && overlap.at(usable[p].b) == shipped.host_overlap;
  };
  run_parallel(usable.size() * simulated, std::max(1u, std::thread::hardware_concurrency()), [&](size_t job) {
    const size_t p = job / simulated, g = job % simulated;
    if (g < kGridSize && pipeline_is_serial(p)) return;
    TelemetryMapping m = shipped;
    if (g < kShipped) m.busy_exponent = kExponentGrid[g % kGridSize];
    const bool serial = g >= kGridSize && g < kShipped;
    predicted[p][g] = simulate_pair(base, *usable[p].a, *usable[p].b, m, serial ? nullptr : &overlap);
  });
  for (size_t p = 0; p < usable.size(); ++p)
    if (pipeline_is_serial(p))
      for (size_t g = 0; g < kGridSize; ++g) predicted[p][g] = predicted[p][g + kGridSize];
  const auto ape = [](double measured, double p) { return std::abs(p - measured) / measured; };
  const std::string fitted_split = "busy_exponent fitted on the other families";
  // Pair p's two job-speeds, each as predicted in the columns `at` under their splits, with the constant-mean
  // baseline `mean`.
  struct Column {
    size_t at;
    std::string split;
  };
  const auto add_cases = [&](size_t p, const std::vector<Column>& columns, double mean) {
    const Usable& u = usable[p];
    const double summed = u.a->gpu_util + u.b->gpu_util;
    const LucidSolo* who[2] = {u.a, u.b};
    const double measured[2] = {u.pair->speed_a, u.pair->speed_b};
    for (int i = 0; i < 2; ++i)
      for (const Column& column : columns) {
        ValidationCase c;
        c.gpu = kGpu;
        c.split = column.split;
        c.band = band_of(summed);
        c.id = fmt::format("{} beside {}: {}{}", u.pair->a.key(), u.pair->b.key(), who[i]->job.key(),
                           column.split != kShippedSplit && column.at < kShipped
                               ? fmt::format(" (busy_exponent {:.2f})", kExponentGrid[column.at % kGridSize])
                               : "");
        c.measured = measured[i];
        c.predicted = i == 0 ? predicted[p][column.at].first : predicted[p][column.at].second;
        c.baseline["no_interference"] = 1.0;
        c.baseline["half"] = 0.5;
        c.baseline["util_rule"] = std::min(1.0, 1.0 / summed);
        c.baseline["train_mean"] = mean;
        run.cases.push_back(c);
      }
  };
  // The in-sample split's constant mean: that of every pair.
  double speeds = 0;
  for (const Usable& u : usable) speeds += u.pair->speed_a + u.pair->speed_b;
  const double in_sample_mean = speeds / static_cast<double>(2 * usable.size());
  // Each pair's summed error of its two job-speeds, per grid column (with the input pipeline and serial).
  std::vector<std::array<double, 2 * kGridSize>> pair_error(usable.size());
  for (size_t p = 0; p < usable.size(); ++p)
    for (size_t g = 0; g < 2 * kGridSize; ++g)
      pair_error[p][g] =
          ape(usable[p].pair->speed_a, predicted[p][g].first) + ape(usable[p].pair->speed_b, predicted[p][g].second);
  for (size_t p = 0; p < usable.size(); ++p) {
    const Usable& u = usable[p];
    // The training pairs of this pair's folds: those of no family of them; their constant mean and the grid value
    // with the smallest mean error on them.
    double sum = 0;
    size_t n = 0;
    std::array<double, 2 * kGridSize> error{};  // per grid column, with the input pipeline and serial
    for (size_t q = 0; q < usable.size(); ++q) {
      bool shares = false;
      for (int f : usable[q].folds) shares = shares || u.folds.count(f);
      if (shares) continue;
      sum += usable[q].pair->speed_a + usable[q].pair->speed_b;
      n += 2;
      for (size_t g = 0; g < 2 * kGridSize; ++g) error[g] += pair_error[q][g];
    }
    const double train_mean = n ? sum / static_cast<double>(n) : 1.0;
    // The grid value with the smallest training error among columns [from, from + kGridSize); with no training
    // pair, the shipped mapping's column.
    const auto best_of = [&](size_t from) {
      return n ? from + static_cast<size_t>(std::min_element(error.begin() + from, error.begin() + from + kGridSize) -
                                            (error.begin() + from))
               : shipped_at;
    };
    const size_t best = best_of(0), best_serial = best_of(kGridSize);
    add_cases(p, {{shipped_at, kShippedSplit}, {best, fitted_split}, {best_serial, kLucidOneProfileSplit}}, train_mean);
  }
  // The shipped default's source: the grid value with the smallest error over all the pairs (in sample, not held
  // out), the cases after the others'.
  std::array<double, kGridSize> total{};
  for (size_t p = 0; p < usable.size(); ++p)
    for (size_t g = 0; g < kGridSize; ++g) total[g] += pair_error[p][g];
  const size_t in_sample = static_cast<size_t>(std::min_element(total.begin(), total.end()) - total.begin());
  for (size_t p = 0; p < usable.size(); ++p) add_cases(p, {{in_sample, kLucidInSampleSplit}}, in_sample_mean);
  return {run};
}

}  // namespace vgpusim
