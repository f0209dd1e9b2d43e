// The configuration that deploys a plan's chosen candidate on Kubernetes with NVIDIA's GPU software, in those
// projects' documented formats: the mig-parted layouts (MIG), the device plugin's sharing config (time-slicing,
// MPS, or none), a pod sketch per replica (its node and GPU resource) and a README with the node labels that tie
// them together. The project's importers (sim/io/k8s_configs.hpp) read the first two back; docs/plan.md.
#pragma once

#include <string>
#include <vector>

#include "sim/studies/plan/plan.hpp"

namespace vgpusim {

struct DeployFile {
  std::string name;  // relative to the deploy folder
  std::string text;
};

// The deployment files of candidate `c` of the plan `plan_name` (a feasible candidate with its placement): always
// README.md; mig-parted.yaml with MIG; device-plugin.yaml with passthrough, time-slicing, MPS or MIG; pods.yaml for
// those modes. A mode that Kubernetes' GPU software does not set up (vGPU types, SR-IOV slices, HAMi-style
// limiters, software rendering) gets the README only, saying so.
std::vector<DeployFile> deploy_files(const std::string& plan_name, const Candidate& c);

// The layout name mig-parted.yaml gives instance `node` (i<node>) of the candidate.
std::string deploy_mig_layout(size_t node);
// The pod name of a tenant: a DNS-1123 label (lower case letters, digits and '-', at most 63 characters).
std::string deploy_pod_name(const std::string& tenant);

}  // namespace vgpusim
