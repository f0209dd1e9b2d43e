// Readers of the NVIDIA device plugin's config and of mig-parted layouts (sim/io/k8s_configs.hpp).
#include "sim/io/k8s_configs.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <set>

#include "sim/core/names.hpp"
#include "sim/io/files.hpp"
#include "sim/io/yaml_reader.hpp"

namespace vgpusim {
namespace {

// Fails on keys of `node` (a mapping) outside `known`; `ignored` keys are accepted and not read.
void only_keys(const std::string& file, const YAML::Node& node, const std::string& path,
               const std::set<std::string>& known, const std::set<std::string>& ignored = {}) {
  if (!node.IsMap()) fail_at(file, node, path, "expected a mapping");
  for (auto it = node.begin(); it != node.end(); ++it) {
    const std::string key = it->first.Scalar();
    if (known.count(key) || ignored.count(key)) continue;
    std::string names;
    for (const std::string& k : known) names += (names.empty() ? "" : ", ") + k;
    fail_at(file, it->first, path.empty() ? key : path + "." + key,
            fmt::format("vgpusim does not read this key (it reads {})", names));
  }
}

long long integer_at(const std::string& file, const YAML::Node& node, const std::string& path, long long min,
                     long long max) {
  long long v = 0;
  if (!node.IsScalar() || !YAML::convert<long long>::decode(node, v) || v < min || v > max)
    fail_at(file, node, path, fmt::format("expected an integer from {} to {}", min, max));
  return v;
}

bool boolean_at(const std::string& file, const YAML::Node& node, const std::string& path) {
  bool b = false;
  if (!node.IsScalar() || !YAML::convert<bool>::decode(node, b)) fail_at(file, node, path, "expected true or false");
  return b;
}

void version_v1(const std::string& file, const YAML::Node& top, const std::string& what) {
  if (!top["version"]) fail_at(file, top, "version", fmt::format("a {} file starts with `version: v1`", what));
  if (!top["version"].IsScalar() || top["version"].Scalar() != "v1")
    fail_at(file, top["version"], "version", fmt::format("vgpusim reads {} files of version v1", what));
}

}  // namespace

DevicePluginSharing read_device_plugin_config(const std::string& path) {
  const YAML::Node top = parse_yaml(read_text_file(path, "device plugin config"), path);
  // `flags` (migStrategy, failOnInitError, plugin and GFD settings) and `resources` change how devices are found
  // and named, not how they are shared.
  only_keys(path, top, "", {"version", "sharing"}, {"flags", "resources"});
  version_v1(path, top, "device plugin config");
  DevicePluginSharing out;
  if (!top["sharing"]) return out;
  const YAML::Node sharing = top["sharing"];
  only_keys(path, sharing, "sharing", {"timeSlicing", "mps"});
  for (const char* strategy : {"timeSlicing", "mps"}) {
    const YAML::Node s = sharing[strategy];
    if (!s) continue;
    const std::string sp = fmt::format("sharing.{}", strategy);
    only_keys(path, s, sp, {"resources", "renameByDefault", "failRequestsGreaterThanOne"});
    if (s["renameByDefault"]) boolean_at(path, s["renameByDefault"], sp + ".renameByDefault");
    if (s["failRequestsGreaterThanOne"])
      boolean_at(path, s["failRequestsGreaterThanOne"], sp + ".failRequestsGreaterThanOne");
    const YAML::Node resources = s["resources"];
    if (!resources) continue;
    if (!resources.IsSequence() || resources.size() == 0)
      fail_at(path, resources, sp + ".resources", "expected a list of resources");
    if (!out.strategy.empty())
      fail_at(path, s, sp, "time-slicing and MPS cannot both be configured (the device plugin refuses it too)");
    if (resources.size() > 1)
      fail_at(path, resources[1], sp + ".resources[1]",
              "one resource (nvidia.com/gpu) is shared; a second one cannot be expressed");
    const YAML::Node r = resources[0];
    const std::string rp = sp + ".resources[0]";
    only_keys(path, r, rp, {"name", "replicas", "rename", "devices"});
    if (!r["name"]) fail_at(path, r, rp + ".name", "a resource needs its `name`");
    const std::string name = read_string(path, r["name"], rp + ".name");
    if (name != "nvidia.com/gpu")
      fail_at(path, r["name"], rp + ".name",
              fmt::format("'{}' cannot be expressed: only nvidia.com/gpu (whole GPUs) is shared this way; for MIG "
                          "devices, give the layout (mig-parted) and share inside its partitions",
                          name));
    if (r["devices"] && !(r["devices"].IsScalar() && r["devices"].Scalar() == "all"))
      fail_at(path, r["devices"], rp + ".devices",
              "the device plugin does not apply a resource to some devices only (it ignores `devices` and logs "
              "that it is not supported); remove it");
    if (!r["replicas"]) fail_at(path, r, rp + ".replicas", "a shared resource needs its `replicas`");
    out.strategy = strategy;
    out.replicas = integer_at(path, r["replicas"], rp + ".replicas", 1, 1000);
    out.where = where(path, r["replicas"]);
  }
  return out;
}

std::vector<MigPartedEntry> read_mig_parted_config(const std::string& path, const std::string& config) {
  const YAML::Node top = parse_yaml(read_text_file(path, "mig-parted config"), path);
  only_keys(path, top, "", {"version", "mig-configs"});
  version_v1(path, top, "mig-parted config");
  const YAML::Node configs = top["mig-configs"];
  if (!configs || !configs.IsMap() || configs.size() == 0)
    fail_at(path, configs ? configs : top, "mig-configs", "expected a mapping of layout name -> entries");
  const YAML::Node entries = configs[config];
  if (!entries) {
    std::vector<std::string> names;
    for (auto it = configs.begin(); it != configs.end(); ++it) names.push_back(it->first.Scalar());
    fail_at(path, configs, "mig-configs",
            fmt::format("no layout named '{}'{} (layouts: {})", config, did_you_mean_suffix(config, names),
                        fmt::join(names, ", ")));
  }
  const std::string lp = "mig-configs." + config;
  if (!entries.IsSequence() || entries.size() == 0) fail_at(path, entries, lp, "expected a list of entries");
  std::vector<MigPartedEntry> out;
  for (size_t i = 0; i < entries.size(); ++i) {
    const YAML::Node e = entries[i];
    const std::string ep = fmt::format("{}[{}]", lp, i);
    // `device-filter` selects GPUs by PCI device id, which the scenario's GPUs do not carry: not checked.
    only_keys(path, e, ep, {"devices", "mig-enabled", "mig-devices"}, {"device-filter"});
    MigPartedEntry m;
    m.where = where(path, e);
    if (!e["devices"]) fail_at(path, e, ep + ".devices", "an entry needs `devices` (all, or a list of indices)");
    const YAML::Node d = e["devices"];
    if (d.IsScalar() && d.Scalar() == "all") {
      m.all_devices = true;
    } else if (d.IsSequence() && d.size() > 0) {
      for (size_t k = 0; k < d.size(); ++k)
        m.devices.push_back(integer_at(path, d[k], fmt::format("{}.devices[{}]", ep, k), 0, 1023));
    } else {
      fail_at(path, d, ep + ".devices", "expected `all` or a list of GPU indices");
    }
    if (!e["mig-enabled"]) fail_at(path, e, ep + ".mig-enabled", "an entry needs `mig-enabled`");
    m.mig_enabled = boolean_at(path, e["mig-enabled"], ep + ".mig-enabled");
    const YAML::Node md = e["mig-devices"];
    if (md && !m.mig_enabled)
      fail_at(path, md, ep + ".mig-devices", "MIG devices are given on a GPU with `mig-enabled: false`");
    if (m.mig_enabled) {
      if (!md || !md.IsMap()) fail_at(path, md ? md : e, ep + ".mig-devices", "expected a mapping of profile -> count");
      for (auto it = md.begin(); it != md.end(); ++it) {
        const std::string profile = it->first.Scalar();
        const long long n = integer_at(path, it->second, ep + ".mig-devices." + profile, 0, 7);
        if (n > 0) m.mig_devices.emplace_back(profile, n);
      }
    }
    out.push_back(std::move(m));
  }
  return out;
}

}  // namespace vgpusim
