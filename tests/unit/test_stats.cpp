#include "grader/catch.hpp"
#include "workbook/stats.hpp"

#include <cmath>
#include <stdexcept>

using workbook::median;
using workbook::summarize;

TEST_CASE("median of odd and even counts, in any order", "[stats]") {
  CHECK(median({3.0}) == 3.0);
  CHECK(median({5.0, 1.0, 3.0}) == 3.0);
  CHECK(median({4.0, 1.0, 3.0, 2.0}) == 2.5);
  CHECK(median({1.0, 1.0, 100.0}) == 1.0);  // robust to one slow call
  CHECK_THROWS_AS(median({}), std::invalid_argument);
}

TEST_CASE("summary: min, max, mean and coefficient of variation", "[stats]") {
  const auto s = summarize({2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0});
  CHECK(s.count == 8);
  CHECK(s.min == 2.0);
  CHECK(s.max == 9.0);
  CHECK(s.mean == 5.0);
  CHECK(s.median == 4.5);
  // sample standard deviation sqrt(32/7) over the mean 5
  CHECK(std::fabs(s.cv - std::sqrt(32.0 / 7.0) / 5.0) < 1e-12);
}

TEST_CASE("summary of identical samples has no variation; of one sample, cv 0", "[stats]") {
  CHECK(summarize({1.5, 1.5, 1.5}).cv == 0.0);
  const auto one = summarize({2.0});
  CHECK(one.cv == 0.0);
  CHECK(one.median == 2.0);
  CHECK(summarize({}).count == 0);
}
