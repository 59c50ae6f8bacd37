#pragma once

namespace coalescing_grading {

// The sequential baselines every speedup is measured against (sequential.cpp).
void sequential_add(const float* A, const float* B, float* C, int M, int N);
void sequential_transpose(const float* in, float* out, int M, int N);

}  // namespace coalescing_grading
