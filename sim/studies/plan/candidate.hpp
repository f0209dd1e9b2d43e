// How a plan candidate is built and judged: its instance type, GPU and sharing resolved, the scenario of its
// replicas on its GPUs (MIG instances and SR-IOV slices included), the fixed fewest-tenants placement, and the judgement
// of each replica against its SLOs. Shared by the candidate evaluation (plan.cpp) and the placement search.
#pragma once

#include <string>
#include <vector>

#include "models/sharing/mig_profiles.hpp"
#include "sim/io/gpu_catalog.hpp"
#include "sim/run/metrics.hpp"
#include "sim/studies/plan/plan.hpp"

namespace vgpusim::plan_detail {

struct Replica {
  size_t workload;  // index in plan.workloads
  int r;            // 0-based replica number
};

// Every replica, largest memory first (stable: plan order).
std::vector<Replica> replicas_of(const PlanSpec& plan);

// What a candidate is made of once its names are resolved.
struct CandidateSetup {
  const PlanInstanceType* it = nullptr;
  const CatalogEntry* gpu = nullptr;
  const SharingModeInfo* info = nullptr;
  const SharingConfig* config = nullptr;
  size_t gpus = 0;  // count x GPUs per instance
  const MigGpuTable* mig = nullptr;  // a partitioning mode: the GPU's profile table (layouts are searched)
  SharingConfig own_config;          // an SR-IOV slice's sharing (config points here)
  // Tenants one GPU may hold, and the memory each GPU offers them.
  int max_tenants() const { return it->fraction < 1 ? 1 : info->max_contexts; }
  double memory() const { return gpu->spec.memory * it->fraction; }
  // Isolated modes size their partitions themselves (MIG profiles, vGPU types), except one that gives its one
  // tenant the whole GPU (passthrough): its memory is the GPU's.
  bool memory_checked() const { return it->fraction < 1 || !info->memory_isolation || info->max_contexts == 1; }
};

// Resolves the candidate; returns "" or why it cannot exist.
std::string resolve(const PlanSpec& plan, const Candidate& c, CandidateSetup& s);

// The scenario of `gpus` GPUs of the candidate's kind with replica i on GPU gpu_of[i]; returns "" or the mode's
// refusal of some GPU's tenants. With MIG, replica i gets its own instance of profile profile_of[i] on its GPU.
std::string build(const PlanSpec& plan, const Candidate& c, const CandidateSetup& s, size_t gpus,
                  const std::vector<Replica>& replicas, const std::vector<size_t>& gpu_of, Scenario& sc,
                  const std::vector<std::string>& profile_of = {});

// The fixed rule: each replica, largest memory first, on the GPU with the fewest tenants that has room. Returns ""
// or why the replicas do not fit.
std::string fewest_tenants(const PlanSpec& plan, const CandidateSetup& s, const std::vector<Replica>& replicas,
                           std::vector<size_t>& gpu_of);

// Runs a candidate's scenario, refused as `vgpusim run` refuses one (sim/run/estimate.hpp) when a pilot of its first
// events estimates more than the default event limit, or shows that simulated time does not advance: the plan's
// `duration` is simulated for every candidate.
Results run_candidate(const Scenario& sc);

// Judges one replica's result: whether it has SLOs, meets them, and by how much (the smallest relative margin
// over its SLOs: (bound - latency) / bound, (throughput - target) / target, (deadline - completion) / deadline).
// On spot capacity (`spot`), its interruptions are charged.
PlacedReplica judge(const PlanWorkload& w, const TenantResult& t, const PlanSpot* spot = nullptr);

}  // namespace vgpusim::plan_detail
