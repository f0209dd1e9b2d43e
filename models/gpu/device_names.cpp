// Which catalog device a CUDA device name (as CUDA, NVML or a profiler trace reports it) stands for.
#include "models/gpu/device_names.hpp"

#include <algorithm>
#include <cctype>

#include "sim/core/units.hpp"

namespace vgpusim {

std::string catalog_name_for_device(const std::string& device_name, double total_memory,
                                    const std::vector<std::string>& catalog_names) {
  // CUDA device names, split at non-alphanumerics: "NVIDIA A100-PG509-200" -> NVIDIA, A100, PG509, 200.
  std::vector<std::string> tokens(1);
  for (char c : device_name) {
    if (std::isalnum(static_cast<unsigned char>(c)))
      tokens.back() += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    else if (!tokens.back().empty())
      tokens.emplace_back();
  }
  const auto has = [&](const char* t) { return std::find(tokens.begin(), tokens.end(), t) != tokens.end(); };
  using units::kGiB;
  std::string name;
  const auto known = [&](const char* n) {
    return std::find(catalog_names.begin(), catalog_names.end(), n) != catalog_names.end();
  };
  // The PCIe boards have their own entries (lower power, and the 80 GB one slower memory); a catalog without them
  // gets the SXM entry of the same memory.
  const auto board = [&](const char* pcie, const char* sxm) { return has("PCIE") && known(pcie) ? pcie : sxm; };
  if (has("A100")) {
    const bool big = total_memory > 0 ? total_memory > 48 * kGiB : has("80GB");  // 40 GB boards report ~39.4 GiB
    name = big ? board("A100-80GB-PCIe", "A100-80GB") : board("A100-PCIe-40GB", "A100-40GB");
  } else if (has("V100"))
    name = board("V100-PCIe-32GB", "V100");  // the 16 GB PCIe board has the same rates
  else if (has("P100"))
    name = has("PCIE") ? "P100-PCIe-16GB" : "";  // the SXM2 P100 runs faster clocks
  else if (has("P4"))
    name = "P4";
  else if (has("H100"))  // "NVIDIA H100 PCIe", "NVIDIA H100 NVL", "NVIDIA H100 80GB HBM3" (SXM)
    name = has("PCIE") ? "H100-PCIe" : has("NVL") ? "H100-NVL" : "H100-SXM";
  else if (has("PRO") && has("6000") && has("BLACKWELL"))
    // The catalog entry is the Server Edition; the Workstation and Max-Q editions differ in bandwidth and clocks.
    name = has("SERVER") ? "RTX-PRO-6000" : "";
  else if (has("3090"))
    name = has("TI") ? "" : "RTX-3090";  // the 3090 Ti (84 SMs, 1008 GB/s) is not in the catalog
  else {
    // ROCm names an MI250's and an MI250X's GCD alike, "AMD Instinct MI250X / MI250": the MI250X entry (110 CUs per
    // GCD against 104). The MI250X comes before the MI250, and every token must match whole.
    const std::pair<const char*, const char*> same[] = {
        {"H200", "H200"},     {"B200", "B200"}, {"L40S", "L40S"}, {"L40", "L40"},       {"L4", "L4"},
        {"T4", "T4"},         {"A10G", "A10G"}, {"A10", "A10"},   {"A30", "A30"},       {"A40", "A40"},
        {"4090", "RTX-4090"}, {"M60", "M60"},   {"K80", "K80"},   {"MI300X", "MI300X"}, {"MI25", "MI25"},
        {"MI100", "MI100"},   {"MI210", "MI210"}, {"MI250X", "MI250X"}, {"MI250", "MI250"}};
    for (const auto& [token, catalog_name] : same)
      if (has(token)) {
        name = catalog_name;
        break;
      }
  }
  return std::find(catalog_names.begin(), catalog_names.end(), name) != catalog_names.end() ? name : "";
}

}  // namespace vgpusim
