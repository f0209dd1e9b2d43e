// The cluster run command. Cluster scenarios take no --set, --seed or --fidelity: they are not GPU-level scenarios.
#include "sim/studies/cluster/cluster_command.hpp"

#include <iostream>

#include "sim/studies/cluster/cluster_metrics.hpp"
#include "sim/studies/cluster/cluster_scenario.hpp"

namespace vgpusim {

int run_cluster_command(const ScenarioDocument& doc, const RunOptions& options) {
  if (!options.overrides.empty())
    throw InputError(doc.file + ": --set, --seed and --fidelity do not apply to cluster scenarios");
  if (!options.fail_on.empty())
    throw InputError(doc.file + ": --fail-on applies to GPU-level scenarios, not to cluster scenarios");
  ClusterConfig config = load_cluster_scenario(doc);
  config.max_events = options.limits.max_events;
  config.max_sample_bytes = options.limits.max_memory;
  const ClusterResults results = run_cluster(config);
  write_outputs(select_outputs<ClusterResults>(cluster_formats(), options), results);
  if (!options.quiet)
    std::cout << stdout_text(cluster_formats(), results, options.json, [&] { return cluster_results_table(results); });
  return 0;
}

}  // namespace vgpusim
