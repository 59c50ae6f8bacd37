#include "grader/catch.hpp"
#include "workbook/compare.hpp"

#include <cmath>
#include <limits>

using workbook::compare;
using workbook::Tolerance;

TEST_CASE("exact comparison: equal passes, any difference fails", "[compare]") {
  const std::vector<double> ref = {1, 2, 3, 4, 5, 6};
  CHECK(compare(std::vector<float>{1, 2, 3, 4, 5, 6}, ref, 2, 3, Tolerance::exact()).ok());
  const auto c = compare(std::vector<float>{1, 2, 3, 4, 5.0001f, 6}, ref, 2, 3, Tolerance::exact());
  CHECK_FALSE(c.ok());
  CHECK(c.wrong == 1);
}

TEST_CASE("the first wrong element is named by row and column, with the count", "[compare]") {
  const std::vector<double> ref(12, 1.0);
  std::vector<float> got(12, 1.0f);
  got[7] = 9.0f;   // row 1, col 3 of a 3 x 4 matrix
  got[10] = 0.0f;  // a second wrong element
  const auto c = compare(got, ref, 3, 4, Tolerance::exact());
  CHECK(c.wrong == 2);
  CHECK(c.row == 1);
  CHECK(c.col == 3);
  CHECK(c.expected == 1.0);
  CHECK(c.got == 9.0);
  CHECK(c.describe("C") == "C[1][3]: expected 1, got 9; 2 of 12 elements wrong");
}

TEST_CASE("NaN and infinity never pass, whatever the tolerance", "[compare]") {
  const std::vector<double> ref = {0.0, 1.0};
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  const Tolerance loose{1e30, 1e30};
  CHECK_FALSE(compare(std::vector<float>{nan, 1.0f}, ref, 1, 2, loose).ok());
  CHECK_FALSE(compare(std::vector<float>{0.0f, inf}, ref, 1, 2, loose).ok());
}

TEST_CASE("tolerance: |got - expected| <= atol + rtol * |expected|", "[compare]") {
  const std::vector<double> ref = {100.0};
  const Tolerance tol{0.5, 0.01};  // allows 0.5 + 1.0 = 1.5 at 100
  CHECK(compare(std::vector<float>{101.5f}, ref, 1, 1, tol).ok());
  CHECK(compare(std::vector<float>{98.5f}, ref, 1, 1, tol).ok());
  CHECK_FALSE(compare(std::vector<float>{101.6f}, ref, 1, 1, tol).ok());
  const auto c = compare(std::vector<float>{101.0f}, ref, 1, 1, tol);
  CHECK(c.max_abs_error == 1.0);
}
