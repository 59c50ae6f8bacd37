#include "grader/catch.hpp"
#include "workbook/compare.hpp"

#include <cmath>
#include <cstdint>
#include <cstring>
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

TEST_CASE("a NaN never written (the poison's bits) is told from a NaN the code computed", "[compare]") {
  float poison;
  const std::uint32_t all_ones = 0xFFFFFFFFu;
  std::memcpy(&poison, &all_ones, sizeof poison);
  const float computed = std::numeric_limits<float>::quiet_NaN();  // what 0/0 or NaN * x gives
  CHECK(workbook::is_poison(poison));
  CHECK_FALSE(workbook::is_poison(computed));
  const std::vector<double> expected = {1, 2, 3, 4};

  const auto untouched =
      workbook::compare({poison, poison, poison, poison}, expected, 2, 2, workbook::Tolerance::exact());
  CHECK(untouched.nothing_written());
  CHECK(untouched.describe().find("(never written)") != std::string::npos);

  // A beta * C epilogue that read the poisoned C: every element NaN, none of them the poison.
  const auto epilogue =
      workbook::compare({computed, computed, computed, computed}, expected, 2, 2, workbook::Tolerance::exact());
  CHECK_FALSE(epilogue.nothing_written());
  CHECK(epilogue.unwritten == 0);
  CHECK(epilogue.describe().find("a NaN your code computed") != std::string::npos);

  const auto partly = workbook::compare({1.0f, poison, 3.0f, poison}, expected, 2, 2, workbook::Tolerance::exact());
  CHECK(partly.unwritten == 2);
  CHECK(partly.first_unwritten);
  CHECK_FALSE(partly.nothing_written());
}
