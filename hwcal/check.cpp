// Error texts for failed CUDA runtime, cuBLAS and driver calls: "file:line: call: NAME (description)".
// cuBLAS is optional (VGPUSIM_HWCAL_CUBLAS): without it only the GEMM experiment is missing.
#include "hwcal/check.hpp"

#if VGPUSIM_HWCAL_CUBLAS
#include <cublas_v2.h>
#endif

#include "hwcal/driver_api.hpp"

namespace vgpusim::hwcal {

void throw_at(const char* file, int line, const std::string& message) {
  throw HwcalError(std::string(file) + ":" + std::to_string(line) + ": " + message);
}

void throw_cuda_error(cudaError_t status, const char* call, const char* file, int line) {
  throw_at(file, line,
           std::string(call) + " failed: " + cudaGetErrorName(status) + " (" + cudaGetErrorString(status) + ")");
}

void throw_cublas_error(int status, const char* call, const char* file, int line) {
#if VGPUSIM_HWCAL_CUBLAS
  throw_at(file, line,
           std::string(call) + " failed: " + cublasGetStatusName(static_cast<cublasStatus_t>(status)) + " (" +
               cublasGetStatusString(static_cast<cublasStatus_t>(status)) + ")");
#else
  throw_at(file, line, std::string(call) + " failed: cublasStatus_t " + std::to_string(status));
#endif
}

void throw_driver_error(int status, const char* call, const char* file, int line) {
  throw_at(file, line, std::string(call) + " failed: " + driver_error_text(status));
}

}  // namespace vgpusim::hwcal
