// The trust bands' table from the validation suite's cases (published.hpp: trust_table): each held-out case of a
// dataset's split that predicts what a class of situation asks is pooled into that class.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "sim/run/metrics.hpp"
#include "sim/run/trust.hpp"
#include "sim/studies/validation/published.hpp"

namespace vgpusim {
namespace {

// The class a case of `dataset` in `split` counts for; "" none. Only held-out or unfitted splits, with the shipped
// defaults (not the variants fitted on the dataset itself, nor predictions from a measured profile).
std::string class_of(const std::string& dataset, const ValidationCase& c) {
  const std::string& s = c.split;
  // A scenario's `measured` job has one profile, so the band is the split without the input pipeline share.
  if (dataset == "lucid" && s == kLucidOneProfileSplit) return "timeslice-pair";
  // Gavel's V100 pairs ran under MPS. Its time-sliced P100 and K80 pairs join no band: the time-sliced one is Lucid's
  // alone, regenerated from ../shared with the other rows carried, so a second dataset in it could not be kept current.
  if (dataset == "gavel" && s.starts_with("5-fold held-out")) return c.gpu == "V100" ? "mps-pair" : "";
  if (dataset == "migperf" && s == "no fit") return "mig-slice-telemetry";
  if (dataset == "migperf" && s == "op model by shapes, step fitted on the full GPU") return "mig-slice-op-graph";
  if (dataset == "neusight" && s.find("from shapes") != std::string::npos) return "op-graph-alone";
  if (dataset == "vidur" && s == "leave one model out") return "llm-ops";
  if (dataset == "gpu-benches-stream" && s.starts_with("shipped method")) return "kernels-alone";
  return "";
}

// Datasets whose files the repository does not hold (their rows are kept from the table as they are).
std::string source_of(const std::string& dataset) {
  return dataset == "lucid" ? "not shipped (non-commercial licence: ../shared lucid-dev)" : "shipped";
}

// Published models a dataset compares against are not naive baselines.
bool naive(const std::string& baseline) { return baseline != "NeuSight"; }

std::string joined(const std::set<std::string>& words) { return fmt::format("{}", fmt::join(words, " ")); }

}  // namespace

std::vector<TrustClass> trust_table(const std::vector<ValidationRun>& runs, const std::vector<TrustClass>& carried) {
  struct Pool {
    std::vector<double> apes;
    std::map<std::string, std::vector<double>> baselines;
    std::set<std::string> datasets, gpus, quantities, sources;
  };
  std::map<std::string, Pool> pools;
  for (const ValidationRun& run : runs)
    for (const ValidationCase& c : run.cases) {
      const std::string cls = class_of(run.dataset, c);
      if (cls.empty() || !(c.measured > 0)) continue;
      Pool& p = pools[cls];
      p.apes.push_back(100.0 * std::abs(c.predicted - c.measured) / c.measured);
      for (const auto& [name, v] : c.baseline)
        if (naive(name)) p.baselines[name].push_back(100.0 * std::abs(v - c.measured) / c.measured);
      p.datasets.insert(run.dataset);
      p.gpus.insert(c.gpu);
      p.quantities.insert(run.quantity);
      p.sources.insert(source_of(run.dataset));
    }
  std::vector<TrustClass> rows;
  for (const TrustClassInfo& info : trust_classes()) {
    const auto it = pools.find(info.id);
    if (it == pools.end()) {
      for (const TrustClass& r : carried)
        if (r.id == info.id) rows.push_back(r);
      continue;
    }
    Pool& p = it->second;
    TrustClass r;
    r.id = info.id;
    r.situation = info.situation;
    r.quantity = joined(p.quantities);
    std::replace(r.quantity.begin(), r.quantity.end(), ',', ';');
    r.datasets = joined(p.datasets);
    r.gpus = joined(p.gpus);
    r.cases = p.apes.size();
    double sum = 0;
    for (double a : p.apes) sum += a;
    r.mape = sum / static_cast<double>(p.apes.size());
    std::sort(p.apes.begin(), p.apes.end());
    r.p90 = percentile(p.apes, 90);
    for (const auto& [name, v] : p.baselines) {
      if (v.size() != p.apes.size()) continue;  // a baseline of some cases only is not comparable
      double s = 0;
      for (double a : v) s += a;
      const double m = s / static_cast<double>(v.size());
      if (r.best_baseline.empty() || m < r.best_baseline_mape) r.best_baseline = name, r.best_baseline_mape = m;
    }
    std::replace(r.best_baseline.begin(), r.best_baseline.end(), ',', ';');
    r.source = joined(p.sources);
    rows.push_back(std::move(r));
  }
  return rows;
}

}  // namespace vgpusim
