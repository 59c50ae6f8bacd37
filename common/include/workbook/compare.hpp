// Comparing a GPU result with the CPU reference. An element passes when
//     |got - expected| <= atol + rtol * |expected|
// and is finite: NaN (an element never written, since outputs are poisoned, or a NaN computed)
// never passes, and the description tells the two apart by the poison's bits.
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
  // Elements that still hold the poison's exact bits (every byte 0xFF): never written. A NaN
  // with other bits is one the code computed (it read the poisoned output, say, as a
  // beta * C epilogue does, or divided zero by zero).
  std::size_t unwritten = 0;
  bool first_unwritten = false;  // the first wrong element is one of those
  bool ok() const { return wrong == 0; }
  bool nothing_written() const { return checked > 0 && unwritten == checked; }
  // "C[3][5]: expected 12, got nan (never written); 120 of 561 elements wrong" (or "all 561
  // elements match"); a computed NaN is "got nan (computed, not the poison: ...)".
  std::string describe(const std::string& name = "C") const;
};

// What describe() says of a wrong element that is a NaN other than the poison: the code read
// memory nothing wrote (a poisoned output or scratch buffer, or past the end of an input) and
// computed with it, or divided zero by zero.
inline constexpr const char* kComputedNan = "a NaN your code computed, not the poison of an unwritten element";

// Compares a rows x cols row-major matrix (use rows = 1 for a vector).
Comparison compare(const float* got, const double* expected, std::size_t rows, std::size_t cols, Tolerance tol);
// True when x holds the poison's bits exactly (DeviceBuffer::poison(): every byte 0xFF).
bool is_poison(float x);
inline Comparison compare(const std::vector<float>& got, const std::vector<double>& expected, std::size_t rows,
                          std::size_t cols, Tolerance tol) {
  return compare(got.data(), expected.data(), rows, cols, tol);
}

}  // namespace workbook
