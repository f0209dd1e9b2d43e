// A reusable weighted max-min fair solver with bounds (progressive filling): variables share resources of
// fixed capacity; each variable's rate is weight x level, the level rising until a resource saturates or the
// variable reaches its bound. Used by spatial sharing and contention models; tested against known answers.
#pragma once

#include <limits>
#include <utility>
#include <vector>

namespace vgpusim {

struct MaxMinVariable {
  double weight = 1.0;  // > 0: share of a contended resource is proportional to it
  double bound = std::numeric_limits<double>::infinity();  // rate ceiling
  std::vector<std::pair<int, double>> uses;                 // (resource index, consumption per unit rate) > 0
};

struct MaxMinProblem {
  std::vector<double> capacity;  // per resource, >= 0
  std::vector<MaxMinVariable> variables;
};

// The max-min fair rates, one per variable. A variable using no resource gets its bound (may be infinite).
std::vector<double> solve_maxmin(const MaxMinProblem& problem);
// The same into `x` (resized), with no allocation once `x` and the thread's scratch have grown: for models that
// solve at every event.
void solve_maxmin(const MaxMinProblem& problem, std::vector<double>& x);

}  // namespace vgpusim
