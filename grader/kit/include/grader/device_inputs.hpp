// The grader's own work on the GPU (trusted harness code, never the student's): inputs drawn on
// the device from the seeded streams, and a comparison that brings back only its verdict.
//
// Inputs: fill_floats / fill_small_ints write element i of the stream `seed` into p[i], the same
// bits workbook::random_floats / random_small_ints give on the CPU (workbook/seeded.hpp), so a
// case can draw its inputs where it uses them and a reported seed still reproduces them anywhere.
// Drawing 16M floats takes tens of microseconds on an H100, where the CPU and the copy took
// tens of milliseconds: every timed call can have fresh inputs.
//
// compare() is workbook::compare() on device arrays: the same rule (finite, and
// |got - expected| <= atol + rtol * |expected|), the same Comparison (first wrong element in
// row-major order, count, largest finite error, elements still holding the poison's bits).
#pragma once

#include "workbook/compare.hpp"

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace grading::device {

void fill_floats(float* p, std::size_t n, std::uint64_t seed, cudaStream_t stream, float lo = -1.0f, float hi = 1.0f);
void fill_small_ints(float* p, std::size_t n, std::uint64_t seed, cudaStream_t stream, int lo = -4, int hi = 4);

// Synchronizes `stream`; copies back a few words (and the first wrong element's two values).
workbook::Comparison compare(const float* got, const double* expected, std::size_t rows, std::size_t cols,
                             workbook::Tolerance tol, cudaStream_t stream);

}  // namespace grading::device
