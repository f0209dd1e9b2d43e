// The "environment" object of a raw file: host, date, driver/runtime/cuBLAS versions, device properties and NVML.
// Everything is read, nothing is set.
#pragma once

#include <string>

#include "hwcal/json.hpp"

namespace vgpusim::hwcal {

std::string host_name();
// "2026-11-20T10:11:12Z"; compact = "20261120T101112Z" for file names.
std::string utc_timestamp(bool compact);
std::string pci_bus_id(int ordinal);
Json environment_json(int ordinal);

}  // namespace vgpusim::hwcal
