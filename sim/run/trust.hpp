// Trust bands: how well predictions of a tenant's kind matched measurements no one here made. The validation suite
// (`vgpusim validate --published ... --trust FILE`) pools its held-out cases into validated classes, one row each
// of models/catalog/trust.csv (compiled in); a tenant's situation (its sharing mode and neighbours, MIG slice or
// whole GPU, how its work was described) is mapped to the closest class, or to none. docs/validation.md#trust-bands.
#pragma once

#include <limits>
#include <string>
#include <vector>

namespace vgpusim {

struct Scenario;

// A validated class: one kind of situation and the errors the suite measured on it.
struct TrustClass {
  std::string id;          // e.g. "timeslice-pair"
  std::string situation;   // what was validated, in words
  std::string quantity;    // what a case compared, e.g. "co-located throughput"
  std::string datasets;    // space-separated dataset names
  std::string gpus;        // space-separated GPUs of its cases
  size_t cases = 0;
  double mape = 0;              // percent
  double p90 = 0;               // percent, the 90th percentile of the absolute percentage errors
  std::string best_baseline;        // the naive baseline (not a published model) with the smallest MAPE on the same cases ("" none)
  double best_baseline_mape = 0;    // percent
  std::string source;           // "shipped" (regenerated from scenarios/measurements) or why it is kept as is
};

// The classes a tenant can be mapped to, in table order: id and the situation it covers.
struct TrustClassInfo {
  const char* id;
  const char* situation;
  bool any_gpu;  // its cases are GPUs the model was not fitted on: no GPU is closer than another
  bool on_loss;  // its cases compare shared (or sliced) throughput with measurements: the error is one of the vGPU
                 // loss; otherwise of the throughput or latency alone
};
const std::vector<TrustClassInfo>& trust_classes();

// models/catalog/trust.csv (its '#' lines are comments). Throws InputError naming FILE:LINE.
std::vector<TrustClass> parse_trust_table(const std::string& text, const std::string& file);
std::string trust_table_csv(const std::vector<TrustClass>& rows);
const std::vector<TrustClass>& builtin_trust_table();

// A tenant's band: its situation and the class it maps to (cls empty: no validation covers it).
struct TrustBand {
  std::string situation;  // the tenant's, in words
  std::string cls;        // class id, "" for none
  // How close the class is: "exact" (work described the same way, on a GPU of its cases), "other-gpu" (described
  // the same way, on a GPU none of its cases ran on) or "closest" (the same mechanism, work described otherwise).
  std::string match;
  TrustClass row;         // the class's row when cls is set
  // With a class whose error is one of the vGPU loss: the band in loss points (relative performance x MAPE, x p90);
  // NaN otherwise. set_loss_band fills them.
  double loss_mape = std::numeric_limits<double>::quiet_NaN();
  double loss_p90 = std::numeric_limits<double>::quiet_NaN();
};
void set_loss_band(TrustBand& b, double relative_performance);
TrustBand trust_band(const Scenario& sc, size_t tenant, const std::vector<TrustClass>& table = builtin_trust_table());
// One line for people: "vGPU loss ±6.4 points (p90 ±11.6) [timeslice-pair, closest]: 992 measured cases of lucid on
// RTX-3090, MAPE 15.0% / p90 27.3% of the ...; best naive baseline ...", or "no validation covers this case (...)".
std::string trust_text(const TrustBand& b);

}  // namespace vgpusim
