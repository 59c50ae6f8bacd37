#include "workbook/cuda_check.hpp"

#include <sstream>

namespace workbook {

bool CudaError::is_sticky(cudaError_t code) noexcept {
  switch (code) {
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchFailure:
    case cudaErrorHardwareStackError:
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorAssert:
    case cudaErrorLaunchTimeout:
    case cudaErrorECCUncorrectable:
      return true;
    default:
      return false;
  }
}

std::string cuda_error_message(cudaError_t code, const char* call, const char* file, int line) {
  std::ostringstream out;
  out << call << " failed: " << cudaGetErrorString(code) << " (" << cudaGetErrorName(code) << ") at " << file << ':'
      << line;
  return out.str();
}

}  // namespace workbook
