// Checks for every CUDA runtime, cuBLAS and driver call: a failure throws HwcalError naming file:line,
// the call and the error string, so one failed experiment is recorded and the others still run.
#pragma once

#include <cuda_runtime_api.h>

#include <stdexcept>
#include <string>

namespace vgpusim::hwcal {

class HwcalError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

[[noreturn]] void throw_cuda_error(cudaError_t status, const char* call, const char* file, int line);
[[noreturn]] void throw_cublas_error(int status, const char* call, const char* file, int line);
[[noreturn]] void throw_driver_error(int status, const char* call, const char* file, int line);
// "file:line: message"
[[noreturn]] void throw_at(const char* file, int line, const std::string& message);

}  // namespace vgpusim::hwcal

#define HWCAL_CUDA(call)                                                                 \
  do {                                                                                   \
    const cudaError_t hwcal_status_ = (call);                                            \
    if (hwcal_status_ != cudaSuccess) {                                                  \
      ::vgpusim::hwcal::throw_cuda_error(hwcal_status_, #call, __FILE__, __LINE__);      \
    }                                                                                    \
  } while (false)

#define HWCAL_CUBLAS(call)                                                               \
  do {                                                                                   \
    const int hwcal_status_ = static_cast<int>(call);                                    \
    if (hwcal_status_ != 0) {                                                            \
      ::vgpusim::hwcal::throw_cublas_error(hwcal_status_, #call, __FILE__, __LINE__);    \
    }                                                                                    \
  } while (false)

#define HWCAL_CU(call)                                                                   \
  do {                                                                                   \
    const int hwcal_status_ = static_cast<int>(call);                                    \
    if (hwcal_status_ != 0) {                                                            \
      ::vgpusim::hwcal::throw_driver_error(hwcal_status_, #call, __FILE__, __LINE__);    \
    }                                                                                    \
  } while (false)

#define HWCAL_REQUIRE(condition, message)                                                \
  do {                                                                                   \
    if (!(condition)) ::vgpusim::hwcal::throw_at(__FILE__, __LINE__, (message));        \
  } while (false)
