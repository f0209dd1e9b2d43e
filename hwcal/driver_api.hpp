// CUDA driver API entry points (green contexts), fetched through cudaGetDriverEntryPointByVersion.
// No link-time libcuda dependency: the program starts, and says "no CUDA GPU", on machines without a driver.
#pragma once

#include <cudaTypedefs.h>

namespace vgpusim::hwcal {

struct DriverApi {
  PFN_cuGetErrorString_v6000 get_error_string = nullptr;
  PFN_cuGetErrorName_v6000 get_error_name = nullptr;
  PFN_cuDeviceGet_v2000 device_get = nullptr;
  PFN_cuDeviceGetDevResource_v12040 device_get_dev_resource = nullptr;
  PFN_cuDevSmResourceSplitByCount_v12040 dev_sm_resource_split_by_count = nullptr;
  PFN_cuDevResourceGenerateDesc_v12040 dev_resource_generate_desc = nullptr;
  PFN_cuGreenCtxCreate_v12040 green_ctx_create = nullptr;
  PFN_cuGreenCtxDestroy_v12040 green_ctx_destroy = nullptr;
  PFN_cuGreenCtxGetDevResource_v12040 green_ctx_get_dev_resource = nullptr;
  PFN_cuGreenCtxStreamCreate_v12050 green_ctx_stream_create = nullptr;
  PFN_cuStreamDestroy_v4000 stream_destroy = nullptr;
};

// The entry points; throws HwcalError naming the first one the installed driver does not provide.
const DriverApi& driver_api();
// "CUDA_ERROR_X (text)" through the driver when it is loaded, else "CUresult N".
const char* driver_error_text(int status);

}  // namespace vgpusim::hwcal
