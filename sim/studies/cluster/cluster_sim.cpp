// The cluster event loop: timed events (completions, preemptions, nodes back) in the engine's event heap, merged
// with the arrival list; progress rates change only when a GPU's set of jobs changes (sharing slowdown).
#include "sim/studies/cluster/cluster_sim.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <set>
#include <stdexcept>

#include "models/cluster/placement.hpp"
#include "models/sharing/mode_registry.hpp"
#include "sim/core/errors.hpp"
#include "sim/core/event_queue.hpp"
#include "sim/core/units.hpp"

namespace vgpusim {

const std::vector<ParamSpec>& sharing_slowdown_params() {
  // The timeslice mode's own declarations: one default, one source, one set of bounds.
  static const std::vector<ParamSpec> params = [] {
    std::vector<ParamSpec> out;
    const SharingModeInfo* timeslice = find_sharing_mode("timeslice");
    for (const char* name : {"slice", "switch_cost"})
      for (const ParamSpec& p : timeslice->params)
        if (p.name == name) out.push_back(p);
    return out;
  }();
  return params;
}

double timeslice_efficiency(double slice_s, double switch_cost_s) { return slice_s / (slice_s + switch_cost_s); }

namespace {

// Timed events in the engine's event heap (sim/core/event_queue.hpp): `target` is the job (Finish) or the node
// (NodeUp), unused for Preempt; `aux` is a Finish's job version (stale when the job's version moved on).
enum EventKind : uint8_t { kFinish, kNodeUp, kPreempt };

struct JobRun {
  int node = -1;
  int gpu_units = 0;
  std::vector<int> gpus;        // global GPU indices while running
  double saved_s = 0;           // checkpointed work, s
  double segment_work_s = 0;    // work of the current run, s (incl. restart cost)
  double segment_overhead_s = 0;
  double done_s = 0;            // work done in the current run up to last_s, s
  double rate = 1;
  double last_s = 0;
  double first_start_s = -1;
  double finish_s = -1;
  uint32_t version = 0;
  int preemptions = 0;
};

class ClusterRun {
 public:
  explicit ClusterRun(const ClusterConfig& c) : cfg_(c), rng_(c.seed) {
    policy_ = find_placement_policy(c.policy);
    if (!policy_) throw std::invalid_argument("unknown placement policy '" + c.policy + "'");
    workload_ = workload_distribution(c.jobs);
    for (const ClusterNode& n : c.nodes) {
      NodeState s;
      s.node = &n;
      s.cpu_free = n.cpu_milli;
      s.memory_free = n.memory_mib;
      s.gpu_free.assign(static_cast<size_t>(n.gpus), kGpuUnits);
      gpu_offset_.push_back(static_cast<int>(gpu_jobs_.size()));
      gpu_jobs_.resize(gpu_jobs_.size() + static_cast<size_t>(n.gpus));
      capacity_units_ += static_cast<double>(n.gpus) * kGpuUnits;
      nodes_.push_back(std::move(s));
      node_frag_.push_back(node_fragmentation(nodes_.back(), workload_));
      node_key_.push_back(free_key(nodes_.back(), static_cast<int>(nodes_.size()) - 1));
      by_free_.insert(node_key_.back());
      frag_units_ += node_frag_.back();
      idle_units_ += static_cast<double>(n.gpus) * kGpuUnits;
      if (n.spot || c.preemption.all_nodes) spot_nodes_.push_back(static_cast<int>(nodes_.size()) - 1);
    }
    node_jobs_.resize(nodes_.size());
    runs_.resize(c.jobs.size());
    for (double t : c.preemption.times_s) push(t, kPreempt, -1, 0);
    if (c.preemption.rate_per_s > 0) push(exponential(c.preemption.rate_per_s), kPreempt, -1, 0);
  }

  ClusterResults run() {
    const std::vector<ClusterJob>& jobs = cfg_.jobs;
    size_t next = 0;
    while (next < jobs.size() || !events_.empty()) {
      check_limits();
      const bool arrival = events_.empty() || (next < jobs.size() && jobs[next].arrival_s < events_.top().time);
      const double t = arrival ? jobs[next].arrival_s : events_.top().time;
      advance(t);
      if (arrival) {
        ++r_.events;
        const int j = static_cast<int>(next++);
        if (!try_start(j)) queue_.insert(j);
        continue;
      }
      const Event e = events_.pop();
      const int id = static_cast<int>(e.target);
      if (e.kind == kFinish) {
        if (e.aux != runs_[id].version) continue;
        ++r_.events;
        finish(id);
        scan_queue();
      } else if (e.kind == kNodeUp) {
        ++r_.events;
        set_node_up(id, true);
        scan_queue();
      } else {
        ++r_.events;
        preempt();
        // The Poisson process pauses while no running job will ever finish and nothing is left to arrive (start()
        // resumes it), so that a finished or filled-up cluster is not preempted forever.
        if (cfg_.preemption.rate_per_s > 0) {
          if (next < jobs.size() || departing_ > 0)
            push(t + exponential(cfg_.preemption.rate_per_s), kPreempt, -1, 0);
          else
            preemption_paused_ = true;
        }
      }
    }
    return summarize_run();
  }

 private:
  void push(double t, EventKind k, int id, uint32_t version) {
    events_.push(t, k, id < 0 ? 0 : static_cast<uint32_t>(id), version);
  }

  double uniform() { return static_cast<double>(rng_() >> 11) * 0x1.0p-53; }
  double exponential(double rate) { return -std::log1p(-uniform()) / rate; }

  void check_limits() const {
    const double events = static_cast<double>(r_.events) + static_cast<double>(r_.samples.size());
    if (events > cfg_.max_events)
      throw InputError(fmt::format(
          "the cluster run passed {:.3g} events at simulated time {} ({} preemptions so far): it may not end; lower "
          "the preemption rate or widen `sample_interval`, or raise the limit with --max-events",
          events, units::format(now_, units::Dim::Time), r_.preemptions));
  }

  // Integrates the time averages up to t and takes the samples due before t.
  void advance(double t) {
    while (next_sample_s_ <= t) {
      sample(next_sample_s_);
      const double next = next_sample_s_ + cfg_.sample_interval_s;
      if (!(next > next_sample_s_))
        throw InputError(fmt::format("cluster.sample_interval: {} is too small to move past simulated time {}",
                                     units::format(cfg_.sample_interval_s, units::Dim::Time),
                                     units::format(next_sample_s_, units::Dim::Time)));
      next_sample_s_ = next;
      if (static_cast<double>(r_.samples.size() * sizeof(ClusterSample)) > cfg_.max_sample_bytes)
        throw InputError(fmt::format("cluster.sample_interval: {} samples of allocation and fragmentation would "
                                     "pass the {} memory limit at simulated time {}; widen `sample_interval` or "
                                     "raise the limit with --max-memory",
                                     r_.samples.size(), units::format(cfg_.max_sample_bytes, units::Dim::Bytes),
                                     units::format(next_sample_s_, units::Dim::Time)));
      check_limits();
    }
    const double dt = t - now_;
    alloc_integral_ += dt * allocated_units_;
    frag_integral_ += dt * frag_units_;
    now_ = t;
  }

  void sample(double t) {
    r_.samples.push_back({t, allocated_units_ / capacity_units_, frag_units_ / kGpuUnits, idle_units_ / kGpuUnits,
                          static_cast<int64_t>(queue_.size()), running_});
  }

  void refresh_node(int n) {
    const double f = node_fragmentation(nodes_[n], workload_);
    frag_units_ += f - node_frag_[n];
    node_frag_[n] = f;
    by_free_.erase(node_key_[n]);
    node_key_[n] = free_key(nodes_[n], n);
    by_free_.insert(node_key_[n]);
  }

  bool try_start(int j) {
    const ClusterJob& job = cfg_.jobs[j];
    const Placement p = policy_->place({nodes_, workload_, &node_frag_, &by_free_}, job);
    if (p.node < 0) {
      if (std::isnan(r_.first_failure_s)) {
        r_.first_failure_s = now_;
        r_.unallocated_gpus_at_first_failure = idle_units_ / kGpuUnits;
        r_.allocation_at_first_failure = allocated_units_ / capacity_units_;
      }
      return false;
    }
    start(j, p);
    return true;
  }

  void start(int j, const Placement& p) {
    const ClusterJob& job = cfg_.jobs[j];
    JobRun& run = runs_[j];
    NodeState& n = nodes_[p.node];
    n.cpu_free -= job.cpu_milli;
    n.memory_free -= job.memory_mib;
    run.node = p.node;
    run.gpu_units = p.gpu_units;
    run.gpus.clear();
    for (int g : p.gpus) {
      n.gpu_free[g] -= p.gpu_units;
      run.gpus.push_back(gpu_offset_[p.node] + g);
    }
    const double units = static_cast<double>(p.gpu_units) * static_cast<double>(p.gpus.size());
    allocated_units_ += units;
    idle_units_ -= units;
    refresh_node(p.node);
    node_jobs_[p.node].push_back(j);
    ++running_;
    if (run.first_start_s < 0) {
      run.first_start_s = now_;
      ++r_.started;
    }
    if (departs(j)) ++departing_;
    if (preemption_paused_ && departs(j)) {
      preemption_paused_ = false;
      push(now_ + exponential(cfg_.preemption.rate_per_s), kPreempt, -1, 0);
    }
    run.segment_overhead_s = run.preemptions > 0 ? cfg_.preemption.restart_cost_s : 0;
    run.segment_work_s = job.duration_s - run.saved_s + run.segment_overhead_s;
    run.done_s = 0;
    run.rate = 1;
    run.last_s = now_;
    for (int g : run.gpus) gpu_jobs_[g].push_back(j);
    reschedule(j);
    for (int g : run.gpus) update_rates(g);
  }

  // Removes a running job from its node and GPUs (completion or preemption).
  void stop(int j) {
    const ClusterJob& job = cfg_.jobs[j];
    JobRun& run = runs_[j];
    NodeState& n = nodes_[run.node];
    n.cpu_free += job.cpu_milli;
    n.memory_free += job.memory_mib;
    for (int g : run.gpus) {
      n.gpu_free[g - gpu_offset_[run.node]] += run.gpu_units;
      auto& on = gpu_jobs_[g];
      on.erase(std::find(on.begin(), on.end(), j));
    }
    auto& here = node_jobs_[run.node];
    here.erase(std::find(here.begin(), here.end(), j));
    const double units = static_cast<double>(run.gpu_units) * static_cast<double>(run.gpus.size());
    allocated_units_ -= units;
    if (n.up) idle_units_ += units;
    refresh_node(run.node);
    ++run.version;
    --running_;
    if (departs(j)) --departing_;
  }

  bool departs(int j) const { return !cfg_.no_departures && std::isfinite(cfg_.jobs[j].duration_s); }

  double rate_of(int j) const {
    for (int g : runs_[j].gpus)
      if (gpu_jobs_[g].size() > 1) return cfg_.sharing_efficiency;
    return 1;
  }

  void update_rates(int g) {
    for (int j : gpu_jobs_[g]) {
      JobRun& run = runs_[j];
      const double rate = rate_of(j);
      if (rate == run.rate) continue;
      run.done_s = std::min(run.segment_work_s, run.done_s + run.rate * (now_ - run.last_s));
      run.last_s = now_;
      run.rate = rate;
      ++run.version;
      reschedule(j);
    }
  }

  void reschedule(int j) {
    const JobRun& run = runs_[j];
    if (!departs(j)) return;
    push(now_ + (run.segment_work_s - run.done_s) / run.rate, kFinish, j, run.version);
  }

  void finish(int j) {
    runs_[j].finish_s = now_;
    ++r_.completed;
    const std::vector<int> gpus = runs_[j].gpus;
    stop(j);
    for (int g : gpus) update_rates(g);
  }

  // FIFO with skipping: every queued job in arrival order that fits now starts. A job asking at least as much
  // as one that already failed in this scan (same model constraint) is skipped without asking the policy.
  void scan_queue() {
    std::vector<const ClusterJob*> failed;
    for (auto it = queue_.begin(); it != queue_.end();) {
      const ClusterJob& job = cfg_.jobs[*it];
      bool dominated = false;
      for (const ClusterJob* f : failed)
        if (job.num_gpu >= f->num_gpu && job.gpu_units >= f->gpu_units && job.cpu_milli >= f->cpu_milli &&
            job.memory_mib >= f->memory_mib && job.gpu_models == f->gpu_models) {
          dominated = true;
          break;
        }
      if (!dominated && try_start(*it)) {
        it = queue_.erase(it);
        continue;
      }
      if (!dominated && failed.size() < 32) failed.push_back(&job);
      ++it;
    }
  }

  void set_node_up(int n, bool up) {
    NodeState& s = nodes_[n];
    if (s.up == up) return;
    s.up = up;
    double free = 0;
    for (int f : s.gpu_free) free += f;
    idle_units_ += up ? free : -free;
    refresh_node(n);
  }

  void preempt() {
    std::vector<int> eligible;
    for (int n : spot_nodes_)
      if (nodes_[n].up) eligible.push_back(n);
    if (eligible.empty()) return;
    const int n = eligible[std::min(eligible.size() - 1, static_cast<size_t>(uniform() * static_cast<double>(eligible.size())))];
    ++r_.preemptions;
    const std::vector<int> victims = node_jobs_[n];
    for (int j : victims) {
      JobRun& run = runs_[j];
      const double done = run.done_s + run.rate * (now_ - run.last_s);
      const double useful = std::max(0.0, done - run.segment_overhead_s);
      const double ci = cfg_.preemption.checkpoint_interval_s;
      const double kept = ci > 0 ? std::floor(useful / ci + 1e-9) * ci : 0;
      const double lost = done - kept;
      r_.lost_gpu_hours += lost * static_cast<double>(run.gpu_units) * static_cast<double>(run.gpus.size()) /
                           kGpuUnits / 3600;
      run.saved_s += kept;
      if (run.preemptions++ == 0) ++r_.jobs_preempted;
      const std::vector<int> gpus = run.gpus;
      stop(j);
      for (int g : gpus) update_rates(g);
      queue_.insert(j);
    }
    set_node_up(n, false);
    push(now_ + cfg_.preemption.downtime_s, kNodeUp, n, 0);
    scan_queue();
  }

  ClusterResults summarize_run() {
    ClusterResults& r = r_;
    r.scenario_name = cfg_.name;
    r.policy = cfg_.policy;
    r.nodes = static_cast<int64_t>(nodes_.size());
    r.gpus = capacity_units_ / kGpuUnits;
    r.jobs = static_cast<int64_t>(cfg_.jobs.size());
    r.never_started = r.jobs - r.started;
    r.makespan_s = now_;
    r.sharing_efficiency = cfg_.sharing_efficiency;
    sample(now_);
    r.mean_allocation = now_ > 0 ? alloc_integral_ / now_ / capacity_units_ : allocated_units_ / capacity_units_;
    r.mean_fragmented_gpus = now_ > 0 ? frag_integral_ / now_ / kGpuUnits : frag_units_ / kGpuUnits;
    for (const ClusterSample& s : r.samples) r.peak_allocation = std::max(r.peak_allocation, s.allocation);
    r.final_allocation = allocated_units_ / capacity_units_;
    r.final_fragmented_gpus = frag_units_ / kGpuUnits;
    if (idle_units_ > 0) r.final_fragmentation_ratio = frag_units_ / idle_units_;
    std::vector<double> jct, wait;
    for (size_t j = 0; j < runs_.size(); ++j) {
      if (runs_[j].first_start_s >= 0) wait.push_back(runs_[j].first_start_s - cfg_.jobs[j].arrival_s);
      if (runs_[j].finish_s >= 0) jct.push_back(runs_[j].finish_s - cfg_.jobs[j].arrival_s);
    }
    r.completion_time = summarize(std::move(jct));
    r.queueing_delay = summarize(std::move(wait));
    for (const ClusterNode& n : cfg_.nodes) r.cost_usd += n.price_per_s * now_;
    if (r.completed > 0) r.cost_per_completed_job_usd = r.cost_usd / static_cast<double>(r.completed);
    return r;
  }

  const ClusterConfig& cfg_;
  const PlacementPolicyInfo* policy_ = nullptr;
  std::vector<TaskType> workload_;
  std::vector<NodeState> nodes_;
  std::vector<double> node_frag_;      // capacity units
  std::vector<FreeKey> node_key_;      // each node's key in by_free_
  std::set<FreeKey> by_free_;          // the nodes by free capacity, for best fit
  std::vector<int> gpu_offset_;        // first global GPU index of each node
  std::vector<std::vector<int>> gpu_jobs_, node_jobs_;
  std::vector<int> spot_nodes_;
  std::vector<JobRun> runs_;
  std::set<int> queue_;                // job indices: arrival order
  EventQueue events_;
  std::mt19937_64 rng_;
  double now_ = 0, next_sample_s_ = 0;
  double capacity_units_ = 0, allocated_units_ = 0, idle_units_ = 0, frag_units_ = 0;
  double alloc_integral_ = 0, frag_integral_ = 0;
  int64_t running_ = 0;
  int64_t departing_ = 0;  // running jobs that will finish
  bool preemption_paused_ = false;
  ClusterResults r_;
};

}  // namespace

ClusterResults run_cluster(const ClusterConfig& config) { return ClusterRun(config).run(); }

}  // namespace vgpusim
