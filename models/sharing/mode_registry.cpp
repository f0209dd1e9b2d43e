// The registry of sharing modes: the built-in ones (generated from VGPUSIM_SHARING_MODES) and registered ones.
#include <set>
#include <stdexcept>

#include "models/sharing/mode_registry.hpp"
#include "sim/core/named_registry.hpp"

namespace vgpusim {

std::vector<SharingModeInfo> builtin_sharing_modes();  // generated: build/generated/builtin_sharing_modes.cpp

namespace {

void check(const SharingModeInfo& info) {
  if (!info.create) throw std::invalid_argument("sharing mode '" + info.name + "' declares no create");
  std::set<std::string> names;
  for (const ParamSpec& p : info.params)
    if (!names.insert(p.name).second)
      throw std::invalid_argument("sharing mode '" + info.name + "' declares parameter '" + p.name + "' twice");
}

Registry<SharingModeInfo>& registry() {
  static Registry<SharingModeInfo> modes("sharing mode", builtin_sharing_modes(), check);
  return modes;
}

std::vector<ParamSpec> filtered(const std::vector<ParamSpec>& params, bool tenant) {
  std::vector<ParamSpec> out;
  for (const ParamSpec& p : params)
    if (p.per_tenant == tenant) out.push_back(p);
  return out;
}

}  // namespace

std::vector<ParamSpec> SharingModeInfo::mode_params() const { return filtered(params, false); }
std::vector<ParamSpec> SharingModeInfo::tenant_params() const { return filtered(params, true); }

const std::deque<SharingModeInfo>& sharing_modes() { return registry().entries(); }
const SharingModeInfo* find_sharing_mode(const std::string& name) { return registry().find(name); }
void register_sharing_mode(SharingModeInfo info) { registry().add(std::move(info)); }

}  // namespace vgpusim
