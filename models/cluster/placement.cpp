// Placement policies (first_fit, best_fit, spread, fgd, mig_aware) and FGD's fragmentation measure.
// Each policy scans the nodes in index order, so ties resolve to the lowest node and GPU index.
#include "models/cluster/placement.hpp"

#include <algorithm>
#include <limits>
#include <map>
#include <utility>

#include "models/sharing/mig_profiles.hpp"

namespace vgpusim {
namespace {

bool model_accepted(const ClusterJob& job, const ClusterNode& node) {
  return job.gpu_models.empty() ||
         std::find(job.gpu_models.begin(), job.gpu_models.end(), node.gpu_model) != job.gpu_models.end();
}

enum class GpuOrder { LowestIndex, Tightest, Loosest };

// k GPUs with at least `units` free, in the given preference; empty when there are not enough.
std::vector<int> choose_gpus(const NodeState& n, int k, int units, GpuOrder order) {
  std::vector<int> ok;
  for (int g = 0; g < static_cast<int>(n.gpu_free.size()); ++g)
    if (n.gpu_free[g] >= units) ok.push_back(g);
  if (static_cast<int>(ok.size()) < k) return {};
  if (order != GpuOrder::LowestIndex)
    std::stable_sort(ok.begin(), ok.end(), [&](int a, int b) {
      return order == GpuOrder::Tightest ? n.gpu_free[a] < n.gpu_free[b] : n.gpu_free[a] > n.gpu_free[b];
    });
  ok.resize(static_cast<size_t>(k));
  std::sort(ok.begin(), ok.end());
  return ok;
}

double free_units(const NodeState& n) {
  double s = 0;
  for (int f : n.gpu_free) s += f;
  return s;
}

// Best fit / spread: the node whose free GPU capacity after placement is smallest (sign +1) or largest (-1),
// CPU left over breaking ties.
Placement pack(const PlacementContext& ctx, const ClusterJob& job, int units, double sign, GpuOrder order) {
  Placement best;
  if (sign > 0 && ctx.by_free) {
    // In (free, CPU, index) order the first node that fits has the smallest score, then CPU, then index: the
    // scan's choice. A node with less free capacity than the job's k x units cannot hold it.
    const double need = static_cast<double>(job.num_gpu) * units;
    for (auto it = ctx.by_free->lower_bound({need, -std::numeric_limits<double>::infinity(), -1});
         it != ctx.by_free->end(); ++it) {
      const int i = std::get<2>(*it);
      if (!node_fits(ctx.nodes[i], job, units)) continue;
      best.node = i;
      best.gpus = choose_gpus(ctx.nodes[i], job.num_gpu, units, order);
      best.gpu_units = units;
      return best;
    }
    return best;
  }
  double best_score = std::numeric_limits<double>::infinity(), best_cpu = best_score;
  for (int i = 0; i < static_cast<int>(ctx.nodes.size()); ++i) {
    const NodeState& n = ctx.nodes[i];
    if (!node_fits(n, job, units)) continue;
    const double score = sign * (free_units(n) - static_cast<double>(job.num_gpu) * units);
    const double cpu = sign * (n.cpu_free - job.cpu_milli);
    if (score < best_score || (score == best_score && cpu < best_cpu)) {
      best_score = score;
      best_cpu = cpu;
      best.node = i;
    }
  }
  if (best.node >= 0) {
    best.gpus = choose_gpus(ctx.nodes[best.node], job.num_gpu, units, order);
    best.gpu_units = units;
  }
  return best;
}

Placement first_fit(const PlacementContext& ctx, const ClusterJob& job) {
  for (int i = 0; i < static_cast<int>(ctx.nodes.size()); ++i)
    if (node_fits(ctx.nodes[i], job, job.gpu_units))
      return {i, choose_gpus(ctx.nodes[i], job.num_gpu, job.gpu_units, GpuOrder::LowestIndex), job.gpu_units};
  return {};
}

Placement best_fit(const PlacementContext& ctx, const ClusterJob& job) {
  return pack(ctx, job, job.gpu_units, 1, GpuOrder::Tightest);
}

Placement spread(const PlacementContext& ctx, const ClusterJob& job) {
  return pack(ctx, job, job.gpu_units, -1, GpuOrder::Loosest);
}

// FGD: among every node and every distinct way to place the job there, the one that increases the node's
// fragmentation least (Weng et al. 2023, Algorithm 1).
Placement fgd(const PlacementContext& ctx, const ClusterJob& job) {
  Placement best;
  double best_delta = std::numeric_limits<double>::infinity();
  const int u = job.gpu_units;
  NodeState after;  // reused: copy-assignment keeps its buffer, so the scan does not allocate
  const auto consider = [&](int i, const NodeState& n, double before, const std::vector<int>& gpus, int one_gpu) {
    after = n;
    after.cpu_free -= job.cpu_milli;
    after.memory_free -= job.memory_mib;
    if (one_gpu >= 0) after.gpu_free[one_gpu] -= u;
    for (int g : gpus) after.gpu_free[g] -= u;
    const double delta = node_fragmentation(after, ctx.workload) - before;
    if (delta < best_delta) {
      best_delta = delta;
      best = {i, one_gpu >= 0 ? std::vector<int>{one_gpu} : gpus, u};
    }
  };
  const std::vector<int> none;
  for (int i = 0; i < static_cast<int>(ctx.nodes.size()); ++i) {
    const NodeState& n = ctx.nodes[i];
    if (!node_fits(n, job, u)) continue;
    const double before = ctx.fragmentation ? (*ctx.fragmentation)[i] : node_fragmentation(n, ctx.workload);
    if (job.num_gpu == 1) {
      // GPUs with the same free capacity give the same fragmentation: try each distinct value once.
      for (int g = 0; g < static_cast<int>(n.gpu_free.size()); ++g) {
        bool seen = n.gpu_free[g] < u;
        for (int h = 0; h < g && !seen; ++h) seen = n.gpu_free[h] == n.gpu_free[g];
        if (!seen) consider(i, n, before, none, g);
      }
    } else {
      consider(i, n, before, choose_gpus(n, job.num_gpu, u, GpuOrder::Tightest), -1);
    }
  }
  return best;
}

// Rounds a fractional request up to the next MIG-like slice size and packs it best-fit, so that the shares on a
// GPU always form a valid set of slice sizes.
Placement mig_aware(const PlacementContext& ctx, const ClusterJob& job) {
  int units = job.gpu_units;
  if (job.num_gpu > 0 && units < kGpuUnits)
    for (int s : mig_slice_units())
      if (s >= units) {
        units = s;
        break;
      }
  return pack(ctx, job, units, 1, GpuOrder::Tightest);
}

}  // namespace

FreeKey free_key(const NodeState& n, int index) { return {free_units(n), static_cast<double>(n.cpu_free), index}; }

bool node_fits(const NodeState& n, const ClusterJob& job, int gpu_units) {
  if (!n.up || n.cpu_free < job.cpu_milli || n.memory_free < job.memory_mib) return false;
  if (job.num_gpu == 0) return true;
  if (!model_accepted(job, *n.node)) return false;
  int room = 0;
  for (int f : n.gpu_free) room += f >= gpu_units ? 1 : 0;
  return room >= job.num_gpu;
}

double node_fragmentation(const NodeState& n, const std::vector<TaskType>& workload) {
  if (!n.up) return 0;
  // Free capacities ascending; workload is sorted by units ascending, so one merge walk gives, per type, the
  // free capacity on GPUs too small for it and the number of GPUs big enough.
  int sorted[64];  // nodes have at most 64 GPUs (checked by the readers)
  const int g = std::min(static_cast<int>(n.gpu_free.size()), 64);
  double total = 0;
  for (int i = 0; i < g; ++i) {
    int v = n.gpu_free[i], j = i;
    total += v;
    for (; j > 0 && sorted[j - 1] > v; --j) sorted[j] = sorted[j - 1];
    sorted[j] = v;
  }
  double frag = 0, below = 0;
  int i = 0;
  for (const TaskType& m : workload) {
    for (; i < g && sorted[i] < m.gpu_units; ++i) below += sorted[i];
    const bool fits = n.cpu_free >= m.cpu_milli && n.memory_free >= m.memory_mib && g - i >= m.num_gpu;
    frag += m.weight * (fits ? below : total);
  }
  return frag;
}

std::vector<TaskType> workload_distribution(const std::vector<ClusterJob>& jobs) {
  std::map<std::pair<int, int>, TaskType> types;  // by (units, num_gpu): sorted by units as the merge needs
  double count = 0;
  for (const ClusterJob& j : jobs) {
    if (j.num_gpu == 0) continue;
    TaskType& t = types[{j.gpu_units, j.num_gpu}];
    t.num_gpu = j.num_gpu;
    t.gpu_units = j.gpu_units;
    t.cpu_milli += j.cpu_milli;
    t.memory_mib += j.memory_mib;
    t.weight += 1;
    count += 1;
  }
  std::vector<TaskType> out;
  for (auto& [key, t] : types) {
    t.cpu_milli /= t.weight;
    t.memory_mib /= t.weight;
    t.weight /= count;
    out.push_back(t);
  }
  return out;
}

const std::vector<int>& mig_slice_units() {
  static const std::vector<int> sizes = [] {
    std::vector<int> s;
    if (const MigGpuTable* t = mig_table("A100-80GB"))
      for (const MigProfile& p : t->profiles) s.push_back(p.compute_slices * (kGpuUnits / 7));
    if (s.empty()) s = {1000, 2000, 3000, 4000, 7000};
    std::sort(s.begin(), s.end());
    s.erase(std::unique(s.begin(), s.end()), s.end());
    return s;
  }();
  return sizes;
}

const std::vector<PlacementPolicyInfo>& placement_policies() {
  static const std::vector<PlacementPolicyInfo> policies = {
      {"first_fit", "the first node (in list order) with room; the lowest-numbered GPUs with room",
       "D. S. Johnson, \"Fast algorithms for bin packing\", J. Computer and System Sciences 8(3), 1974", first_fit},
      {"best_fit", "the node with the least free GPU capacity left after placement (CPU left breaks ties); the "
                   "tightest GPUs",
       "Johnson 1974; the Best-fit baseline of Weng et al., USENIX ATC'23", best_fit},
      {"spread", "the node with the most free GPU capacity left after placement; the emptiest GPUs (load spreading)",
       "Kubernetes kube-scheduler NodeResourcesFit LeastAllocated scoring (kubernetes.io/docs/concepts/scheduling-"
       "eviction/resource-bin-packing)",
       spread},
      {"fgd", "fragmentation gradient descent: the node and GPUs that increase the node's fragmentation, measured "
              "against the target workload's distribution of GPU requests, the least",
       "Weng et al., \"Beware of Fragmentation: Scheduling GPU-Sharing Workloads with Fragmentation Gradient "
       "Descent\", USENIX ATC'23",
       fgd},
      {"mig_aware", "rounds fractional GPU requests up to MIG slice sizes (1/7, 2/7, 3/7, 4/7, 7/7 of a GPU) and "
                    "packs them best-fit",
       "NVIDIA Multi-Instance GPU User Guide, supported profiles (A100-80GB table in models/sharing/mig_profiles)",
       mig_aware},
  };
  return policies;
}

const PlacementPolicyInfo* find_placement_policy(const std::string& name) {
  for (const PlacementPolicyInfo& p : placement_policies())
    if (p.name == name) return &p;
  return nullptr;
}

}  // namespace vgpusim
