#include "grader/time_spent.hpp"

#include <fmt/format.h>

namespace grader {
namespace {
// The phases in the order a case runs them, with the words the report uses.
const std::pair<const char*, const char*> kPhases[] = {
    {"inputs", "inputs"}, {"reference", "reference"}, {"call", "calls"}, {"check", "checks"}};
}  // namespace

TimeSpent sum_case_times(const std::vector<CaseResult>& cases, double build_s, double tests_s) {
  TimeSpent t;
  t.build_s = build_s;
  t.tests_s = tests_s;
  for (const auto& c : cases) {
    if (c.time_ms.empty()) continue;
    auto& kind = t.kinds[c.kind];
    for (const auto& [name, ms] : c.time_ms.items())
      if (ms.is_number()) kind[name] += ms.get<double>() / 1000.0;
  }
  return t;
}

std::string describe(const TimeSpent& t) {
  std::string kinds;
  for (const auto& [kind, s] : t.kinds) {
    const auto at = [&](const char* name) {
      const auto it = s.find(name);
      return it == s.end() ? 0.0 : it->second;
    };
    std::string parts;
    for (const auto& [key, word] : kPhases)
      if (at(key) >= 0.05) parts += fmt::format("{}{} {:.1f}", parts.empty() ? "" : ", ", word, at(key));
    kinds +=
        fmt::format("{}{} {:.1f} s{}", kinds.empty() ? "" : "; ", kind, at("case"), parts.empty() ? "" : ": " + parts);
  }
  std::string line = fmt::format("Time: {:.1f} s:", t.wait_s + t.build_s + t.tests_s);
  if (t.wait_s >= 0.05) line += fmt::format(" waiting for another check {:.1f} s,", t.wait_s);
  if (t.build_s > 0) line += fmt::format(" build {:.1f} s,", t.build_s);
  line += fmt::format(" tests {:.1f} s", t.tests_s);
  if (!kinds.empty()) line += " (" + kinds + ")";
  return line;
}

nlohmann::json to_json(const TimeSpent& t) {
  return {{"wait_s", t.wait_s}, {"build_s", t.build_s}, {"tests_s", t.tests_s}, {"kinds", t.kinds}};
}

}  // namespace grader
