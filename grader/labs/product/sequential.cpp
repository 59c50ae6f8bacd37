// The sequential baseline of matmul-tiled and granularity: the plain single-threaded loop nest
// matmul-tiled's handout shows, in float like the kernels, built with -O2 (the labs'
// CMakeLists.txt). Speedups are measured against this program, as the course notes measured theirs.
#include "sequential.hpp"

namespace product_grading {

void sequential(const float* A, const float* B, float* C, int M, int N, int K) {
  for (int Row = 0; Row < M; ++Row) {
    for (int Col = 0; Col < N; ++Col) {
      float Pvalue = 0.0f;
      for (int k = 0; k < K; ++k) Pvalue += A[Row * K + k] * B[k * N + Col];
      C[Row * N + Col] = Pvalue;
    }
  }
}

}  // namespace product_grading
