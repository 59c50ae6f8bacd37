// The sequential baselines of coalescing: the plain single-threaded loops the handout shows, in
// float like the kernels, built with -O2 (see CMakeLists.txt). Speedups are measured against
// these programs, as the course notes measured theirs.
#include "sequential.hpp"

#include <cstddef>

namespace coalescing_grading {

// Row by row, the order the matrices are stored in: the CPU streams through all three arrays.
void sequential_add(const float* A, const float* B, float* C, int M, int N) {
  for (int row = 0; row < M; ++row)
    for (int col = 0; col < N; ++col) {
      const std::size_t i = static_cast<std::size_t>(row) * N + col;
      C[i] = A[i] + B[i];
    }
}

// Reads `in` row by row; the writes to `out` jump M floats at every step.
void sequential_transpose(const float* in, float* out, int M, int N) {
  for (int row = 0; row < M; ++row)
    for (int col = 0; col < N; ++col)
      out[static_cast<std::size_t>(col) * M + row] = in[static_cast<std::size_t>(row) * N + col];
}

}  // namespace coalescing_grading
