// Which catalog device a CUDA device name stands for ("NVIDIA A100-SXM4-40GB" -> A100-40GB), for trace replay
// (deviceProperties) and calibration (the hwcal environment).
#pragma once

#include <string>
#include <vector>

namespace vgpusim {

// The catalog name for the device, or "" when none of `catalog_names` matches. `total_memory` (bytes) tells the
// 40 GB A100 from the 80 GB one.
std::string catalog_name_for_device(const std::string& device_name, double total_memory,
                                    const std::vector<std::string>& catalog_names);

}  // namespace vgpusim
