// The submission's device allocations, watched. The runner is linked with `--wrap` for cudaMalloc,
// cudaMallocManaged, cudaMallocPitch and cudaMallocAsync (grader_runner's INTERFACE_LINK_OPTIONS,
// grader/CMakeLists.txt), so each call of them in the code it links comes here first. One that
// fails for want of memory is counted on the control page (wire.hpp), which the harness reads
// when a call fails: a crash after an unchecked allocation is then named as such (course code
// often checks the launch and not cudaMalloc), and `grader batch` runs a phase whose allocation
// failed beside other submissions again with the GPU to itself (batch/gpu_memory.hpp).
#include "remote/wire.hpp"

#include <cuda_runtime_api.h>

#include <cstddef>

namespace remote {
namespace {

Control* g_control = nullptr;

void note(cudaError_t error, std::size_t bytes) {
  if (error != cudaErrorMemoryAllocation || g_control == nullptr) return;
  __atomic_store_n(&g_control->failed_allocation_bytes, static_cast<std::uint64_t>(bytes), __ATOMIC_RELAXED);
  __atomic_add_fetch(&g_control->failed_allocations, 1u, __ATOMIC_RELEASE);
}

}  // namespace

void watch_allocations(Control* control) { g_control = control; }

}  // namespace remote

extern "C" {

cudaError_t __real_cudaMalloc(void** pointer, std::size_t bytes);
cudaError_t __real_cudaMallocManaged(void** pointer, std::size_t bytes, unsigned int flags);
cudaError_t __real_cudaMallocPitch(void** pointer, std::size_t* pitch, std::size_t width, std::size_t height);
cudaError_t __real_cudaMallocAsync(void** pointer, std::size_t bytes, cudaStream_t stream);

cudaError_t __wrap_cudaMalloc(void** pointer, std::size_t bytes) {
  const cudaError_t error = __real_cudaMalloc(pointer, bytes);
  remote::note(error, bytes);
  return error;
}

cudaError_t __wrap_cudaMallocManaged(void** pointer, std::size_t bytes, unsigned int flags) {
  const cudaError_t error = __real_cudaMallocManaged(pointer, bytes, flags);
  remote::note(error, bytes);
  return error;
}

cudaError_t __wrap_cudaMallocPitch(void** pointer, std::size_t* pitch, std::size_t width, std::size_t height) {
  const cudaError_t error = __real_cudaMallocPitch(pointer, pitch, width, height);
  remote::note(error, width * height);
  return error;
}

cudaError_t __wrap_cudaMallocAsync(void** pointer, std::size_t bytes, cudaStream_t stream) {
  const cudaError_t error = __real_cudaMallocAsync(pointer, bytes, stream);
  remote::note(error, bytes);
  return error;
}

}  // extern "C"
