// A kept result judged again by today's thresholds (`grader batch` resumed with a changed course
// config or machine profile). A timed case keeps its measurements (the median, its spread, and
// the metric each threshold bounds: "speedup" for min_speedup, lab.toml's [calibration] rules),
// so a lowered or raised threshold applies to everyone already graded, not only to those graded
// after the change. Only thresholds whose value changed since the case was graded are applied:
// an unchanged one keeps the verdict the lab's own test gave.
#pragma once

#include "grader/lab_config.hpp"
#include "grader/results.hpp"

#include <map>
#include <string>
#include <vector>

namespace grader::course {

// The values of the lab's calibrated thresholds in `config` (what a new result records).
std::map<std::string, double> threshold_values(const LabConfig& config);

// `cases` with every timed case whose thresholds changed (graded under `then`, `config` now)
// judged again: passed when its metric meets each of them, else too slow, the detail saying by
// how much. `changed` counts the cases whose outcome changed.
std::vector<CaseResult> rejudged(std::vector<CaseResult> cases, const std::map<std::string, double>& then,
                                 const LabConfig& config, int* changed = nullptr);

}  // namespace grader::course
