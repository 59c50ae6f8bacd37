#include "inspect/expected_ranges.hpp"

#include "inspect/ncu_output.hpp"

#include <toml++/toml.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <sstream>

namespace grader::inspect {

namespace {

// x rounded down (or up) to three significant digits: 52294.2 -> 52200 (or 52300).
double round_sig3(double x, bool up) {
  if (x <= 0) return 0;
  // x = steps x 10^e with 100 <= steps < 1000. A negative e divides by a power of ten, which
  // gives the same double as the decimal literal (3.33, not 3.3300000000000001).
  const int e = static_cast<int>(std::floor(std::log10(x))) - 2;
  const double scale = std::pow(10.0, std::abs(e));
  const double steps = e < 0 ? x * scale : x / scale;
  // The small epsilon keeps a value already on the grid where it is (4.0 x 1.2 is 4.7999...).
  const double kept = up ? std::ceil(steps - 1e-9) : std::floor(steps + 1e-9);
  return e < 0 ? kept / scale : kept * scale;
}

// An integral value as a TOML integer (264000, not 264000.0); others as floats (3.33).
void push_number(toml::array& a, double v) {
  if (std::abs(v) < 9e15 && std::nearbyint(v) == v)
    a.push_back(static_cast<std::int64_t>(v));
  else
    a.push_back(v);
}

}  // namespace

std::pair<double, double> expected_range(double value, bool percent) {
  double lo = round_sig3(value / 1.2, false), hi = round_sig3(value * 1.2, true);
  if (percent) hi = std::min(hi, 100.0), lo = std::min(lo, 100.0);
  return {lo, hi};
}

bool is_percent_metric(const std::string& id) {
  const auto& metrics = lab_metrics();
  const auto it = metrics.find(id);
  return it != metrics.end() && !it->second.format.empty() && it->second.format.back() == '%';
}

std::string expected_tables(const ReferenceValues& values) {
  toml::table expected;
  for (const auto& [exercise, kernels] : values) {
    toml::table by_kernel;
    for (const auto& [kernel, metrics] : kernels) {
      toml::table ranges;
      ranges.is_inline(true);
      for (const auto& [id, value] : metrics) {
        const auto [lo, hi] = expected_range(value, is_percent_metric(id));
        toml::array range;
        push_number(range, lo);
        push_number(range, hi);
        ranges.insert(id, std::move(range));
      }
      by_kernel.insert(kernel, std::move(ranges));
    }
    expected.insert(exercise, std::move(by_kernel));
  }
  toml::table root{{"profile", toml::table{{"expected", std::move(expected)}}}};
  std::ostringstream out;
  // Relaxed precision: 3.33, not 3.3300000000000001 (the ranges have three digits; each reads
  // back as the same double).
  out << toml::toml_formatter(root, toml::toml_formatter::default_flags | toml::format_flags::relaxed_float_precision)
      << '\n';
  return out.str();
}

}  // namespace grader::inspect
