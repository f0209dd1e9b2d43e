// `vgpusim study`: the FGD paper's published experiment (reference protocol, six reference policies) over traces x
// policies x seeds on threads, written in the published files' format; and `--compare` of two such files.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/studies/cluster/reference_study.hpp"

namespace vgpusim {

struct StudyOptions {
  std::string nodes;                 // openb node list
  std::vector<std::string> traces;   // openb pod lists
  std::string policies = "random,dot_product,gpu_clustering,gpu_packing,best_fit,fgd";
  std::string seeds = "42-51";       // "A-B" and/or comma-separated
  double tune = 1.3;
  std::string out;                   // directory for the three CSV files and summary.csv
  unsigned threads = 0;              // 0: every core
  std::string shard_flag;            // --shard I/N: only the runs whose index % N == I, into study-shard-I-of-N.json
  unsigned shards = 1;               // --shards N, with a job array's index
  bool quiet = false;
  bool json = false;  // --json: print the runs as JSON (the shard file's schema, vgpusim.study-shard/1) instead of the table
  std::vector<std::string> compare;  // two files: PUBLISHED OURS
  double tolerance = 0.5;            // percentage points, with --compare
};

// The openb node list's GPU nodes, and a pod list in name order (milli-GPU per device, accepted models), for the
// reference protocol. Throw InputError on a malformed file, a node with more than 64 GPUs, or no pods.
std::vector<RefNode> load_study_nodes(const std::string& path);
StudyTrace load_study_trace(const std::string& path);

// Seeds from "42-51", "1,2,5" or a mix; throws InputError on anything else (empty, reversed range, > 100000).
std::vector<uint64_t> parse_seed_list(const std::string& text);

// Exit status: 0, or 4 when --compare finds a difference above the tolerance. Throws InputError on bad input.
int study_command(const StudyOptions& options);
// Joins study-shard-I-of-N.json files of one study into the unsharded run's four files in `out_dir` (and its table).
int merge_study_command(const std::vector<std::string>& parts, const std::string& out_dir);

}  // namespace vgpusim
