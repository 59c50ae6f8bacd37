// The sequential baseline of granularity: the plain single-threaded loop nest of matmul-tiled
// (the handout shows it), in float like the kernels, built with -O2 (see CMakeLists.txt).
#include "sequential.hpp"

namespace granularity_grading {

void sequential(const float* A, const float* B, float* C, int M, int N, int K) {
  for (int Row = 0; Row < M; ++Row) {
    for (int Col = 0; Col < N; ++Col) {
      float Pvalue = 0.0f;
      for (int k = 0; k < K; ++k) Pvalue += A[Row * K + k] * B[k * N + Col];
      C[Row * N + Col] = Pvalue;
    }
  }
}

}  // namespace granularity_grading
