// Vidur: the GPU time of each non-attention op of one transformer layer against tokens and tensor-parallel degree,
// predicted by the roofline from each op's FLOPs and bytes (fp16 weights and activations).
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>

#include "models/gpu/roofline.hpp"
#include "sim/core/errors.hpp"
#include "sim/io/calibration_file.hpp"
#include "sim/io/gpu_catalog.hpp"
#include "sim/io/published.hpp"
#include "sim/studies/validation/published.hpp"

namespace fs = std::filesystem;

namespace vgpusim {
namespace {

// FLOPs on tensor cores, FLOPs on the FP32 pipes and bytes of one op; false when the op is not modelled.
struct OpWork {
  double tensor = 0, vector = 0, bytes = 0;
};

bool op_work(const std::string& op, const VidurRow& r, OpWork& w) {
  const double n = r.tokens, d = r.n_embd, t = r.tensor_parallel, m = r.n_expanded_embd;
  const double head = d / r.n_head;
  const double e = 2;  // bytes per fp16 element
  auto gemm = [&](double in, double out) {
    w.tensor = 2 * n * in * out;
    w.bytes = e * (in * out + n * in + n * out);
  };
  if (op == "emb") {
    w.bytes = e * 2 * n * d;  // gather a row per token, write it
  } else if (op == "input_layernorm" || op == "post_attention_layernorm") {
    w.bytes = e * 2 * n * d;
    w.vector = 5 * n * d;
  } else if (op == "attn_pre_proj") {
    gemm(d, (r.n_head + 2.0 * r.n_kv_head) * head / t);
  } else if (op == "attn_rope") {
    const double elements = n * (r.n_head + r.n_kv_head) * head / t;
    w.bytes = e * 2 * elements;
    w.vector = 6 * elements;
  } else if (op == "attn_post_proj") {
    gemm(r.n_head * head / t, d);
  } else if (op == "mlp_up_proj") {
    gemm(d, (r.gated_mlp ? 2 : 1) * m / t);
  } else if (op == "mlp_act") {
    const double elements = n * m / t;
    w.bytes = e * elements * (r.gated_mlp ? 3 : 2);
    w.vector = 8 * elements;
  } else if (op == "mlp_down_proj") {
    gemm(m / t, d);
  } else if (op == "add") {
    w.bytes = e * 3 * n * d;
    w.vector = n * d;
  } else {
    return false;
  }
  return true;
}

}  // namespace

std::vector<ValidationRun> validate_vidur(const std::string& dir, const PublishedOptions& options) {
  ValidationRun run;
  run.dataset = "vidur";
  run.quantity = "op time (s)";
  run.method =
      "Vidur profiled each non-attention op of one transformer layer (embedding, layer norms, QKV projection, rotary "
      "embedding, output projection, MLP up / activation / down, residual add) for several models, token counts and "
      "tensor-parallel degrees. The model predicts each op from its FLOPs (GEMMs on the fp16 tensor cores, the "
      "rest on the FP32 pipes) and bytes (fp16 weights read once, activations read and written) with the roofline "
      "with the GPU's shipped calibration (models/calibration/, fitted on gpu-benches' stream tables, not on these "
      "files) on the catalog GPU: the file name's prefix (a100 = A100-80GB, as the source's "
      "device configuration says; a40 = A40), or `--gpu`. No parameter is fitted (split \"no fit\"). The roofline "
      "has no per-kernel latency, so ops of a few microseconds are underestimated; the sharing-model issue adds it. "
      "The rotary embedding is counted over whole heads (phi-2 rotates 40% of each; the files do not say). "
      "Baselines: the plain roofline at catalog peaks (efficiencies 1) and the roofline with its default "
      "efficiencies (no calibration).";
  const ParamValues defaults = ParamValues::defaults(roofline_params());
  ParamValues plain = defaults;
  plain.set("compute_efficiency", 1.0);
  plain.set("memory_efficiency", 1.0);
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    if (name.size() > 18 && name.substr(name.size() - 18) == "_mlp_median_ms.csv") files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  if (files.empty()) throw InputError(fmt::format("{}: no *_mlp_median_ms.csv files", dir));
  for (const fs::path& file : files) {
    const std::string name = file.filename().string();
    const std::string prefix = name.substr(0, name.find('_'));
    const std::string model = name.substr(prefix.size() + 1, name.size() - prefix.size() - 1 - 18);
    const std::string gpu = !options.gpu.empty() ? options.gpu : published_gpu_name(prefix);
    const std::vector<VidurRow> rows = read_vidur_ops(file.string());
    const CatalogEntry* entry = gpu.empty() ? nullptr : builtin_catalog().find(gpu);
    if (!entry) {
      if (!options.gpu.empty()) throw InputError(fmt::format("--gpu {}: not a catalog GPU", options.gpu));
      for (const VidurRow& r : rows) run.skipped.push_back({prefix, fmt::format("GPU not in the catalog ({} ops)", r.op_time.size())});
      continue;
    }
    // The GPU's roofline as scenarios see it: with its shipped calibration (from gpu-benches, another source).
    const ParamValues roof = with_overrides(roofline_params(), builtin_overrides(gpu));
    for (const VidurRow& r : rows)
      for (const auto& [op, time] : r.op_time) {
        OpWork w;
        if (!op_work(op, r, w)) {
          run.skipped.push_back({gpu, "op not modelled: " + op});
          continue;
        }
        if (!(time > 0)) {
          run.skipped.push_back({gpu, "no time measured"});
          continue;
        }
        KernelSpec k;
        k.flops_fp16 = w.tensor;
        k.flops_fp32 = w.vector;
        k.bytes = w.bytes;
        ValidationCase c;
        c.gpu = gpu;
        c.split = options.gpu.empty() ? "no fit" : fmt::format("no fit, {} files predicted for {}", prefix, gpu);
        c.id = fmt::format("{} {} tokens {} tp {}", model, op, r.tokens, r.tensor_parallel);
        c.measured = time;
        c.predicted = solo_time(k, entry->spec, roof);
        c.baseline["plain roofline"] = solo_time(k, entry->spec, plain);
        c.baseline["uncalibrated roofline"] = solo_time(k, entry->spec, defaults);
        run.cases.push_back(c);
      }
  }
  return {run};
}

}  // namespace vgpusim
