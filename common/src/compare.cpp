#include "workbook/compare.hpp"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <sstream>

namespace workbook {

bool is_poison(float x) {
  std::uint32_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  return bits == 0xFFFFFFFFu;
}

Comparison compare(const float* got, const double* expected, std::size_t rows, std::size_t cols, Tolerance tol) {
  Comparison c;
  c.checked = rows * cols;
  for (std::size_t i = 0; i < c.checked; ++i) {
    const double g = got[i], e = expected[i];
    const double err = std::fabs(g - e);
    const bool finite = std::isfinite(g);
    if (finite && err > c.max_abs_error) c.max_abs_error = err;
    // Written so that a NaN in `got` (or an infinity) fails: comparisons with NaN are false.
    const bool good = finite && err <= tol.atol + tol.rtol * std::fabs(e);
    const bool poison = is_poison(got[i]);
    if (poison) ++c.unwritten;
    if (!good) {
      if (c.wrong == 0) {
        c.row = i / cols;
        c.col = i % cols;
        c.expected = e;
        c.got = g;
        c.first_unwritten = poison;
      }
      ++c.wrong;
    }
  }
  return c;
}

std::string Comparison::describe(const std::string& name) const {
  std::ostringstream out;
  if (ok()) {
    out << "all " << checked << " elements match";
    return out.str();
  }
  out.precision(9);
  out << name << '[' << row << "][" << col << "]: expected " << expected << ", got " << got;
  if (first_unwritten)
    out << " (never written)";
  else if (std::isnan(got))
    out << " (" << kComputedNan << ")";
  out << "; " << wrong << " of " << checked << " elements wrong";
  return out.str();
}

}  // namespace workbook
