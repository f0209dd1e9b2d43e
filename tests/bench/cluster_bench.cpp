// Cluster simulator benchmark (not a test): wall time, events/s and peak memory for the openb default trace
// under each policy, and synthetic traces of 100k, 300k and 1M jobs on 10k GPUs to show near-linear cost (with
// --large also 1M and 10M jobs on 100k GPUs).
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>

#include "sim/io/openb.hpp"
#include "sim/studies/cluster/cluster_scenario.hpp"
#include "sim/studies/cluster/cluster_sim.hpp"
#include "sim/studies/cluster/study_command.hpp"

namespace {

using namespace vgpusim;

double peak_rss_mib() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_maxrss) / 1024.0;  // Linux: KiB
}

double efficiency() {
  return timeslice_efficiency(sharing_slowdown_params()[0].default_value, sharing_slowdown_params()[1].default_value);
}

void report(const std::string& label, const ClusterResults& r, double wall) {
  std::printf("%-34s %8.3f s %10lld events %12.0f events/s %8.0f MiB peak | alloc mean %.4f, frag mean %.1f GPUs, "
              "first failure %s, unallocated then %.1f GPUs\n",
              label.c_str(), wall, static_cast<long long>(r.events), static_cast<double>(r.events) / wall,
              peak_rss_mib(), r.mean_allocation, r.mean_fragmented_gpus,
              std::isnan(r.first_failure_s) ? "never" : "yes", r.unallocated_gpus_at_first_failure);
  std::fflush(stdout);
}

ClusterResults timed(const ClusterConfig& c, double& wall) {
  const auto t0 = std::chrono::steady_clock::now();
  ClusterResults r = run_cluster(c);
  wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

// The FGD paper's inflation: pods drawn with replacement until 130% of the GPU capacity has been asked for.
void openb_inflated(const ClusterConfig& base) {
  for (const char* policy : {"first_fit", "best_fit", "spread", "fgd", "mig_aware"}) {
    ClusterConfig c = base;
    c.policy = policy;
    c.jobs = sample_jobs(base.jobs, base.jobs.size() * 13 / 10, 42);
    double wall = 0;
    const ClusterResults r = timed(c, wall);
    report(std::string("openb sampled 130% ") + policy, r, wall);
    std::printf("    allocation at first failure %.4f, final allocation %.4f, final fragmented %.1f GPUs\n",
                r.allocation_at_first_failure, r.final_allocation, r.final_fragmented_gpus);
  }
}

void openb() {
  const std::filesystem::path dir = VGPUSIM_OPENB_TRACES;
  if (!std::filesystem::exists(dir / "openb_pod_list_default.csv")) {
    std::printf("openb: trace not found at %s, skipped\n", dir.c_str());
    return;
  }
  ClusterConfig c;
  c.name = "openb-default";
  c.nodes = read_openb_nodes((dir / "openb_node_list_gpu_node.csv").string(), true);
  c.jobs = read_openb_pods((dir / "openb_pod_list_default.csv").string(), 0);
  c.sharing_efficiency = efficiency();
  c.sample_interval_s = 6 * 3600;
  for (const bool fill : {false, true}) {
    for (const char* policy : {"first_fit", "best_fit", "spread", "fgd", "mig_aware"}) {
      c.policy = policy;
      c.no_departures = fill;
      double wall = 0;
      const ClusterResults r = timed(c, wall);
      report(std::string("openb ") + (fill ? "fill " : "timed ") + policy, r, wall);
      if (fill)
        std::printf("    fill: allocation at first failure %.4f, final allocation %.4f, final fragmented %.1f GPUs "
                    "(%.1f%% of idle)\n",
                    r.allocation_at_first_failure, r.final_allocation, r.final_fragmented_gpus,
                    100 * r.final_fragmentation_ratio);
    }
  }
  c.no_departures = false;
  openb_inflated(c);
}

// The FGD paper's study protocol (vgpusim study): one run of each reference policy on the default trace, against
// the reference simulator's own measured run on this kind of machine (fgd-published README: about 20 minutes and
// 3.3-3.8 GiB for one seed-42 run; 1301.7 s and 3796 MiB measured for FGD); then the whole published study of the
// shipped and shared traces (7 traces x 6 policies x 10 seeds) on every core.
void reference_study() {
  const std::filesystem::path dir = VGPUSIM_OPENB_TRACES;
  if (!std::filesystem::exists(dir / "openb_pod_list_default.csv")) return;
  const std::vector<RefNode> nodes = load_study_nodes((dir / "openb_node_list_gpu_node.csv").string());
  const StudyTrace trace = load_study_trace((dir / "openb_pod_list_default.csv").string());
  constexpr double kReferenceSeconds = 1301.7, kReferenceMiB = 3796;
  for (const StudyPolicy& p : study_policies()) {
    const auto t0 = std::chrono::steady_clock::now();
    const StudyRun r = run_reference_protocol(nodes, trace, p, 42, 1.3);
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf("study %-20s %8.3f s (reference / this %7.0fx) %6.0f MiB peak (reference / this %5.0fx) | %lld pods, "
                "allocation at 130%% %.2f%%\n",
                p.label.c_str(), wall, kReferenceSeconds / wall, peak_rss_mib(), kReferenceMiB / peak_rss_mib(),
                static_cast<long long>(r.pods), r.allocation[130]);
    std::fflush(stdout);
  }
  const std::filesystem::path shared = VGPUSIM_SHARED_OPENB_TRACES;
  StudyOptions o;
  o.nodes = (dir / "openb_node_list_gpu_node.csv").string();
  for (const char* t : {"default", "gpushare40", "gpushare80", "gpushare100", "multigpu20", "multigpu40", "gpuspec33"})
    o.traces.push_back((shared / (std::string("openb_pod_list_") + t + ".csv")).string());
  for (const std::string& t : o.traces)
    if (!std::filesystem::exists(t)) {
      std::printf("study of 7 traces: %s not found, skipped\n", t.c_str());
      return;
    }
  o.out = (std::filesystem::temp_directory_path() / "vgpusim-cluster-bench-study").string();
  o.quiet = true;
  const auto t0 = std::chrono::steady_clock::now();
  study_command(o);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("study 7 traces x 6 policies x 10 seeds (420 runs, all cores): %.1f s (target <= 300 s), %.0f MiB peak "
              "(target <= 200 MiB)\n",
              wall, peak_rss_mib());
  std::filesystem::remove_all(o.out);
}

// Synthetic jobs at ~90% offered load on `gpus` GPUs (8 per node), one row per job count.
void synthetic(int64_t gpus, std::initializer_list<int64_t> counts) {
  ClusterConfig c;
  c.name = "synthetic";
  c.nodes.assign(static_cast<size_t>(gpus / 8), ClusterNode{"n", "GPU", 8, 128000, 1048576, 0, false});
  c.sharing_efficiency = efficiency();
  c.policy = "best_fit";
  c.sample_interval_s = 3600;
  SyntheticJobsSpec spec;
  spec.mean_duration_s = 3600;
  spec.fractional = 0.5;
  spec.multi_gpu = 0.1;
  spec.cpu_per_gpu_milli = 4000;
  spec.memory_per_gpu_mib = 16384;
  // Offered load ~90% of the GPUs: mean GPUs per job = 0.5 x 0.5 + 0.1 x 14/3 + 0.4 = 1.117.
  spec.rate_per_s = 0.9 * static_cast<double>(gpus) / (1.117 * spec.mean_duration_s);
  const std::string where = gpus >= 1000 ? std::to_string(gpus / 1000) + "k GPUs" : std::to_string(gpus) + " GPUs";
  for (const int64_t n : counts) {
    spec.count = n;
    c.jobs = synthetic_cluster_jobs(spec, 1);
    double wall = 0;
    const ClusterResults r = timed(c, wall);
    const std::string jobs = n >= 1000000 ? std::to_string(n / 1000000) + "M" : std::to_string(n / 1000) + "k";
    report("synthetic " + jobs + " jobs, " + where, r, wall);
    std::printf("    %.3f us per job\n", wall / static_cast<double>(n) * 1e6);
    c.jobs = {};
  }
}

}  // namespace

// Usage: cluster_bench [--large]. --large adds 1M and 10M jobs on 100k GPUs (minutes and GiBs: not run by
// tools/test.sh; targets < 2 min and < 8 GiB at 10M).
int main(int argc, char** argv) {
  const bool large = argc > 1 && std::string(argv[1]) == "--large";
  if (argc > 2 || (argc == 2 && !large)) {
    std::fprintf(stderr, "usage: cluster_bench [--large]\n");
    return 2;
  }
  reference_study();
  openb();
  synthetic(10000, {100000, 300000, 1000000});
  if (large) synthetic(100000, {1000000, 10000000});
  return 0;
}
