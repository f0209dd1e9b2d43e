// The FGD paper's experiment protocol ("reference protocol"), so that its published results can be reproduced file
// for file: the trace's pods sorted by name and shuffled with a seed, topped up with random copies until the GPU
// they ask for reaches `tune` x the cluster's; pods placed one at a time, never leaving, a pod that fits nowhere
// skipped; after every pod the allocation and fragmentation, read on the "arrived GPU" axis (milli-GPU asked by
// all pods so far, failed ones included, over the cluster's) at every whole percent 0..130. docs/cluster.md.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "models/cluster/placement.hpp"
#include "models/cluster/reference_scoring.hpp"

namespace vgpusim {

inline constexpr int kStudyLevels = 131;  // whole percents 0..130 of arrived GPU

struct StudyTrace {
  std::string workload;      // the pod list's file stem, as the published files name it
  std::vector<RefPod> pods;  // in name order
};

// One run of one trace under one policy and seed.
struct StudyRun {
  std::string workload, policy_label;
  uint64_t seed = 0;
  double tune = 0;
  int64_t total_gpus = 0;
  int64_t pods = 0, failed = 0;
  int64_t first_failure = -1;                  // 0-based index of the first pod that found no room; -1: none
  double first_failure_arrived_percent = std::numeric_limits<double>::quiet_NaN();
  std::string first_failure_request;           // "CPU milli-cores; milli-GPU x GPUs[; models]"
  int64_t final_unallocated_milli_gpu = 0;
  double final_allocation_percent = 0, final_fragmentation_percent = 0, final_fragmentation_ratio = 0;
  // At each arrived level 0..130 (NaN: no pod arrived near it): GPU allocation, % of cluster GPU; fragmented GPU,
  // % of cluster GPU; fragmented share of the idle GPU, %. Means over the pods whose arrived level rounds to it.
  std::vector<double> allocation, fragmentation, fragmentation_ratio;
};

// A policy the study can run: one of the reference's (scoring as it does), or one of our own cluster policies
// (placement.hpp, as `cluster.policy` places), named `vgpusim_<name>`, placed under the same protocol and measured
// the same way, so that the two can be compared.
struct StudyPolicy {
  std::string name;   // --policies value
  std::string label;  // sc_policy in the files
  const RefPolicyInfo* reference = nullptr;
  const PlacementPolicyInfo* ours = nullptr;
};
const std::vector<StudyPolicy>& study_policies();
const StudyPolicy* find_study_policy(const std::string& name);

// Runs the reference protocol. Throws InputError when the trace asks for no GPU, the cluster has none or a node has
// more than 64. `use_cache` false scores every node afresh for every pod (the cache's own check; same results).
StudyRun run_reference_protocol(const std::vector<RefNode>& nodes, const StudyTrace& trace, const StudyPolicy& policy,
                                uint64_t seed, double tune, bool use_cache = true);

// The three published files' text (analysis_allo_discrete.csv, analysis_frag_discrete.csv,
// analysis_frag_ratio_discrete.csv), rows in the order given; and a summary of every run (one row each).
std::string study_allocation_csv(const std::vector<StudyRun>& runs);
std::string study_fragmentation_csv(const std::vector<StudyRun>& runs);
std::string study_fragmentation_ratio_csv(const std::vector<StudyRun>& runs);
std::string study_summary_csv(const std::vector<StudyRun>& runs);
std::string study_table(const std::vector<StudyRun>& runs);  // per trace and policy, means over seeds

// Comparing two files of the published format: per (workload, policy) present in both, the mean curve over each
// file's seeds and the largest absolute difference between the two over the levels both have.
struct StudyDifference {
  std::string workload, policy;
  int seeds_a = 0, seeds_b = 0;
  int levels = 0;          // levels compared
  double max_abs = 0;      // percentage points
  int at_level = -1;
  double seed_noise = std::numeric_limits<double>::quiet_NaN();  // 2 x standard error of the difference there
};
struct StudyComparison {
  std::vector<StudyDifference> rows;
  std::vector<std::string> only_in_a, only_in_b;  // "workload/policy"
};
// Throws InputError "PATH:LINE: ..." on a file that is not of the published format.
StudyComparison compare_study_files(const std::string& path_a, const std::string& path_b);
std::string study_comparison_table(const StudyComparison& c, double tolerance);

}  // namespace vgpusim
