// Read-only NVML snapshot (clocks, power, persistence, MIG and compute modes) through dlopen("libnvidia-ml.so.1").
// Only Get/query functions are looked up, so nothing here can change the GPU's settings.
#pragma once

#include <string>

#include "hwcal/json.hpp"

namespace vgpusim::hwcal {

// {"available": bool, "error": text|null, ...fields, null where a query failed}; pci_bus_id as from
// cudaDeviceGetPCIBusId selects the GPU, so NVML and CUDA talk about the same board.
Json nvml_snapshot(const std::string& pci_bus_id);

}  // namespace vgpusim::hwcal
