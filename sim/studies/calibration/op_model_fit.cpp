// The operator model's joint fit (sim/studies/calibration/op_model_fit.hpp).
#include "sim/studies/calibration/op_model_fit.hpp"

#include <cmath>
#include <functional>
#include <map>

namespace vgpusim {

namespace {
size_t overhead_index(OpPhase phase, bool linear) {
  return phase == OpPhase::Forward ? (linear ? 1 : 0) : phase == OpPhase::Backward ? 2 : 3;
}
}  // namespace

double measurement_overhead(const MeasurementOverheads& d, OpPhase phase, bool linear) {
  return d[overhead_index(phase, linear)];
}

namespace {

// Where a fitted parameter lives in `p`; nullptr for one the fit leaves at its default (the figures measured on
// architectures outside NeuSight's: their power efficiencies and wide_sm_efficiency).
double* fitted_member(OpModelParams& p, const std::string& name) {
  if (name == "power_efficiency") return &p.power_efficiency;
  if (name == "pre_volta_efficiency") return &p.pre_volta_efficiency;
  if (name == "gemm_efficiency") return &p.gemm_efficiency;
  if (name == "bmm_factor") return &p.bmm_factor;
  if (name == "tile_k_overhead") return &p.tile_k_overhead;
  if (name == "gemm_memory_efficiency") return &p.gemm_memory_efficiency;
  if (name == "gemm_floor") return &p.gemm_floor;
  if (name == "memory_floor") return &p.memory_floor;
  for (size_t c = 0; c < kOpKernelClasses; ++c)
    if (name == std::string(op_kernel_class_name(static_cast<OpKernelClass>(c))) + "_bandwidth")
      return &p.bandwidth_efficiency[c];
  return nullptr;
}

// A free parameter: where its value lives, its bounds, and which kernels (or which observations' overhead) it
// changes.
struct Free {
  double* value;
  double lo, hi;
  std::vector<size_t> kernels;
};

class Problem {
 public:
  Problem(const std::vector<OpDevice>& devices, const std::vector<OpObservation>& obs) : devices_(devices), obs_(obs) {
    std::map<std::pair<size_t, OpKernel>, size_t> index;
    for (const OpObservation& o : obs_) {
      std::vector<size_t> ks;
      for (const OpKernel& k : o.kernels) {
        auto [it, fresh] = index.try_emplace(std::pair{o.device, k}, kernels_.size());
        if (fresh) kernels_.push_back({o.device, k});
        ks.push_back(it->second);
      }
      uses_.push_back(std::move(ks));
    }
    times_.assign(kernels_.size(), 0.0);
  }

  OpModelFit fit() {
    OpModelFit f;
    f.params = start();
    f.overheads = {8e-6, 20e-6, 8e-6, 8e-6};
    p_ = &f.params;
    d_ = &f.overheads;
    std::vector<Free> free = parameters();
    recompute_all();
    double best = loss();
    const auto set = [&](Free& q, double v) {
      *q.value = v;
      for (size_t i : q.kernels) times_[i] = op_kernel_time(kernels_[i].second, devices_[kernels_[i].first], *p_);
      return loss();
    };
    for (int round = 0; round < 2; ++round) {
      for (Free& q : free) {  // the grid
        double keep = *q.value;
        for (int i = 0; i < 24; ++i) {
          const double x = i / 23.0;
          const double v = q.lo > 0 ? q.lo * std::pow(q.hi / q.lo, x) : q.lo + (q.hi - q.lo) * x * x;
          const double l = set(q, v);
          if (l < best - 1e-12) best = l, keep = v;
        }
        set(q, keep);
      }
      for (double step : {2.0, 1.4, 1.15, 1.05, 1.02})  // the refinement
        for (Free& q : free)
          for (double dir : {step, 1.0 / step})
            for (;;) {
              const double old = *q.value;
              double v = old > 0 ? old * dir : (q.hi - q.lo) * 1e-3;
              v = std::min(q.hi, std::max(q.lo, v));
              if (v == old) break;
              const double l = set(q, v);
              if (l < best - 1e-12) {
                best = l;
              } else {
                set(q, old);
                break;
              }
            }
    }
    f.loss = best;
    f.observations = obs_.size();
    return f;
  }

 private:
  static OpModelParams start() {
    OpModelParams p = OpModelParams::table().defaults();
    p.power_efficiency = 200e9;
    p.pre_volta_efficiency = 1.0;
    p.gemm_efficiency = 0.9;
    p.bmm_factor = 1.0;
    p.tile_k_overhead = 16;
    p.gemm_memory_efficiency = 0.8;
    p.gemm_floor = 3e-6;
    p.memory_floor = 3e-6;
    for (double& e : p.bandwidth_efficiency) e = 0.7;
    return p;
  }

  // The model's parameters in declaration order, then the four measurement overheads, each with its bounds and
  // dependent kernels; those nothing depends on are left out.
  std::vector<Free> parameters() {
    std::vector<Free> out;
    const auto& specs = OpModelParams::table().specs();
    for (const ParamSpec& s : specs) {
      Free q{fitted_member(*p_, s.name), s.min, s.max, {}};
      if (q.value == nullptr) continue;
      for (size_t i = 0; i < kernels_.size(); ++i) {
        const OpKernel& k = kernels_[i].second;
        const bool gemm = is_gemm(k.cls);
        bool dep = false;
        if (s.name == "memory_floor") dep = !gemm;
        else if (s.name == "pre_volta_efficiency") dep = gemm && devices_[kernels_[i].first].pre_volta;
        else if (s.name == "power_efficiency")  // the cap of the architectures it stands for, where a TDP is known
          dep = gemm && devices_[kernels_[i].first].power_group == OpPowerGroup::Fitted &&
                devices_[kernels_[i].first].tdp > 0;
        else if (s.name == "bmm_factor") dep = k.cls == OpKernelClass::Bmm;
        else if (s.name.ends_with("_bandwidth")) dep = !gemm && q.value == &p_->bandwidth_efficiency[static_cast<size_t>(k.cls)];
        else dep = gemm;
        if (dep) q.kernels.push_back(i);
      }
      if (!q.kernels.empty()) out.push_back(std::move(q));
    }
    std::array<bool, 4> used{};
    for (const OpObservation& o : obs_) used[overhead_index(o.phase, o.linear)] = true;
    for (size_t j = 0; j < d_->size(); ++j)
      if (used[j]) out.push_back({&(*d_)[j], 0.5e-6, 80e-6, {}});
    return out;
  }

  void recompute_all() {
    for (size_t i = 0; i < kernels_.size(); ++i)
      times_[i] = op_kernel_time(kernels_[i].second, devices_[kernels_[i].first], *p_);
  }

  double loss() const {
    double l = 0;
    for (size_t j = 0; j < obs_.size(); ++j) {
      const OpObservation& o = obs_[j];
      double t = measurement_overhead(*d_, o.phase, o.linear);
      for (size_t i : uses_[j]) t += times_[i];
      const double e = std::log(t / o.measured);
      l += o.weight * e * e;
    }
    return l;
  }

  const std::vector<OpDevice>& devices_;
  const std::vector<OpObservation>& obs_;
  std::vector<std::pair<size_t, OpKernel>> kernels_;
  std::vector<std::vector<size_t>> uses_;
  std::vector<double> times_;
  OpModelParams* p_ = nullptr;
  MeasurementOverheads* d_ = nullptr;
};

}  // namespace

bool op_model_param_fitted(const std::string& name) {
  OpModelParams p = OpModelParams::table().defaults();
  return fitted_member(p, name) != nullptr;
}

OpModelFit fit_op_model(const std::vector<OpDevice>& devices, const std::vector<OpObservation>& observations) {
  Problem p(devices, observations);
  return p.fit();
}

}  // namespace vgpusim
