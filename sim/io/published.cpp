// Importers of published measurements (see published.hpp).
#include "sim/io/published.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <sstream>

#include "sim/core/errors.hpp"
#include "sim/io/text_fields.hpp"

namespace vgpusim {
namespace {

std::vector<std::string> words(const std::string& line) {
  std::vector<std::string> out;
  std::istringstream in(line);
  std::string w;
  while (in >> w) out.push_back(w);
  return out;
}

}  // namespace

std::vector<GavelPair> read_gavel_pairs(const std::string& path) {
  std::vector<GavelPair> out;
  read_csv(path,
           {"gpu", "job_a", "scale_a", "job_b", "scale_b", "solo_tput_a", "solo_tput_b", "coloc_tput_a",
            "coloc_tput_b"},
           [&](const CsvRow& c) {
             GavelPair p;
             p.gpu = c["gpu"];
             p.job_a = c["job_a"];
             p.job_b = c["job_b"];
             p.scale_a = c.integer("scale_a");
             p.scale_b = c.integer("scale_b");
             p.solo_a = c.number("solo_tput_a");
             p.solo_b = c.number("solo_tput_b");
             p.coloc_a = c.number("coloc_tput_a");
             p.coloc_b = c.number("coloc_tput_b");
             p.line = c.line;
             out.push_back(std::move(p));
           });
  return out;
}

std::vector<LucidPair> read_lucid_pairs(const std::string& path) {
  std::vector<LucidPair> out;
  read_csv(path,
           {"model1", "dataset1", "batchsize1", "amp1", "speed1", "model2", "dataset2", "batchsize2", "amp2",
            "speed2"},
           [&](const CsvRow& c) {
             LucidPair p;
             for (int side = 1; side <= 2; ++side) {
               const std::string k = std::to_string(side);
               LucidJob& j = side == 1 ? p.a : p.b;
               j.model = c["model" + k];
               j.dataset = c["dataset" + k];
               j.batch = c.integer("batchsize" + k);
               j.amp = c.integer("amp" + k) != 0;
               (side == 1 ? p.speed_a : p.speed_b) = c.number("speed" + k);
               if (c.has("gpu_num" + k) && !c["gpu_num" + k].empty())
                 (side == 1 ? p.gpus_a : p.gpus_b) = c.integer("gpu_num" + k);
             }
             p.line = c.line;
             out.push_back(std::move(p));
           });
  return out;
}

std::vector<LucidSolo> read_lucid_solo(const std::string& path) {
  std::vector<LucidSolo> out;
  read_csv(path, {"model", "dataset", "batchsize", "amp", "speed", "gpu_util", "gmem_util", "gmem"},
           [&](const CsvRow& c) {
             LucidSolo s;
             s.job.model = c["model"];
             s.job.dataset = c["dataset"];
             s.job.batch = c.integer("batchsize");
             s.job.amp = c.integer("amp") != 0;
             s.speed = c.number("speed");
             s.gpu_util = c.number("gpu_util") / 100;
             s.mem_util = c.number("gmem_util") / 100;
             s.memory = c.number("gmem") * 1048576;
             s.line = c.line;
             out.push_back(std::move(s));
           });
  return out;
}

std::vector<MigPerfRow> read_migperf(const std::string& path) {
  std::vector<MigPerfRow> out;
  read_csv(path,
           {"gpu", "task", "domain", "model", "batch_size", "seq_length", "mig_profile", "latency_ms", "throughput",
            "gract_mean", "fb_used_mean_MiB"},
           [&](const CsvRow& c) {
             MigPerfRow r;
             r.gpu = c["gpu"];
             r.task = c["task"];
             r.domain = c["domain"];
             r.model = c["model"];
             r.profile = c["mig_profile"];
             r.batch = c.integer("batch_size");
             r.seq = c["seq_length"].empty() ? 0 : c.integer("seq_length");
             r.latency_ms = c.number("latency_ms");
             r.throughput = c.number("throughput");
             r.gract = c.number("gract_mean");
             r.fb_mib = c.number("fb_used_mean_MiB");
             r.line = c.line;
             out.push_back(std::move(r));
           });
  return out;
}

std::vector<MigPerfRow> read_migperf_experiment(const std::string& path, const std::string& task,
                                                const std::string& domain) {
  std::vector<MigPerfRow> out;
  read_csv(path, {"model_name", "batch_size", "latency", "throughput", "gract_mean", "fb_used_mean"},
           [&](const CsvRow& c) {
             MigPerfRow r;
             r.gpu = "A100-40GB";
             r.task = task;
             r.domain = domain;
             r.model = c["model_name"];
             const std::string size_key = c.has("instance_memory") ? "instance_memory" : "mig";
             if (!c.has(size_key))
               throw InputError(fmt::format("{}:{}: expected an instance_memory or mig column", path, c.line));
             const int gb = c.integer(size_key);
             const std::map<int, std::string> profiles = {
                 {5, "1g.5gb"}, {10, "2g.10gb"}, {20, "3g.20gb"}, {40, "7g.40gb"}};
             const auto p = profiles.find(gb);
             if (p == profiles.end())
               throw InputError(
                   fmt::format("{}:{}: {}: expected 5, 10, 20 or 40 (GB), found {}", path, c.line, size_key, gb));
             r.profile = p->second;
             r.batch = c.integer("batch_size");
             r.seq = c.has("seq_length") ? c.integer("seq_length") : 0;
             r.latency_ms = c.number("latency");
             r.throughput = c.number("throughput");
             r.gract = c.number("gract_mean");
             r.fb_mib = c.number("fb_used_mean");
             r.line = c.line;
             out.push_back(std::move(r));
           });
  return out;
}

StreamTable read_gpu_stream(const std::string& path) {
  StreamTable t;
  for_each_line(path, [&](const std::string& line, size_t n) {
    const auto bar = line.find('|');
    if (bar == std::string::npos) throw InputError(fmt::format("{}:{}: expected 'left | right' columns", path, n));
    const std::vector<std::string> left = words(line.substr(0, bar));
    std::vector<std::string> right = words(line.substr(bar + 1));
    if (t.kernels.empty()) {
      if (left.size() != 3 || left[0] != "blockSize" || left[1] != "threads" || left[2] != "%occ" || right.empty())
        throw InputError(fmt::format("{}:{}: expected the header 'blockSize threads %occ | kernels...'", path, n));
      t.kernels = right;
      return;
    }
    if (!right.empty() && right[0] == "GB/s:") right.erase(right.begin());
    if (left.size() != 4 || left[3] != "%" || right.size() != t.kernels.size())
      throw InputError(fmt::format("{}:{}: expected 'BLOCK THREADS OCC % | GB/s: {} values'", path, n,
                                   t.kernels.size()));
    StreamRow r;
    r.block_size = field_integer(path, n, "blockSize", left[0]);
    r.threads = field_number(path, n, "threads", left[1]);
    r.occupancy = field_number(path, n, "%occ", left[2]) / 100.0;
    for (size_t i = 0; i < right.size(); ++i) r.bandwidth.push_back(field_number(path, n, t.kernels[i], right[i]) * 1e9);
    r.line = n;
    t.rows.push_back(std::move(r));
  });
  if (t.rows.empty()) throw InputError(fmt::format("{}: no measurements", path));
  return t;
}

std::vector<SmallKernelRow> read_small_kernels(const std::string& path) {
  std::vector<SmallKernelRow> out;
  for_each_line(path, [&](const std::string& line, size_t n) {
    const std::vector<std::string> w = words(line);
    if (w.size() < 3 || w[1].size() < 3 || w[1].substr(w[1].size() - 2) != "kB")
      throw InputError(fmt::format("{}:{}: expected 'ELEMENTS SIZEkB GB/s...'", path, n));
    SmallKernelRow r;
    r.elements = field_number(path, n, "elements", w[0]);
    r.volume = 16 * r.elements;  // a scale kernel on doubles: 8 bytes read and 8 written per element
    // The size column is a check only: most files print KiB, the A100-80GB ones MiB under the same "kB" label.
    const double size = field_number(path, n, "size", w[1].substr(0, w[1].size() - 2));
    if (std::abs(size * 1024 - r.volume) > 1024 + 0.02 * r.volume &&
        std::abs(size * 1024 * 1024 - r.volume) > 1024 * 1024 + 0.02 * r.volume)
      throw InputError(fmt::format("{}:{}: size {} does not match 16 bytes x {} elements", path, n, w[1], w[0]));
    for (size_t i = 2; i < w.size(); ++i) r.bandwidth.push_back(field_number(path, n, "GB/s", w[i]) * 1e9);
    r.line = n;
    out.push_back(std::move(r));
  });
  if (out.empty()) throw InputError(fmt::format("{}: no measurements", path));
  return out;
}

std::vector<L2CacheRow> read_l2_cache(const std::string& path) {
  std::vector<L2CacheRow> out;
  for_each_line(path, [&](const std::string& line, size_t n) {
    const std::vector<std::string> w = words(line);
    if (!w.empty() && w[0] == "data") return;  // the header
    // "512 kB   1536 kB   10ms   0.4%   5195.6 GB/s   0 GB/s ..." (per block, data set, time, spread, bandwidth)
    if (w.size() < 8 || w[1] != "kB" || w[3] != "kB" || w[7] != "GB/s")
      throw InputError(fmt::format("{}:{}: expected 'BLOCK kB  DATASET kB  TIME  SPREAD  BANDWIDTH GB/s ...'", path, n));
    L2CacheRow r;
    r.data_set = field_number(path, n, "data set", w[2]) * 1024;
    r.bandwidth = field_number(path, n, "GB/s", w[6]) * 1e9;
    r.line = n;
    out.push_back(r);
  });
  if (out.empty()) throw InputError(fmt::format("{}: no measurements", path));
  return out;
}

std::vector<VidurRow> read_vidur_ops(const std::string& path) {
  std::vector<VidurRow> out;
  const std::vector<std::string> shape = {"n_head",     "n_kv_head",     "n_embd",
                                          "n_expanded_embd", "vocab_size", "use_gated_mlp",
                                          "num_tokens", "num_tensor_parallel_workers"};
  read_csv(path, shape, [&](const CsvRow& c) {
    VidurRow r;
    r.n_head = c.integer("n_head");
    r.n_kv_head = c.integer("n_kv_head");
    r.n_embd = c.integer("n_embd");
    r.n_expanded_embd = c.integer("n_expanded_embd");
    r.vocab_size = c.integer("vocab_size");
    const std::string& g = c["use_gated_mlp"];
    if (g != "True" && g != "False")
      throw InputError(fmt::format("{}:{}: use_gated_mlp: expected True or False, found '{}'", path, c.line, g));
    r.gated_mlp = g == "True";
    r.tokens = c.integer("num_tokens");
    r.tensor_parallel = c.integer("num_tensor_parallel_workers");
    if (r.tensor_parallel < 1)
      throw InputError(fmt::format("{}:{}: num_tensor_parallel_workers must be >= 1", path, c.line));
    for (const auto& [name, v] : {std::pair{"n_head", r.n_head}, {"n_embd", r.n_embd}, {"n_expanded_embd", r.n_expanded_embd},
                                  {"num_tokens", r.tokens}})
      if (v < 1) throw InputError(fmt::format("{}:{}: {} must be >= 1", path, c.line, name));
    for (size_t i = 0; i < c.cells.size(); ++i) {
      const std::string& name = c.header.names[i];
      const std::string& text = c.cells[i];
      if (name.size() < 4 || name.substr(name.size() - 3) != "_ms") continue;
      if (text.empty()) continue;  // an op the model does not have (phi-2 has no post-attention norm)
      r.op_time[name.substr(0, name.size() - 3)] = field_number(path, c.line, name, text) * 1e-3;
    }
    r.line = c.line;
    out.push_back(std::move(r));
  });
  return out;
}

std::string published_gpu_name(const std::string& stem) {
  // Vidur's h100 profiles come from its H100 device configuration (1000 TFLOPS FP16, 80 GB) on DGX or pairwise
  // NVLink nodes: the SXM board. gpu-benches names the H100 PCIe board h100_pcie.
  static const std::map<std::string, std::string> names = {
      {"a100_40", "A100-40GB"}, {"alex_a100_40", "A100-40GB"}, {"a100_80", "A100-80GB"}, {"a100", "A100-80GB"},
      {"h100_pcie", "H100-PCIe"}, {"h200", "H200"},          {"v100", "V100"},          {"a40", "A40"},
      {"alex_a40", "A40"},        {"l40", "L40"},            {"genoa_l40", "L40"},      {"mi100", "MI100"},
      {"mi210", "MI210"},         {"h100", "H100-SXM"}};
  const auto it = names.find(stem);
  return it == names.end() ? "" : it->second;
}


}  // namespace vgpusim
