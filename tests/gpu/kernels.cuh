// Small kernels for the GPU tests of common/, behind host launchers so that the tests
// themselves compile as plain C++.
#pragma once

#include <cuda_runtime.h>

namespace gpu_tests {
// Writes value to out[first .. first + count - 1] (first may be negative: out of bounds on purpose).
void fill(float* out, long first, int count, float value, cudaStream_t stream);
// Spins for about `nanoseconds` on one thread.
void spin(long long nanoseconds, cudaStream_t stream);
// Launches with a block of `threads` threads (over 1024 is an invalid configuration).
void launch_with_block(int threads, cudaStream_t stream);
}  // namespace gpu_tests
