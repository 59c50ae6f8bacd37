// The CPU references for coalescing, in double as everywhere in the workbook. For the add, the
// exact sum: a float kernel's A + B is that sum correctly rounded, within half an ulp. For the
// transpose, the input moved: a kernel must reproduce it bit for bit.
#pragma once

#include <cstddef>
#include <vector>

namespace coalescing_grading {

inline std::vector<double> reference_add(const std::vector<float>& A, const std::vector<float>& B) {
  std::vector<double> C(A.size());
  for (std::size_t i = 0; i < A.size(); ++i) C[i] = double(A[i]) + double(B[i]);
  return C;
}

// in is M x N, the result N x M.
inline std::vector<double> reference_transpose(const std::vector<float>& in, int M, int N) {
  std::vector<double> out(in.size());
  for (int row = 0; row < M; ++row)
    for (int col = 0; col < N; ++col)
      out[static_cast<std::size_t>(col) * M + row] = in[static_cast<std::size_t>(row) * N + col];
  return out;
}

}  // namespace coalescing_grading
