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

MedianInterval median_interval(std::vector<double> samples, double confidence) {
  if (samples.empty()) throw std::invalid_argument("median interval of no samples");
  if (!(confidence > 0 && confidence < 1)) throw std::invalid_argument("median interval: confidence must be in (0, 1)");
  std::sort(samples.begin(), samples.end());
  const int n = static_cast<int>(samples.size());
  // P(X = k) for X ~ Binomial(n, 1/2), through lgamma so that large n does not overflow.
  const auto pmf = [n](int k) {
    return std::exp(std::lgamma(n + 1.0) - std::lgamma(k + 1.0) - std::lgamma(n - k + 1.0) - n * std::log(2.0));
  };
  // [x_(j), x_(n+1-j)] (1-based) covers the median with probability 1 - 2 P(X <= j - 1).
  MedianInterval r{samples.front(), samples.back(), 1.0 - 2 * std::pow(0.5, n)};
  double tail = 0;  // P(X <= j - 1)
  for (int j = 1; 2 * j <= n; ++j) {
    tail += pmf(j - 1);
    const double coverage = 1.0 - 2 * tail;
    if (coverage < confidence) break;
    r = {samples[j - 1], samples[n - j], coverage};
  }
  return r;
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
  s.robust_cv = robust_cv(samples);
  return s;
}

double robust_cv(std::vector<double> samples) {
  if (samples.size() < 4) return 0;
  std::sort(samples.begin(), samples.end());
  // Quartiles by linear interpolation between the order statistics.
  const auto quantile = [&](double q) {
    const double at = q * static_cast<double>(samples.size() - 1);
    const auto i = static_cast<std::size_t>(at);
    const double frac = at - static_cast<double>(i);
    return i + 1 < samples.size() ? samples[i] + frac * (samples[i + 1] - samples[i]) : samples[i];
  };
  const double mid = quantile(0.5);
  return mid > 0 ? (quantile(0.75) - quantile(0.25)) / (1.349 * mid) : 0;
}

}  // namespace workbook
