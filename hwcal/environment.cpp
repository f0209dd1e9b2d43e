// The "environment" object of a raw file: host, date, driver/runtime/cuBLAS versions, device properties and NVML.
// Clock rates reported by CUDA are peak values in kHz, converted to Hz; NVML gives the current ones.
#include "hwcal/environment.hpp"

#include <cuda_runtime_api.h>
#if VGPUSIM_HWCAL_CUBLAS
#include <cublas_v2.h>
#endif
#include <sys/utsname.h>
#include <unistd.h>

#include <cstdio>
#include <ctime>

#include "hwcal/check.hpp"
#include "hwcal/nvml.hpp"

namespace vgpusim::hwcal {
namespace {

Json device_attribute(cudaDeviceAttr attribute, int ordinal, double scale = 1.0) {
  int value = 0;
  if (cudaDeviceGetAttribute(&value, attribute, ordinal) != cudaSuccess) {
    static_cast<void>(cudaGetLastError());  // not sticky, but keep the error state clean
    return Json();
  }
  return scale == 1.0 ? Json(value) : Json(static_cast<double>(value) * scale);
}

std::string uuid_text(const cudaUUID_t& uuid) {
  std::string out = "GPU-";
  for (int i = 0; i < 16; ++i) {
    char pair[3];
    std::snprintf(pair, sizeof(pair), "%02x", static_cast<unsigned>(static_cast<unsigned char>(uuid.bytes[i])));
    out += pair;
    if (i == 3 || i == 5 || i == 7 || i == 9) out += '-';
  }
  return out;
}

Json cublas_version() {
#if !VGPUSIM_HWCAL_CUBLAS
  return Json();  // built without cuBLAS
#else
  int major = 0, minor = 0, patch = 0;
  if (cublasGetProperty(MAJOR_VERSION, &major) != CUBLAS_STATUS_SUCCESS ||
      cublasGetProperty(MINOR_VERSION, &minor) != CUBLAS_STATUS_SUCCESS ||
      cublasGetProperty(PATCH_LEVEL, &patch) != CUBLAS_STATUS_SUCCESS) {
    return Json();
  }
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
#endif
}

}  // namespace

std::string host_name() {
  char name[256] = {};
  if (gethostname(name, sizeof(name) - 1) != 0 || name[0] == '\0') return "unknown-host";
  return name;
}

std::string utc_timestamp(bool compact) {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[32];
  std::strftime(text, sizeof(text), compact ? "%Y%m%dT%H%M%SZ" : "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

std::string pci_bus_id(int ordinal) {
  char id[64] = {};
  HWCAL_CUDA(cudaDeviceGetPCIBusId(id, sizeof(id), ordinal));
  return id;
}

Json environment_json(int ordinal) {
  Json out = Json::object();
  Json host = Json::object();
  host["hostname"] = host_name();
  utsname system{};
  host["kernel"] = uname(&system) == 0 ? Json(std::string(system.sysname) + " " + system.release) : Json();
  host["cpu_count"] = static_cast<long>(sysconf(_SC_NPROCESSORS_ONLN));
  out["host"] = host;
  out["date_utc"] = utc_timestamp(false);

  int driver = 0, runtime = 0;
  HWCAL_CUDA(cudaDriverGetVersion(&driver));
  HWCAL_CUDA(cudaRuntimeGetVersion(&runtime));
  out["cuda_driver_version"] = driver;  // 1000 * major + 10 * minor, e.g. 13000
  out["cuda_runtime_version"] = runtime;
  out["cublas_version"] = cublas_version();

  cudaDeviceProp properties{};
  HWCAL_CUDA(cudaGetDeviceProperties(&properties, ordinal));
  Json device = Json::object();
  device["ordinal"] = ordinal;
  device["name"] = std::string(properties.name);
  device["uuid"] = uuid_text(properties.uuid);
  const std::string bus_id = pci_bus_id(ordinal);
  device["pci_bus_id"] = bus_id;
  device["compute_capability"] = std::to_string(properties.major) + "." + std::to_string(properties.minor);
  device["sm_count"] = properties.multiProcessorCount;
  device["total_memory_bytes"] = properties.totalGlobalMem;
  std::size_t free_bytes = 0, total_bytes = 0;
  HWCAL_CUDA(cudaMemGetInfo(&free_bytes, &total_bytes));
  device["free_memory_bytes"] = free_bytes;
  device["l2_cache_bytes"] = properties.l2CacheSize;
  device["persisting_l2_max_bytes"] = properties.persistingL2CacheMaxSize;
  device["memory_bus_width_bits"] = properties.memoryBusWidth;
  device["sm_clock_peak_hz"] = device_attribute(cudaDevAttrClockRate, ordinal, 1e3);
  device["memory_clock_peak_hz"] = device_attribute(cudaDevAttrMemoryClockRate, ordinal, 1e3);
  device["shared_memory_per_sm_bytes"] = properties.sharedMemPerMultiprocessor;
  device["shared_memory_per_block_optin_bytes"] = properties.sharedMemPerBlockOptin;
  device["registers_per_sm"] = properties.regsPerMultiprocessor;
  device["max_threads_per_sm"] = properties.maxThreadsPerMultiProcessor;
  device["max_blocks_per_sm"] = properties.maxBlocksPerMultiProcessor;
  device["warp_size"] = properties.warpSize;
  device["ecc_enabled"] = properties.ECCEnabled != 0;
  device["concurrent_kernels"] = properties.concurrentKernels != 0;
  device["compute_preemption_supported"] = properties.computePreemptionSupported != 0;
  device["async_engine_count"] = properties.asyncEngineCount;
  device["mps_enabled"] = properties.mpsEnabled != 0;  // this process is already an MPS client
  device["compute_mode"] = device_attribute(cudaDevAttrComputeMode, ordinal);  // 0 default, 3 excl. process
  out["device"] = device;
  out["nvml"] = nvml_snapshot(bus_id);
  return out;
}

}  // namespace vgpusim::hwcal
