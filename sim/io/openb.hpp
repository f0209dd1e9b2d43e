// Importer of the Alibaba PAI GPU-sharing cluster trace "openb" (clusterdata/cluster-trace-gpu-v2023, CSV as
// published): node lists become ClusterNodes, pod lists become ClusterJobs. Column mapping in docs/cluster.md.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "models/cluster/cluster_types.hpp"

namespace vgpusim {

// Reads `sn,cpu_milli,memory_mib,gpu,model`. With `gpu_nodes_only`, nodes with gpu == 0 are dropped.
// Throws InputError ("FILE:LINE: column: what") on a malformed row.
std::vector<ClusterNode> read_openb_nodes(const std::string& path, bool gpu_nodes_only);

// Reads `name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,
// scheduled_time`: arrival = creation_time, duration = deletion_time - creation_time, each GPU share =
// gpu_milli (a fraction of one GPU when num_gpu == 1, whole GPUs otherwise), gpu_spec `|`-separated models.
// Lists with only the first five columns (multigpu20/40) have no times: pods arrive 1 s apart in row order
// and never leave (duration infinite). `limit` > 0 keeps the first `limit` pods. Jobs come back sorted by arrival (stable).
std::vector<ClusterJob> read_openb_pods(const std::string& path, size_t limit);

}  // namespace vgpusim
