// The exact search of a candidate's placement (docs/plan.md, "Scope and limitations"): which replicas share which
// GPU (and, with MIG, on which profile), chosen by simulating every group of replicas one GPU could hold alone and
// a dynamic programme over the replicas not yet placed.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "sim/studies/plan/candidate.hpp"

namespace vgpusim::plan_detail {

struct SearchedPlacement {
  bool found = false;                   // false: no partition of the replicas fits the candidate's GPUs
  std::vector<size_t> gpu_of;           // replica order
  std::vector<std::string> profile_of;  // MIG: each replica's instance profile
  size_t simulated = 0;                 // groups (MIG: replica-profile pairs) simulated
  bool capped = false;                  // MIG: some group's profile choices were cut off
};

// The product over workloads of (replicas + 1) above which the search is not tried.
inline constexpr size_t kMaxSearchStates = 4096;

// nullopt when the candidate has more groupings than kMaxSearchStates (the caller falls back to the fixed rule).
std::optional<SearchedPlacement> search_placement(const PlanSpec& plan, const Candidate& c, const CandidateSetup& s,
                                                  const std::vector<Replica>& replicas);

}  // namespace vgpusim::plan_detail
