// The yardstick of the granularity lab: the tiled kernel of matmul-tiled's reference solution,
// TILE_WIDTH 32, built into the grader (students do not edit it). "Speedup over the tiled
// kernel" means speedup over this one, the same for every submission.
#pragma once

#include <cuda_runtime.h>

namespace granularity_grading {

// C = A x B, row-major, any M, N, K >= 1; launched on `stream`, no synchronisation.
void tiled32(const float* A, const float* B, float* C, int M, int N, int K, cudaStream_t stream);

}  // namespace granularity_grading
