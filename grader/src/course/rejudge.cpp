#include "course/rejudge.hpp"

#include "calibrate/thresholds.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace grader::course {

std::map<std::string, double> threshold_values(const LabConfig& config) {
  std::map<std::string, double> out;
  for (const auto& rule : calibrate::rules(config))
    if (const auto v = config.number(rule.threshold)) out[rule.threshold] = *v;
  return out;
}

std::vector<CaseResult> rejudged(std::vector<CaseResult> cases, const std::map<std::string, double>& then,
                                 const LabConfig& config, int* changed) {
  std::map<std::string, std::string> metric_of;
  for (const auto& rule : calibrate::rules(config)) metric_of[rule.threshold] = rule.metric;
  for (CaseResult& c : cases) {
    if (c.outcome != Outcome::Passed && c.outcome != Outcome::TooSlow) continue;
    bool any_changed = false, meets = true;
    std::string why;
    for (const auto& t : c.thresholds) {
      const auto was = then.find(t);
      const auto now = config.number(t);
      const auto metric = metric_of.find(t);
      if (was == then.end() || !now || metric == metric_of.end()) continue;  // nothing to compare with
      const auto value = c.metrics.find(metric->second);
      if (value == c.metrics.end() || !value->is_number()) continue;
      if (was->second != *now) any_changed = true;
      if (value->get<double>() < *now) {
        meets = false;
        why = fmt::format("{} {:.3g} is below {} = {:g} (judged again from the kept measurement)", metric->second,
                          value->get<double>(), t, *now);
      }
    }
    if (!any_changed) continue;
    const Outcome outcome = meets ? Outcome::Passed : Outcome::TooSlow;
    if (outcome != c.outcome && changed) ++*changed;
    c.outcome = outcome;
    c.detail = meets ? "" : why;
  }
  return cases;
}

}  // namespace grader::course
