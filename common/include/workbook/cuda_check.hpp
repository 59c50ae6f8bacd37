// Checked CUDA calls. Every runtime call in the workbook goes through CUDA_CHECK, and every
// kernel launch through CUDA_CHECK_LAUNCH, so that a failure names the call's own text, the
// file and the line instead of surfacing later as a wrong answer.
//
//   CUDA_CHECK(cudaMemcpy(d_A, A.data(), bytes, cudaMemcpyHostToDevice));
//   CUDA_CHECK_LAUNCH(naiveKernel<<<grid, block, 0, stream>>>(A, B, C, M, N, K));
//
// A failure throws workbook::CudaError (never exits), so the grader can record it and go on.
#pragma once

#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

namespace workbook {

class CudaError : public std::runtime_error {
public:
  CudaError(cudaError_t code, const std::string& what) : std::runtime_error(what), code_(code) {}
  cudaError_t code() const noexcept { return code_; }
  // A "sticky" error (an illegal address, a trap, a kernel that faulted) poisons the CUDA
  // context: every later call in this process fails too. The grader stops at the first one.
  bool sticky() const noexcept { return is_sticky(code_); }
  static bool is_sticky(cudaError_t code) noexcept;

private:
  cudaError_t code_;
};

// Builds the message "<call> failed: <description> (<cudaErrorName>) at <file>:<line>".
std::string cuda_error_message(cudaError_t code, const char* call, const char* file, int line);

inline void cuda_check(cudaError_t code, const char* call, const char* file, int line) {
  if (code != cudaSuccess) throw CudaError(code, cuda_error_message(code, call, file, line));
}

}  // namespace workbook

#define CUDA_CHECK(call) ::workbook::cuda_check((call), #call, __FILE__, __LINE__)

// Launch errors (a bad grid, too much shared memory) are reported by cudaGetLastError right
// after the launch; faults inside the kernel show at the next synchronisation, which the grader
// checks. Variadic because a launch's <<<...>>> holds commas.
#define CUDA_CHECK_LAUNCH(...)                                                    \
  do {                                                                            \
    __VA_ARGS__;                                                                  \
    ::workbook::cuda_check(cudaGetLastError(), #__VA_ARGS__, __FILE__, __LINE__); \
  } while (0)
