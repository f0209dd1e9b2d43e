// `vgpusim validate --published NAME DIR`: the project's models against published measurements of real GPUs
// (scenarios/measurements/). One function per dataset simulates each measured situation and returns measured
// against predicted, with naive baselines beside; summaries, JSON and the generated docs/validation/ pages are
// made from that.
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace vgpusim {

struct ValidationCase {
  std::string gpu;     // catalog GPU (or the source's name when not in the catalog)
  std::string split;   // where the number comes from, e.g. "5-fold held-out", "no fit"
  std::string id;      // what was measured, e.g. "ResNet-50 (batch size 64) with LM (batch size 5): ResNet-50"
  double measured = 0;
  double predicted = 0;
  std::map<std::string, double> baseline;  // naive predictions by name
  std::string band = {};  // a finer group its dataset also reports (e.g. by the pair's summed utilization); "" none
  std::string mode = {};  // what kind of run it is where a dataset has several (neusight: inference, training)
};

struct ValidationSkip {
  std::string gpu;
  std::string reason;
  std::string split = {};  // the split it would have been in; "" = any of its GPU's
};

struct ValidationRun {
  std::string dataset;  // gavel, migperf, gpu-benches-stream, gpu-benches-small-kernels, vidur
  std::string quantity;  // what a case measures, with its unit, e.g. "co-located steps/s"
  std::string method;    // how the model predicts it (markdown)
  std::vector<ValidationCase> cases;
  std::vector<ValidationSkip> skipped;
  bool pooled = false;  // also one summary per split over all its GPUs (gpu "all"): a dataset of held-out GPUs
};

// Prediction error of one GPU and split of a dataset.
struct ValidationSummary {
  std::string dataset, gpu, split;
  std::string mode;  // its cases' mode, where they have one
  size_t cases = 0, skipped = 0;
  double mape = 0, median_ape = 0, p90_ape = 0;  // percent
  std::map<std::string, double> baseline_mape;  // percent, by baseline name
  std::map<std::string, size_t> skip_reasons;
};
// One summary per (GPU, split), in first-seen order, then one per (GPU, split, band) of the cases with a band (its
// split "<split>, <band>"), then, for a pooled run, one per split over all GPUs (gpu "all"). A skip is counted on the summary of its GPU and split, or without a split on its GPU's
// first; a GPU with only skips gets a summary with no cases.
std::vector<ValidationSummary> summarize(const ValidationRun& run);

struct PublishedOptions {
  std::string gpu;  // vidur: predict for this catalog GPU instead of the file's; neusight: hold out only this GPU
  std::string trust;  // write the trust bands' table (models/catalog/trust.csv) here; "" none
};

// The datasets, in the order `--published all` runs them.
const std::vector<std::string>& published_datasets();
// Runs one dataset from its folder (the layout of scenarios/measurements/NAME): one run per quantity it measures
// (gpu-benches gives two). Throws InputError.
std::vector<ValidationRun> validate_published(const std::string& dataset, const std::string& dir,
                                              const PublishedOptions& options);

std::vector<ValidationRun> validate_gavel(const std::string& dir, const PublishedOptions& options);
// Kernels one training step of a Gavel job type launches where the operator model knows its layers (ResNet-50 on
// ImageNet's 224-pixel images, ResNet-18 on CIFAR-10's 32-pixel ones, the translation Transformer, CycleGAN's
// step of twelve passes: the launches of the op graph's forward, backward and accumulation at the job's batch); 0
// for the others (LM's LSTM, Recommendation's sampled autoencoder, A3C), which take the telemetry mapping's
// kernel_time. Under MPS the SMs go to the clients kernel by kernel, so a step's kernel count and their lengths
// shape its turns.
double gavel_kernels_per_step(const std::string& job);
std::vector<ValidationRun> validate_migperf(const std::string& dir, const PublishedOptions& options);
// The step MIGPerf's op-model split fits per workload on its full-GPU rows. Eager PyTorch launches asynchronously:
// the CPU's dispatch of a step (`cpu`, the same at every batch: the same kernels are launched) runs beside the GPU's
// work (`speed` x the operator model's time: the model is FP32 SIMT, and the workload may have run on TF32 or FP16
// tensor cores), and a step takes overlapped(cpu, gpu, p) = (cpu^p + gpu^p)^(1/p): p infinite is the longer of the
// two (perfect overlap), a finite p the imperfect overlap of kernels that sometimes wait and are sometimes waited
// for (p = 1: none). DCGM's engine activity is not used: it stays near 0.55 for ResNet-50 inference at batch 256,
// which the GPU bounds.
struct StepFit {
  double speed = 1;  // measured GPU time over the model's, at most 1
  double cpu = 0;    // s per step; 0: not fitted (each row's own measured step bounds it)
  double sharpness = std::numeric_limits<double>::infinity();  // p
};
double overlapped(double cpu, double gpu, double p);
// (cpu, speed, p) minimizing the squared log error of `rows` (measured step, the model's step; s): for each p of
// {1, 1.5, 2, 3, 4, 6, 10, infinity}, the measured step that fits best as cpu, refined within a factor of 2, each
// cpu with its best speed (0.03 to 1, golden-section search in log speed); a finite p only when it fits 1% RMS better
// than p infinite (with as many rows as unknowns every p fits them). With fewer than three rows nothing is fitted:
// speed is the smallest measured / model ratio and cpu 0.
StepFit fit_step(const std::vector<std::pair<double, double>>& rows);
std::vector<ValidationRun> validate_gpu_benches(const std::string& dir, const PublishedOptions& options);
std::vector<ValidationRun> validate_vidur(const std::string& dir, const PublishedOptions& options);
std::vector<ValidationRun> validate_lucid(const std::string& dir, const PublishedOptions& options);
// Its split as a scenario's `measured` job with one profile gets it (no input pipeline share: each host phase serial;
// busy_exponent fitted on the other families, held out as the shipped value is not): the `timeslice-pair` trust
// band's.
inline constexpr const char* kLucidOneProfileSplit =
    "busy_exponent fitted on the other families, one profile per job (host phase serial)";
// Its split with busy_exponent fitted on every pair (in sample, not held out): the source of the shipped default, which
// the check of the real files (tests/validation/check_lucid.cmake) requires to be the shipped value.
inline constexpr const char* kLucidInSampleSplit = "busy_exponent fitted on all the pairs (in sample)";
std::vector<ValidationRun> validate_neusight(const std::string& dir, const PublishedOptions& options);
// The operator model fitted on every GPU of a NeuSight folder (the source of the model's shipped defaults).
struct OpModelFit;
OpModelFit fit_neusight(const std::string& dir);


// The trust bands' table (sim/run/trust.hpp): each class pooled from the runs' held-out cases of the splits that
// predict its situation, in class order; a class no run gave a case is `carried`'s row, or left out.
struct TrustClass;
std::vector<TrustClass> trust_table(const std::vector<ValidationRun>& runs, const std::vector<TrustClass>& carried);

// The summary table as text.
std::string summary_table(const std::vector<ValidationSummary>& summaries);
// [{"dataset", "gpu", ["mode",] "split", "cases", "skipped", "mape", "median_ape", "p90_ape", "baseline": {name:
// mape}}]; "mode" where the cases have one.
std::string summaries_json(const std::vector<ValidationSummary>& summaries);
// The dataset's page for docs/validation/NAME.md (which shows NAME.svg) and its scatter plot.
std::string validation_page(const ValidationRun& run, const std::vector<ValidationSummary>& summaries,
                            const std::string& data_dir);
std::string validation_svg(const ValidationRun& run);

// The command: DATASET is a name or "all"; DIR is the measurements folder (holding one folder per dataset) or,
// for one dataset, that dataset's folder. With "all", a dataset whose folder DIR lacks is left out (the Lucid files
// are not shipped: scenarios/measurements has no lucid folder). `json` and `docs_dir` are optional outputs; `cases_csv` writes every
// case. Returns the exit status.
int validate_published_command(const std::string& dataset, const std::string& dir, const PublishedOptions& options,
                               const std::string& json, const std::string& docs_dir, const std::string& cases_csv);

}  // namespace vgpusim
