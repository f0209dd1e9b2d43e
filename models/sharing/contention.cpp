// Spatial contention. When the SMs the busy contexts ask for add up to more than the GPU has, kernel turns (the
// default) makes them take turns kernel by kernel (kernel_turn_rates); the rest of this header is the side-by-side
// case. For a kernel with solo time T, compute time c, memory time m and SM fill f:
// holding a fraction s of the SMs slows its compute side to c f / s; its memory side keeps at most
// reach(s) / reach(f) of the bandwidth it draws alone, reach(x) = min(1, x / sat) (sat = bw_saturation_fraction),
// so a client holding all it fills is not slowed by itself; bandwidth is shared max-min fairly with shares weighted by the
// SMs each context holds (more SMs, more requests in flight); then each rate is divided by
// 1 + l2_interference x (the DRAM bandwidth the other contexts draw).
#include "models/sharing/contention.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "sim/core/maxmin.hpp"

namespace vgpusim {

const ParamTable<ContentionParams>& ContentionParams::table() {
  static const ParamTable<ContentionParams> table =
      ParamTable<ContentionParams>()
          .add(&ContentionParams::bw_saturation_fraction,
               number_param("contention", "bw_saturation_fraction", units::Dim::Ratio, 1.0, 0.01, 1.0,
                            "fraction of the SMs a streaming kernel needs to reach the full DRAM bandwidth; with "
                            "fewer SMs its bandwidth falls in proportion",
                            "uncalibrated: 100% means bandwidth proportional to SMs held (a partition of k% of the "
                            "SMs streams at most k% of the bandwidth); the hwcal bandwidth-vs-SMs experiment measures "
                            "the real curve"))
          .add(&ContentionParams::l2_interference,
               number_param("contention", "l2_interference", units::Dim::Ratio, 0.0, 0.0, 10.0,
                            "slowdown of a kernel per unit of DRAM bandwidth drawn by the kernels beside it (L2 "
                            "thrashing)",
                            "uncalibrated: 0 (off) until the hwcal co-run experiments fit it"));
  return table;
}

std::vector<ParamSpec> contention_params() { return ContentionParams::table().specs(); }

std::string contention_description() {
  return "contexts side by side: each on the SMs it is given (up to its cap), DRAM bandwidth shared max-min fairly "
         "weighted by SMs held, capped by the SMs' reach (bw_saturation_fraction), and an L2 slowdown per unit of "
         "bandwidth the others draw";
}

namespace {

// A context's rate on a share `sms` of the SMs with the DRAM to itself: its compute side slowed to the SMs it holds,
// its memory side to what those SMs reach of the bandwidth it draws alone.
// What the SMs it is given (`sms`) reach of the bandwidth it reaches alone. Bytes in flight set the reach: its blocks
// hold its occupancy of the thread slots alone when that is known (at most `sms` of them on fewer SMs), else its SM
// fill stands for it. (The roofline's solo time already holds what its own occupancy reaches.)
double reach_ratio(const ContextLoad& l, double sms, double sat) {
  const auto reach = [&](double share) { return std::min(1.0, share / sat); };
  if (l.occupancy > 0) return std::min(1.0, reach(std::min(l.occupancy, sms)) / reach(l.occupancy));
  return std::min(1.0, reach(sms) / reach(std::clamp(l.sm_fill, 1e-9, 1.0)));
}

// The share of the device's bandwidth it draws at solo speed.
double draw(const ContextLoad& l) { return l.memory_fraction * std::clamp(l.bandwidth_reach, 0.0, 1.0); }

// The rate when its SM side takes `compute_slowdown` times as long and its memory side `memory_slowdown` times
// (a slowdown below 1 is none): its launch overhead is not slowed, so the rate is solo / (overhead + the slower side).
double side_bound(const ContextLoad& l, double fraction, double slowdown) {
  return 1.0 / (std::clamp(l.overhead_fraction, 0.0, 1.0) + fraction * slowdown);
}
double compute_bound(const ContextLoad& l, double sms) {
  return side_bound(l, l.compute_fraction, std::max(l.sm_fill, 1e-9) / std::max(sms, 1e-12));
}
double memory_bound(const ContextLoad& l, double sms, double sat) {
  return side_bound(l, l.memory_fraction, 1.0 / std::max(reach_ratio(l, sms, sat), 1e-12));
}

double alone_rate(const ContextLoad& l, double sms, double sat) {
  double bound = 1.0;
  if (l.compute_fraction > 0) bound = std::min(bound, compute_bound(l, sms));
  if (l.memory_fraction > 0) bound = std::min(bound, memory_bound(l, sms, sat));
  return std::max(bound, 0.0);
}

// Oversubscribed SMs under kernel turns: kernels get SMs in the order they were launched, so a kernel that fills the
// GPU runs alone until its last blocks drain and the contexts take turns, one kernel each. A round runs one kernel
// of every busy context; packed perfectly it lasts sum_j (want_j x k_j) (k: a kernel's solo time, want: the SMs it
// fills), and context i gets through one kernel of k_i in it. Contexts whose kernel time is unknown count as equal.
void kernel_turn_rates(std::span<const ContextLoad> loads, const std::vector<double>& want, double sat,
                       std::vector<double>& rates) {
  bool known = true;
  for (size_t i = 0; i < loads.size(); ++i)
    if (loads[i].active > 0 && !(loads[i].kernel_time > 0)) known = false;
  double round = 0;
  for (size_t i = 0; i < loads.size(); ++i)
    if (loads[i].active > 0) round += want[i] * (known ? loads[i].kernel_time : 1.0);
  for (size_t i = 0; i < loads.size(); ++i) {
    if (loads[i].active == 0) continue;
    const double k = known ? loads[i].kernel_time : 1.0;
    rates[i] = alone_rate(loads[i], want[i], sat) * std::min(1.0, k / round);
  }
}

}  // namespace

void spatial_rates(std::span<const ContextLoad> loads, std::span<const double> sm_caps, SmAllocation allocation,
                   const ContentionParams& params, std::vector<double>& rates) {
  const size_t n = loads.size();
  rates.assign(n, 0.0);
  const double sat = params.bw_saturation_fraction;
  const double l2 = params.l2_interference;

  // Scratch kept by each thread: a spatial sharing model asks for rates at every event.
  thread_local std::vector<double> want, sms, x;
  thread_local std::vector<size_t> index;
  thread_local MaxMinProblem problem;
  // SMs: each busy context asks for what its blocks can fill, up to its cap.
  want.assign(n, 0.0);
  sms.assign(n, 0.0);
  double total = 0;
  for (size_t i = 0; i < n; ++i) {
    if (loads[i].active == 0) continue;
    want[i] = std::clamp(std::min(loads[i].sm_fill, sm_caps[i]), 1e-9, 1.0);
    total += want[i];
  }
  if (total > 1.0 + 1e-12 && allocation == SmAllocation::KernelTurns) {
    kernel_turn_rates(loads, want, sat, rates);
    return;
  }
  if (total <= 1.0 + 1e-12) {
    sms = want;
  } else if (allocation == SmAllocation::Proportional) {
    for (size_t i = 0; i < n; ++i) sms[i] = want[i] / total;
  } else {
    double left = 1.0;
    for (size_t i = 0; i < n; ++i) {
      sms[i] = std::min(want[i], left);
      left -= sms[i];
    }
  }

  // Bandwidth: one shared resource; each context's rate is bounded by its compute side, by the bandwidth its SMs
  // can draw, and by its solo speed.
  problem.capacity.assign(1, 1.0);
  index.clear();
  for (size_t i = 0; i < n; ++i)
    if (loads[i].active != 0) index.push_back(i);
  // Resized, not rebuilt: the variables keep their `uses` capacity from the last call.
  problem.variables.resize(index.size());
  for (size_t k = 0; k < index.size(); ++k) {
    const size_t i = index[k];
    const ContextLoad& l = loads[i];
    double bound = 1.0;
    if (l.compute_fraction > 0) bound = std::min(bound, compute_bound(l, sms[i]));
    MaxMinVariable& v = problem.variables[k];
    v.weight = 1.0;
    v.uses.clear();
    if (l.memory_fraction > 0) {
      // The roofline's solo time already holds the bandwidth the kernel draws alone with its own fill; the SMs it
      // is given here take away only what they cannot reach of that (one rule for a lone client in any mode).
      bound = std::min(bound, memory_bound(l, sms[i], sat));
      if (draw(l) > 0) {
        v.uses.push_back({0, draw(l)});
        v.weight = std::max(sms[i], 1e-9) / draw(l);
      }
    }
    v.bound = std::max(bound, 0.0);
  }
  solve_maxmin(problem, x);
  double drawn = 0;
  for (size_t k = 0; k < index.size(); ++k) drawn += x[k] * draw(loads[index[k]]);
  for (size_t k = 0; k < index.size(); ++k) {
    const size_t i = index[k];
    const double others = drawn - x[k] * draw(loads[i]);
    rates[i] = x[k] / (1.0 + l2 * std::max(0.0, others));
  }
}

}  // namespace vgpusim
