// NeuSight: the end-to-end latency of transformer models (BERT, GPT-2/3, OPT; FP32 PyTorch, inference and
// training) on GPUs the operator model was not fitted on, from the models' op shapes (leave one GPU out), and from
// another GPU's measured per-op profile scaled by the model's ratio.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <tuple>

#include "models/gpu/device_names.hpp"
#include "models/gpu/op_model.hpp"
#include "sim/core/errors.hpp"
#include "sim/io/gpu_catalog.hpp"
#include "sim/io/neusight.hpp"
#include "sim/studies/calibration/op_model_fit.hpp"
#include "sim/studies/validation/published.hpp"

namespace vgpusim {

namespace {

// NeuSight's study predicts inference from an A100-PCIe-40GB profile and training from an A100-80GB-PCIe one.
constexpr const char* kInferenceSource = "A100-PCIe-40GB";
constexpr const char* kTrainingSource = "A100-80GB-PCIe";
constexpr const char* kLeaveOneOut = "leave one GPU out";
// The GPUs the operator model's shipped defaults were fitted on (scenarios/measurements/neusight).
constexpr const char* kDevelopmentGpus[] = {"P4",  "P100-PCIe-16GB", "T4", "V100-PCIe-32GB", "A100-PCIe-40GB",
                                            "A100-80GB-PCIe"};

struct Gpu {
  std::string folder;   // NeuSight's name, e.g. "Tesla_T4"
  std::string catalog;  // catalog name, or the folder's when the figures come from device_configs
  OpDevice device;  // its fp32 is the FP32 GEMM peak (AMD CDNA: the matrix cores'), which the peak ratio scales by
  std::vector<NeusightCase> cases;
};

struct Prepared {
  const NeusightCase* c = nullptr;
  size_t gpu = 0;
  std::vector<FxNodeKernels> kernels;  // per op
};

std::string mode_name(bool training) { return training ? "training" : "inference"; }

// The GPU a folder names: the catalog's entry, or else the folder's device_configs figures (no TDP: no power cap).
std::optional<Gpu> map_gpu(const std::string& dir, const std::string& folder) {
  const std::optional<NeusightDevice> config = read_neusight_device(dir, folder);
  std::string spaced = folder;
  std::replace(spaced.begin(), spaced.end(), '_', ' ');
  const Catalog& catalog = builtin_catalog();
  const std::string name = catalog_name_for_device(spaced, config ? config->memory : 0, catalog.names());
  Gpu g;
  g.folder = folder;
  if (!name.empty()) {
    const GpuSpec& spec = catalog.find(name)->spec;
    g.catalog = name;
    g.device = op_device(spec);
    return g;
  }
  if (!config || config->sms <= 0 || config->fp32 <= 0 || config->bandwidth <= 0) return std::nullopt;
  g.catalog = folder;
  g.device.sms = config->sms;
  g.device.fp32 = config->fp32;
  g.device.bandwidth = config->bandwidth;
  return g;
}

// Calls fn(kernels, measured s, pass, forward linear) for each pass of op `i` of `p` that launches kernels and was
// measured.
template <class Fn>
void for_each_measured_pass(const Prepared& p, size_t i, Fn fn) {
  const NeusightOp& op = p.c->ops[i];
  const FxNodeKernels& k = p.kernels[i];
  const std::pair<const std::vector<OpKernel>*, std::pair<double, OpPhase>> passes[] = {
      {&k.forward, {op.forward, OpPhase::Forward}},
      {&k.backward, {op.backward, OpPhase::Backward}},
      {&k.accumulate, {op.accumulate, OpPhase::Accumulate}}};
  for (const auto& [kernels, m] : passes)
    if (!kernels->empty() && m.first > 0)
      fn(*kernels, m.first, m.second, k.op_class == "linear" && m.second == OpPhase::Forward);
}

double case_time(const Prepared& p, const OpDevice& d, const OpModelParams& params) {
  double t = 0;
  for (size_t i = 0; i < p.kernels.size(); ++i) {
    const FxNodeKernels& k = p.kernels[i];
    double op = 0;
    for (const OpKernel& x : k.forward) op += op_kernel_time(x, d, params);
    for (const OpKernel& x : k.backward) op += op_kernel_time(x, d, params);
    for (const OpKernel& x : k.accumulate) op += op_kernel_time(x, d, params);
    t += p.c->ops[i].repeat * op;
  }
  return t;
}

// Every measured (op, pass) of the prepared cases on the GPUs `use` accepts; each case's weights sum to 1 and an op
// weighs by its share of its case's measured time.
std::vector<OpObservation> observations(const std::vector<Prepared>& cases, const std::vector<bool>& use,
                                        const std::vector<size_t>& device_of) {
  std::vector<OpObservation> out;
  for (const Prepared& p : cases) {
    if (!use[p.gpu]) continue;
    const size_t first = out.size();
    double total = 0;
    for (size_t i = 0; i < p.kernels.size(); ++i)
      for_each_measured_pass(p, i, [&](const std::vector<OpKernel>& kernels, double measured, OpPhase phase, bool linear) {
        OpObservation o;
        o.device = device_of[p.gpu];
        o.kernels = kernels;
        o.measured = measured;
        o.weight = p.c->ops[i].repeat * measured;
        o.phase = phase;
        o.linear = linear;
        total += o.weight;
        out.push_back(std::move(o));
      });
    for (size_t j = first; j < out.size(); ++j) out[j].weight /= total;
  }
  return out;
}

// The model fitted on every GPU but those in `held_out`.
OpModelFit fit_without(const std::vector<Gpu>& gpus, const std::vector<Prepared>& cases,
                       const std::vector<size_t>& held_out) {
  std::vector<OpDevice> devices;
  std::vector<size_t> device_of(gpus.size(), 0);
  std::vector<bool> use(gpus.size(), false);
  for (size_t g = 0; g < gpus.size(); ++g) {
    if (std::find(held_out.begin(), held_out.end(), g) != held_out.end()) continue;
    use[g] = true;
    device_of[g] = devices.size();
    devices.push_back(gpus[g].device);
  }
  return fit_op_model(devices, observations(cases, use, device_of));
}

// Mode (b): the source GPU's measured profile of the same case. Each op's time less its measurement overhead is
// the model's time on the source times the op's deviation from it (measured / model); on the target the op takes
// the model's target time times that deviation to the power `carry`: 1 carries it whole (the plain ratio target /
// source, as trace replay scales a recorded kernel), 0 drops it (the shapes alone).
double from_profile(const Prepared& source, const OpDevice& src, const OpDevice& target, const OpModelFit& fit,
                    double carry) {
  double t = 0;
  for (size_t i = 0; i < source.kernels.size(); ++i)
    for_each_measured_pass(source, i, [&](const std::vector<OpKernel>& kernels, double measured, OpPhase phase,
                                          bool linear) {
      double ts = 0, tt = 0;
      for (const OpKernel& x : kernels) {
        ts += op_kernel_time(x, src, fit.params);
        tt += op_kernel_time(x, target, fit.params);
      }
      const double own = std::max(0.0, measured - measurement_overhead(fit.overheads, phase, linear));
      t += source.c->ops[i].repeat * (carry == 1 ? own * tt / ts : tt * std::pow(own / ts, carry));
    });
  return t;
}

// The case `id` as GPU `gpu` ran it, or nullptr.
const Prepared* case_on(const std::vector<Prepared>& cases, size_t gpu, const std::string& id) {
  for (const Prepared& p : cases)
    if (p.gpu == gpu && p.c->id == id) return &p;
  return nullptr;
}

// How much of the source profile's deviation from the model carries to another GPU, fitted without the target:
// nested leave one GPU out over the other GPUs that ran cases of the mode the source also ran (each such GPU
// predicted from the source's profile with the model fitted without it and without the target), `carry` chosen
// on a grid of kCarrySteps to minimize the mean absolute percentage error of those predictions. With no such
// GPU, 1 (the plain ratio).
constexpr int kCarrySteps = 20;  // carry 0, 0.05, ..., 1
struct Carry {
  double value = 1;
  size_t cases = 0;  // the nested predictions it was chosen on
};

class CarryFitter {
 public:
  CarryFitter(const std::vector<Gpu>& gpus, const std::vector<Prepared>& cases) : gpus_(gpus), cases_(cases) {}

  // `target`: the GPU predicted (none: a GPU outside the folder, predicted with the shipped defaults). Each
  // (target, source, mode) is fitted once.
  Carry fit(std::optional<size_t> target, size_t source, bool training) {
    const auto key = std::make_tuple(target, source, training);
    if (const auto it = carries_.find(key); it != carries_.end()) return it->second;
    return carries_[key] = search(target, source, training);
  }

 private:
  Carry search(std::optional<size_t> target, size_t source, bool training) {
    std::vector<std::pair<const Prepared*, const Prepared*>> inner;  // (source case, case on another GPU)
    std::vector<const OpModelFit*> fits;
    for (const Prepared& p : cases_) {
      if (p.c->training != training || p.gpu == source || (target && p.gpu == *target)) continue;
      const Prepared* from = case_on(cases_, source, p.c->id);
      if (!from) continue;
      inner.emplace_back(from, &p);
      fits.push_back(&without(target, p.gpu));
    }
    Carry out;
    out.cases = inner.size();
    if (inner.empty()) return out;
    double best = 1e300;
    for (int k = 0; k <= kCarrySteps; ++k) {
      const double carry = static_cast<double>(k) / kCarrySteps;
      double err = 0;
      for (size_t i = 0; i < inner.size(); ++i) {
        const double predicted =
            from_profile(*inner[i].first, gpus_[source].device, gpus_[inner[i].second->gpu].device, *fits[i], carry);
        err += std::abs(predicted / inner[i].second->c->measured() - 1);
      }
      if (err < best - 1e-12) {
        best = err;
        out.value = carry;
      }
    }
    return out;
  }

  const OpModelFit& without(std::optional<size_t> target, size_t other) {
    std::vector<size_t> out{other};
    if (target) out.push_back(*target);
    std::sort(out.begin(), out.end());
    auto it = fits_.find(out);
    if (it == fits_.end()) it = fits_.emplace(out, fit_without(gpus_, cases_, out)).first;
    return it->second;
  }
  const std::vector<Gpu>& gpus_;
  const std::vector<Prepared>& cases_;
  std::map<std::vector<size_t>, OpModelFit> fits_;
  std::map<std::tuple<std::optional<size_t>, size_t, bool>, Carry> carries_;
};

// Issue 30's per-kernel check on measured ops: each op class's time in one case on the target GPU (every measured
// pass of its ops, less its measurement overhead), from the source GPU's measured ops of the same case: scaled by
// the model's ratio target / source (as trace replay scales a recorded kernel that has shapes), unscaled, and by
// the name rule's ratio (GEMMs by the FP32 peak, the rest by the DRAM bandwidth); and, for comparison, the model's
// own time on the target from the shapes alone (no profile). Classes under kMinClassShare of
// the case's time are left out (their few microseconds are mostly the overhead's error). Empty when the two
// profiles do not list the same ops.
struct ClassTimes {
  double measured = 0, predicted = 0, same = 0, peak = 0, shapes = 0;
};
constexpr double kMinClassShare = 0.01;

std::map<std::string, ClassTimes> per_class(const Prepared& source, const Prepared& target, const Gpu& src,
                                            const Gpu& tgt, const OpModelFit& fit) {
  std::map<std::string, ClassTimes> out;
  if (source.c->ops.size() != target.c->ops.size()) return out;
  double total = 0;
  for (size_t i = 0; i < target.c->ops.size(); ++i) {
    const NeusightOp &so = source.c->ops[i], &to = target.c->ops[i];
    if (so.node.target != to.node.target || so.node.inputs != to.node.inputs || so.repeat != to.repeat) return {};
    const FxNodeKernels& k = target.kernels[i];
    const std::pair<const std::vector<OpKernel>*, std::tuple<double, double, OpPhase>> passes[] = {
        {&k.forward, {so.forward, to.forward, OpPhase::Forward}},
        {&k.backward, {so.backward, to.backward, OpPhase::Backward}},
        {&k.accumulate, {so.accumulate, to.accumulate, OpPhase::Accumulate}}};
    for (const auto& [kernels, m] : passes) {
      const auto& [at_source, at_target, phase] = m;
      if (kernels->empty() || !(at_source > 0) || !(at_target > 0)) continue;
      const bool linear = k.op_class == "linear" && phase == OpPhase::Forward;
      const double overhead = measurement_overhead(fit.overheads, phase, linear);
      double ts = 0, tt = 0;
      bool gemm = false;
      for (const OpKernel& x : *kernels) {
        ts += op_kernel_time(x, src.device, fit.params);
        tt += op_kernel_time(x, tgt.device, fit.params);
        gemm = gemm || is_gemm(x.cls);
      }
      const double own = so.repeat * std::max(0.0, at_source - overhead);
      const double measured = to.repeat * std::max(0.0, at_target - overhead);
      ClassTimes& c = out[k.op_class];
      c.measured += measured;
      c.predicted += own * tt / ts;
      c.same += own;
      c.peak += own * (gemm ? src.device.fp32 / tgt.device.fp32 : src.device.bandwidth / tgt.device.bandwidth);
      c.shapes += to.repeat * tt;
      total += measured;
    }
  }
  for (auto it = out.begin(); it != out.end();)
    it = it->second.measured < kMinClassShare * total || !(it->second.measured > 0) ? out.erase(it) : std::next(it);
  return out;
}

std::string fitted_values(const OpModelFit& f) {
  const ParamValues v = OpModelParams::table().values(f.params);
  std::vector<std::string> parts;
  for (const ParamSpec& s : OpModelParams::table().specs())
    if (op_model_param_fitted(s.name)) {
      const bool time = s.dim == units::Dim::Time;
      const double value = time ? v.get(s.name) * 1e6 : v.get(s.name);
      parts.push_back(fmt::format("{} {:.4g}{}", s.name, value, time ? " us" : ""));
    }
  return fmt::format("{}; measurement overheads (fit only) forward {:.3g}, forward linear {:.3g}, backward {:.3g}, "
                     "accumulation {:.3g} us",
                     fmt::join(parts, ", "), f.overheads[0] * 1e6, f.overheads[1] * 1e6, f.overheads[2] * 1e6,
                     f.overheads[3] * 1e6);
}

}  // namespace

namespace {
// The dataset's GPUs with their cases (each GPU's profiles), and what was left out; the cases' kernels.
struct Loaded {
  std::vector<Gpu> gpus;
  std::vector<Prepared> cases;
  std::vector<ValidationSkip> skipped;
};

// Fills `out` in place: its cases point into its GPUs' cases.
void load(const std::string& dir, Loaded& out) {
  std::vector<Gpu>& gpus = out.gpus;
  std::vector<ValidationSkip>& skipped = out.skipped;
  for (const std::string& folder : neusight_gpus(dir)) {
    std::optional<Gpu> g = map_gpu(dir, folder);
    std::vector<NeusightCase> cases = read_neusight_cases(dir, folder);
    const std::string shown = g ? g->catalog : folder;
    for (const std::string& id : neusight_cases_without_profile(dir, folder))
      skipped.push_back({shown,
                             id.find("-fusion") != std::string::npos ? "a fused-op graph without a per-op profile"
                             : id.find("-dp") != std::string::npos || id.find("-tp") != std::string::npos ||
                                     id.find("-pp") != std::string::npos
                                 ? "multi-GPU parallel training (not modelled)"
                                 : "no per-op profile (only the end-to-end latency)",
                             ""});
    if (!g) {
      for (size_t i = 0; i < cases.size(); ++i)
        skipped.push_back({folder, "not in the catalog and no device_configs figures", ""});
      continue;
    }
    for (NeusightCase& c : cases) {
      if (!c.option.empty())
        skipped.push_back({g->catalog, c.option == "fusion" ? "a fused-op graph (not modelled)"
                                                            : "multi-GPU parallel training (" + c.option + ")", ""});
      else
        g->cases.push_back(std::move(c));
    }
    if (!g->cases.empty()) gpus.push_back(std::move(*g));
  }
  if (gpus.empty()) throw InputError(fmt::format("{}: no case with a per-op profile under label/<GPU>/", dir));
  std::vector<Prepared>& cases = out.cases;
  for (size_t g = 0; g < gpus.size(); ++g)
    for (const NeusightCase& c : gpus[g].cases) {
      Prepared p;
      p.c = &c;
      p.gpu = g;
      for (const NeusightOp& op : c.ops) p.kernels.push_back(fx_node_kernels(op.node, c.training));
      cases.push_back(std::move(p));
    }
}
}  // namespace

OpModelFit fit_neusight(const std::string& dir) {
  Loaded l;
  load(dir, l);
  return fit_without(l.gpus, l.cases, {});
}

namespace {
std::string carry_text(const std::map<std::tuple<std::string, std::string, std::string>, Carry>& seen) {
  std::vector<std::string> parts;
  for (const auto& [key, c] : seen)
    parts.push_back(fmt::format("{} {} ({}) {:.2f} on {} nested predictions", std::get<0>(key), std::get<1>(key),
                                std::get<2>(key), c.value, c.cases));
  return parts.empty() ? std::string("none") : fmt::format("{}", fmt::join(parts, "; "));
}
}  // namespace

std::vector<ValidationRun> validate_neusight(const std::string& dir, const PublishedOptions& options) {
  ValidationRun run;
  run.dataset = "neusight";
  run.quantity = "end-to-end latency (s)";
  run.pooled = true;
  Loaded loaded;
  load(dir, loaded);
  const std::vector<Gpu>& gpus = loaded.gpus;
  const std::vector<Prepared>& cases = loaded.cases;
  run.skipped = loaded.skipped;
  if (!options.gpu.empty() && std::none_of(gpus.begin(), gpus.end(), [&](const Gpu& g) {
        return g.catalog == options.gpu || g.folder == options.gpu;
      }))
    throw InputError(fmt::format("--gpu {}: no such GPU among the dataset's", options.gpu));
  const auto summary = read_neusight_summary(dir);
  const auto find_gpu = [&](const char* name) -> std::optional<size_t> {
    for (size_t g = 0; g < gpus.size(); ++g)
      if (gpus[g].catalog == name) return g;
    return std::nullopt;
  };

  CarryFitter carries(gpus, cases);
  std::map<std::tuple<std::string, std::string, std::string>, Carry> carry_seen;  // (GPU, mode, fold)
  for (size_t g = 0; g < gpus.size(); ++g) {
    if (!options.gpu.empty() && gpus[g].catalog != options.gpu && gpus[g].folder != options.gpu) continue;
    // Its predictions: fitted on the folder's other GPUs, and, for a GPU the shipped defaults were not fitted on,
    // from those defaults (a folder of new GPUs only has no other GPU to fit on).
    std::vector<std::pair<std::string, OpModelFit>> folds;
    if (gpus.size() >= 2) folds.emplace_back(kLeaveOneOut, fit_without(gpus, cases, {g}));
    if (std::find(std::begin(kDevelopmentGpus), std::end(kDevelopmentGpus), gpus[g].catalog) ==
        std::end(kDevelopmentGpus)) {
      OpModelFit shipped;
      shipped.params = OpModelParams::table().defaults();
      shipped.overheads = kNeusightOverheads;
      folds.emplace_back("shipped defaults (fitted on the six development GPUs)", shipped);
    }
    if (folds.empty()) {
      for (const Prepared& p : cases)
        if (p.gpu == g)
          run.skipped.push_back({gpus[g].catalog, "no other GPU to fit on (the shipped defaults were fitted on it)", ""});
      continue;
    }
    for (const auto& [how, fit] : folds)
      for (const Prepared& p : cases) {
        if (p.gpu != g) continue;
        const std::string mode = mode_name(p.c->training);
        const std::optional<size_t> src = find_gpu(p.c->training ? kTrainingSource : kInferenceSource);
        const Prepared* from = src && *src != g ? case_on(cases, *src, p.c->id) : nullptr;
        std::map<std::string, double> baseline;
        if (auto s = summary.find({gpus[g].folder, p.c->id}); s != summary.end()) {
          if (s->second.neusight > 0) baseline["NeuSight"] = s->second.neusight;
          if (s->second.roofline > 0) baseline["roofline"] = s->second.roofline;
        }
        if (from) baseline["FP32 peak ratio"] = from->c->measured() * gpus[*src].device.fp32 / gpus[g].device.fp32;
        ValidationCase v;
        v.gpu = gpus[g].catalog;
        v.mode = mode;
        v.split = fmt::format("{}, from shapes, {}", mode, how);
        v.id = p.c->id;
        v.measured = p.c->measured();
        v.predicted = case_time(p, gpus[g].device, fit.params);
        v.baseline = baseline;
        run.cases.push_back(v);
        if (from) {
          v.split = fmt::format("{}, from the {} profile, {}", mode, gpus[*src].catalog, how);
          const bool held_out = how == std::string(kLeaveOneOut);
          const Carry carry = carries.fit(held_out ? std::optional<size_t>(g) : std::nullopt, *src, p.c->training);
          v.predicted = from_profile(*from, gpus[*src].device, gpus[g].device, fit, carry.value);
          carry_seen[{gpus[g].catalog, mode, how}] = carry;
          run.cases.push_back(v);
          for (const auto& [cls, t] : per_class(*from, p, gpus[*src], gpus[g], fit)) {
            ValidationCase c = v;
            c.split = fmt::format("{}, per op class, from the {} profile, {}", mode, gpus[*src].catalog, how);
            c.id = fmt::format("{}: {}", p.c->id, cls);
            c.measured = t.measured;
            c.predicted = t.predicted;
            c.baseline = {{"same time", t.same}, {"peak / bandwidth ratio", t.peak}, {"shapes alone", t.shapes}};
            run.cases.push_back(c);
          }
        }
      }
  }
  // Cases of one split together, as the tables show them.
  std::stable_sort(run.cases.begin(), run.cases.end(), [](const ValidationCase& a, const ValidationCase& b) {
    return a.split.find("from shapes") != std::string::npos && b.split.find("from shapes") == std::string::npos;
  });
  const OpModelFit all = fit_without(gpus, cases, {});  // for the method text
  run.method = fmt::format(
      "NeuSight (Lee, Phanishayee and Mahajan, ASPLOS'25) measured FP32 PyTorch / Hugging Face models (BERT-large, "
      "GPT2-large, GPT3-XL and 2.7B, OPT-1.3B) end to end and op by op (each torch.fx node alone) on several GPUs. "
      "The operator model (docs/models/op-model.md) turns each node into kernels from its shapes "
      "(models/workload/fx_graph.cpp; training adds the backward and the gradient accumulation, shaped from the "
      "forward), and the one traced layer is repeated num_layer times. Its parameters are shared by every GPU and "
      "fitted jointly on the per-op measurements of the other GPUs (split \"from shapes, leave one GPU out\"): the "
      "held-out GPU is predicted from its catalog figures only. A second split predicts from the source GPU's "
      "measured profile of the same case ({} for inference, {} for training, as NeuSight's study does), each op "
      "taken as the model's time on the target times the op's deviation from the model on the source (measured / "
      "model) to a power, the carry, with the fold's parameters: 1 would be the plain ratio target / source, 0 the "
      "shapes alone. The carry is fitted without the target GPU, by nested leave one GPU out: each other GPU that "
      "ran cases of the mode is predicted from the source's profile with the model fitted without it and without "
      "the target, and the carry (0 to 1 in steps of 0.05) minimizing those predictions' MAPE is taken; with no "
      "such GPU it is 1. Fitted carries: {}. A third (\"per op class\") checks that "
      "scaling op by op, as trace replay scales a recorded kernel with shapes (docs/trace-replay.md): per case and "
      "op class (linear, bmm, softmax, norm, ...; classes of at least 1% of the case's time), the target's measured "
      "time of the class's ops less their measurement overheads against the source's scaled by the model's ratio, "
      "beside the same time unscaled, the name rule's ratio (GEMMs by the FP32 peak, the rest by the DRAM "
      "bandwidth) and the model's time from the shapes alone. A GPU outside the six the model's "
      "defaults were fitted on is also predicted with those defaults (split \"shipped defaults\"), the only "
      "prediction for a folder of new GPUs alone. Baselines, on the same cases: "
      "NeuSight's and its roofline's predictions (summary/summary.csv), and the source GPU's measured latency scaled "
      "by the FP32 peak ratio (the FP32 GEMM peaks: on AMD CDNA boards the matrix cores'; on the cases the source "
      "GPU also ran). Fused-op graphs and multi-GPU runs are skipped. "
      "The fit on all {} GPUs, the shipped defaults' source: {}.",
      kInferenceSource, kTrainingSource, carry_text(carry_seen), gpus.size(), fitted_values(all));
  return {run};
}

}  // namespace vgpusim
