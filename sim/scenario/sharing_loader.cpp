// Scenario loading, sharing: each GPU's mode and parameters, partitions (MIG) and layout changes,
// and where tenants can be placed.
#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>

#include "models/gpu/roofline.hpp"
#include "sim/core/errors.hpp"
#include "sim/io/k8s_configs.hpp"
#include "sim/scenario/loader_state.hpp"

namespace vgpusim {

using units::Dim;

void Loader::unknown_mode(const YAML::Node& node, const std::string& path, const std::string& mode) {
  std::vector<std::string> names;
  for (const SharingModeInfo& m : sharing_modes()) names.push_back(m.name);
  fail_at(file, node, path,
          fmt::format("unknown sharing mode '{}'{} (see `vgpusim list models`)", mode,
                      did_you_mean_suffix(mode, names)));
}

// Reads `mode` and its parameters from a sharing mapping; a partitioning mode's `partitions` and `reconfigure`
// are allowed beside.
SharingConfig Loader::sharing_config(const YAML::Node& node, const std::string& path, const GpuSpec& device,
                             const SharingModeInfo*& info, const ParamOverrides& calibrated, bool layout_searched) {
  MapReader head(file, node, path, section_named("sharing.<gpu>"));
  const std::string mode = head.string("mode");
  info = find_sharing_mode(mode);
  if (!info) unknown_mode(head.node("mode"), path + ".mode", mode);
  if (info->device_kind != device.kind)
    fail_at(file, head.node("mode"), path + ".mode",
            fmt::format("mode '{}' shares {} devices, but {} is a {} device{}", mode, info->device_kind, device.name,
                        device.kind, device.kind == "cpu" ? " (use mode: software)" : ""));
  Section params{"sharing.<gpu> (" + mode + ")", "", {{"mode", "string", true, "", ""}}};
  const std::vector<ParamSpec> specs = info->mode_params();
  for (const ParamSpec& p : specs) params.keys.push_back({p.name, "", false, "", p.help});
  if (info->partitions && layout_searched && node.IsMap() && node["partitions"])
    fail_at(file, node["partitions"], path + ".partitions",
            fmt::format("a plan searches {} layouts itself: give {{mode: {}}} without partitions", info->name,
                        info->name));
  if (info->partitions && !layout_searched) {
    params.keys.push_back({"partitions", "list", true, "", "the partitions"});
    params.keys.push_back({"reconfigure", "list", false, "", "layout changes during the run"});
    // The key was `instances` before "instance" was kept for cloud instance types.
    if (node.IsMap() && node["instances"])
      fail_at(file, node["instances"], path + ".instances",
              "MIG partitions are listed under `partitions` (they used to be `instances`)");
  }
  MapReader r(file, node, path, params);
  r.finish();
  return {info, read_params(r, specs, calibrated)};
}

ParamValues Loader::read_params(const MapReader& r, const std::vector<ParamSpec>& specs,
                                const ParamOverrides& calibrated) {
  ParamValues values = with_overrides(specs, calibrated);
  for (const ParamSpec& p : specs) {
    if (!r.has(p.name)) continue;
    switch (p.type) {
      case ParamType::Number: values.set(p.name, r.number_param(p)); break;
      case ParamType::Choice: values.set_word(p.name, r.choice(p.name, p.words)); break;
      case ParamType::Text: values.set_word(p.name, r.string(p.name)); break;
      case ParamType::Flag: values.set_flag(p.name, r.boolean(p.name)); break;
    }
  }
  return values;
}

void Loader::sharing(const MapReader& top) {
  const SharingModeInfo* passthrough = find_sharing_mode("passthrough");  // the builder's default
  std::vector<YAML::Node> nodes(sc().gpus.size());
  std::vector<bool> given(sc().gpus.size(), false);
  if (top.has("sharing")) {
    const YAML::Node map = top.node("sharing");
    if (!map.IsMap()) fail_at(file, map, "sharing", "expected a mapping from GPU id to its sharing");
    for (auto it = map.begin(); it != map.end(); ++it) {
      const std::string id = it->first.Scalar();
      const size_t g = gpu_index(it->first, "sharing." + id, id);
      nodes[g].reset(it->second);
      given[g] = true;
    }
  }
  for (size_t g = 0; g < sc().gpus.size(); ++g) {
    const ScenarioGpu& gpu = sc().gpus[g];
    const std::string path = "sharing." + gpu.id;
    const SharingModeInfo* info = passthrough;
    if (given[g] && nodes[g].IsMap() && nodes[g]["import"]) {
      info = imported_sharing(g, nodes[g], path);
      if (info->partitions) continue;  // its partitions are targets now
    } else if (given[g]) {
      build.share_gpu(g, sharing_config(nodes[g], path, gpu.spec, info, gpu.calibrated));
    } else if (gpu.spec.kind != passthrough->device_kind) {
      fail_at(file, top.node(), gpu.id,
              fmt::format("GPU '{}' is a {} device ({}): give it a sharing mode for {} devices, e.g. software",
                          gpu.id, gpu.spec.kind, gpu.spec.name, gpu.spec.kind));
    }
    if (!info->partitions) {
      build.add_whole_gpu(g);
      target_nodes.push_back(given[g] ? nodes[g] : top.node());
      continue;
    }
    partitions(g, nodes[g], path, *info);
  }
}

const SharingModeInfo* Loader::imported_sharing(size_t g, const YAML::Node& node, const std::string& path) {
  const ScenarioGpu& gpu = sc().gpus[g];
  MapReader r(file, node, path, section_named("sharing.<gpu> (import)"));
  r.finish();
  const std::string kind = r.choice("import", {"device-plugin", "mig-parted"});
  if (gpu.spec.kind != find_sharing_mode("timeslice")->device_kind)
    fail_at(file, r.node("import"), r.child_path("import"),
            fmt::format("{} configurations share GPUs; '{}' is a {} device", kind, gpu.id, gpu.spec.kind));
  std::filesystem::path config_path = r.string("file");
  if (config_path.is_relative()) config_path = std::filesystem::path(file).parent_path() / config_path;
  auto set_mode = [&](const char* mode) {
    const SharingModeInfo* info = find_sharing_mode(mode);
    build.share_gpu(g, {info, with_overrides(info->mode_params(), gpu.calibrated)});
    return info;
  };
  if (kind == "device-plugin") {
    if (r.has("config")) fail_at(file, r.node("config"), r.child_path("config"), "`config` goes with mig-parted");
    const DevicePluginSharing dp = read_device_plugin_config(config_path.string());
    if (dp.strategy.empty()) return set_mode("passthrough");  // no sharing: one container per GPU
    ImportedLimits limits{dp.replicas, {}, dp.where};
    const SharingModeInfo* info = set_mode(dp.strategy == "mps" ? "mps" : "timeslice");
    if (dp.strategy == "mps") {
      // The plugin's MPS daemon gives every replica an equal share: active threads 100/replicas percent and a
      // pinned device memory limit of the GPU's memory / replicas.
      limits.tenant_defaults["mps.active_threads"] = 1.0 / static_cast<double>(dp.replicas);
      limits.tenant_defaults["mps.memory_limit"] = gpu.spec.memory / static_cast<double>(dp.replicas);
    }
    imported[g] = limits;
    return info;
  }
  if (!r.has("config")) fail_at(file, node, r.child_path("config"), "mig-parted needs the layout's name: `config`");
  const std::string layout = r.string("config");
  const std::vector<MigPartedEntry> entries = read_mig_parted_config(config_path.string(), layout);
  const MigPartedEntry* mine = nullptr;
  for (const MigPartedEntry& e : entries) {
    const bool names_it = e.all_devices || std::find(e.devices.begin(), e.devices.end(), static_cast<long long>(g)) !=
                                               e.devices.end();
    if (!names_it) continue;
    if (mine)
      throw InputError(fmt::format("{}: mig-configs.{}: two entries apply to device {} (GPU '{}'; the other at {})",
                                   e.where, layout, g, gpu.id, mine->where));
    mine = &e;
  }
  if (!mine)
    fail_at(file, r.node("config"), r.child_path("config"),
            fmt::format("layout '{}' of {} has no entry for device {} (GPU '{}', its index in `gpus`)", layout,
                        config_path.string(), g, gpu.id));
  if (!mine->mig_enabled) return set_mode("passthrough");
  const SharingModeInfo* info = set_mode("mig");
  // Partitions are named <profile>-<k>, in the file's order: `on: g0/1g.10gb-0`.
  std::vector<LayoutEntry> layout_entries;
  std::vector<std::string> profiles;
  for (const auto& [profile, count] : mine->mig_devices)
    for (long long k = 0; k < count; ++k) {
      layout_entries.push_back({fmt::format("{}-{}", profile, k), profile, YAML::Node(), false});
      profiles.push_back(profile);
    }
  if (profiles.empty())
    throw InputError(fmt::format("{}: mig-configs.{}: MIG is enabled on device {} with no MIG devices", mine->where,
                                 layout, g));
  auto made = info->make_partitions(gpu.spec, profiles, sc().sharing[g].params);
  if (const auto* error = std::get_if<std::string>(&made))
    throw InputError(fmt::format("{}: mig-configs.{} on GPU '{}' ({}): {}", mine->where, layout, gpu.id,
                                 gpu.spec.name, *error));
  const std::vector<Partition>& parts = std::get<std::vector<Partition>>(made);
  for (size_t i = 0; i < parts.size(); ++i) add_partition(g, layout_entries[i], parts[i], node, path, true);
  return info;
}

std::vector<Loader::LayoutEntry> Loader::read_layout(const YAML::Node& list, const std::string& path) {
  if (!list.IsSequence() || list.size() == 0) fail_at(file, list, path, "expected a non-empty list of partitions");
  std::vector<LayoutEntry> entries;
  for (size_t i = 0; i < list.size(); ++i) {
    MapReader r(file, list[i], fmt::format("{}[{}]", path, i), section_named("sharing.<gpu>.partitions[]"));
    r.finish();
    LayoutEntry e{r.string("id"), r.string("profile"), YAML::Node(), r.has("sharing")};
    for (const LayoutEntry& other : entries)
      if (other.id == e.id) fail_at(file, r.node("id"), r.child_path("id"), "duplicate partition id '" + e.id + "'");
    if (e.has_sharing) e.sharing.reset(r.node("sharing"));
    entries.push_back(e);
  }
  return entries;
}

std::vector<Partition> Loader::place(const ScenarioGpu& gpu, const SharingModeInfo& info, size_t g,
                             const std::vector<LayoutEntry>& entries, const YAML::Node& list, const std::string& path) {
  std::vector<std::string> profiles;
  for (const LayoutEntry& e : entries) profiles.push_back(e.profile);
  auto made = info.make_partitions(gpu.spec, profiles, sc().sharing[g].params);
  if (const auto* error = std::get_if<std::string>(&made)) fail_at(file, list, path, *error);
  return std::get<std::vector<Partition>>(made);
}

void Loader::add_partition(size_t g, const LayoutEntry& e, const Partition& part, const YAML::Node& where,
                  const std::string& path, bool present) {
  std::optional<SharingConfig> sharing;  // without one, the builder time-slices the partition
  if (e.has_sharing) {
    const SharingModeInfo* inner = nullptr;
    sharing = sharing_config(e.sharing, path + ".sharing", part.spec, inner, sc().gpus[g].calibrated);
    if (inner->partitions) fail_at(file, e.sharing, path + ".sharing", "a partition cannot be partitioned again");
  }
  build.add_partition(g, e.id, part, sharing, present);
  target_nodes.push_back(e.has_sharing ? e.sharing : where);
}

void Loader::partitions(size_t g, const YAML::Node& node, const std::string& path, const SharingModeInfo& info) {
  const ScenarioGpu& gpu = sc().gpus[g];
  if (!node.IsMap() || !node["partitions"])
    fail_at(file, node, path + ".partitions",
            fmt::format("mode {} partitions the GPU: give its `partitions`, a list of {{id, profile}}", info.name));
  const YAML::Node list = node["partitions"];
  const std::vector<LayoutEntry> first = read_layout(list, path + ".partitions");
  const std::vector<Partition> parts = place(gpu, info, g, first, list, path + ".partitions");
  std::map<std::string, size_t> target_of;  // partition id -> target index
  std::map<std::string, std::pair<std::string, int>> current;  // id -> (profile, slot) in the layout now
  for (size_t i = 0; i < parts.size(); ++i) {
    target_of[first[i].id] = sc().targets.size();
    current[first[i].id] = {parts[i].profile, parts[i].slot};
    add_partition(g, first[i], parts[i], list[i], fmt::format("{}.partitions[{}]", path, i), true);
  }
  if (!node["reconfigure"]) return;
  const YAML::Node changes = node["reconfigure"];
  if (!changes.IsSequence()) fail_at(file, changes, path + ".reconfigure", "expected a list of layout changes");
  double last = 0;
  for (size_t c = 0; c < changes.size(); ++c) {
    const std::string cp = fmt::format("{}.reconfigure[{}]", path, c);
    MapReader r(file, changes[c], cp, section_named("sharing.<gpu>.reconfigure[]"));
    r.finish();
    LayoutChange change;
    change.gpu = g;
    change.at = positive(r, "at", Dim::Time);
    if (change.at <= last) fail_at(file, r.node("at"), r.child_path("at"), "layout changes must come in time order");
    last = change.at;
    change.reconfiguration_time = info.reconfiguration_time ? info.reconfiguration_time(sc().sharing[g].params) : 0;
    const YAML::Node layout = r.node("partitions");
    const std::vector<LayoutEntry> entries = read_layout(layout, r.child_path("partitions"));
    const std::vector<Partition> placed = place(gpu, info, g, entries, layout, r.child_path("partitions"));
    std::map<std::string, std::pair<std::string, int>> next;
    for (size_t i = 0; i < entries.size(); ++i) {
      const LayoutEntry& e = entries[i];
      next[e.id] = {placed[i].profile, placed[i].slot};
      auto known = target_of.find(e.id);
      if (known == target_of.end()) {  // a new partition: absent until this change completes
        target_of[e.id] = sc().targets.size();
        add_partition(g, e, placed[i], layout[i], fmt::format("{}.partitions[{}]", r.path(), i), false);
        change.changes.push_back({target_of[e.id], false, placed[i].profile, placed[i].slot, placed[i].spec});
        continue;
      }
      if (e.has_sharing)
        fail_at(file, e.sharing, fmt::format("{}.partitions[{}].sharing", r.path(), i),
                "a partition keeps its sharing across layout changes; give `sharing` where it first appears");
      const auto was = current.find(e.id);
      if (was == current.end() || was->second != next[e.id])
        change.changes.push_back({known->second, false, placed[i].profile, placed[i].slot, placed[i].spec});
    }
    for (const auto& [id, where] : current)
      if (!next.count(id)) change.changes.push_back({target_of[id], true, "", -1, {}});
    current = next;
    build.add_layout_change(std::move(change));
  }
}

size_t Loader::target_index(const YAML::Node& node, const std::string& path, const std::string& id) {
  std::vector<std::string> ids;
  for (size_t i = 0; i < sc().targets.size(); ++i) {
    if (sc().targets[i].id == id) return i;
    ids.push_back(sc().targets[i].id);
  }
  for (const ScenarioGpu& g : sc().gpus)
    if (g.id == id) {
      std::string inside;
      for (const Target& t : sc().targets)
        if (sc().gpus[t.gpu].id == id) inside += (inside.empty() ? "" : ", ") + t.id;
      fail_at(file, node, path,
              fmt::format("GPU '{}' is split into partitions; put the tenant on one of: {}", id, inside));
    }
  fail_at(file, node, path,
          fmt::format("no GPU or partition with id '{}'{}", id,
                      did_you_mean_suffix(id, ids)));
}

}  // namespace vgpusim
