// The submission's device allocations, watched. The runner is linked with `--wrap` for cudaMalloc,
// cudaMallocPitch and cudaMallocAsync (grader_runner's INTERFACE_LINK_OPTIONS,
// grader/CMakeLists.txt), so each call of them in the code it links comes here first (runner.cpp
// calls wrap_allocations(), which also keeps this file in every runner's link). One that fails for
// want of memory is counted on the control page (allocation_watch.hpp), which the harness reads
// when a call fails: a crash after an unchecked allocation is then named as such (course code
// often checks the launch and not cudaMalloc), and `grader batch` runs a phase whose allocation
// failed beside other submissions again with the GPU to itself (batch/gpu_memory.hpp).
#include "remote/allocation_watch.hpp"

namespace remote {

void wrap_allocations(Control* control) { count_allocations_on(control); }

}  // namespace remote

extern "C" {

cudaError_t __real_cudaMalloc(void** pointer, std::size_t bytes);
cudaError_t __real_cudaMallocPitch(void** pointer, std::size_t* pitch, std::size_t width, std::size_t height);
cudaError_t __real_cudaMallocAsync(void** pointer, std::size_t bytes, cudaStream_t stream);

cudaError_t __wrap_cudaMalloc(void** pointer, std::size_t bytes) {
  const cudaError_t error = __real_cudaMalloc(pointer, bytes);
  remote::note_allocation(error, bytes);
  return error;
}

cudaError_t __wrap_cudaMallocPitch(void** pointer, std::size_t* pitch, std::size_t width, std::size_t height) {
  const cudaError_t error = __real_cudaMallocPitch(pointer, pitch, width, height);
  remote::note_allocation(error, width * height);
  return error;
}

cudaError_t __wrap_cudaMallocAsync(void** pointer, std::size_t bytes, cudaStream_t stream) {
  const cudaError_t error = __real_cudaMallocAsync(pointer, bytes, stream);
  remote::note_allocation(error, bytes);
  return error;
}

}  // extern "C"
