// Where a graded case's time goes: the grader's own work (drawing inputs, computing the expected
// output, comparing) against the submission's calls. A scope names its phase; the innermost
// running scope is charged, so a phase inside another is not counted twice. take_phases() gives
// the totals since the last take, in milliseconds, and clears them; the grading kit records them
// with each case ("time_ms" in the results file), and `grader check` sums them into one line.
#pragma once

#include <array>
#include <chrono>
#include <cstddef>

namespace workbook {

enum class Phase { Inputs, Reference, Call, Check };
inline constexpr std::size_t kPhases = 4;
inline constexpr const char* kPhaseNames[kPhases] = {"inputs", "reference", "call", "check"};

using PhaseTotals = std::array<double, kPhases>;  // ms, by Phase

class PhaseScope {
public:
  explicit PhaseScope(Phase phase);
  ~PhaseScope();
  PhaseScope(const PhaseScope&) = delete;
  PhaseScope& operator=(const PhaseScope&) = delete;

private:
  Phase phase_;
  PhaseScope* outer_;
  std::chrono::steady_clock::time_point since_;
  void charge();
  friend PhaseTotals take_phases();
};

PhaseTotals take_phases();

}  // namespace workbook
