// CUDA_CHECK's message and error classes. cudaGetErrorString needs no GPU, so this runs on CI.
#include "grader/catch.hpp"
#include "workbook/cuda_check.hpp"

#include <string>

namespace {
cudaError_t fails_with(cudaError_t code) { return code; }
}  // namespace

TEST_CASE("CUDA_CHECK passes success through", "[cuda_check]") { CHECK_NOTHROW(CUDA_CHECK(fails_with(cudaSuccess))); }

TEST_CASE("CUDA_CHECK names the call's text, the error, the file and the line", "[cuda_check]") {
  try {
    CUDA_CHECK(fails_with(cudaErrorMemoryAllocation));
    FAIL("CUDA_CHECK did not throw");
  } catch (const workbook::CudaError& e) {
    const std::string what = e.what();
    CHECK(what.find("fails_with(cudaErrorMemoryAllocation) failed") != std::string::npos);
    CHECK(what.find("cudaErrorMemoryAllocation") != std::string::npos);
    CHECK(what.find("test_cuda_check.cpp:") != std::string::npos);
    CHECK(e.code() == cudaErrorMemoryAllocation);
    CHECK_FALSE(e.sticky());
  }
}

TEST_CASE("faults that lose the CUDA context are sticky; usage errors are not", "[cuda_check]") {
  CHECK(workbook::CudaError::is_sticky(cudaErrorIllegalAddress));
  CHECK(workbook::CudaError::is_sticky(cudaErrorLaunchFailure));
  CHECK(workbook::CudaError::is_sticky(cudaErrorMisalignedAddress));
  CHECK_FALSE(workbook::CudaError::is_sticky(cudaErrorInvalidConfiguration));
  CHECK_FALSE(workbook::CudaError::is_sticky(cudaErrorInvalidValue));
}
