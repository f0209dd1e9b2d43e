// Op-class calibration from Vidur's profiled ops (sim/studies/calibration/vidur_fit.hpp).
#include "sim/studies/calibration/vidur_fit.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <boost/math/tools/minima.hpp>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <map>
#include <set>

#include "models/workload/llm_ops.hpp"
#include "sim/core/errors.hpp"
#include "sim/io/files.hpp"
#include "sim/io/gpu_catalog.hpp"
#include "sim/io/published.hpp"
#include "sim/studies/calibration/published_fit.hpp"

namespace fs = std::filesystem;

namespace vgpusim {

std::vector<VidurCase> read_vidur_cases(const std::string& dir, const std::string& gpu_override,
                                        std::vector<VidurSkip>& skipped) {
  const std::string suffix = "_mlp_median_ms.csv";
  std::vector<fs::path> files;
  if (fs::is_directory(dir))
    for (const auto& e : fs::directory_iterator(dir)) {
      const std::string name = e.path().filename().string();
      if (name.size() > suffix.size() && name.ends_with(suffix)) files.push_back(e.path());
    }
  std::sort(files.begin(), files.end());
  if (files.empty()) throw InputError(fmt::format("{}: no *{} files", dir, suffix));
  std::vector<VidurCase> out;
  for (const fs::path& file : files) {
    const std::string name = file.filename().string();
    const std::string prefix = name.substr(0, name.find('_'));
    const std::string model = name.substr(prefix.size() + 1, name.size() - prefix.size() - 1 - suffix.size());
    const std::string gpu = !gpu_override.empty() ? gpu_override : published_gpu_name(prefix);
    const std::vector<VidurRow> rows = read_vidur_ops(file.string());
    if (gpu.empty() || !builtin_catalog().find(gpu)) {
      if (!gpu_override.empty()) throw InputError(fmt::format("--gpu {}: not a catalog GPU", gpu_override));
      for (const VidurRow& r : rows)
        skipped.push_back({prefix, fmt::format("GPU not in the catalog ({} ops)", r.op_time.size())});
      continue;
    }
    for (const VidurRow& r : rows) {
      LlmShape s;
      s.name = model;
      s.layers = 1;
      s.hidden = r.n_embd;
      s.heads = r.n_head;
      s.kv_heads = r.n_kv_head;
      s.intermediate = r.n_expanded_embd;
      s.vocab = r.vocab_size;
      s.gated_mlp = r.gated_mlp;
      for (const auto& [op_name, time] : r.op_time) {
        LlmOp op;
        if (!llm_op_from_name(op_name, op)) {
          skipped.push_back({gpu, "op not modelled: " + op_name});
          continue;
        }
        if (!(time > 0)) {
          skipped.push_back({gpu, "no time measured"});
          continue;
        }
        out.push_back({gpu, model, op_name,
                       fmt::format("{} {} tokens {} tp {}", model, op_name, r.tokens, r.tensor_parallel),
                       llm_op_kernel(op, s, r.tokens, r.tensor_parallel), time});
      }
    }
  }
  return out;
}

namespace {

// The cases' roofline times with the fitted pair at 1, scaled by the pair as the roofline would: a GEMM's compute
// by 1 / gemm_efficiency and memory by 1 / gemm_memory_efficiency; an elementwise kernel's memory by its traffic and
// its overhead by its overhead ratio.
struct Prepared {
  KernelTimes t;
  double measured = 0;
};

double mape(const std::vector<Prepared>& cases, bool gemm, double a, double b) {
  double sum = 0;
  for (const Prepared& c : cases) {
    KernelTimes t = c.t;
    if (gemm) {
      t.compute /= a;
      t.memory /= b;
    } else {
      t.memory *= a;
      t.overhead *= b;
    }
    sum += std::abs(t.solo() - c.measured) / c.measured;
  }
  return sum / static_cast<double>(cases.size());
}

// Coordinate descent with Brent's method on each of the two parameters in turn, within their bounds.
std::pair<double, double> minimize(const std::vector<Prepared>& cases, bool gemm, std::pair<double, double> a_range,
                                   std::pair<double, double> b_range, double& error) {
  double a = std::clamp(1.0, a_range.first, a_range.second), b = std::clamp(1.0, b_range.first, b_range.second);
  for (int round = 0; round < 6; ++round) {
    a = boost::math::tools::brent_find_minima([&](double x) { return mape(cases, gemm, x, b); }, a_range.first,
                                              a_range.second, 30)
            .first;
    b = boost::math::tools::brent_find_minima([&](double x) { return mape(cases, gemm, a, x); }, b_range.first,
                                              b_range.second, 30)
            .first;
  }
  error = mape(cases, gemm, a, b);
  return {a, b};
}

}  // namespace

std::vector<FittedValue> fit_vidur_ops(const std::vector<const VidurCase*>& cases, const GpuSpec& gpu,
                                       const RooflineParams& base, const std::string& source) {
  RooflineParams unit = base;
  unit.gemm_efficiency = 1.0;
  unit.gemm_memory_efficiency = 1.0;
  std::map<OpClass, std::vector<Prepared>> by_class;
  std::map<OpClass, std::set<std::string>> models;
  for (const VidurCase* c : cases) {
    const OpClass op = c->kernel.op;
    if (op != OpClass::Gemm) {
      unit.traffic[static_cast<size_t>(op)] = 1.0;
      unit.class_overhead[static_cast<size_t>(op)] = 1.0;
    }
  }
  for (const VidurCase* c : cases) {
    by_class[c->kernel.op].push_back({kernel_times(c->kernel, gpu, unit), c->measured});
    models[c->kernel.op].insert(c->model);
  }
  std::vector<FittedValue> out;
  for (const auto& [op, prepared] : by_class) {
    if (op == OpClass::Generic) continue;
    const bool gemm = op == OpClass::Gemm;
    const std::string name = op_class_name(op);
    double error = 0;
    const auto [a, b] = gemm ? minimize(prepared, true, {0.2, 1.0}, {0.2, 1.0}, error)
                             : minimize(prepared, false, {0.1, 20.0}, {0.0, 10.0}, error);
    const std::string from = fmt::format("{}: {} {} ops of {} models, minimum mean absolute percentage error {:.1f}%",
                                         source, prepared.size(), name, models[op].size(), 100 * error);
    const int points = static_cast<int>(prepared.size());
    if (gemm) {
      out.push_back({"roofline.gemm_efficiency", units::Dim::Ratio, a, 0, error, points, from});
      out.push_back({"roofline.gemm_memory_efficiency", units::Dim::Ratio, b, 0, error, points, from});
    } else {
      out.push_back({"roofline." + name + "_traffic", units::Dim::Ratio, a, 0, error, points, from});
      out.push_back({"roofline." + name + "_overhead", units::Dim::Ratio, b, 0, error, points, from});
    }
  }
  return out;
}

void add_vidur_fit(Calibration& c, const std::vector<const VidurCase*>& cases) {
  const CatalogEntry* entry = builtin_catalog().find(c.gpu);
  if (!entry) throw InputError(fmt::format("{}: not a catalog GPU", c.gpu));
  // The other parameters as scenarios would have them, less any earlier op-class values.
  std::erase_if(c.values, [](const FittedValue& v) { return v.from.starts_with(kVidurSource); });
  const RooflineParams base = RooflineParams::table().with(c.overrides());
  for (FittedValue& v : fit_vidur_ops(cases, entry->spec, base, kVidurSource)) c.values.push_back(std::move(v));
}

int fit_vidur_command(const std::string& dir, const std::string& out_dir) {
  std::vector<VidurSkip> skipped;
  const std::vector<VidurCase> cases = read_vidur_cases(dir, "", skipped);
  std::map<std::string, std::vector<const VidurCase*>> by_gpu;
  for (const VidurCase& c : cases) by_gpu[c.gpu].push_back(&c);
  for (const auto& [gpu, mine] : by_gpu) {
    const std::string name = calibration_file_name(gpu);
    const fs::path existing = fs::path(out_dir) / name;
    Calibration c;
    if (!out_dir.empty() && fs::is_regular_file(existing)) {
      c = read_calibration_file(existing.string());
    } else {
      c.gpu = gpu;
      c.device = gpu;
      c.raw = std::string(kVidurSource) + " " + dir;
    }
    add_vidur_fit(c, mine);
    const std::string text = calibration_yaml(c);
    if (!out_dir.empty()) write_atomically(out_dir, name, text);
    std::cout << "# " << gpu << (out_dir.empty() ? "" : " -> " + out_dir + "/" + name) << "\n" << text;
  }
  return 0;
}

}  // namespace vgpusim
