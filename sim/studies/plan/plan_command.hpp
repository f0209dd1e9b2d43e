// `vgpusim plan` and `vgpusim merge`: evaluate a plan's candidates (on threads, or one shard of them for a Slurm
// job array or a Kubernetes Indexed Job) and report the cheapest configuration meeting every SLO.
#pragma once

#include <string>
#include <vector>

#include "sim/studies/plan/plan_loader.hpp"

namespace vgpusim {

// "I/N" from --shard, else SLURM_ARRAY_TASK_ID (with SLURM_ARRAY_TASK_COUNT or `shards`) or JOB_COMPLETION_INDEX
// (with `shards`); {0, 1} when none.
std::pair<unsigned, unsigned> resolve_shard(const std::string& shard_flag, unsigned shards);

// `as_results`: invoked by `vgpusim run`: --out gets results.json and results.csv like any run.
int plan_command(const std::string& path, const std::string& out_dir, const std::string& shard_flag, unsigned shards,
                 unsigned threads, const InstanceLookup& lookup, bool quiet, bool as_results = false);
int merge_command(const std::vector<std::string>& parts, const std::string& out_dir);

std::string plan_csv(const PlanOutcome& outcome);
std::string plan_table(const std::string& name, const PlanOutcome& outcome, size_t total);
std::string plan_json(const std::string& name, const std::string& file, const PlanOutcome& outcome, size_t total,
                      unsigned shard, unsigned shards);

}  // namespace vgpusim
