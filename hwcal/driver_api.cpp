// CUDA driver API entry points (green contexts), fetched through cudaGetDriverEntryPointByVersion.
// Each symbol is asked for at the ABI version its PFN typedef names, so a newer driver keeps the old signature.
#include "hwcal/driver_api.hpp"

#include <mutex>
#include <string>

#include "hwcal/check.hpp"

namespace vgpusim::hwcal {
namespace {

template <typename Function>
void load(Function& target, const char* symbol, unsigned version) {
  void* address = nullptr;
  cudaDriverEntryPointQueryResult query = cudaDriverEntryPointSymbolNotFound;
  HWCAL_CUDA(cudaGetDriverEntryPointByVersion(symbol, &address, version, cudaEnableDefault, &query));
  if (query != cudaDriverEntryPointSuccess || address == nullptr) {
    throw HwcalError(std::string("driver entry point ") + symbol + " (ABI " + std::to_string(version) +
                     ") is not available: " +
                     (query == cudaDriverEntryPointVersionNotSufficent ? "driver too old" : "symbol not found"));
  }
  target = reinterpret_cast<Function>(address);
}

DriverApi load_all() {
  DriverApi api;
  load(api.get_error_string, "cuGetErrorString", 6000);
  load(api.get_error_name, "cuGetErrorName", 6000);
  load(api.device_get, "cuDeviceGet", 2000);
  load(api.device_get_dev_resource, "cuDeviceGetDevResource", 12040);
  load(api.dev_sm_resource_split_by_count, "cuDevSmResourceSplitByCount", 12040);
  load(api.dev_resource_generate_desc, "cuDevResourceGenerateDesc", 12040);
  load(api.green_ctx_create, "cuGreenCtxCreate", 12040);
  load(api.green_ctx_destroy, "cuGreenCtxDestroy", 12040);
  load(api.green_ctx_get_dev_resource, "cuGreenCtxGetDevResource", 12040);
  load(api.green_ctx_stream_create, "cuGreenCtxStreamCreate", 12050);
  load(api.stream_destroy, "cuStreamDestroy", 4000);
  return api;
}

std::once_flag g_loaded;
DriverApi g_api;
std::string g_load_error;

}  // namespace

const DriverApi& driver_api() {
  std::call_once(g_loaded, [] {
    try {
      g_api = load_all();
    } catch (const HwcalError& error) {
      g_load_error = error.what();
    }
  });
  if (!g_load_error.empty()) throw HwcalError(g_load_error);
  return g_api;
}

const char* driver_error_text(int status) {
  thread_local std::string text;
  text = "CUresult " + std::to_string(status);
  if (g_api.get_error_name != nullptr && g_api.get_error_string != nullptr) {
    const char* name = nullptr;
    const char* description = nullptr;
    const auto code = static_cast<CUresult>(status);
    if (g_api.get_error_name(code, &name) == CUDA_SUCCESS && name != nullptr) text = name;
    if (g_api.get_error_string(code, &description) == CUDA_SUCCESS && description != nullptr) {
      text += std::string(" (") + description + ")";
    }
  }
  return text.c_str();
}

}  // namespace vgpusim::hwcal
