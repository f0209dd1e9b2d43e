// Importers of published measurements of real GPUs (scenarios/measurements/, whose README names each source,
// commit and license), read as their authors published them: provenance lines ('#') skipped, headers checked
// by name, every number validated; errors name FILE:LINE.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace vgpusim {

// Gavel (stanford-futuredata/gavel): steps/s of job A alone and while job B runs on the same GPU(s).
struct GavelPair {
  std::string gpu;  // k80, p100, v100, or *_unconsolidated
  std::string job_a, job_b;
  int scale_a = 1, scale_b = 1;  // GPUs per job
  double solo_a = 0, solo_b = 0, coloc_a = 0, coloc_b = 0;
  size_t line = 0;
};
std::vector<GavelPair> read_gavel_pairs(const std::string& path);

// Lucid (S-Lab-System-Group/Lucid, ASPLOS'23): two training jobs time-sliced on one RTX 3090, each job's speed in
// the pair over its solo speed; and each job's solo profile (speed, nvidia-smi utilization, memory).
struct LucidJob {
  std::string model, dataset;
  int batch = 0;
  bool amp = false;
  // The key a pair and a solo profile share.
  std::string key() const { return model + "/" + dataset + "/" + std::to_string(batch) + (amp ? "/amp" : ""); }
};
struct LucidPair {
  LucidJob a, b;
  double speed_a = 0, speed_b = 0;  // normalized: throughput in the pair / throughput alone
  int gpus_a = 1, gpus_b = 1;       // GPUs each job spans (gpu_num1 / gpu_num2; 1 where the file has no such column)
  size_t line = 0;
};
struct LucidSolo {
  LucidJob job;
  double speed = 0;     // samples/s (iterations x batch per second)
  double gpu_util = 0;  // fraction, nvidia-smi utilization.gpu
  double mem_util = 0;  // fraction, nvidia-smi utilization.memory
  double memory = 0;    // bytes used
  size_t line = 0;
};
// colocate_info*.csv (model1, dataset1, batchsize1, amp1, speed1, ... speed2) and single_data*.csv (model, dataset,
// batchsize, amp, speed, gpu_util, gmem_util, gmem in MiB). Throws InputError.
std::vector<LucidPair> read_lucid_pairs(const std::string& path);
std::vector<LucidSolo> read_lucid_solo(const std::string& path);

// MIGPerf (MIGProfiler): one workload on one MIG instance.
struct MigPerfRow {
  std::string gpu, task, domain, model, profile;  // e.g. A100-80GB, train, nlp, bert-base, 3g.40gb
  int batch = 0, seq = 0;                          // seq 0: not given
  double latency_ms = 0, throughput = 0, gract = 0, fb_mib = 0;
  size_t line = 0;
};
std::vector<MigPerfRow> read_migperf(const std::string& path);
// One of MIGProfiler's per-experiment files for an A100-40GB (data/A100-40g: *_bsz.csv, *_seq.csv,
// *_finetune.csv) with DCGM activity; the profile comes from its instance_memory or mig column (GB of the
// instance: 5, 10, 20, 40). `task` and `domain` describe the file (e.g. infer, nlp).
std::vector<MigPerfRow> read_migperf_experiment(const std::string& path, const std::string& task,
                                                const std::string& domain);

// gpu-benches gpu-stream: DRAM bandwidth of streaming kernels against occupancy (one block per SM or more).
struct StreamRow {
  int block_size = 0;
  double threads = 0;    // threads launched in all
  double occupancy = 0;  // fraction of the SMs' thread slots
  std::vector<double> bandwidth;  // bytes/s, one per kernel
  size_t line = 0;
};
struct StreamTable {
  std::vector<std::string> kernels;  // init, read, scale, triad, 3pt, 5pt
  std::vector<StreamRow> rows;
};
StreamTable read_gpu_stream(const std::string& path);

// gpu-benches gpu-small-kernels: 10000 back-to-back launches of a streaming scale kernel against its data volume,
// as GB/s of data volume per launch time. The six columns are not named by the source; readers use their median.
struct SmallKernelRow {
  double elements = 0;
  double volume = 0;  // bytes read and written per launch (16 per element)
  std::vector<double> bandwidth;  // bytes/s per column
  size_t line = 0;
};
std::vector<SmallKernelRow> read_small_kernels(const std::string& path);

// gpu-benches gpu-l2-cache: bandwidth of a kernel that reads a data set over and over against the data set's size
// (the blocks spread it over the whole L2; above L2's size it streams from DRAM).
struct L2CacheRow {
  double data_set = 0;   // bytes (the file's kB are KiB)
  double bandwidth = 0;  // bytes/s, the effective bandwidth column
  size_t line = 0;
};
std::vector<L2CacheRow> read_l2_cache(const std::string& path);

// The catalog GPU a published file name stands for: gpu-benches stems ("a100_80" -> "A100-80GB") and Vidur
// prefixes ("a100" -> "A100-80GB", as Vidur's device configuration says; "a40" -> "A40"); "" when none.
std::string published_gpu_name(const std::string& stem);

// Vidur: median GPU time of each non-attention op of one transformer layer.
struct VidurRow {
  int n_head = 0, n_kv_head = 0, n_embd = 0, n_expanded_embd = 0, vocab_size = 0;
  bool gated_mlp = false;
  int tokens = 0, tensor_parallel = 1;
  // s, by op name without "_ms" (emb, input_layernorm, attn_pre_proj...); ops left empty in the file are absent
  std::map<std::string, double> op_time;
  size_t line = 0;
};
std::vector<VidurRow> read_vidur_ops(const std::string& path);

}  // namespace vgpusim
