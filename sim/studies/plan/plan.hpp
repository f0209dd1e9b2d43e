// Capacity planning: which instance type, how many, shared how, is the cheapest that meets every workload's SLOs.
// A plan file lists workloads with SLOs and candidate instance types and sharing options; every candidate is
// simulated with the node-level engine and judged; the cheapest passing one and the cost/attainment Pareto
// frontier are reported.
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "sim/scenario/scenario.hpp"

namespace vgpusim {

struct PlanSlo {
  double throughput = 0;  // units per second at least; 0 = none
  double deadline = std::numeric_limits<double>::infinity();  // completion within (s)
};

struct PlanWorkload {
  std::string name;
  int replicas = 1;
  double memory = 0;  // bytes per replica
  WorkloadRef workload;
  PlanSlo slo;        // latency SLOs live in the inference workload itself
};

struct PlanInstanceType {
  std::string name;      // e.g. g5.xlarge
  std::string gpu;       // catalog GPU name
  int gpus = 1;
  double fraction = 1;        // < 1: an SR-IOV slice of one GPU (Azure NVv4), one replica per instance
  double price_per_hour = 0;  // $ on demand
  double spot_discount = -1;  // fraction off on-demand for spot capacity (catalog minimum); < 0: none known
};

// Spot capacity: every plan candidate also runs on spot instances, cheaper but interrupted. An interrupted instance
// is away for `restart`; its replicas serve nothing meanwhile and redo the work since their last checkpoint.
struct PlanSpot {
  bool enabled = false;
  double discount = -1;             // fraction off on-demand; < 0: each instance type's catalog minimum
  double interruptions = 0;         // per instance, 1/s
  double restart = 0;               // s until a replacement serves again
  double checkpoint_interval = 0;   // s of work between checkpoints (0: nothing is redone)
};

struct PlanSharing {
  std::string label;  // e.g. "timeslice", "mps", "vgpu A10-12Q"
  SharingConfig config;  // with the models' defaults where the plan sets nothing
  // The same on each candidate GPU model: defaults from that GPU's shipped calibration (models/calibration).
  std::map<std::string, SharingConfig> by_gpu;
};

struct PlanSpec {
  std::string file, name;
  uint64_t seed = 1;
  double duration = 60;  // s
  Fidelity fidelity = Fidelity::Fluid;
  std::vector<PlanWorkload> workloads;
  std::vector<PlanInstanceType> instances;
  int max_instances = 4;
  bool search_placement = true;  // false: the fewest-tenants rule only
  PlanSpot spot;
  std::vector<PlanSharing> sharing;
};

// One replica of a candidate as placed and simulated.
struct PlacedReplica {
  std::string tenant, workload, gpu;  // gpu: the GPU's id, or GPU/instance with MIG
  std::string profile;                // MIG: the instance's profile
  bool has_slo = false, met = false;
  double p99 = std::numeric_limits<double>::quiet_NaN();     // s; inference only
  double margin = std::numeric_limits<double>::quiet_NaN();  // smallest relative SLO margin (< 0: missed)
};

struct Candidate {
  size_t index = 0;  // position in the full candidate list (stable across shards)
  std::string instance;
  bool spot = false;  // on spot capacity (PlanSpot)
  int count = 0;
  std::string sharing;
  std::string mode;            // the sharing mode's name ("sriov" for a GPU-slice instance)
  std::string gpu;             // the instance type's GPU (catalog name)
  int gpus_per_instance = 1;
  double cost_per_hour = 0;
  bool feasible = false;      // the replicas could be placed and the mode accepted them
  std::string note;           // why not feasible, or which SLOs failed
  int slos_met = 0, slos = 0;  // replicas meeting all their SLOs, replicas with SLOs
  bool meets_all = false;
  std::string search;                   // how the replicas were placed
  std::vector<PlacedReplica> placement;  // in placement order (largest memory first)

  // The fraction of replicas with SLOs that meet them (1 when none has one).
  double attainment() const { return slos ? static_cast<double>(slos_met) / slos : 1.0; }
};

// Every candidate of the plan, in a fixed order (instance, count, sharing, then on demand before spot; a GPU-slice
// instance type has one sharing option).
std::vector<Candidate> enumerate_candidates(const PlanSpec& plan);
// Simulates and judges candidate `c` (fills its fields).
void evaluate_candidate(const PlanSpec& plan, Candidate& c);
// Evaluates the candidates whose index % shards == shard, on `threads` threads.
std::vector<Candidate> evaluate_plan(const PlanSpec& plan, unsigned shard, unsigned shards, unsigned threads);

struct PlanOutcome {
  std::vector<Candidate> candidates;  // by index
  long best = -1;                     // cheapest meeting every SLO (ties: fewer instances, then order)
  long runner_up = -1;                // the next one by the same rule
  std::vector<size_t> pareto;         // cost vs attainment frontier, by cost
};
PlanOutcome summarize_plan(std::vector<Candidate> candidates);

}  // namespace vgpusim
