// Summary statistics of repeated timings: the median is what the grader compares (robust to
// the odd slow call), the minimum shows the best the code can do, and the coefficient of
// variation (stddev / mean) says whether the measurement can be trusted.
#pragma once

#include <vector>

namespace workbook {

struct Summary {
  int count = 0;
  double median = 0;
  double min = 0;
  double max = 0;
  double mean = 0;
  double cv = 0;         // sample standard deviation over the mean; 0 for fewer than two samples
  double robust_cv = 0;  // robust_cv() below: what says whether the median can be trusted
};

double median(std::vector<double> samples);  // by value: sorts its own copy
Summary summarize(const std::vector<double>& samples);

// The coefficient of variation that one stray sample does not move: the interquartile range over
// 1.349 times the median (for normally distributed samples, the same as stddev / mean). A GPU
// timing of 50 calls with one call delayed by the host has a CV of 10% or more and a robust CV
// of a few tenths of a percent. 0 for fewer than four samples.
double robust_cv(std::vector<double> samples);  // by value: sorts its own copy

// A distribution-free confidence interval for the median (order statistics: the number of
// samples below the true median is Binomial(n, 1/2)). [low, high] are two of the samples, the
// j-th smallest and the j-th largest, for the largest j whose coverage is still at least
// `confidence`; with too few samples for that (fewer than 6 at 95%), the whole range. Timings
// whose intervals overlap cannot be told apart: the leaderboard shows them as tied.
struct MedianInterval {
  double low = 0, high = 0;
  double coverage = 0;  // the interval's exact coverage, >= confidence unless n is too small
};
MedianInterval median_interval(std::vector<double> samples, double confidence = 0.95);

}  // namespace workbook
