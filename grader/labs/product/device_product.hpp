// The trusted GPU side of grading C = A x B (grader side, never the student's), for matmul-tiled
// and granularity: the expected product in double, and the leaderboard's timing with fresh
// inputs and a checked output on every call. On the GPU because the CPU reference takes seconds
// at 1024^3 and tens of seconds at 2048^3, and every timed call gets new inputs.
#pragma once

#include "workbook/contest.hpp"

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

namespace product_grading {

// p[i] = a uniform value in [-1, 1) from (seed, stream, i): the same seed and stream give the same values.
void fill_random(float* p, std::size_t n, std::uint64_t seed, std::uint64_t stream, cudaStream_t s);

// E = A x B and S = |A| x |B| (the scale of each element's rounding error; none when S is null),
// both in double.
void expected_product(const float* A, const float* B, double* E, double* S, int M, int N, int K, cudaStream_t s);

// "" when every C[i] is within 1e-4 * S[i] of E[i] (float accumulation over K terms stays far
// inside that), else the count of wrong elements and the first one.
std::string check_product(const float* C, const double* E, const double* S, int M, int N, cudaStream_t s);

// C = A x B as the lab's exercises launch it (A is M x K, B is K x N, all row-major).
using ProductLaunch = std::function<void(const float*, const float*, float*, int, int, int, cudaStream_t)>;

// One entry's leaderboard timing at M x N x K (workbook::time_contest): before every call, A and
// B get fresh values from (seed, the call's number), C is poisoned and the expected product
// computed; after it, every element of C is checked.
workbook::ContestResult time_product_contest(int M, int N, int K, std::uint64_t seed, const ProductLaunch& launch,
                                             const workbook::ContestOptions& options);

}  // namespace product_grading
