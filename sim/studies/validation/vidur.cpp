// Vidur: the GPU time of each non-attention op of one transformer layer against tokens and tensor-parallel degree,
// predicted by the roofline from each op's FLOPs and bytes with op-class parameters fitted on the GPU's other models.
#include <fmt/format.h>

#include <map>

#include "models/gpu/roofline.hpp"
#include "sim/core/errors.hpp"
#include "sim/io/calibration_file.hpp"
#include "sim/io/gpu_catalog.hpp"
#include "sim/io/published.hpp"
#include "sim/studies/calibration/vidur_fit.hpp"
#include "sim/studies/validation/published.hpp"

namespace vgpusim {

std::vector<ValidationRun> validate_vidur(const std::string& dir, const PublishedOptions& options) {
  ValidationRun run;
  run.dataset = "vidur";
  run.quantity = "op time (s)";
  run.method =
      "Vidur profiled each non-attention op of one transformer layer (embedding, layer norms, QKV projection, rotary "
      "embedding, output projection, MLP up / activation / down, residual add) for several models, token counts and "
      "tensor-parallel degrees. The model predicts each op from its FLOPs and bytes (models/workload/llm_ops.cpp: "
      "GEMMs on the fp16 tensor cores over whole waves of 64 x 64 output tiles, fp16 weights read once, activations "
      "read and written) with the roofline and the GPU's shipped calibration (models/calibration/) on the catalog "
      "GPU: the file name's prefix (a100 = A100-80GB, as the source's device configuration says; a40 = A40; h100 = "
      "H100-SXM, its configuration's 1000 TFLOPS FP16 and 80 GB on DGX nodes), or "
      "`--gpu`. The op classes' parameters (gemm_efficiency, gemm_memory_efficiency, <class>_traffic and "
      "<class>_overhead) are fitted per GPU the way `vgpusim fit --vidur` fits them, but leaving one model out: each "
      "model's ops are predicted with the parameters fitted on the GPU's other models (split \"leave one model "
      "out\"; the shipped calibrations are fitted on all models). The rotary embedding is counted over whole heads "
      "(phi-2 rotates 40% of each; the files do not say). Baselines: the plain roofline at catalog peaks "
      "(efficiencies 1) and the calibrated roofline without op classes (every op as generic work).";
  std::vector<VidurSkip> skipped;
  const std::vector<VidurCase> cases = read_vidur_cases(dir, options.gpu, skipped);
  for (const VidurSkip& s : skipped) run.skipped.push_back({s.gpu, s.reason});
  const RooflineParams defaults = RooflineParams::table().defaults();
  RooflineParams plain = defaults;
  plain.compute_efficiency = 1.0;
  plain.memory_efficiency = 1.0;
  std::map<std::string, std::map<std::string, std::vector<const VidurCase*>>> by_gpu_model;
  for (const VidurCase& c : cases) by_gpu_model[c.gpu][c.model].push_back(&c);
  for (const auto& [gpu, models] : by_gpu_model) {
    const GpuSpec& spec = builtin_catalog().find(gpu)->spec;
    // The GPU's roofline as scenarios see it, less the op-class values (fitted here per split).
    ParamOverrides shipped = builtin_overrides(gpu);
    if (const Calibration* cal = builtin_calibration(gpu))
      for (const FittedValue& v : cal->values)
        if (v.from.starts_with(kVidurSource)) shipped.erase(v.name);
    const RooflineParams roof = RooflineParams::table().with(shipped);
    for (const auto& [held_out, own] : models) {
      std::vector<const VidurCase*> train;
      for (const auto& [model, list] : models)
        if (model != held_out) train.insert(train.end(), list.begin(), list.end());
      ParamOverrides fitted = shipped;
      if (!train.empty())
        for (const FittedValue& v : fit_vidur_ops(train, spec, roof, kVidurSource)) fitted[v.name] = v.value;
      const RooflineParams p = RooflineParams::table().with(fitted);
      for (const VidurCase* c : own) {
        KernelSpec generic = c->kernel;
        generic.op = OpClass::Generic;
        ValidationCase v;
        v.gpu = gpu;
        v.split = train.empty() ? "no fit (one model only)"
                  : options.gpu.empty()
                      ? "leave one model out"
                      : fmt::format("leave one model out, files predicted for {}", gpu);
        v.id = c->id;
        v.measured = c->measured;
        v.predicted = solo_time(c->kernel, spec, p);
        v.baseline["plain roofline"] = solo_time(generic, spec, plain);
        v.baseline["roofline without op classes"] = solo_time(generic, spec, roof);
        run.cases.push_back(v);
      }
    }
  }
  return {run};
}

}  // namespace vgpusim
