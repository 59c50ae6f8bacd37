#include "workbook/phases.hpp"

namespace workbook {
namespace {
thread_local PhaseTotals t_totals{};
thread_local PhaseScope* t_current = nullptr;
}  // namespace

PhaseScope::PhaseScope(Phase phase) : phase_(phase), outer_(t_current), since_(std::chrono::steady_clock::now()) {
  if (outer_) outer_->charge();  // the outer phase pauses while this one runs
  t_current = this;
}

PhaseScope::~PhaseScope() {
  charge();
  t_current = outer_;
  if (outer_) outer_->since_ = std::chrono::steady_clock::now();
}

void PhaseScope::charge() {
  const auto now = std::chrono::steady_clock::now();
  t_totals[static_cast<std::size_t>(phase_)] += std::chrono::duration<double, std::milli>(now - since_).count();
  since_ = now;
}

PhaseTotals take_phases() {
  if (t_current) t_current->charge();
  const PhaseTotals totals = t_totals;
  t_totals = {};
  return totals;
}

}  // namespace workbook
