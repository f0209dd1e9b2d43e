// Placement policies of the cluster simulator: given the free capacity of every node and a job's request,
// choose a node and GPUs. Registered by name with a description and a citation, like the sharing modes.
#pragma once

#include <functional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "models/cluster/cluster_types.hpp"

namespace vgpusim {

// The free capacity of one node as the simulator keeps it.
struct NodeState {
  const ClusterNode* node = nullptr;
  double cpu_free = 0;          // milli-cores
  double memory_free = 0;       // MiB
  std::vector<int> gpu_free;    // capacity units per GPU (kGpuUnits = idle)
  bool up = true;               // false while preempted (spot capacity reclaimed)
};

// One kind of request in the target workload and its share of all GPU requests (FGD's "task type").
struct TaskType {
  int num_gpu = 0;
  int gpu_units = 0;       // per GPU
  double cpu_milli = 0;    // mean over the jobs of this type
  double memory_mib = 0;   // mean over the jobs of this type
  double weight = 0;       // popularity, the types' weights add up to 1
};

struct Placement {
  int node = -1;           // -1: does not fit anywhere now
  std::vector<int> gpus;   // GPU indices on the node
  int gpu_units = 0;       // units taken on each of those GPUs (a packer may round the request up)
};

// A node by (free GPU units, free CPU, index): the order best fit prefers nodes in.
using FreeKey = std::tuple<double, double, int>;
FreeKey free_key(const NodeState& n, int index);

struct PlacementContext {
  const std::vector<NodeState>& nodes;
  const std::vector<TaskType>& workload;  // the target workload (FGD); other policies ignore it
  const std::vector<double>* fragmentation = nullptr;  // node_fragmentation of each node, when the caller keeps it
  // Every node's free_key, when the caller keeps them current: best fit (and mig_aware) then walk it from the
  // least free capacity that can hold the job instead of scanning every node (the same choice).
  const std::set<FreeKey>* by_free = nullptr;
};

struct PlacementPolicyInfo {
  std::string name;         // scenario `cluster.policy` value
  std::string description;  // one line
  std::string citation;
  std::function<Placement(const PlacementContext&, const ClusterJob&)> place;
};

const std::vector<PlacementPolicyInfo>& placement_policies();
const PlacementPolicyInfo* find_placement_policy(const std::string& name);

// The target workload: one TaskType per (num_gpu, gpu_units) among jobs that ask for GPUs.
std::vector<TaskType> workload_distribution(const std::vector<ClusterJob>& jobs);

// FGD's node fragmentation against a workload (Weng et al., ATC'23, Sec. 3): for each task type m, the free
// GPU capacity that m cannot use (all of it when m cannot run on the node at all, otherwise the free capacity
// of GPUs with less free than m asks per GPU), weighted by m's popularity. In capacity units.
double node_fragmentation(const NodeState& n, const std::vector<TaskType>& workload);

// True when the job can run on the node (up, model accepted, CPU, memory, and enough GPUs with room).
bool node_fits(const NodeState& n, const ClusterJob& job, int gpu_units);

// MIG-like slice sizes in capacity units (from the A100-80GB profile table's compute slices), ascending.
const std::vector<int>& mig_slice_units();

}  // namespace vgpusim
