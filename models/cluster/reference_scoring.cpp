// The FGD reference simulator's scoring, written from its published design and code structure (see the header).
#include "models/cluster/reference_scoring.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <tuple>

namespace vgpusim {
namespace {

constexpr int64_t kMaxNodeScore = 100;  // kube-scheduler's framework.MaxNodeScore

// Free devices (all of their milli-GPU) the pod may take, tightest first; what the reference's fit and packing walk.
std::vector<int> devices_by_room(const RefNode& node) {
  std::vector<int> order(node.gpu_left.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return node.gpu_left[a] < node.gpu_left[b]; });
  return order;
}

int devices_with_room(const RefNode& node, int milli) {
  int n = 0;
  for (int left : node.gpu_left) n += left >= milli ? 1 : 0;
  return n;
}

int fully_free(const RefNode& node) { return devices_with_room(node, kRefMilli); }

// GPU clustering's tag of a pod: 0 for a share pod, n for n whole GPUs; -1 for a pod without GPU.
int clustering_tag(const RefPod& pod) {
  if (pod.gpu_count == 0 || pod.milli_gpu == 0) return -1;
  return pod.share() ? 0 : pod.gpu_count;
}

int64_t best_fit_score(const RefNode& node, const RefPod& pod) {
  const double free[2] = {static_cast<double>(node.cpu_left), static_cast<double>(node.total_gpu_left())};
  const double req[2] = {static_cast<double>(pod.cpu_milli), static_cast<double>(pod.total_milli_gpu())};
  const double spec[2] = {kRefMaxSpecCpu, kRefMaxSpecGpu};
  double s = 0;
  for (int i = 0; i < 2; ++i) s += (free[i] - req[i]) / spec[i] * 0.5;  // weights 0.5 CPU, 0.5 GPU; lower is better
  return static_cast<int64_t>((1.0 - s) * static_cast<double>(kMaxNodeScore));
}

int64_t dot_product_score(const RefNode& node, const RefPod& pod) {
  // One merged (CPU, all GPU) vector each, normalised by the largest node spec; the smaller the dot product of the
  // request with what is free, the higher the score.
  const double n[2] = {static_cast<double>(node.cpu_left) / kRefMaxSpecCpu,
                       static_cast<double>(node.total_gpu_left()) / kRefMaxSpecGpu};
  const double p[2] = {static_cast<double>(pod.cpu_milli) / kRefMaxSpecCpu,
                       static_cast<double>(pod.total_milli_gpu()) / kRefMaxSpecGpu};
  double dot = 0;
  for (int i = 0; i < 2; ++i) dot += n[i] * p[i];
  dot /= 2;
  return static_cast<int64_t>(static_cast<double>(kMaxNodeScore) * (1 - dot));
}

int64_t clustering_score(const RefNode& node, const RefPod& pod) {
  const int tag = clustering_tag(pod);
  if (tag < 0) return 0;
  const int64_t x = (25 * (static_cast<int64_t>(kRefMaxSpecGpu) - node.total_gpu_left())) /
                    static_cast<int64_t>(kRefMaxSpecGpu);
  const bool has = std::any_of(node.tags.begin(), node.tags.end(), [&](const auto& t) { return t.first == tag; });
  if (has) return x + (node.tags.size() == 1 ? 75 : 50);
  return node.tags.empty() ? x + 25 : x;
}

int64_t packing_score(const RefNode& node, const RefPod& pod) {
  if (pod.milli_gpu <= 0) return 0;
  const int free = fully_free(node);
  if (free == static_cast<int>(node.gpu_left.size()))  // a node with nothing on its GPUs: the lowest tier
    return std::max<int64_t>(kMaxNodeScore / 3 - free, free);
  int need = pod.gpu_count, free_taken = 0;
  std::vector<int> taken;
  for (int g : devices_by_room(node)) {
    if (need == 0) break;
    if (pod.milli_gpu <= node.gpu_left[g]) {
      --need;
      taken.push_back(g);
      free_taken += node.gpu_left[g] == kRefMilli ? 1 : 0;
    }
  }
  if (free_taken > 0) return std::max<int64_t>(kMaxNodeScore / 2 - free_taken, kMaxNodeScore / 3);
  int64_t free_percent = 0;  // on the shared devices it would use
  for (int g : taken) free_percent += static_cast<int64_t>(node.gpu_left[g]) * 100 / kRefMilli;
  return std::max<int64_t>(kMaxNodeScore - free_percent / 10, kMaxNodeScore / 2);
}

double sigmoid(double x) { return 1 / (1 + std::exp(-x)); }

// FGD: the score of placing the pod on these devices from the drop in fragmentation it causes. The reference
// truncates sigmoid(drop / 1000) x 100 to an integer; the exact variant keeps the drop itself (same order; only equal
// drops tie).
double fgd_score(const RefNode& node, const RefPod& pod, const std::vector<int>& gpus,
                 const std::vector<TypicalPod>& typical, double before, bool exact) {
  RefNode after = node;
  after.cpu_left -= pod.cpu_milli;
  for (int g : gpus) after.gpu_left[g] -= pod.milli_gpu;
  const double drop = before - reference_node_fragmentation(after, typical);
  if (exact) return drop;
  return static_cast<double>(static_cast<int64_t>(sigmoid(drop / 1000) * static_cast<double>(kMaxNodeScore)));
}

RefScore fgd(const RefNode& node, const RefPod& pod, const std::vector<TypicalPod>& typical, double before,
             bool exact) {
  if (pod.cpu_milli == 0 && pod.total_milli_gpu() == 0) return {static_cast<double>(kMaxNodeScore), {}};
  if (!pod.share()) {
    std::vector<int> gpus = reference_best_gpus(node, pod);
    return {fgd_score(node, pod, gpus, typical, before, exact), std::move(gpus)};
  }
  // A share pod: every device with room, in index order; the first with the top score.
  RefScore best;
  bool any = false;
  for (int g = 0; g < static_cast<int>(node.gpu_left.size()); ++g) {
    if (node.gpu_left[g] < pod.milli_gpu) continue;
    const double s = fgd_score(node, pod, {g}, typical, before, exact);
    if (!any || s > best.score) best = {s, {g}};
    any = true;
  }
  return best;
}

}  // namespace

int64_t RefNode::total_gpu_left() const { return std::accumulate(gpu_left.begin(), gpu_left.end(), int64_t{0}); }

std::vector<TypicalPod> reference_typical_pods(const std::vector<RefPod>& pods, int percent) {
  using Key = std::tuple<int64_t, int, int, std::vector<std::string>>;
  std::map<Key, int64_t> counts;
  for (const RefPod& p : pods) ++counts[Key{p.cpu_milli, p.milli_gpu, p.gpu_count, p.gpu_types}];
  std::vector<std::pair<Key, int64_t>> sorted(counts.begin(), counts.end());
  // Most common first; among equally common, the larger request first (the reference's reversed order).
  std::stable_sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) {
    if (a.second != b.second) return a.second > b.second;
    return a.first > b.first;
  });
  const int64_t total = static_cast<int64_t>(pods.size());
  int64_t covered = 0;
  std::vector<TypicalPod> out;
  for (const auto& [key, n] : sorted) {
    // The reference's threshold is percent x total / 100 as a real number.
    if (covered * 100 >= static_cast<int64_t>(percent) * total && !out.empty()) break;
    out.push_back({std::get<0>(key), std::get<1>(key), std::get<2>(key), std::get<3>(key), static_cast<double>(n)});
    covered += n;
  }
  for (TypicalPod& t : out) t.weight /= static_cast<double>(covered);
  return out;
}

bool reference_accessible(const RefNode& node, const RefPod& pod) {
  if (pod.gpu_types.empty()) return true;
  return std::find(pod.gpu_types.begin(), pod.gpu_types.end(), node.model) != pod.gpu_types.end();
}

bool reference_fits(const RefNode& node, const RefPod& pod) {
  if (node.cpu_left < pod.cpu_milli || node.memory_left < pod.memory_mib) return false;
  if (pod.milli_gpu <= 0) return true;
  if (node.gpu_left.empty() || !reference_accessible(node, pod)) return false;
  return devices_with_room(node, pod.milli_gpu) >= pod.gpu_count;
}

double reference_node_fragmentation(const RefNode& node, const std::vector<TypicalPod>& typical) {
  const double idle = static_cast<double>(node.total_gpu_left());
  double frag = 0;
  for (const TypicalPod& t : typical) {
    double part = idle;
    if (t.milli_gpu > 0 &&
        (t.gpu_types.empty() ||
         std::find(t.gpu_types.begin(), t.gpu_types.end(), node.model) != t.gpu_types.end()) &&
        devices_with_room(node, t.milli_gpu) >= t.gpu_count && node.cpu_left >= t.cpu_milli) {
      part = 0;  // it fits: only devices too small for it are fragments
      for (int left : node.gpu_left)
        if (left < t.milli_gpu) part += left;
    }
    frag += t.weight * part;
  }
  return frag;
}

std::vector<int> reference_best_gpus(const RefNode& node, const RefPod& pod) {
  std::vector<int> gpus;
  if (pod.milli_gpu <= 0 || pod.gpu_count <= 0) return gpus;
  if (pod.share()) {
    int best = -1;
    for (int g = 0; g < static_cast<int>(node.gpu_left.size()); ++g)
      if (node.gpu_left[g] >= pod.milli_gpu && (best < 0 || node.gpu_left[g] < node.gpu_left[best])) best = g;
    if (best >= 0) gpus.push_back(best);
    return gpus;
  }
  for (int g = 0; g < static_cast<int>(node.gpu_left.size()) && static_cast<int>(gpus.size()) < pod.gpu_count; ++g)
    if (node.gpu_left[g] >= kRefMilli) gpus.push_back(g);
  return gpus;
}

RefScore reference_score(RefPolicy policy, const RefNode& node, const RefPod& pod,
                         const std::vector<TypicalPod>& typical, double fragmentation_before) {
  switch (policy) {
    case RefPolicy::Random: return {0, reference_best_gpus(node, pod)};
    case RefPolicy::DotProduct:
      return {static_cast<double>(dot_product_score(node, pod)), reference_best_gpus(node, pod)};
    case RefPolicy::GpuClustering:
      return {static_cast<double>(clustering_score(node, pod)), reference_best_gpus(node, pod)};
    case RefPolicy::GpuPacking:
      return {static_cast<double>(packing_score(node, pod)), reference_best_gpus(node, pod)};
    case RefPolicy::BestFit: return {static_cast<double>(best_fit_score(node, pod)), reference_best_gpus(node, pod)};
    case RefPolicy::Fgd: return fgd(node, pod, typical, fragmentation_before, false);
    case RefPolicy::FgdExact: return fgd(node, pod, typical, fragmentation_before, true);
  }
  return {};
}

void reference_place(RefNode& node, const RefPod& pod, const std::vector<int>& gpus) {
  node.cpu_left -= pod.cpu_milli;
  node.memory_left -= pod.memory_mib;
  for (int g : gpus) node.gpu_left[g] -= pod.milli_gpu;
  const int tag = clustering_tag(pod);
  if (tag < 0) return;
  auto it = std::lower_bound(node.tags.begin(), node.tags.end(), std::pair<int, int>{tag, 0});
  if (it != node.tags.end() && it->first == tag)
    ++it->second;
  else
    node.tags.insert(it, {tag, 1});
}

const std::vector<RefPolicyInfo>& reference_policies() {
  static const std::vector<RefPolicyInfo> policies = {
      {RefPolicy::Random, "random", "01-Random", "a node drawn uniformly among those that fit; a share pod's device drawn "
                                                  "uniformly among those with room"},
      {RefPolicy::DotProduct, "dot_product", "02-DotProd",
       "the smallest dot product of the request with the node's free (CPU, GPU), both over the largest node spec "
       "(128 cores, 8 GPUs); integer score"},
      {RefPolicy::GpuClustering, "gpu_clustering", "03-GpuClustering",
       "nodes already holding pods of the same GPU kind (share, n whole GPUs) first, then the fuller node; integer "
       "score"},
      {RefPolicy::GpuPacking, "gpu_packing", "04-GpuPacking",
       "partly used devices first, then free devices on used nodes, then empty nodes (smaller first); integer score"},
      {RefPolicy::BestFit, "best_fit", "05-BestFit",
       "the least CPU and GPU left after placement, 0.5 x CPU / 128 cores + 0.5 x GPU / 8 GPUs; integer score"},
      {RefPolicy::Fgd, "fgd", "06-FGD",
       "fragmentation gradient descent: the placement that lowers the node's fragmentation most, scored as "
       "int(sigmoid(drop / 1000) x 100)"},
      {RefPolicy::FgdExact, "fgd_exact", "06-FGD-exact-score",
       "FGD with the exact drop in fragmentation as its score (no integer truncation; not in the published study)"},
  };
  return policies;
}

const RefPolicyInfo* find_reference_policy(const std::string& name) {
  for (const RefPolicyInfo& p : reference_policies())
    if (p.name == name) return &p;
  return nullptr;
}

}  // namespace vgpusim
