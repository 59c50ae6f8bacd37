#pragma once

namespace product_grading {

// The sequential baseline every speedup is measured against (sequential.cpp).
void sequential(const float* A, const float* B, float* C, int M, int N, int K);

}  // namespace product_grading
