// MIGPerf (MIGProfiler): one workload alone on one MIG instance per profile. Each profile's throughput is predicted
// from the same workload's full-GPU row (7g) described as solo telemetry, replayed on the profile's partition.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <map>
#include <set>
#include <tuple>

#include "models/gpu/op_model.hpp"
#include "models/gpu/roofline.hpp"
#include "models/sharing/mig_partition.hpp"
#include "models/workload/model_shapes.hpp"
#include "models/workload/telemetry.hpp"
#include "sim/core/errors.hpp"
#include "sim/io/calibration_file.hpp"
#include "sim/io/gpu_catalog.hpp"
#include "sim/io/published.hpp"
#include "sim/studies/calibration/fit.hpp"
#include "sim/studies/validation/published.hpp"

namespace fs = std::filesystem;

namespace vgpusim {
namespace {

std::string workload_id(const MigPerfRow& r) {
  return r.seq > 0 ? fmt::format("{} {} {} batch {} seq {}", r.task, r.domain, r.model, r.batch, r.seq)
                   : fmt::format("{} {} {} batch {}", r.task, r.domain, r.model, r.batch);
}

// Throughput should be samples per second, batch / latency; the NLP training column is not.
bool consistent(const MigPerfRow& r) {
  if (!(r.latency_ms > 0) || !(r.throughput > 0)) return false;
  const double expected = r.batch * 1000.0 / r.latency_ms;
  return std::abs(r.throughput / expected - 1) < 0.15;
}

// The workload's kernels of one step by its model's shapes (forward; training and fine-tuning: forward and
// backward), or none when the model's shape is not known.
std::vector<std::pair<OpKernel, double>> step_kernels(const MigPerfRow& r) {
  const bool training = r.task != "infer";
  const double batch = std::max(1.0, static_cast<double>(r.batch));
  TransformerShape s;
  if (transformer_shape(r.model, s)) {
    const bool vision = s.vocabulary == 0;
    return graph_kernels(transformer_nodes(s, batch, vision ? 224.0 : (r.seq > 0 ? r.seq : 64.0), vision), training);
  }
  if (is_resnet50(r.model)) return graph_kernels(resnet50_nodes(batch), training);
  return {};
}

// The operator model's time of one step of `r` on `gpu`; 0 when the row's model has no known shape.
double model_step(const MigPerfRow& r, const GpuSpec& gpu) {
  const OpGraph step_graph(step_kernels(r));
  return step_graph.kernels().empty() ? 0 : step_graph.times(op_device(gpu)).total();
}

// How much better a finite p must fit the rows than the plain longer of the two (p infinite) to be taken, in RMS log
// error (0.01: 1%). Chosen, not fitted; on MIGPerf's slices 0.003 / 0.01 / 0.03 give 9.5 / 9.2 / 10.3% on the
// A100-80GB and 6.7% on the A100-40GB.
constexpr double kOverlapEvidence = 0.01;

}  // namespace

double overlapped(double cpu, double gpu, double p) {
  if (std::isinf(p)) return std::max(cpu, gpu);
  return std::pow(std::pow(cpu, p) + std::pow(gpu, p), 1.0 / p);
}

StepFit fit_step(const std::vector<std::pair<double, double>>& rows) {
  StepFit f;
  if (rows.empty()) return f;
  if (rows.size() < 3) {
    for (const auto& [measured, model] : rows) f.speed = std::min(f.speed, measured / model);
    return f;
  }
  std::vector<std::pair<StepFit, double>> fits;  // per p: the fit and its RMS log error
  for (const double p : {1.0, 1.5, 2.0, 3.0, 4.0, 6.0, 10.0, std::numeric_limits<double>::infinity()}) {
    const auto loss = [&](double cpu, double speed) {
      double l = 0;
      for (const auto& [measured, model] : rows) {
        const double e = std::log(measured / overlapped(cpu, speed * model, p));
        l += e * e;
      }
      return l;
    };
    // The best speed (0.03 to 1) for a CPU part, and the loss with it.
    const auto best_speed = [&](double cpu) {
      return std::pow(10.0, minimize_1d([&](double x) { return loss(cpu, std::pow(10.0, x)); }, -1.5, 0.0));
    };
    const auto loss_at = [&](double cpu) { return loss(cpu, best_speed(cpu)); };
    // The CPU part: the measured step that fits best, then searched within a factor of 2 of it.
    double cpu = rows[0].first, here = loss_at(cpu);
    for (const auto& [measured, unused] : rows)
      if (const double l = loss_at(measured); l < here) here = l, cpu = measured;
    const double refined = std::exp(minimize_1d([&](double y) { return loss_at(std::exp(y)); },
                                                 std::log(cpu / 2), std::log(cpu * 2)));
    if (loss_at(refined) < here) cpu = refined;
    const double speed = best_speed(cpu);
    fits.push_back({{speed, cpu, p}, std::sqrt(loss(cpu, speed) / static_cast<double>(rows.size()))});
  }
  // The plain longer-of-the-two (p infinite, the last) unless a finite p fits the rows better by more than
  // kOverlapEvidence of RMS log error: with as many rows as unknowns every p fits them, and the simplest form stays.
  f = fits.back().first;
  double best = fits.back().second - kOverlapEvidence;
  for (const auto& [fit, rms] : fits)
    if (rms < best) best = rms, f = fit;
  return f;
}

namespace {

// The throughput of `r` on `slice` by the operator model and the workload's fitted step; 0 when the row's model has
// no known shape. Without a fitted CPU part (fewer than three full-GPU rows), the row's own measured full-GPU step
// bounds the CPU's part and the step is the longer of the two.
double op_model_throughput(const MigPerfRow& r, double throughput, const GpuSpec& slice, const StepFit& fit) {
  const double on_slice = model_step(r, slice);
  if (!(on_slice > 0)) return 0;
  const double batch = std::max(1.0, static_cast<double>(r.batch));
  const double cpu = fit.cpu > 0 ? fit.cpu : batch / throughput;
  return batch / overlapped(cpu, fit.speed * on_slice, fit.sharpness);
}

// Every row of the dataset: the A100-80GB's consolidated file, then the A100-40GB's per-experiment files that carry
// DCGM activity; a row measured in two sweeps (batch 32, sequence 64 is in both) is taken once, the first file's.
std::vector<MigPerfRow> read_migperf_rows(const std::string& dir) {
  std::vector<MigPerfRow> rows = read_migperf((fs::path(dir) / "migperf_consolidated_A100-80g.csv").string());
  const fs::path a40g = fs::path(dir) / "data" / "A100-40g";
  std::vector<std::tuple<fs::path, std::string, std::string>> files;
  if (fs::is_directory(a40g / "mocel_compare"))
    for (const auto& e : fs::directory_iterator(a40g / "mocel_compare"))
      if (e.path().filename().string().ends_with("_bsz.csv")) files.emplace_back(e.path(), "infer", "nlp");
  if (fs::is_directory(a40g / "infer_seq"))
    for (const auto& d : fs::directory_iterator(a40g / "infer_seq")) {
      const fs::path f = d.path() / (d.path().filename().string() + "_seq.csv");
      if (fs::exists(f)) files.emplace_back(f, "infer", "nlp");
    }
  for (const char* f : {"finetune_vit/vit_finetune.csv", "finetune_moco/moco_finetune.csv"})
    if (fs::exists(a40g / f)) files.emplace_back(a40g / f, "finetune", "cv");
  std::sort(files.begin(), files.end());
  for (const auto& [f, task, domain] : files) {
    const std::vector<MigPerfRow> more = read_migperf_experiment(f.string(), task, domain);
    rows.insert(rows.end(), more.begin(), more.end());
  }
  std::set<std::string> seen;
  std::vector<MigPerfRow> unique;
  for (MigPerfRow& r : rows)
    if (seen.insert(r.gpu + " " + workload_id(r) + " " + r.profile).second) unique.push_back(std::move(r));
  return unique;
}

bool is_full_gpu(const MigPerfRow& r) { return r.profile.rfind("7g.", 0) == 0; }

// A workload's batch sweep on one GPU: its model, task and sequence length.
std::string sweep_key(const MigPerfRow& r) {
  return fmt::format("{} {} {} {} seq {}", r.gpu, r.task, r.domain, r.model, r.seq);
}

// The full-GPU (7g) rows: each workload's (by GPU and workload_id), and each sweep's highest throughput over the
// batches measured consistently (the saturation baseline's peak).
struct FullGpuRows {
  std::map<std::string, const MigPerfRow*> by_workload;
  std::map<std::string, double> peak;
};

FullGpuRows full_gpu_rows(const std::vector<MigPerfRow>& rows) {
  FullGpuRows f;
  for (const MigPerfRow& r : rows) {
    if (!is_full_gpu(r)) continue;
    f.by_workload[r.gpu + " " + workload_id(r)] = &r;
    if (r.throughput > 0 && consistent(r)) {
      double& peak = f.peak[sweep_key(r)];
      peak = std::max(peak, r.throughput);
    }
  }
  return f;
}

}  // namespace

std::vector<ValidationRun> validate_migperf(const std::string& dir, const PublishedOptions&) {
  ValidationRun run;
  run.dataset = "migperf";
  run.quantity = "throughput (samples/s)";
  run.method =
      "MIGPerf measured one workload at a time on one MIG instance of each profile, with DCGM's graphics-engine "
      "activity. Each workload's full-GPU row (7g) becomes a `measured` workload: throughput, gpu_util = the DCGM "
      "activity (GR_ENGINE_ACTIVE), mem_util not measured and taken as 0 (compute-bound kernels), kernels filling "
      "every SM; its unit of work is one batch (one step, which launches the kernels: one launch overhead each), "
      "so its rate is the throughput over the batch size. It is replayed alone on each smaller profile's partition "
      "(SMs, bandwidth and L2 from the MIG tables): host time is unchanged, kernel time follows the roofline on the "
      "partition. No parameter is "
      "fitted (split \"no fit\"). Rows whose throughput disagrees with batch x 1000 / latency by more than 15% "
      "(the NLP training column), and rows without a throughput, are skipped. Baseline: throughput in proportion "
      "to the profile's SMs; for the op model's split (below), which reads every full-GPU row of a workload, also "
      "\"SM share of the peak\", the lesser of the workload's full-GPU throughput at this batch and the slice's share "
      "of the SMs times the highest full-GPU throughput it reached at any batch (its model, task and sequence "
      "length), which keeps a job that does not fill the GPU at its speed and scales one that does. A100-80GB rows "
      "come from the "
      "consolidated file; A100-40GB rows from the per-experiment files that carry DCGM activity (batch and sequence "
      "sweeps of five NLP models, ViT and MoCo fine-tuning). "
      "Split \"op model by shapes, step fitted on the full GPU\": the workload's model built from its published "
      "shape (models/workload/model_shapes.cpp: BERT-base and its multilingual relatives, DistilBERT, MiniLM, MPNet, "
      "ViT-B/16, ResNet-50 for MoCo) at the row's batch and sequence, forward (inference) or forward and backward "
      "(training, fine-tuning), timed by the operator model (docs/models/op-model.md, FP32, its shipped defaults) "
      "on the slice and on the whole GPU. Eager PyTorch launches asynchronously, so the CPU's dispatch of a step "
      "runs beside the GPU's work: a step is (cpu^p + gpu^p)^(1/p), the GPU's part the model's time times a kernel "
      "speed (at most 1: the model is FP32 SIMT and the workload may have run on tensor cores), the CPU's part the "
      "same at every batch, and p (1, 1.5, 2, 3, 4, 6, 10 or infinity: how well the two overlap) fitted with them, "
      "per workload (its model and task on one GPU), on its full-GPU rows only (every batch and sequence measured "
      "on the 7g instance; least squared log error); the slices are predicted with the fitted step. DCGM's activity "
      "is not used by this split: on the A100-40GB it reads 0.48 for BERT at batch 256, where latency grows in "
      "proportion to the batch.";
  const std::vector<MigPerfRow> rows = read_migperf_rows(dir);
  const FullGpuRows full = full_gpu_rows(rows);
  // Each workload's step fitted on its full-GPU rows (its task and model on one GPU, every batch and sequence
  // measured on the whole GPU): fit_step.
  std::map<std::string, StepFit> step_of;
  const auto step_fit = [&](const MigPerfRow& r, const GpuSpec& whole) {
    const std::string key = r.gpu + " " + r.task + " " + r.domain + " " + r.model;
    if (const auto it = step_of.find(key); it != step_of.end()) return it->second;
    std::vector<std::pair<double, double>> measured;  // (measured step, model's step), s
    for (const MigPerfRow& w : rows)
      if (is_full_gpu(w) && w.gpu == r.gpu && w.task == r.task && w.domain == r.domain &&
          w.model == r.model && w.throughput > 0 && consistent(w))
        if (const double on_whole = model_step(w, whole); on_whole > 0)
          measured.emplace_back(std::max(1.0, static_cast<double>(w.batch)) / w.throughput, on_whole);
    return step_of[key] = fit_step(measured);
  };
  for (const MigPerfRow& r : rows) {
    if (is_full_gpu(r)) continue;
    const CatalogEntry* entry = builtin_catalog().find(r.gpu);
    const MigGpuTable* table = entry ? mig_table(r.gpu) : nullptr;
    if (!table) {
      run.skipped.push_back({r.gpu, "GPU without a MIG table in the catalog"});
      continue;
    }
    const auto f = full.by_workload.find(r.gpu + " " + workload_id(r));
    if (f == full.by_workload.end()) {
      run.skipped.push_back({r.gpu, "no full-GPU (7g) row for the workload"});
      continue;
    }
    const MigPerfRow& base = *f->second;
    if (!(r.throughput > 0) || !(base.throughput > 0)) {
      run.skipped.push_back({r.gpu, "no throughput (likely out of memory)"});
      continue;
    }
    if (!consistent(r) || !consistent(base)) {
      run.skipped.push_back({r.gpu, "throughput disagrees with batch / latency (NLP training column)"});
      continue;
    }
    const MigProfile* slice = nullptr;
    const MigProfile* whole = nullptr;
    for (const MigProfile& p : table->profiles) {
      if (p.name == r.profile) slice = &p;
      if (p.name == base.profile) whole = &p;
    }
    if (!slice || !whole) {
      run.skipped.push_back({r.gpu, "profile not in the MIG table"});
      continue;
    }
    // The unit of work is one batch (a forward or training step, which launches the kernels), not one sample.
    const double batch = std::max(1.0, static_cast<double>(base.batch));
    SoloTelemetry t;
    t.throughput = base.throughput / batch;
    t.gpu_util = std::min(1.0, base.gract);
    t.mem_util = 0;
    t.kernels_per_unit = 1;  // a batch's host time and kernel time as throughputs (its kernels' launches unknown)
    if (!telemetry_problems(t).empty()) {
      run.skipped.push_back({r.gpu, "full-GPU row has no engine activity"});
      continue;
    }
    // The GPU's roofline as scenarios see it, with its shipped calibration.
    const RooflineParams roof = RooflineParams::table().with(builtin_overrides(r.gpu));
    const GpuSpec whole_spec = mig_partition_spec(entry->spec, *table, *whole);
    const GpuSpec slice_spec = mig_partition_spec(entry->spec, *table, *slice);
    // GRACT is DCGM's graphics-engine-active cycle ratio, not nvidia-smi's sampled utilization.gpu: taken at its word.
    const TelemetryWork w = telemetry_work(t, whole_spec, roof, busy_share_mapping());
    ValidationCase c;
    c.gpu = r.gpu;
    c.split = "no fit";
    c.id = fmt::format("{} on {}", workload_id(r), r.profile);
    c.measured = r.throughput;
    c.predicted = batch / (w.host_time + solo_time(w.unit, slice_spec, roof));
    const double sm_share = slice->sms / whole->sms;
    c.baseline["proportional to SMs"] = base.throughput * sm_share;
    run.cases.push_back(c);
    if (const double op = op_model_throughput(r, base.throughput, slice_spec, step_fit(r, whole_spec)); op > 0) {
      c.split = "op model by shapes, step fitted on the full GPU";
      c.predicted = op;
      // This split reads every full-GPU row of the workload, and so may its baseline.
      c.baseline["SM share of the peak"] = std::min(base.throughput, sm_share * full.peak.at(sweep_key(base)));
      run.cases.push_back(c);
    }
  }
  return {run};
}

}  // namespace vgpusim
