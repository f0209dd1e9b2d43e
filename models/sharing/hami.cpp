// `hami`: HAMi-core's SM limiter (Project-HAMi/HAMi-core, libvgpu.so preloaded into every container). The processes
// share the GPU by the driver's time-slicing (the `timeslice` model runs underneath), and each process's kernel
// launches pass its own token bucket, counted in thread blocks:
// - a launch waits while the bucket is negative (polling every `launch_poll`), then takes its grid's blocks out of
//   it (the bucket may go negative: the kernel is never split);
// - a watcher thread, every `watcher_period`, reads the process's SM utilization U over the last
//   `utilization_window` (NVML per-process smUtil: the share of time its kernels ran) and moves a refill `share`
//   toward the limit L: diff = max(|L - U|, 5) percentage points, step = SMs^2 x threads_per_SM x diff / 2560
//   (SMs x ... with `step: sm_linear`), times 2 diff / (L + 1) when diff > L / 2; share grows by the step while
//   U <= L and shrinks by it otherwise (between 0 and the bucket's size, threads_per_SM x SMs x 32); then the
//   whole share is added to the bucket (up to its size);
// - with `policy: default` the limiter only charges launches while another container on the GPU has launched a
//   kernel since the node monitor's last observation (every `monitor_period`; it starts on), `force` always,
//   `disable` never.
// Sources: HAMi-core 078a2d29 src/multiprocess/multiprocess_utilization_watcher.c (rate_limiter, delta, the
// watcher), multiprocess_memory_limit.h (FACTOR 32), src/cuda/memory.c (cuLaunchKernel charges the grid's blocks);
// HAMi e87c74ac cmd/vGPUmonitor/feedback.go (the utilization switch); HAMi-core PR #317 (the linear step).
#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>

#include "models/sharing/mode_registry.hpp"
#include "models/sharing/timeslice.hpp"

namespace vgpusim {
namespace {

enum class Policy { Default, Force, Disable };  // the words of hami.policy, in order
enum class Step { SmSquared, SmLinear };         // the words of hami.step, in order

// The mode's parameters (the table below binds them) and the GPU's SMs.
struct LimiterSettings {
  Policy policy;
  Step step;
  double watcher_period;  // s
  double window;          // s, hami.utilization_window
  double poll;            // s, hami.launch_poll
  double monitor_period;  // s
  double threads_per_sm;  // 0 = the catalog's
  double sms;             // the GPU's (not a parameter)
};
struct HamiTenant {
  double sm_limit;  // fraction
};

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kPoolFactor = 32;    // HAMi-core FACTOR: the bucket holds threads_per_SM x SMs x 32 blocks
constexpr double kStepDivisor = 2560;  // delta(): SMs^2 x threads_per_SM x diff / 2560
constexpr double kMinDiff = 5;         // delta(): the step never uses less than 5 percentage points

// One process's limiter state (HAMi-core keeps it per process: the bucket and the refill share are its globals).
struct Limiter {
  double limit = 100;  // percent; 100 or more: no limit
  double start = 0;    // when the process starts (its watcher's phase)
  double next_tick = kInf;
  double pool = 0;   // tokens (thread blocks)
  double share = 0;  // tokens added each tick
  double total = 0;  // the bucket's size
  bool charging = true;  // the utilization switch
  // Launches seen, admitted and waiting.
  long long seen = 0;
  double seen_blocks = 0;
  long long admitted = 0;
  long long waiting = 0;
  double waiting_blocks = 0;
  bool blocked = false;    // the first waiting launch found the bucket negative and polls
  double wait_since = 0;   // when it started polling
  double ready_at = kInf;  // the poll at which it finds the bucket non-negative (after a refill)
  double last_marked = -kInf;  // the last launch that went through the charging path (marks the container active)
  // Busy time: cumulative seconds its kernels ran, sampled at every decision (piecewise linear between them).
  double busy = 0;
  double running = 0;  // its rate since the last decision
  std::deque<std::pair<double, double>> history;
};

class HamiLimiter final : public SharingModel {
 public:
  HamiLimiter(std::unique_ptr<SharingModel> inner, const LimiterSettings& s, std::vector<Limiter> limiters)
      : inner_(std::move(inner)), s_(s), limiters_(std::move(limiters)) {
    for (Limiter& l : limiters_) {
      l.total = s_.threads_per_sm * s_.sms * kPoolFactor;
      l.charging = s_.policy != Policy::Disable;
      if (limits(l)) l.next_tick = l.start + s_.watcher_period;
    }
    if (s_.policy == Policy::Default) next_observation_ = s_.monitor_period;
  }

  void decide(double now, std::span<const ContextLoad> contexts, ShareDecision& out) override {
    if (limiters_.size() < contexts.size()) limiters_.resize(contexts.size());  // contexts without a tenant: no limit
    run_timers(now);
    account(now);
    masked_.assign(contexts.begin(), contexts.end());
    for (size_t i = 0; i < contexts.size(); ++i) {
      Limiter& l = limiters_[i];
      const ContextLoad& c = contexts[i];
      if (c.launches > l.seen) {
        if (l.waiting == 0) l.blocked = false;
        l.waiting += c.launches - l.seen;
        l.waiting_blocks += c.launched_blocks - l.seen_blocks;
        l.seen = c.launches;
        l.seen_blocks = c.launched_blocks;
        if (limits(l) && l.charging) l.last_marked = now;
      }
      admit(l, now);
      // Kernels finish in launch order: those in flight beyond the admitted ones wait in the limiter.
      const long long finished = c.launches - (c.active - c.holds);
      if (l.admitted - finished <= 0) masked_[i].active = masked_[i].holds;
    }
    inner_->decide(now, masked_, out);
    // Ticks and the monitor's looks are caught up when the model is next asked (run_timers): only a launch waiting
    // for a refill needs the model woken, at the next tick, then at its poll.
    double wake = out.wake_at;
    bool working = false, waiting = false;
    for (size_t i = 0; i < contexts.size(); ++i) {
      Limiter& l = limiters_[i];
      const bool admitted = masked_[i].active > masked_[i].holds;
      l.running = admitted ? out.rate[i] : 0.0;
      working = working || admitted;
      waiting = waiting || contexts[i].active > contexts[i].holds;
      if (l.blocked) wake = std::min(wake, l.ready_at < kInf ? l.ready_at : l.next_tick);
    }
    out.wake_at = wake;
    // Work held back in the limiter keeps no kernel on the GPU.
    out.held_back = waiting && !working;
  }

  bool keeps_idle_grace() const override { return inner_->keeps_idle_grace(); }
  double idle_hold(double gap) const override { return inner_->idle_hold(gap); }

 private:
  bool limits(const Limiter& l) const { return l.limit > 0 && l.limit < 100; }

  // Busy time up to `now` at the rates of the last decision.
  void account(double now) {
    const double dt = now - last_;
    for (Limiter& l : limiters_) {
      if (dt > 0) l.busy += l.running * dt;
      if (!limits(l)) continue;
      if (l.history.empty() || l.history.back().first < now) l.history.emplace_back(now, l.busy);
      // Keep one sample at or before the window's start.
      while (l.history.size() > 2 && l.history[1].first <= now - s_.window) l.history.pop_front();
    }
    last_ = std::max(last_, now);
  }

  // Busy seconds in [now - window, now], `now` being the last time accounted (before the first sample: none).
  double busy_in_window(const Limiter& l, double now) const {
    const double from = now - s_.window;
    double before = 0;
    if (!l.history.empty() && l.history.front().first <= from) {
      for (size_t k = 1; k < l.history.size(); ++k) {
        const auto& [t1, b1] = l.history[k];
        if (t1 < from) continue;
        const auto& [t0, b0] = l.history[k - 1];
        before = t1 > t0 ? b0 + (b1 - b0) * (from - t0) / (t1 - t0) : b1;
        break;
      }
    }
    return l.busy - before;
  }

  // Watcher ticks and monitor observations due by `now`, in time order.
  void run_timers(double now) {
    for (;;) {
      double next = next_observation_;
      Limiter* who = nullptr;
      for (Limiter& l : limiters_)
        if (l.next_tick < next) {
          next = l.next_tick;
          who = &l;
        }
      if (next > now) return;
      account(next);
      if (who)
        tick(*who, next);
      else
        observe(next);
    }
  }

  void tick(Limiter& l, double at) {
    l.next_tick = at + s_.watcher_period;
    // A debt the full refill did not pay by the last tick: the bucket doubles (before the step, as in the code).
    if (l.share >= l.total && l.pool < 0) {
      l.total *= 2;
      l.share = l.total;
    }
    const double used = 100 * busy_in_window(l, at) / s_.window;
    const double limit = l.limit;
    const double diff = std::max(std::abs(limit - used), kMinDiff);
    double step = (s_.step == Step::SmLinear ? s_.sms : s_.sms * s_.sms) * s_.threads_per_sm * diff / kStepDivisor;
    if (diff > limit / 2) step *= diff * 2 / (limit + 1);
    l.share = used <= limit ? std::min(l.share + step, l.total) : std::max(l.share - step, 0.0);
    l.pool = std::min(l.pool + l.share, l.total);
    if (l.blocked && l.pool >= 0 && l.ready_at == kInf)
      l.ready_at = l.wait_since + s_.poll * std::ceil((at - l.wait_since) / s_.poll - 1e-9);
  }

  // The node monitor's look: the containers that marked a launch since the last look (a launch is marked only on
  // the limiter's charging path, so a container without a limit or with the switch off is never counted); with
  // more than one, every container on the GPU is limited, else none.
  void observe(double at) {
    int active = 0;
    for (const Limiter& l : limiters_)
      if (l.last_marked >= last_observation_ && l.last_marked > -kInf) ++active;
    for (Limiter& l : limiters_) l.charging = active > 1;
    last_observation_ = at;
    next_observation_ = at + s_.monitor_period;
  }

  // Lets waiting launches through: all of them when the limiter does not charge (and none is already polling),
  // else one at a time while the bucket is not negative.
  void admit(Limiter& l, double now) {
    while (l.waiting > 0) {
      if (!l.blocked && !(limits(l) && l.charging)) {
        l.admitted += l.waiting;
        l.waiting = 0;
        l.waiting_blocks = 0;
        return;
      }
      if (l.blocked && now < l.ready_at) return;
      if (l.pool < 0) {
        if (!l.blocked) {
          l.blocked = true;
          l.wait_since = now;
          l.ready_at = kInf;
        }
        return;
      }
      const double blocks = l.waiting_blocks / static_cast<double>(l.waiting);
      l.pool -= blocks;
      l.waiting_blocks -= blocks;
      --l.waiting;
      ++l.admitted;
      l.blocked = false;
      l.ready_at = kInf;
    }
  }

  std::unique_ptr<SharingModel> inner_;
  LimiterSettings s_;
  std::vector<Limiter> limiters_;
  std::vector<ContextLoad> masked_;
  double last_ = 0;
  double next_observation_ = kInf;
  double last_observation_ = 0;
};

}  // namespace

namespace {

const ParamTable<LimiterSettings>& hami_params() {
  const std::string core = "Project-HAMi/HAMi-core 078a2d29 src/multiprocess/";
  static const ParamTable<LimiterSettings> table = ParamTable<LimiterSettings>()
      .add(&LimiterSettings::policy, choice_param("hami", "policy", {"default", "force", "disable"},
                   "GPU_CORE_UTILIZATION_POLICY: default limits a container only while another container on the GPU "
                   "has launched kernels since the node monitor's last observation; force always; disable never",
                   "HAMi-core multiprocess_memory_limit.c (set_env_utilization_switch) and HAMi "
                   "cmd/vGPUmonitor/feedback.go (Observe sets the switch); HAMi#737: a lone pod is not limited "
                   "without force"))
      .add(&LimiterSettings::step, choice_param("hami", "step", {"sm_squared", "sm_linear"},
                   "how the watcher's refill step grows with the GPU's SMs: sm_squared (SMs^2 x threads per SM x diff "
                   "/ 2560, HAMi-core's code) or sm_linear (SMs x threads per SM x diff / 2560, HAMi-core PR #317)",
                   core + "multiprocess_utilization_watcher.c delta(); PR #317 (HAMi-core#314, #274: on large GPUs "
                          "the squared step refills the whole bucket in one tick and the limit does not hold)"))
      .add(&LimiterSettings::watcher_period, number_param("hami", "watcher_period", units::Dim::Time, 0.12, 1e-3, 10.0,
                   "how often the watcher thread reads the utilization and refills the bucket",
                   core + "multiprocess_utilization_watcher.h: g_wait 120 ms"))
      .add(&LimiterSettings::window, number_param("hami", "utilization_window", units::Dim::Time, 1.0, 1e-3, 60.0,
                   "the window the process's SM utilization is read over",
                   core + "multiprocess_utilization_watcher.c: nvmlDeviceGetProcessUtilization from now - 1 s"))
      .add(&LimiterSettings::poll, number_param("hami", "launch_poll", units::Dim::Time, 0.01, 1e-5, 1.0,
                   "how often a launch that found the bucket negative checks it again",
                   core + "multiprocess_utilization_watcher.c: rate_limiter sleeps g_cycle (10 ms) per check"))
      .add(&LimiterSettings::monitor_period, number_param("hami", "monitor_period", units::Dim::Time, 5.0, 1e-3, 3600.0,
                   "how often the node monitor decides whether each container is limited (policy default)",
                   "Project-HAMi/HAMi e87c74ac cmd/vGPUmonitor/feedback.go: Observe every 5 s"))
      .add(&LimiterSettings::threads_per_sm, number_param("hami", "threads_per_sm", units::Dim::Count, 0, 0, 4096,
                   "the GPU's most resident threads per SM, which sizes the bucket and the refill step; 0 = the "
                   "catalog's for the GPU (2048 where it has none)",
                   "CUDA C Programming Guide, technical specifications per compute capability (the catalog's "
                   "threads_per_sm): 2048 for 7.0, 8.0, 9.0 (V100, A100, H100/H200); 1536 for 8.6 and 8.9 (A40, L40)"));
  return table;
}

const ParamTable<HamiTenant>& hami_tenant_params() {
  static const ParamTable<HamiTenant> table = ParamTable<HamiTenant>()
      .add(&HamiTenant::sm_limit, per_tenant(number_param("hami", "sm_limit", units::Dim::Ratio, 1.0, 0.01, 1.0,
                              "the container's CUDA_DEVICE_SM_LIMIT: the SM utilization (share of time its kernels "
                              "run) the limiter steers the process to; 100% = no limit",
                              "HAMi-core README: CUDA_DEVICE_SM_LIMIT, the SM utilization percentage of each device")));
  return table;
}

}  // namespace

SharingModeInfo hami_sharing_mode() {
  SharingModeInfo info;
  info.name = "hami";
  info.description =
      "HAMi-core SM limiter: processes time-sliced by the driver, each process's kernel launches throttled by a "
      "token bucket that a watcher refills toward its SM-utilization limit; no memory isolation modelled";
  info.citation =
      "Project-HAMi/HAMi-core src/multiprocess/multiprocess_utilization_watcher.c (rate_limiter, delta); HAMi "
      "cmd/vGPUmonitor/feedback.go";
  info.doc = "hami.md";
  info.params = hami_params().specs();
  for (const ParamSpec& p : hami_tenant_params().specs()) info.params.push_back(p);
  for (const ParamSpec& p : timeslice_params()) info.params.push_back(p);
  info.max_contexts = 0;
  info.memory_isolation = false;
  info.create = [](const ModelSetup& s) -> std::unique_ptr<SharingModel> {
    LimiterSettings settings = hami_params().read(s.params);
    if (!(settings.threads_per_sm > 0)) settings.threads_per_sm = s.gpu.threads_per_sm > 0 ? s.gpu.threads_per_sm : 2048.0;
    settings.sms = s.gpu.compute_units;
    std::vector<Limiter> limiters(s.tenants.size());
    for (size_t i = 0; i < s.tenants.size(); ++i) {
      // CUDA_DEVICE_SM_LIMIT is a whole percentage.
      limiters[i].limit = std::round(100 * hami_tenant_params().read(s.tenants[i]).sm_limit);
      if (i < s.tenant_start.size()) limiters[i].start = s.tenant_start[i];
    }
    return std::make_unique<HamiLimiter>(make_timeslice_model(timeslice_times(s.params), s.fidelity), settings,
                                         std::move(limiters));
  };
  return info;
}

}  // namespace vgpusim
