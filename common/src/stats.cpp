#include "workbook/stats.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

namespace workbook {

double median(std::vector<double> samples) {
  if (samples.empty()) throw std::invalid_argument("median of no samples");
  const std::size_t mid = samples.size() / 2;
  std::nth_element(samples.begin(), samples.begin() + mid, samples.end());
  const double upper = samples[mid];
  if (samples.size() % 2 == 1) return upper;
  const double lower = *std::max_element(samples.begin(), samples.begin() + mid);
  return (lower + upper) / 2;
}

Summary summarize(const std::vector<double>& samples) {
  Summary s;
  if (samples.empty()) return s;
  s.count = static_cast<int>(samples.size());
  s.median = median(samples);
  const auto [lo, hi] = std::minmax_element(samples.begin(), samples.end());
  s.min = *lo;
  s.max = *hi;
  s.mean = std::accumulate(samples.begin(), samples.end(), 0.0) / s.count;
  if (s.count > 1 && s.mean != 0) {
    double sq = 0;
    for (double x : samples) sq += (x - s.mean) * (x - s.mean);
    s.cv = std::sqrt(sq / (s.count - 1)) / s.mean;
  }
  return s;
}

}  // namespace workbook
