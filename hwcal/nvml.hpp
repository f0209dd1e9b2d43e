// Read-only NVML snapshot (clocks, power, persistence, MIG and compute modes) through dlopen("libnvidia-ml.so.1").
// Only Get/query functions are looked up, so nothing here can change the GPU's settings.
#pragma once

#include <string>

#include "hwcal/json.hpp"

namespace vgpusim::hwcal {

// {"available": bool, "error": text|null, ...fields, null where a query failed}; pci_bus_id as from
// cudaDeviceGetPCIBusId selects the GPU, so NVML and CUDA talk about the same board.
Json nvml_snapshot(const std::string& pci_bus_id);

// nvmlDeviceGetUtilizationRates, read as often as asked: utilization.gpu and utilization.memory as nvidia-smi
// shows them (percent of the driver's last sample period, 1/6 s to 1 s depending on the product). NVML stays
// initialised while the reader lives; reads may come from another thread (NVML is thread-safe).
class NvmlUtilization {
 public:
  explicit NvmlUtilization(const std::string& pci_bus_id);
  ~NvmlUtilization();
  NvmlUtilization(const NvmlUtilization&) = delete;
  NvmlUtilization& operator=(const NvmlUtilization&) = delete;
  bool available() const { return error_.empty(); }
  const std::string& error() const { return error_; }  // why it is not available
  // Fractions (0-1); false when the read failed.
  bool read(double& gpu, double& memory) const;

 private:
  void* library_ = nullptr;
  void* device_ = nullptr;
  int (*shutdown_)() = nullptr;
  int (*rates_)(void*, unsigned*) = nullptr;  // nvmlDeviceGetUtilizationRates(device, nvmlUtilization_t*)
  std::string error_;
};

}  // namespace vgpusim::hwcal
