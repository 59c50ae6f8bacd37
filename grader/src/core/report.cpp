#include "grader/report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <optional>

namespace grader {

std::string to_string(RunState state) {
  switch (state) {
    case RunState::Completed:
      return "completed";
    case RunState::BuildFailed:
      return "build failed";
    case RunState::Crashed:
      return "crashed";
    case RunState::TimedOut:
      return "timed out";
    case RunState::NoGpu:
      return "no GPU";
    case RunState::NotGraded:
      return "not graded";
  }
  return "unknown";
}

bool ExerciseReport::passed() const {
  for (const auto& k : kinds)
    for (const auto& c : k.cases)
      if (!c.passed()) return false;
  return true;
}

bool LabReport::passed() const {
  if (run.state != RunState::Completed) return false;
  return std::all_of(exercises.begin(), exercises.end(), [](const auto& e) { return e.passed(); });
}

int exit_status(const LabReport& report) {
  switch (report.run.state) {
    case RunState::BuildFailed:
    case RunState::NotGraded:
      return 2;
    case RunState::Crashed:
    case RunState::TimedOut:
      return 3;
    case RunState::NoGpu:
      return 4;
    case RunState::Completed:
      break;
  }
  return report.passed() ? 0 : 1;
}

namespace {
bool has_performance(const ExerciseConfig& ex) {
  const auto it = ex.points.find("performance");
  return it != ex.points.end() && it->second > 0;
}
// Every check of the exercise that carries points, other than its timing, passed: correctness,
// static, a whole program's output, its transfers. A fast program that is wrong anywhere earns
// no performance points and no place on a leaderboard. Kinds worth no points (particle-storm's
// tiers, shown for information) do not gate.
bool correct(const ExerciseConfig& ex, const std::vector<CaseResult>& untimed) {
  for (const auto& c : untimed) {
    if (c.exercise != ex.name || c.kind == "performance" || c.passed()) continue;
    const auto points = ex.points.find(c.kind);
    if (points != ex.points.end() && points->second > 0) return false;
  }
  return true;
}

// A case the report adds in place of one the test program did not record.
CaseResult not_run(const std::string& exercise, const std::string& kind, std::string name, std::string detail) {
  CaseResult c;
  c.exercise = exercise;
  c.kind = kind;
  c.name = std::move(name);
  c.outcome = Outcome::NotRun;
  c.detail = std::move(detail);
  return c;
}

// One kind of check of an exercise, with the points its cases earn; nullopt when a filtered run
// (`only_recorded`) recorded none of it.
std::optional<KindReport> kind_report(const ExerciseConfig& ex, const std::string& kind, double points,
                                      const std::vector<CaseResult>& results, const RunStatus& run,
                                      const std::vector<Plan>& plans, bool only_recorded) {
  KindReport kr;
  kr.kind = kind;
  kr.points_possible = points;
  for (const auto& r : results)
    if (r.exercise == ex.name && r.kind == kind) kr.cases.push_back(r);
  if (kr.cases.empty() && only_recorded) return std::nullopt;
  // A wrong kernel's time means nothing: performance counts only for a correct exercise.
  // (When the run crashed before its timed cases, the "did not get this far" below says more.)
  if (kind == "performance" && !correct(ex, results) && !(kr.cases.empty() && run.state != RunState::Completed))
    kr.cases = {not_run(ex.name, kind, "timed cases",
                        "not graded: performance counts only when every other check of the exercise passes")};
  // The cases a test planned but never recorded (a crash half-way). A kind already said to be
  // not graded is said so once: no "planned case 2 of 2 ... did not get this far" after it.
  const bool said_not_graded =
      kind == "performance" && kr.cases.size() == 1 && kr.cases[0].detail.rfind("not graded:", 0) == 0;
  int planned = 0;
  for (const auto& p : plans)
    if (!said_not_graded && p.exercise == ex.name && p.kind == kind) planned += p.cases;
  const std::string why_missing = "the test program did not get this far (" + to_string(run.state) + ")";
  for (int i = static_cast<int>(kr.cases.size()); i < planned; ++i)
    kr.cases.push_back(not_run(
        ex.name, kind, "planned case " + std::to_string(i + 1) + " of " + std::to_string(planned), why_missing));
  if (kr.cases.empty())
    kr.cases.push_back(
        not_run(ex.name, kind, kind,
                run.state == RunState::Completed ? "the test program recorded no case for it" : why_missing));
  kr.passed =
      static_cast<int>(std::count_if(kr.cases.begin(), kr.cases.end(), [](const CaseResult& c) { return c.passed(); }));
  kr.points_earned = points * kr.passed / static_cast<double>(kr.cases.size());
  return kr;
}

// Kinds in a fixed, natural order whatever order the TOML table gave them.
void sort_kinds(std::vector<KindReport>& kinds) {
  const auto rank = [](const std::string& k) {
    if (k == "correctness") return 0;
    if (k == "static") return 1;
    if (k == "performance") return 2;
    return 3;
  };
  std::stable_sort(kinds.begin(), kinds.end(),
                   [&](const KindReport& a, const KindReport& b) { return rank(a.kind) < rank(b.kind); });
}
}  // namespace

LabReport build_report(const LabConfig& config, const std::vector<CaseResult>& results, const RunStatus& run,
                       std::uint64_t seed, const std::string& device, const std::vector<Plan>& plans,
                       bool only_recorded) {
  LabReport report;
  report.lab = config.name();
  report.title = config.title();
  report.seed = seed;
  report.device = device;
  report.run = run;
  for (const auto& ex : config.exercises()) {
    ExerciseReport er;
    er.name = ex.name;
    er.title = ex.title;
    for (const auto& [kind, points] : ex.points) {
      auto kr = kind_report(ex, kind, points, results, run, plans, only_recorded);
      if (!kr) continue;
      er.points_possible += kr->points_possible;
      er.points_earned += kr->points_earned;
      er.kinds.push_back(std::move(*kr));
    }
    sort_kinds(er.kinds);
    if (er.kinds.empty()) continue;  // filtered out entirely
    report.points_possible += er.points_possible;
    report.points_earned += er.points_earned;
    report.exercises.push_back(std::move(er));
  }
  return report;
}

std::vector<std::string> exercises_to_time(const LabConfig& config, const std::vector<CaseResult>& untimed) {
  std::vector<std::string> names;
  for (const auto& ex : config.exercises())
    if (has_performance(ex) && correct(ex, untimed)) names.push_back(ex.name);
  return names;
}

std::vector<CaseResult> all_cases(const LabReport& report) {
  std::vector<CaseResult> cases;
  for (const auto& e : report.exercises)
    for (const auto& k : e.kinds) cases.insert(cases.end(), k.cases.begin(), k.cases.end());
  return cases;
}

std::string timed_filter(const std::vector<std::string>& exercises) {
  std::string spec;
  for (const auto& name : exercises) spec += (spec.empty() ? "" : ",") + ("[" + name + "][performance]");
  return spec;
}

nlohmann::json to_json(const LabReport& r) {
  nlohmann::json exercises = nlohmann::json::array();
  for (const auto& e : r.exercises) {
    nlohmann::json kinds = nlohmann::json::array();
    for (const auto& k : e.kinds) {
      nlohmann::json cases = nlohmann::json::array();
      for (const auto& c : k.cases) cases.push_back(to_json(c));
      kinds.push_back({{"kind", k.kind},
                       {"points", k.points_earned},
                       {"max_points", k.points_possible},
                       {"passed", k.passed},
                       {"total", k.cases.size()},
                       {"cases", cases}});
    }
    exercises.push_back({{"name", e.name},
                         {"title", e.title},
                         {"passed", e.passed()},
                         {"points", e.points_earned},
                         {"max_points", e.points_possible},
                         {"checks", kinds}});
  }
  nlohmann::json j = {{"lab", r.lab},
                      {"title", r.title},
                      {"seed", r.seed},
                      {"filter", r.filter},
                      {"device", r.device},
                      {"thresholds", r.thresholds},
                      {"run", {{"state", to_string(r.run.state)}, {"detail", r.run.detail}}},
                      {"passed", r.passed()},
                      {"points", r.points_earned},
                      {"max_points", r.points_possible},
                      {"exit_status", exit_status(r)},
                      {"exercises", exercises}};
  if (r.time) j["time"] = to_json(*r.time);
  return j;
}

namespace {

struct Style {
  bool on;
  std::string green(const std::string& s) const { return on ? "\033[32m" + s + "\033[0m" : s; }
  std::string red(const std::string& s) const { return on ? "\033[31m" + s + "\033[0m" : s; }
  std::string yellow(const std::string& s) const { return on ? "\033[33m" + s + "\033[0m" : s; }
  std::string bold(const std::string& s) const { return on ? "\033[1m" + s + "\033[0m" : s; }
  std::string dim(const std::string& s) const { return on ? "\033[2m" + s + "\033[0m" : s; }
};

std::string points(double earned, double possible) {
  const auto fmt_pts = [](double p) {
    return std::fabs(p - std::round(p)) < 1e-9 ? fmt::format("{:.0f}", p) : fmt::format("{:.1f}", p);
  };
  return fmt::format("{} / {}", fmt_pts(earned), fmt_pts(possible));
}

// One line of numbers for a timed case: "0.412 ms  5213 GFLOP/s  speedup 3712x (needs >= 300x)".
std::string timing_line(const nlohmann::json& m) {
  std::string line;
  if (m.contains("median_ms")) {
    line += fmt::format("{:>9.3f} ms", m["median_ms"].get<double>());
    // Under four calls (a verdict decided early) there is no interquartile range: say how many.
    if (m.contains("min_ms") && m.value("runs", 4) < 4)
      line += fmt::format(" (min {:.3f}, {} call{})", m["min_ms"].get<double>(), m["runs"].get<int>(),
                          m["runs"].get<int>() == 1 ? "" : "s");
    else if (m.contains("min_ms") && m.contains("cv"))
      line += fmt::format(" (min {:.3f}, cv {:.1f}%)", m["min_ms"].get<double>(), 100 * m["cv"].get<double>());
  }
  if (m.contains("gflops")) line += fmt::format("  {:>7.0f} GFLOP/s", m["gflops"].get<double>());
  if (m.contains("bandwidth_gbs")) line += fmt::format("  {:>7.0f} GB/s", m["bandwidth_gbs"].get<double>());
  if (m.contains("speedup") && m.contains("min_speedup"))
    line +=
        fmt::format("  speedup {:.0f}x (needs >= {:.0f}x)", m["speedup"].get<double>(), m["min_speedup"].get<double>());
  if (m.contains("ratio") && m.contains("min_ratio"))
    line += fmt::format("  {:.2f}x (needs >= {:.2f}x)", m["ratio"].get<double>(), m["min_ratio"].get<double>());
  return line;
}

}  // namespace

std::string render_text(const LabReport& r, bool color) {
  const Style s{color};
  std::string out;
  out += s.bold(fmt::format("{}: {}", r.lab, r.title)) + fmt::format("    seed {}\n", r.seed);
  if (!r.device.empty()) out += fmt::format("GPU: {}\n", r.device);
  if (!r.thresholds.empty() && !r.device.empty()) out += fmt::format("Thresholds: {}\n", r.thresholds);
  if (!r.filter.empty()) out += fmt::format("Filtered run: only the checks matching {}\n", r.filter);

  if (r.run.state == RunState::BuildFailed || r.run.state == RunState::NoGpu || r.run.state == RunState::NotGraded) {
    // Nothing was tested: the table of "not run" cases would only hide the one message that matters.
    if (r.run.state == RunState::BuildFailed)
      out += "\n" + s.red("Your code does not compile.") + " The compiler says:\n\n" + r.run.detail + "\n";
    else if (r.run.state == RunState::NotGraded)
      out += "\n" + s.red("Not graded: ") + r.run.detail + "\n";
    else
      out += "\n" + s.red("Cannot test: ") + r.run.detail + "\n";
    out += "\n" + s.bold(fmt::format("Total: {}", points(r.points_earned, r.points_possible))) + "    " +
           s.red("NOT TESTED") + "\n";
    return out;
  }
  if (r.run.state != RunState::Completed)
    out += "\n" + s.red("The test program " + to_string(r.run.state) + ": ") + r.run.detail + "\n";

  for (const auto& e : r.exercises) {
    out += "\n" + s.bold(fmt::format("{:<66}", e.name + ": " + e.title)) +
           fmt::format("{:>12}\n", points(e.points_earned, e.points_possible));
    for (const auto& k : e.kinds) {
      const bool all = k.passed == static_cast<int>(k.cases.size());
      const std::string mark = all ? s.green("PASS") : s.red("FAIL");
      out += fmt::format("  {} {:<12} {:>3}/{:<3} cases passed {:>38}\n", mark, k.kind, k.passed, k.cases.size(),
                         points(k.points_earned, k.points_possible));
      int shown_failures = 0;
      for (const auto& c : k.cases) {
        const bool timed = c.metrics.contains("median_ms") || c.metrics.contains("ratio");
        if (c.passed() && !timed) continue;  // passing correctness cases: the count says it all
        if (!c.passed() && ++shown_failures > 5) continue;
        const std::string verdict = c.passed() ? s.green("ok") : s.red(to_string(c.outcome));
        out += fmt::format("      {:<28} {}", c.name, verdict);
        // A wrong result's time means nothing: show only why it failed.
        if (timed && c.outcome != Outcome::Incorrect) out += "  " + timing_line(c.metrics);
        out += "\n";
        if (!c.passed() && !c.detail.empty()) {
          // A detail of several lines (a race named on its own line): each indented alike.
          std::string detail = c.detail;
          for (std::size_t at = 0; (at = detail.find('\n', at)) != std::string::npos; at += 9)
            detail.insert(at + 1, "        ");
          out += "        " + s.yellow(detail) + "\n";
        }
      }
      const int failures = k.cases.size() - k.passed;
      if (failures > 5)
        out += fmt::format("      ... and {} more failed cases (--json lists them all)\n", failures - 5);
    }
  }
  out += "\n" + s.bold(fmt::format("Total: {}", points(r.points_earned, r.points_possible))) + "    " +
         (r.passed() ? s.green("ALL CHECKS PASSED") : s.red("NOT YET: see the failures above")) + "\n";
  if (r.time) out += s.dim(describe(*r.time)) + "\n";
  if (!r.passed() && r.run.state == RunState::Completed)
    out += s.dim(fmt::format("Same inputs again: grader check {} --seed {}{}\n", r.lab, r.seed,
                             r.filter.empty() ? "" : " --filter \"" + r.filter + "\""));
  return out;
}

}  // namespace grader
