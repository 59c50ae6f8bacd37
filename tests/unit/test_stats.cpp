#include "grader/catch.hpp"
#include "workbook/stats.hpp"
#include "workbook/timer.hpp"

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

TEST_CASE("median interval: the order statistics of the binomial tables", "[stats]") {
  std::vector<double> ten;
  for (int i = 1; i <= 10; ++i) ten.push_back(i);  // x_(k) = k
  const auto r10 = workbook::median_interval(ten);
  CHECK(r10.low == 2);  // n = 10 at 95%: the 2nd smallest and the 2nd largest (coverage 97.9%)
  CHECK(r10.high == 9);
  CHECK(std::abs(r10.coverage - 0.9785) < 1e-3);

  std::vector<double> hundred;
  for (int i = 100; i >= 1; --i) hundred.push_back(i);  // any order
  const auto r100 = workbook::median_interval(hundred);
  CHECK(r100.low == 40);  // n = 100 at 95%: x_(40) and x_(61)
  CHECK(r100.high == 61);
  CHECK(r100.coverage >= 0.95);

  // Too few samples for 95%: the whole range, with its (lower) coverage said.
  const auto r5 = workbook::median_interval({3.0, 1.0, 2.0, 5.0, 4.0});
  CHECK(r5.low == 1);
  CHECK(r5.high == 5);
  CHECK(std::abs(r5.coverage - (1 - 2 / 32.0)) < 1e-12);
  // A lower confidence narrows the interval.
  CHECK(workbook::median_interval(hundred, 0.5).high - workbook::median_interval(hundred, 0.5).low < 61 - 40);
  CHECK_THROWS(workbook::median_interval({}));
  CHECK_THROWS(workbook::median_interval(ten, 1.5));
}

TEST_CASE("robust_cv: one stray call does not move it, a spread of calls does", "[stats]") {
  // 50 calls of 1.87 ms within 0.2%, and one delayed by the host to 3.2 ms.
  std::vector<double> calls;
  for (int i = 0; i < 50; ++i) calls.push_back(1.868 + 0.0001 * (i % 7));
  calls[17] = 3.2;
  CHECK(workbook::summarize(calls).cv > 0.08);  // the plain CV: flagged as noisy
  CHECK(workbook::robust_cv(calls) < 0.001);    // the robust one: as steady as it is
  // Really noisy calls, spread evenly from 1.5 to 2.5 ms: both see it.
  std::vector<double> noisy;
  for (int i = 0; i <= 50; ++i) noisy.push_back(1.5 + i / 50.0);
  CHECK(workbook::robust_cv(noisy) == Approx(0.5 / (1.349 * 2.0)).epsilon(1e-9));
  CHECK(workbook::robust_cv({1.0, 2.0, 3.0}) == 0);  // too few to say
}

// A timing stops early only when the calls so far decide the verdict of the median of min_runs:
// a majority of them clearly on one side of the limit, or every one far under it (timer.hpp).
TEST_CASE("decided_by_limit: a majority on one side past the margin, or all far under", "[stats][timer]") {
  const auto decided = workbook::decided_by_limit(100.0, 5, 0.05, 0.5);
  CHECK(decided({80, 90, 94}));         // all under 95: passes whatever two more calls take
  CHECK(decided({106, 120, 300}));      // all over 105: too slow whatever two more calls take
  CHECK_FALSE(decided({80, 90, 96}));   // one within the margin: time the rest
  CHECK_FALSE(decided({80, 120, 90}));  // on both sides
  CHECK_FALSE(decided({80, 90}));       // under, but not yet a majority of 5
  CHECK(decided({50}));                 // half the limit: three later calls would need to be 2x slower
  CHECK(decided({30, 45}));
  CHECK_FALSE(decided({51}));
  CHECK(decided({30, 72}));             // two calls under 0.725 of it: three later ones 1.38x slower
  CHECK(decided({72, 72}));
  CHECK_FALSE(decided({30, 73}));       // the bar after two calls is 0.725 of the limit
  CHECK_FALSE(decided({73, 30}));
  CHECK_FALSE(decided({400}));          // far over, once: a slow first call is never failed early
  CHECK_FALSE(decided({400, 400}));
  CHECK_FALSE(decided({}));
  CHECK_FALSE(decided({std::nan(""), 10}));  // a call with no time decides nothing
  CHECK_FALSE(workbook::decided_by_limit(0.0, 5)({1, 1, 1}));  // no limit known: never decided
  CHECK(workbook::decided_by_limit(100.0, 1)({90}));           // min_runs 1: one call is the median
  // min_runs 10 (a majority of 6): the bar rises by 0.09 a call, 0.86 after five.
  const auto ten = workbook::decided_by_limit(100.0, 10, 0.05, 0.5);
  CHECK(ten({58, 58}));
  CHECK_FALSE(ten({58, 60}));
  CHECK(ten({85, 85, 85, 85, 85}));
  CHECK_FALSE(ten({86, 86, 86, 86, 87}));
}
