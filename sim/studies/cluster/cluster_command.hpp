// `vgpusim run` on a cluster scenario (`kind: cluster`, docs/cluster.md): load, run, write, print.
#pragma once

#include "sim/report/run_command.hpp"

namespace vgpusim {

int run_cluster_command(const ScenarioDocument& doc, const RunOptions& options);

}  // namespace vgpusim
