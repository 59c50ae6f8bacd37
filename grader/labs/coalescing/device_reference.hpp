// The expected outputs of coalescing's exercises, computed on the GPU by the grader (trusted,
// never the student's) in double, as the CPU did: the exact sum of A and B (a float kernel's
// A + B is that sum correctly rounded, within half an ulp), and the input moved for the
// transpose (a kernel must reproduce it bit for bit). On the GPU because every timed call at
// 8192 x 8192 gets inputs of its own, and the CPU's reference and comparison took a second each.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

namespace coalescing_grading {

void expected_add(const float* A, const float* B, double* E, std::size_t n, cudaStream_t stream);

// in is M x N, E is N x M.
void expected_transpose(const float* in, double* E, int M, int N, cudaStream_t stream);

}  // namespace coalescing_grading
