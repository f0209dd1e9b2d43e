// Deployment files for a plan's candidate (deploy_configs.hpp). The YAML goes through yaml-cpp's emitter, so names
// and profiles are quoted where YAML needs it; the README is plain text.
#include "sim/studies/plan/deploy_configs.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <map>
#include <set>
#include <utility>

namespace vgpusim {

std::string deploy_mig_layout(size_t node) { return fmt::format("vgpusim-i{}", node); }

std::string deploy_pod_name(const std::string& tenant) {
  std::string out;
  for (const char ch : tenant) {
    const char c = (ch >= 'A' && ch <= 'Z') ? static_cast<char>(ch - 'A' + 'a') : ch;
    const bool keep = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
    if (keep)
      out += c;
    else if (!out.empty() && out.back() != '-')
      out += '-';
  }
  if (out.size() > 63) out.resize(63);
  while (!out.empty() && out.back() == '-') out.pop_back();
  return out.empty() ? "replica" : out;
}

namespace {

constexpr const char* kPluginConfigName = "vgpusim";  // the key of the plugin's ConfigMap and the node label value
constexpr const char* kNodeLabel = "vgpusim.io/node";

// The candidate's replicas by instance and GPU: what placement says, with every GPU of every instance present.
struct Nodes {
  // node -> GPU within the node -> replicas on it (placement order)
  std::vector<std::vector<std::vector<const PlacedReplica*>>> gpus;
  size_t busiest = 0;  // most replicas on one GPU
};

// "i<node>g<gpu>" (a MIG instance: "i<node>g<gpu>/<k>") -> {node, gpu}; false for another form.
bool parse_gpu_id(const std::string& id, size_t& node, size_t& gpu) {
  const std::string physical = id.substr(0, id.find('/'));
  const size_t g = physical.find('g');
  if (physical.size() < 4 || physical[0] != 'i' || g == std::string::npos || g < 2 || g + 1 >= physical.size())
    return false;
  const auto digits = [](const std::string& s) {
    return !s.empty() && s.size() < 7 && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
  };
  const std::string n = physical.substr(1, g - 1), k = physical.substr(g + 1);
  if (!digits(n) || !digits(k)) return false;
  node = std::stoul(n);
  gpu = std::stoul(k);
  return true;
}

Nodes nodes_of(const Candidate& c) {
  Nodes out;
  out.gpus.assign(static_cast<size_t>(std::max(c.count, 0)),
                  std::vector<std::vector<const PlacedReplica*>>(static_cast<size_t>(std::max(c.gpus_per_instance, 1))));
  for (const PlacedReplica& p : c.placement) {
    size_t node = 0, gpu = 0;
    if (!parse_gpu_id(p.gpu, node, gpu)) continue;
    if (node >= out.gpus.size()) out.gpus.resize(node + 1, std::vector<std::vector<const PlacedReplica*>>(1));
    if (gpu >= out.gpus[node].size()) out.gpus[node].resize(gpu + 1);
    out.gpus[node][gpu].push_back(&p);
    out.busiest = std::max(out.busiest, out.gpus[node][gpu].size());
  }
  return out;
}

// One line of a YAML comment: a line break in a name would end the comment.
std::string one_line(std::string text) {
  std::replace_if(text.begin(), text.end(), [](char ch) { return ch == '\n' || ch == '\r'; }, ' ');
  return text;
}

std::string header(const std::string& plan_name, const Candidate& c, const std::string& what) {
  return fmt::format("# {} for the plan '{}', candidate #{}: {} x {} ({}), {}, ${:.3f}/h.\n", what,
                     one_line(plan_name), c.index, c.count, one_line(c.instance), one_line(c.gpu), one_line(c.sharing),
                     c.cost_per_hour) +
         "# Written by `vgpusim plan --out`; README.md beside it says how to apply it.\n";
}

// mig-parted's layouts: one per instance (all its GPUs), each GPU's MIG devices by profile in placement order.
std::string mig_parted_yaml(const std::string& plan_name, const Candidate& c, const Nodes& nodes) {
  YAML::Emitter y;
  y << YAML::BeginMap << YAML::Key << "version" << YAML::Value << "v1" << YAML::Key << "mig-configs" << YAML::Value
    << YAML::BeginMap;
  for (size_t n = 0; n < nodes.gpus.size(); ++n) {
    y << YAML::Key << deploy_mig_layout(n) << YAML::Value << YAML::BeginSeq;
    for (size_t g = 0; g < nodes.gpus[n].size(); ++g) {
      std::vector<std::pair<std::string, long long>> devices;
      for (const PlacedReplica* p : nodes.gpus[n][g]) {
        auto it = std::find_if(devices.begin(), devices.end(), [&](const auto& d) { return d.first == p->profile; });
        if (it == devices.end())
          devices.emplace_back(p->profile, 1);
        else
          ++it->second;
      }
      y << YAML::BeginMap << YAML::Key << "devices" << YAML::Value << YAML::Flow << YAML::BeginSeq << g
        << YAML::EndSeq << YAML::Key << "mig-enabled" << YAML::Value << !devices.empty();
      if (!devices.empty()) {
        y << YAML::Key << "mig-devices" << YAML::Value << YAML::BeginMap;
        for (const auto& [profile, count] : devices) y << YAML::Key << profile << YAML::Value << count;
        y << YAML::EndMap;
      }
      y << YAML::EndMap;
    }
    y << YAML::EndSeq;
  }
  y << YAML::EndMap << YAML::EndMap;
  return header(plan_name, c, "NVIDIA mig-parted layouts (one per instance)") + y.c_str() + "\n";
}

// The device plugin's config: time-slicing or MPS with as many replicas as the busiest GPU holds, none with one
// replica per GPU; the mixed MIG strategy (one resource per profile) with MIG.
std::string device_plugin_yaml(const std::string& plan_name, const Candidate& c, const Nodes& nodes) {
  const bool mig = c.mode == "mig";
  const bool shared = !mig && c.mode != "passthrough" && nodes.busiest > 1;
  YAML::Emitter y;
  y << YAML::BeginMap << YAML::Key << "version" << YAML::Value << "v1" << YAML::Key << "flags" << YAML::Value
    << YAML::BeginMap << YAML::Key << "migStrategy" << YAML::Value << (mig ? "mixed" : "none") << YAML::EndMap;
  if (shared) {
    y << YAML::Key << "sharing" << YAML::Value << YAML::BeginMap << YAML::Key
      << (c.mode == "mps" ? "mps" : "timeSlicing") << YAML::Value << YAML::BeginMap << YAML::Key << "resources"
      << YAML::Value << YAML::BeginSeq << YAML::BeginMap << YAML::Key << "name" << YAML::Value << "nvidia.com/gpu"
      << YAML::Key << "replicas" << YAML::Value << nodes.busiest << YAML::EndMap << YAML::EndSeq << YAML::EndMap
      << YAML::EndMap;
  }
  y << YAML::EndMap;
  return header(plan_name, c, "NVIDIA Kubernetes device plugin config") + y.c_str() + "\n";
}

// One pod per replica: its node by label, its GPU resource (a MIG profile's under the mixed strategy).
std::string pods_yaml(const std::string& plan_name, const Candidate& c) {
  YAML::Emitter y;
  std::set<std::string> used;
  for (const PlacedReplica& p : c.placement) {
    size_t node = 0, gpu = 0;
    if (!parse_gpu_id(p.gpu, node, gpu)) continue;
    std::string name = deploy_pod_name(p.tenant);
    for (int k = 2; used.count(name); ++k) name = fmt::format("{}-{}", deploy_pod_name(p.tenant).substr(0, 58), k);
    used.insert(name);
    const std::string resource = c.mode == "mig" ? "nvidia.com/mig-" + p.profile : "nvidia.com/gpu";
    y << YAML::BeginDoc << YAML::BeginMap;
    y << YAML::Key << "apiVersion" << YAML::Value << "v1" << YAML::Key << "kind" << YAML::Value << "Pod";
    y << YAML::Key << "metadata" << YAML::Value << YAML::BeginMap << YAML::Key << "name" << YAML::Value << name
      << YAML::Key << "annotations" << YAML::Value << YAML::BeginMap << YAML::Key << "vgpusim.io/tenant" << YAML::Value
      << p.tenant << YAML::Key << "vgpusim.io/workload" << YAML::Value << p.workload << YAML::EndMap << YAML::EndMap;
    y << YAML::Key << "spec" << YAML::Value << YAML::BeginMap << YAML::Key << "nodeSelector" << YAML::Value
      << YAML::BeginMap << YAML::Key << kNodeLabel << YAML::Value << fmt::format("i{}", node) << YAML::EndMap;
    y << YAML::Key << "containers" << YAML::Value << YAML::BeginSeq << YAML::BeginMap << YAML::Key << "name"
      << YAML::Value << name << YAML::Key << "image" << YAML::Value << "REPLACE-WITH-THE-WORKLOAD-IMAGE" << YAML::Key
      << "resources" << YAML::Value << YAML::BeginMap << YAML::Key << "limits" << YAML::Value << YAML::BeginMap
      << YAML::Key << resource << YAML::Value << 1 << YAML::EndMap << YAML::EndMap << YAML::EndMap << YAML::EndSeq;
    y << YAML::EndMap << YAML::EndMap;
  }
  return header(plan_name, c, "Kubernetes pod sketches (one per replica: fill in the image and command)") +
         y.c_str() + "\n";
}

std::string placement_lines(const Nodes& nodes) {
  std::string out;
  for (size_t n = 0; n < nodes.gpus.size(); ++n)
    for (size_t g = 0; g < nodes.gpus[n].size(); ++g) {
      std::vector<std::string> who;
      for (const PlacedReplica* p : nodes.gpus[n][g])
        who.push_back(p->profile.empty() ? p->tenant : fmt::format("{} ({})", p->tenant, p->profile));
      out += fmt::format("- i{}g{} (instance i{}, GPU {}): {}\n", n, g, n, g,
                         who.empty() ? std::string("no replica") : fmt::format("{}", fmt::join(who, ", ")));
    }
  return out;
}

std::string readme(const std::string& plan_name, const Candidate& c, const Nodes& nodes, bool configs) {
  std::string out = fmt::format(
      "# Deploying candidate #{} of the plan '{}'\n\n{} x {} ({}, {} GPU(s) each), {}, ${:.3f}/h: the cheapest "
      "candidate meeting every SLO, as `vgpusim plan` predicted it.\n\nPlacement:\n\n{}\n",
      c.index, plan_name, c.count, c.instance, c.gpu, c.gpus_per_instance, c.sharing, c.cost_per_hour,
      placement_lines(nodes));
  if (!configs) {
    out += fmt::format(
        "No Kubernetes configuration is written for `{}`: NVIDIA's device plugin and mig-parted set up passthrough, "
        "time-slicing, MPS and MIG only. {}\n",
        c.mode,
        c.mode == "sriov"   ? "A GPU slice is the provider's instance size: rent that size."
        : c.mode == "vgpu"  ? "A vGPU type is chosen when the hypervisor creates each VM (one VM per replica)."
                            : "Set the mode up with its own software as the placement above says.");
    return out;
  }
  out += "Files:\n\n";
  if (c.mode == "mig")
    out += "- `mig-parted.yaml`: the MIG layout of each instance's GPUs, one layout per instance (`vgpusim-i<k>`), "
           "for NVIDIA mig-parted (`nvidia-mig-parted apply -f mig-parted.yaml -c vgpusim-i0` on the node) or the GPU "
           "operator's MIG manager (the node label below).\n";
  out += "- `device-plugin.yaml`: the NVIDIA device plugin's config (";
  if (c.mode == "mig")
    out += "the mixed MIG strategy: each MIG profile is its own resource, `nvidia.com/mig-<profile>`";
  else if (nodes.busiest > 1)
    out += fmt::format("{} with {} replicas per GPU, the most any GPU of the plan holds",
                       c.mode == "mps" ? "MPS" : "time-slicing", nodes.busiest);
  else
    out += "no sharing: each GPU holds one replica";
  out += "). Load it as a ConfigMap and point the plugin at it: `kubectl create configmap -n nvidia-device-plugin "
         "vgpusim-plugin-config --from-file=vgpusim=device-plugin.yaml`, then install the plugin's Helm chart with "
         "`--set config.name=vgpusim-plugin-config`.\n"
         "- `pods.yaml`: one pod per replica with its node selector and GPU resource; fill in each container's image "
         "and command.\n\nNode labels (one Kubernetes node per instance; put the node's name for NODE-i<k>):\n\n";
  for (size_t n = 0; n < nodes.gpus.size(); ++n) {
    out += fmt::format("    kubectl label node NODE-i{} --overwrite {}=i{} nvidia.com/device-plugin.config={}", n,
                       kNodeLabel, n, kPluginConfigName);
    if (c.mode == "mig") out += fmt::format(" nvidia.com/mig.config={}", deploy_mig_layout(n));
    out += "\n";
  }
  out += "\nWhat the files do not fix:\n\n";
  if (c.gpus_per_instance > 1)
    out += "- Which GPU of a node a replica gets: the device plugin picks among the node's GPUs, so replicas may be "
           "grouped differently from the placement above.\n";
  if (c.mode == "mps" && nodes.busiest > 1)
    out += fmt::format(
        "- The device plugin's MPS daemon limits each of the {} replicas of a GPU to {:.0f}% of its SMs "
        "(active threads) and 1/{} of its memory. The plan simulated MPS clients without per-client limits; "
        "simulate the deployed limits with a scenario whose GPUs import this file (`sharing: {{g0: {{import: "
        "device-plugin, file: device-plugin.yaml}}}}`, docs/k8s-configs.md).\n",
        nodes.busiest, 100.0 / static_cast<double>(nodes.busiest), nodes.busiest);
  if (c.sharing != c.mode)
    out += fmt::format("- The sharing option's own parameters (`{}`): the device plugin does not set them (a time "
                       "slice's length, for one, is the driver's setting, not the plugin's).\n",
                       c.sharing);
  out += "- The image, command and anything else of each container: the plan knows its GPU demand only.\n";
  return out;
}

}  // namespace

std::vector<DeployFile> deploy_files(const std::string& plan_name, const Candidate& c) {
  const Nodes nodes = nodes_of(c);
  const bool configs = c.mode == "passthrough" || c.mode == "timeslice" || c.mode == "mps" || c.mode == "mig";
  std::vector<DeployFile> out;
  if (configs) {
    if (c.mode == "mig") out.push_back({"mig-parted.yaml", mig_parted_yaml(plan_name, c, nodes)});
    out.push_back({"device-plugin.yaml", device_plugin_yaml(plan_name, c, nodes)});
    out.push_back({"pods.yaml", pods_yaml(plan_name, c)});
  }
  out.push_back({"README.md", readme(plan_name, c, nodes, configs)});
  return out;
}

}  // namespace vgpusim
