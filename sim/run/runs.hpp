// Running a scenario as a user asks for it: its replications (each with its own seed and start draws), the shared
// run and every tenant's baseline of each, and their results merged (sim/run/metrics.hpp computes one run's).
#pragma once

#include <vector>

#include "sim/run/metrics.hpp"
#include "sim/run/simulation.hpp"
#include "sim/scenario/scenario.hpp"

namespace vgpusim {

// Replication `i` of a scenario: its seed (the scenario's for the first, then derived from it) and each tenant's
// start drawn from its distribution with that seed.
Scenario replication(const Scenario& sc, int i);
// Several replications' results as one: means of the tenant and GPU figures, the vGPU loss's interval across
// replications (of the finite values: a replication without units has no latency), units the mean count rounded,
// failures of any replication once each; CDFs and series are the first replication's; comparisons recomputed.
Results merge_replications(const Scenario& sc, const std::vector<Results>& reps);
// The whole job: for each replication the shared run and every tenant's baseline, then the results. A
// replication's runs are independent: with `threads` > 1 they run on up to that many threads, one replication after
// another (results do not depend on it; progress and the observer follow the first replication's shared run).
Results run_scenario(const Scenario& sc, ProgressFn progress = nullptr, RunObserver* observer = nullptr,
                     unsigned threads = 1);

}  // namespace vgpusim
