// The six placement policies of the FGD paper's simulator, scoring exactly as it does (integer scores, its typical
// pods and fragmentation measure), so that its published study can be reproduced: Weng et al., "Beware of
// Fragmentation: Scheduling GPU-Sharing Workloads with Fragmentation Gradient Descent", USENIX ATC'23, and its
// simulator hkust-adsl/kubernetes-scheduler-simulator (pkg/simulator/plugin, pkg/utils/frag.go; read, not copied).
// Our own policies (placement.hpp) are kept beside these; docs/cluster.md names where the two differ.
//
// Units are the reference's: CPU in milli-cores, GPU in milli-GPU per device (1000 = a whole GPU), memory in MiB.
// Memory is checked when filtering and ignored when scoring, as there.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace vgpusim {

inline constexpr int kRefMilli = 1000;             // milli-GPU of one device
inline constexpr double kRefMaxSpecCpu = 128000;  // the reference's normalisers (MaxSpecCpu, MaxSpecGpu)
inline constexpr double kRefMaxSpecGpu = 8000;

struct RefPod {
  int64_t cpu_milli = 0;
  int64_t memory_mib = 0;
  int milli_gpu = 0;                    // per device; 0: no GPU
  int gpu_count = 0;
  std::vector<std::string> gpu_types;   // accepted GPU models; empty: any
  bool share() const { return gpu_count == 1 && milli_gpu < kRefMilli; }
  int64_t total_milli_gpu() const { return static_cast<int64_t>(milli_gpu) * gpu_count; }
};

struct RefNode {
  std::string model;
  int64_t cpu_left = 0;
  int64_t memory_left = 0;
  std::vector<int> gpu_left;                 // milli-GPU free on each device
  std::vector<std::pair<int, int>> tags;     // GPU clustering's pod tags on the node: (0 = share, n = n whole
                                             // GPUs) -> pods; sorted by tag
  int64_t total_gpu_left() const;
  bool operator==(const RefNode&) const = default;
};

// A typical pod: one exact (CPU, milli-GPU, GPU count, GPU model list) request and its share of the trace.
struct TypicalPod {
  int64_t cpu_milli = 0;
  int milli_gpu = 0;
  int gpu_count = 0;
  std::vector<std::string> gpu_types;
  double weight = 0;
};

// The reference's typical pods: the most common exact requests (CPU-only pods included), most common first, until
// they cover `percent` of the pods (the one that reaches or crosses it included), their weights renormalised to
// sum to 1.
std::vector<TypicalPod> reference_typical_pods(const std::vector<RefPod>& pods, int percent = 95);

// The reference's fragmentation of one node, milli-GPU: for each typical pod, weighted by its share, the free
// milli-GPU on devices too small for it when it fits the node (GPU model, GPU count, CPU), else all free milli-GPU
// of the node (CPU-only typical pods count all of it too).
double reference_node_fragmentation(const RefNode& node, const std::vector<TypicalPod>& typical);

bool reference_accessible(const RefNode& node, const RefPod& pod);  // GPU model accepted (CPU-only pods: any)
bool reference_fits(const RefNode& node, const RefPod& pod);        // the reference's filters

enum class RefPolicy { Random, DotProduct, GpuClustering, GpuPacking, BestFit, Fgd, FgdExact };

struct RefPolicyInfo {
  RefPolicy id;
  std::string name;    // `vgpusim study --policies` value
  std::string label;   // sc_policy in the published CSV files
  std::string description;
};
const std::vector<RefPolicyInfo>& reference_policies();
const RefPolicyInfo* find_reference_policy(const std::string& name);

// A policy's score of one feasible node and the devices it would give the pod there. Higher is better; the
// reference's scores are integers 0..100 (the exact variant's is not). Random's score is 0 everywhere (the caller
// draws the node) and its devices are the best-fit ones (the caller draws a share pod's device).
struct RefScore {
  double score = 0;
  std::vector<int> gpus;
};
RefScore reference_score(RefPolicy policy, const RefNode& node, const RefPod& pod,
                         const std::vector<TypicalPod>& typical, double fragmentation_before);

// The reference's device choice "best": a share pod takes the device with the least room that fits (lowest index on
// ties); other pods the lowest-numbered whole free devices.
std::vector<int> reference_best_gpus(const RefNode& node, const RefPod& pod);

// Takes the pod's resources on the node and devices.
void reference_place(RefNode& node, const RefPod& pod, const std::vector<int>& gpus);

}  // namespace vgpusim
