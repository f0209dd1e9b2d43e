// Real cluster configurations read as the sharing of a scenario's GPUs: the NVIDIA Kubernetes device plugin's
// config file (its `sharing` section: time-slicing or MPS replicas) and NVIDIA mig-parted layouts (`mig-configs`).
// docs/k8s-configs.md gives the mapping and what cannot be expressed.
#pragma once

#include <yaml-cpp/yaml.h>

#include <string>
#include <utility>
#include <vector>

namespace vgpusim {

// The device plugin's sharing of every GPU of a node (the plugin applies one config to all of them).
struct DevicePluginSharing {
  std::string strategy;  // "timeSlicing", "mps", or "" (no sharing: each GPU goes to one container)
  long long replicas = 1;
  std::string where;     // FILE:LINE:COL of `replicas`, for messages
};
// Reads a device plugin config file (version v1). Throws InputError "FILE:LINE:COL: key: ..." for what is not
// valid or cannot be expressed (MIG resources, per-resource `devices`, both strategies at once).
DevicePluginSharing read_device_plugin_config(const std::string& path);

// One entry of a mig-parted layout: the devices it applies to and their MIG devices.
struct MigPartedEntry {
  bool all_devices = false;
  std::vector<long long> devices;  // GPU indices when not all
  bool mig_enabled = false;
  std::vector<std::pair<std::string, long long>> mig_devices;  // profile -> count, in file order
  std::string where;  // FILE:LINE:COL of the entry
};
// The entries of the layout named `config` in a mig-parted file (version v1). Throws InputError naming the file
// position, and the layouts the file has when `config` is not one of them.
std::vector<MigPartedEntry> read_mig_parted_config(const std::string& path, const std::string& config);

}  // namespace vgpusim
