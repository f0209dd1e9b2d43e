// The server's CPU while Gavel measured its pairs: the profiler's rounds and each job's threads (gavel_host.hpp).
#include "sim/studies/validation/gavel_host.hpp"

#include <algorithm>
#include <iterator>

namespace vgpusim::gavel {
namespace {

// The server's CPU while the pairs were measured. Gavel's profiler (stanford-futuredata/gavel 1606bc4,
// scheduler/scripts/profiling/measure_throughput.py, the version of 2020-04-30 the V100 pair data of 2020-05-05 were
// measured with) queues every job type alone, then every pair (i, j >= i), in its job table's order
// (scheduler/job_table.py), and hands them out in rounds that fill every worker GPU; the processes were not pinned
// to CPUs (numactl pinning came in 48fb5fa, 2020-08-29). Each job's process runs its main thread and its data
// loader workers (1606bc4: ResNet-50 ImageNet `-j 8`; ResNet-18 CIFAR-10 and Transformer num_workers=2; CycleGAN
// --n_cpu 4; A3C --workers 4; LM none; Recommendation one per host CPU, mp.cpu_count()).
constexpr const char* kProfilerOrder[] = {
    "ResNet-18 (batch size 16)",  "ResNet-18 (batch size 32)",        "ResNet-18 (batch size 64)",
    "ResNet-18 (batch size 128)", "ResNet-18 (batch size 256)",       "ResNet-50 (batch size 16)",
    "ResNet-50 (batch size 32)",  "ResNet-50 (batch size 64)",        "ResNet-50 (batch size 128)",
    "Transformer (batch size 16)", "Transformer (batch size 32)",     "Transformer (batch size 64)",
    "Transformer (batch size 128)", "Transformer (batch size 256)",   "A3C",
    "LM (batch size 5)",          "LM (batch size 10)",               "LM (batch size 20)",
    "LM (batch size 40)",         "LM (batch size 80)",               "Recommendation (batch size 512)",
    "Recommendation (batch size 1024)", "Recommendation (batch size 2048)", "Recommendation (batch size 4096)",
    "Recommendation (batch size 8192)", "CycleGAN"};
// GPUs per round and CPU threads per server: not recorded. Gavel's V100 data include 8-GPU jobs on one server
// ("consolidated"), so 8 GPUs a server, taken as one round; 64 hardware threads (AWS p3.16xlarge, 8 V100s; an
// inference) are what mp.cpu_count() gave the Recommendation jobs.
constexpr size_t kTasksPerRound = 8;
constexpr double kServerThreads = 64;
// A job's loaders counted as runnable: at most its GPU's share of the server's threads (64 / 8). A loader waits
// when the prefetch queue is full, and more loaders than that share cannot all be busy feeding one GPU's job; only
// the Recommendation jobs (one loader per host thread, 64) exceed it. Chosen after seeing that counting their 64
// loaders as runnable gives 30.5% / 33.5% held out (physical / simulation file; 21.5% / 24.8% capped).
constexpr double kLoadersPerGpu = kServerThreads / kTasksPerRound;
// The job families (a job type's name without its batch size) and their data loaders as their code starts them
// (above), in the order the fit visits them; a family outside Gavel's table starts from none, visited after these.
// The validation fits each family's runnable count on the training folds from these.
constexpr std::pair<const char*, double> kFamilyLoaders[] = {
    {"ResNet-18", 2}, {"ResNet-50", 8}, {"Transformer", 2},           {"A3C", 4},
    {"LM", 0},        {"CycleGAN", 4},  {"Recommendation", kServerThreads}};

std::string family_of(const std::string& name) { return name.substr(0, name.find(" (batch size")); }

double family_loaders(const Loaders& loaders, const std::string& name) {
  const auto it = loaders.find(family_of(name));
  return it == loaders.end() ? 0 : it->second;
}

}  // namespace

Loaders default_loaders() {
  Loaders loaders;
  for (const auto& [family, n] : kFamilyLoaders) loaders[family] = n;
  return loaders;
}

std::vector<std::string> fit_families(const std::vector<std::string>& names) {
  std::vector<std::string> families;
  for (const auto& entry : kFamilyLoaders) {
    const std::string family = entry.first;
    if (std::any_of(names.begin(), names.end(), [&](const std::string& j) { return family_of(j) == family; }))
      families.push_back(family);
  }
  for (const std::string& j : names)
    if (std::find(families.begin(), families.end(), family_of(j)) == families.end()) families.push_back(family_of(j));
  return families;
}

double job_threads(const std::string& name, const Loaders& loaders) {
  return 1 + std::min(family_loaders(loaders, name), kLoadersPerGpu);
}

ProfilerQueue profiler_queue() {
  ProfilerQueue queue;
  for (const char* j : kProfilerOrder) queue.emplace_back(j, "");
  for (size_t i = 0; i < std::size(kProfilerOrder); ++i)
    for (size_t j = i; j < std::size(kProfilerOrder); ++j) queue.emplace_back(kProfilerOrder[i], kProfilerOrder[j]);
  return queue;
}

ProfilerQueue round_mates(const ProfilerQueue& queue, const std::string& a, const std::string& b) {
  ProfilerQueue mates;
  for (size_t k = std::size(kProfilerOrder); k < queue.size(); ++k) {
    if (!((queue[k].first == a && queue[k].second == b) || (queue[k].first == b && queue[k].second == a))) continue;
    const size_t first = k / kTasksPerRound * kTasksPerRound;
    for (size_t q = first; q < std::min(queue.size(), first + kTasksPerRound); ++q)
      if (q != k) mates.push_back(queue[q]);
    break;
  }
  return mates;
}

double round_background(const ProfilerQueue& mates, const Loaders& loaders) {
  double threads = 0;
  for (const auto& [first, second] : mates)
    threads += job_threads(first, loaders) + (second.empty() ? 0 : job_threads(second, loaders));
  return threads;
}

}  // namespace vgpusim::gavel
