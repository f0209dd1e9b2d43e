// Weighted max-min fairness by progressive filling. Each round raises every unfixed variable by weight x delta,
// where delta is the largest step no resource or bound forbids, then fixes the variables that hit a limit.
#include "sim/core/maxmin.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace vgpusim {

std::vector<double> solve_maxmin(const MaxMinProblem& p) {
  std::vector<double> x;
  solve_maxmin(p, x);
  return x;
}

void solve_maxmin(const MaxMinProblem& p, std::vector<double>& x) {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  constexpr double kRelEps = 1e-12;
  const size_t nv = p.variables.size(), nr = p.capacity.size();
  // Scratch kept by each thread (the solver runs at every event of a spatial sharing model).
  thread_local std::vector<double> used, load;
  thread_local std::vector<bool> active, saturated;
  x.assign(nv, 0.0);
  used.assign(nr, 0.0);
  load.assign(nr, 0.0);
  active.assign(nv, false);
  size_t n_active = 0;
  for (size_t v = 0; v < nv; ++v) {
    const MaxMinVariable& var = p.variables[v];
    if (!(var.weight > 0)) throw std::invalid_argument("max-min variable weight must be > 0");
    for (const auto& [r, c] : var.uses)
      if (r < 0 || static_cast<size_t>(r) >= nr || !(c > 0))
        throw std::invalid_argument("max-min variable uses an unknown resource or a non-positive coefficient");
    if (var.uses.empty()) {
      x[v] = var.bound;
    } else if (var.bound > 0) {
      active[v] = true;
      ++n_active;
    }
  }
  while (n_active > 0) {
    std::fill(load.begin(), load.end(), 0.0);
    for (size_t v = 0; v < nv; ++v)
      if (active[v])
        for (const auto& [r, c] : p.variables[v].uses) load[static_cast<size_t>(r)] += c * p.variables[v].weight;
    double delta = kInf;
    for (size_t r = 0; r < nr; ++r)
      if (load[r] > 0) delta = std::min(delta, std::max(0.0, p.capacity[r] - used[r]) / load[r]);
    for (size_t v = 0; v < nv; ++v)
      if (active[v]) delta = std::min(delta, (p.variables[v].bound - x[v]) / p.variables[v].weight);
    if (!std::isfinite(delta)) throw std::logic_error("max-min problem is unbounded");
    for (size_t v = 0; v < nv; ++v) {
      if (!active[v]) continue;
      const double inc = p.variables[v].weight * delta;
      x[v] += inc;
      for (const auto& [r, c] : p.variables[v].uses) used[static_cast<size_t>(r)] += c * inc;
    }
    // Fix the variables at their bound and those on a saturated resource.
    saturated.assign(nr, false);
    for (size_t r = 0; r < nr; ++r)
      saturated[r] = load[r] > 0 && p.capacity[r] - used[r] <= kRelEps * std::max(1.0, p.capacity[r]);
    for (size_t v = 0; v < nv; ++v) {
      if (!active[v]) continue;
      const double bound = p.variables[v].bound;
      bool fix = std::isfinite(bound) && bound - x[v] <= kRelEps * std::max(1.0, std::fabs(bound));
      for (const auto& [r, c] : p.variables[v].uses) fix = fix || saturated[static_cast<size_t>(r)];
      if (fix) {
        active[v] = false;
        --n_active;
      }
    }
  }
}

}  // namespace vgpusim
