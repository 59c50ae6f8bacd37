// The CPU reference for granularity: C = A x B accumulated in double, so that it is exact for
// small-integer inputs and far more accurate than any float32 kernel for the rest.
#pragma once

#include <cstddef>
#include <vector>

namespace granularity_grading {

inline std::vector<double> reference(const std::vector<float>& A, const std::vector<float>& B, int M, int N,
                                     int K) {
  std::vector<double> C(static_cast<std::size_t>(M) * N, 0.0);
  // i-k-j order: the inner loop walks B and C along rows, so this runs at memory speed.
  for (int i = 0; i < M; ++i)
    for (int k = 0; k < K; ++k) {
      const double a = A[static_cast<std::size_t>(i) * K + k];
      const float* b = &B[static_cast<std::size_t>(k) * N];
      double* c = &C[static_cast<std::size_t>(i) * N];
      for (int j = 0; j < N; ++j) c[j] += a * b[j];
    }
  return C;
}

}  // namespace granularity_grading
