#include "kernels.cuh"

#include "workbook/cuda_check.hpp"

namespace gpu_tests {
namespace {
__global__ void fillKernel(float* out, long first, int count, float value) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count) out[first + i] = value;
}
__global__ void spinKernel(long long nanoseconds) {
  const long long start = clock64();
  // clock64 counts SM cycles; at 1-2 GHz, nanoseconds * 2 cycles is at least the asked time.
  while (clock64() - start < nanoseconds * 2) {
  }
}
__global__ void emptyKernel() {}
}  // namespace

void fill(float* out, long first, int count, float value, cudaStream_t stream) {
  CUDA_CHECK_LAUNCH(fillKernel<<<(count + 255) / 256, 256, 0, stream>>>(out, first, count, value));
}
void spin(long long nanoseconds, cudaStream_t stream) {
  CUDA_CHECK_LAUNCH(spinKernel<<<1, 1, 0, stream>>>(nanoseconds));
}
void launch_with_block(int threads, cudaStream_t stream) {
  CUDA_CHECK_LAUNCH(emptyKernel<<<1, threads, 0, stream>>>());
}
}  // namespace gpu_tests
