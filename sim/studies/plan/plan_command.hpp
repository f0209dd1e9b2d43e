// `vgpusim plan` and `vgpusim merge`: evaluate a plan's candidates (on threads, or one shard of them for a Slurm
// job array or a Kubernetes Indexed Job) and report the cheapest configuration meeting every SLO.
#pragma once

#include <string>
#include <vector>

#include "sim/report/run_command.hpp"
#include "sim/report/shard.hpp"
#include "sim/studies/plan/plan_loader.hpp"

namespace vgpusim {

// How `vgpusim plan` divides the work: --shard I/N (or a job array's index with --shards N), --threads.
struct PlanRun {
  std::string shard_flag;
  unsigned shards = 1;
  unsigned threads = 0;  // 0: every core
  bool json = false;     // --json: print plan.json (or the shard's file) instead of the table
};

// What a plan's outputs are made from.
struct PlanReport {
  std::string name, file;
  PlanOutcome outcome;
  size_t total = 0;  // candidates of the whole plan
  unsigned shard = 0, shards = 1;
};
using PlanFormat = OutputFormat<PlanReport>;
// table (stdout), json (results.json), csv (results.csv).
const std::vector<PlanFormat>& plan_formats();

// `vgpusim plan`: --out gets plan.json (or plan-shard-I-of-N.json, which `vgpusim merge` joins).
int plan_command(const ScenarioDocument& doc, const PlanRun& run, const std::string& out_dir, bool quiet);
// `vgpusim run` on a plan file: --out gets results.json and results.csv like any run.
int run_plan_command(const ScenarioDocument& doc, const RunOptions& options);
int merge_command(const std::vector<std::string>& parts, const std::string& out_dir);

std::string plan_csv(const PlanOutcome& outcome);
std::string plan_table(const std::string& name, const PlanOutcome& outcome, size_t total);
std::string plan_json(const std::string& name, const std::string& file, const PlanOutcome& outcome, size_t total,
                      unsigned shard, unsigned shards);

}  // namespace vgpusim
