// Comparing a GPU result with the CPU reference. An element passes when
//     |got - expected| <= atol + rtol * |expected|
// and is finite: NaN (an element never written, since outputs are poisoned) never passes.
// The result names the first wrong element by its coordinates, what was expected and what came
// back, and how many elements are wrong in all: enough to start debugging.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace workbook {

struct Tolerance {
  double atol = 0;  // absolute; 0 with rtol 0 means exact
  double rtol = 0;  // relative to |expected|
  static Tolerance exact() { return {0, 0}; }
};

struct Comparison {
  std::size_t checked = 0;
  std::size_t wrong = 0;
  // The first wrong element in row-major order (only meaningful when wrong > 0).
  std::size_t row = 0, col = 0;
  double expected = 0, got = 0;
  double max_abs_error = 0;  // over the finite elements
  bool ok() const { return wrong == 0; }
  // "C[3][5]: expected 12, got nan; 120 of 561 elements wrong" (or "all 561 elements match")
  std::string describe(const std::string& name = "C") const;
};

// Compares a rows x cols row-major matrix (use rows = 1 for a vector).
Comparison compare(const float* got, const double* expected, std::size_t rows, std::size_t cols,
                   Tolerance tol);
inline Comparison compare(const std::vector<float>& got, const std::vector<double>& expected,
                          std::size_t rows, std::size_t cols, Tolerance tol) {
  return compare(got.data(), expected.data(), rows, cols, tol);
}

}  // namespace workbook
