// Read-only NVML snapshot (clocks, power, persistence, MIG and compute modes) through dlopen("libnvidia-ml.so.1").
// The few signatures used are declared here (nvml.h is not in every toolkit); units converted to SI on output.
#include "hwcal/nvml.hpp"

#include <dlfcn.h>

namespace vgpusim::hwcal {
namespace {

using NvmlReturn = int;  // nvmlReturn_t; 0 = NVML_SUCCESS
using NvmlDevice = struct NvmlDeviceOpaque*;

constexpr int kClockSm = 1;      // NVML_CLOCK_SM
constexpr int kClockMemory = 2;  // NVML_CLOCK_MEM
constexpr int kTemperatureGpu = 0;

struct NvmlFunctions {
  NvmlReturn (*init)() = nullptr;
  NvmlReturn (*shutdown)() = nullptr;
  const char* (*error_string)(NvmlReturn) = nullptr;
  NvmlReturn (*driver_version)(char*, unsigned) = nullptr;
  NvmlReturn (*handle_by_pci)(const char*, NvmlDevice*) = nullptr;
  NvmlReturn (*name)(NvmlDevice, char*, unsigned) = nullptr;
  NvmlReturn (*uuid)(NvmlDevice, char*, unsigned) = nullptr;
  NvmlReturn (*clock)(NvmlDevice, int, unsigned*) = nullptr;
  NvmlReturn (*max_clock)(NvmlDevice, int, unsigned*) = nullptr;
  NvmlReturn (*power_limit)(NvmlDevice, unsigned*) = nullptr;
  NvmlReturn (*enforced_power_limit)(NvmlDevice, unsigned*) = nullptr;
  NvmlReturn (*power_usage)(NvmlDevice, unsigned*) = nullptr;
  NvmlReturn (*temperature)(NvmlDevice, int, unsigned*) = nullptr;
  NvmlReturn (*persistence_mode)(NvmlDevice, int*) = nullptr;
  NvmlReturn (*mig_mode)(NvmlDevice, unsigned*, unsigned*) = nullptr;
  NvmlReturn (*compute_mode)(NvmlDevice, int*) = nullptr;
  NvmlReturn (*clock_event_reasons)(NvmlDevice, unsigned long long*) = nullptr;
};

template <typename Function>
void find(void* library, Function& target, const char* symbol) {
  target = reinterpret_cast<Function>(dlsym(library, symbol));
}

const char* compute_mode_name(int mode) {
  switch (mode) {
    case 0: return "default";
    case 1: return "exclusive_thread";
    case 2: return "prohibited";
    case 3: return "exclusive_process";
    default: return "unknown";
  }
}

}  // namespace

Json nvml_snapshot(const std::string& pci_bus_id) {
  Json out = Json::object();
  out["available"] = false;
  out["error"] = Json();
  void* library = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) {
    const char* reason = dlerror();
    out["error"] = std::string("dlopen libnvidia-ml.so.1: ") + (reason ? reason : "unknown");
    return out;
  }
  NvmlFunctions nvml;
  find(library, nvml.init, "nvmlInit_v2");
  find(library, nvml.shutdown, "nvmlShutdown");
  find(library, nvml.error_string, "nvmlErrorString");
  find(library, nvml.driver_version, "nvmlSystemGetDriverVersion");
  find(library, nvml.handle_by_pci, "nvmlDeviceGetHandleByPciBusId_v2");
  find(library, nvml.name, "nvmlDeviceGetName");
  find(library, nvml.uuid, "nvmlDeviceGetUUID");
  find(library, nvml.clock, "nvmlDeviceGetClockInfo");
  find(library, nvml.max_clock, "nvmlDeviceGetMaxClockInfo");
  find(library, nvml.power_limit, "nvmlDeviceGetPowerManagementLimit");
  find(library, nvml.enforced_power_limit, "nvmlDeviceGetEnforcedPowerLimit");
  find(library, nvml.power_usage, "nvmlDeviceGetPowerUsage");
  find(library, nvml.temperature, "nvmlDeviceGetTemperature");
  find(library, nvml.persistence_mode, "nvmlDeviceGetPersistenceMode");
  find(library, nvml.mig_mode, "nvmlDeviceGetMigMode");
  find(library, nvml.compute_mode, "nvmlDeviceGetComputeMode");
  find(library, nvml.clock_event_reasons, "nvmlDeviceGetCurrentClocksEventReasons");
  if (nvml.clock_event_reasons == nullptr) {
    find(library, nvml.clock_event_reasons, "nvmlDeviceGetCurrentClocksThrottleReasons");
  }
  if (nvml.init == nullptr || nvml.shutdown == nullptr || nvml.handle_by_pci == nullptr) {
    out["error"] = "libnvidia-ml.so.1 lacks nvmlInit_v2, nvmlShutdown or nvmlDeviceGetHandleByPciBusId_v2";
    return out;
  }
  const auto error_text = [&](NvmlReturn status) {
    const char* text = nvml.error_string ? nvml.error_string(status) : nullptr;
    return std::string(text ? text : "NVML error " + std::to_string(status));
  };
  if (const NvmlReturn status = nvml.init(); status != 0) {
    out["error"] = "nvmlInit_v2: " + error_text(status);
    return out;
  }
  NvmlDevice device = nullptr;
  if (const NvmlReturn status = nvml.handle_by_pci(pci_bus_id.c_str(), &device); status != 0) {
    out["error"] = "nvmlDeviceGetHandleByPciBusId_v2(" + pci_bus_id + "): " + error_text(status);
    nvml.shutdown();
    return out;
  }
  out["available"] = true;
  char text[256] = {};
  out["driver_version"] = nvml.driver_version && nvml.driver_version(text, sizeof(text)) == 0 ? Json(std::string(text)) : Json();
  out["name"] = nvml.name && nvml.name(device, text, sizeof(text)) == 0 ? Json(std::string(text)) : Json();
  out["uuid"] = nvml.uuid && nvml.uuid(device, text, sizeof(text)) == 0 ? Json(std::string(text)) : Json();
  unsigned value = 0;
  const auto hz = [&](auto getter, int type) {  // NVML clocks are MHz
    return getter && getter(device, type, &value) == 0 ? Json(static_cast<double>(value) * 1e6) : Json();
  };
  out["sm_clock_hz"] = hz(nvml.clock, kClockSm);
  out["memory_clock_hz"] = hz(nvml.clock, kClockMemory);
  out["sm_clock_max_hz"] = hz(nvml.max_clock, kClockSm);
  out["memory_clock_max_hz"] = hz(nvml.max_clock, kClockMemory);
  const auto watts = [&](auto getter) {  // NVML power is mW
    return getter && getter(device, &value) == 0 ? Json(static_cast<double>(value) * 1e-3) : Json();
  };
  out["power_limit_w"] = watts(nvml.power_limit);
  out["enforced_power_limit_w"] = watts(nvml.enforced_power_limit);
  out["power_draw_w"] = watts(nvml.power_usage);
  out["temperature_c"] = nvml.temperature && nvml.temperature(device, kTemperatureGpu, &value) == 0
                               ? Json(value)
                               : Json();
  int mode = 0;
  out["persistence_mode"] = nvml.persistence_mode && nvml.persistence_mode(device, &mode) == 0 ? Json(mode == 1) : Json();
  unsigned mig_current = 0, mig_pending = 0;
  const bool mig_known = nvml.mig_mode && nvml.mig_mode(device, &mig_current, &mig_pending) == 0;
  out["mig_mode_current"] = mig_known ? Json(mig_current) : Json();  // 1 = MIG enabled
  out["mig_mode_pending"] = mig_known ? Json(mig_pending) : Json();
  out["compute_mode"] = nvml.compute_mode && nvml.compute_mode(device, &mode) == 0 ? Json(compute_mode_name(mode)) : Json();
  unsigned long long reasons = 0;
  out["clock_event_reasons_mask"] = nvml.clock_event_reasons && nvml.clock_event_reasons(device, &reasons) == 0 ? Json(reasons) : Json();
  nvml.shutdown();
  return out;
}

NvmlUtilization::NvmlUtilization(const std::string& pci_bus_id) {
  library_ = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (library_ == nullptr) {
    const char* reason = dlerror();
    error_ = std::string("dlopen libnvidia-ml.so.1: ") + (reason ? reason : "unknown");
    return;
  }
  NvmlReturn (*init)() = nullptr;
  NvmlReturn (*handle_by_pci)(const char*, NvmlDevice*) = nullptr;
  find(library_, init, "nvmlInit_v2");
  find(library_, shutdown_, "nvmlShutdown");
  find(library_, handle_by_pci, "nvmlDeviceGetHandleByPciBusId_v2");
  find(library_, rates_, "nvmlDeviceGetUtilizationRates");
  if (init == nullptr || shutdown_ == nullptr || handle_by_pci == nullptr || rates_ == nullptr) {
    error_ = "libnvidia-ml.so.1 lacks nvmlInit_v2, nvmlShutdown, nvmlDeviceGetHandleByPciBusId_v2 or "
             "nvmlDeviceGetUtilizationRates";
    shutdown_ = nullptr;
    return;
  }
  if (const NvmlReturn status = init(); status != 0) {
    error_ = "nvmlInit_v2: NVML error " + std::to_string(status);
    shutdown_ = nullptr;
    return;
  }
  NvmlDevice device = nullptr;
  if (const NvmlReturn status = handle_by_pci(pci_bus_id.c_str(), &device); status != 0) {
    error_ = "nvmlDeviceGetHandleByPciBusId_v2(" + pci_bus_id + "): NVML error " + std::to_string(status);
    return;
  }
  device_ = device;
}

NvmlUtilization::~NvmlUtilization() {
  if (shutdown_ != nullptr) shutdown_();
  if (library_ != nullptr) dlclose(library_);
}

bool NvmlUtilization::read(double& gpu, double& memory) const {
  if (!available()) return false;
  unsigned rates[2] = {0, 0};  // nvmlUtilization_t: {gpu, memory}, percent
  if (rates_(device_, rates) != 0) return false;
  gpu = rates[0] / 100.0;
  memory = rates[1] / 100.0;
  return true;
}

}  // namespace vgpusim::hwcal
