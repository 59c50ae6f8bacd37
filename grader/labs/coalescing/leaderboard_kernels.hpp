// The leaderboard's trusted GPU helpers for coalescing (grader side, never the student's): fresh
// inputs for every timed call, and the check of every element of the student's output. On the
// GPU because the leaderboard's matrices (16384 x 16384 by default, 1 GiB each) would take the
// host seconds per call to make, copy and compare, and every timed call gets new inputs.
//
// The checks do not read the inputs back from the device: they make them again from the seed
// (the generator is counter-based), so an output matches only the inputs the call was given,
// even when the kernel under test wrote into its `const` inputs.
#pragma once

#include "workbook/compare.hpp"

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace coalescing_grading {

// p[i] = a uniform value in [-1, 1) from (seed, stream, i), 24 random bits (exact in float): the
// same seed and stream give the same values.
void fill_random(float* p, std::size_t n, std::uint64_t seed, std::uint64_t stream, cudaStream_t s);

// C (M x N) against the exact sum A + B, A and B being fill_random's (seed, stream_a) and
// (seed, stream_b) values, within `tol` (|got - exact| <= atol + rtol * |exact|; NaN is wrong).
// The count of wrong elements and the first one, as the grading's compare() reports them.
workbook::Comparison check_add(const float* C, int M, int N, std::uint64_t seed, std::uint64_t stream_a,
                               std::uint64_t stream_b, const workbook::Tolerance& tol, cudaStream_t s);

// out (N x M) against the transpose of the M x N matrix fill_random made from (seed, stream),
// bit for bit (a transpose only moves data).
workbook::Comparison check_transpose(const float* out, int M, int N, std::uint64_t seed, std::uint64_t stream,
                                     cudaStream_t s);

}  // namespace coalescing_grading
