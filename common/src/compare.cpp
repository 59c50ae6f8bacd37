#include "workbook/compare.hpp"

#include <cmath>
#include <sstream>

namespace workbook {

Comparison compare(const float* got, const double* expected, std::size_t rows, std::size_t cols,
                   Tolerance tol) {
  Comparison c;
  c.checked = rows * cols;
  for (std::size_t i = 0; i < c.checked; ++i) {
    const double g = got[i], e = expected[i];
    const double err = std::fabs(g - e);
    const bool finite = std::isfinite(g);
    if (finite && err > c.max_abs_error) c.max_abs_error = err;
    // Written so that a NaN in `got` (or an infinity) fails: comparisons with NaN are false.
    const bool good = finite && err <= tol.atol + tol.rtol * std::fabs(e);
    if (!good) {
      if (c.wrong == 0) {
        c.row = i / cols;
        c.col = i % cols;
        c.expected = e;
        c.got = g;
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
  out << name << '[' << row << "][" << col << "]: expected " << expected << ", got " << got << "; "
      << wrong << " of " << checked << " elements wrong";
  return out.str();
}

}  // namespace workbook
