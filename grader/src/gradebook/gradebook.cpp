#include "grader/gradebook.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

namespace grader {

nlohmann::json to_json(const StudentResult& r) {
  nlohmann::json j = {{"student", r.student},       {"status", r.status},   {"detail", r.detail},
                      {"notes", r.notes},           {"seconds", r.seconds}, {"graded_at", r.graded_at},
                      {"report", to_json(r.report)}};
  if (!r.source.empty()) j["source"] = r.source;
  if (!r.thresholds.empty()) j["thresholds"] = r.thresholds;
  if (!r.profile.empty()) j["profile"] = r.profile;
  if (r.late)
    j["late"] = {{"submitted_at", r.late->submitted_at}, {"late_hours", r.late->late_hours},     {"days", r.late->days},
                 {"penalty_percent", r.late->percent},   {"final_points", r.late->final_points}, {"why", r.late->why}};
  return j;
}

namespace {

// Rebuilds a LabReport from its JSON (the per-student files are what a resumed run reads back).
LabReport report_from_json(const nlohmann::json& j) {
  LabReport r;
  r.lab = j.at("lab").get<std::string>();
  r.title = j.value("title", "");
  r.seed = j.value("seed", std::uint64_t{0});
  r.filter = j.value("filter", "");
  r.device = j.value("device", "");
  const std::string state = j.at("run").value("state", "completed");
  for (RunState s : {RunState::Completed, RunState::BuildFailed, RunState::Crashed, RunState::TimedOut, RunState::NoGpu,
                     RunState::NotGraded})
    if (to_string(s) == state) r.run.state = s;
  r.run.detail = j.at("run").value("detail", "");
  r.points_earned = j.value("points", 0.0);
  r.points_possible = j.value("max_points", 0.0);
  for (const auto& ej : j.at("exercises")) {
    ExerciseReport e;
    e.name = ej.at("name").get<std::string>();
    e.title = ej.value("title", e.name);
    e.points_earned = ej.value("points", 0.0);
    e.points_possible = ej.value("max_points", 0.0);
    for (const auto& kj : ej.at("checks")) {
      KindReport k;
      k.kind = kj.at("kind").get<std::string>();
      k.points_earned = kj.value("points", 0.0);
      k.points_possible = kj.value("max_points", 0.0);
      k.passed = kj.value("passed", 0);
      for (const auto& cj : kj.at("cases")) k.cases.push_back(case_from_json(cj));
      e.kinds.push_back(std::move(k));
    }
    r.exercises.push_back(std::move(e));
  }
  return r;
}

std::string pts(double p) {
  return std::fabs(p - std::round(p)) < 1e-9 ? fmt::format("{:.0f}", p) : fmt::format("{:.2f}", p);
}

}  // namespace

StudentResult student_from_json(const nlohmann::json& j) {
  StudentResult r;
  r.student = j.at("student").get<std::string>();
  r.status = j.at("status").get<std::string>();
  r.detail = j.value("detail", "");
  r.notes = j.value("notes", std::vector<std::string>{});
  r.seconds = j.value("seconds", 0.0);
  r.graded_at = j.value("graded_at", "");
  r.source = j.value("source", "");
  r.report = report_from_json(j.at("report"));
  if (const auto t = j.find("thresholds"); t != j.end() && t->is_object())
    r.thresholds = t->get<std::map<std::string, double>>();
  r.profile = j.value("profile", "");
  if (const auto l = j.find("late"); l != j.end() && l->is_object())
    r.late = StudentResult::Late{l->value("submitted_at", ""),     l->value("late_hours", 0.0),   l->value("days", 0),
                                 l->value("penalty_percent", 0.0), l->value("final_points", 0.0), l->value("why", "")};
  return r;
}

std::string exercise_status(const ExerciseReport& e) {
  // Worst first: the word an instructor needs to see first. "not run" comes after "incorrect":
  // an incorrect exercise's timed cases are not run (not graded), and "incorrect" says why.
  const Outcome order[] = {Outcome::Crashed, Outcome::Error, Outcome::Incorrect, Outcome::TooSlow, Outcome::NotRun};
  for (Outcome o : order)
    for (const auto& k : e.kinds)
      for (const auto& c : k.cases)
        if (c.outcome == o) return to_string(o);
  return "passed";
}

std::string csv_field(const std::string& value) {
  if (value.find_first_of(",\"\r\n") == std::string::npos) return value;
  std::string quoted = "\"";
  for (char ch : value) {
    if (ch == '"') quoted += '"';
    quoted += ch;
  }
  return quoted + "\"";
}

std::string gradebook_csv(const LabConfig& config, const std::vector<StudentResult>& results) {
  std::string out = "student";
  for (const auto& e : config.exercises()) out += "," + csv_field(e.name);
  out += ",total,max_points,status";
  for (const auto& e : config.exercises()) out += "," + csv_field(e.name + "_outcome");
  const bool late =
      std::any_of(results.begin(), results.end(), [](const StudentResult& r) { return r.late.has_value(); });
  if (late) out += ",submitted_at,late_hours,penalty_percent,final";
  out += "\n";
  std::vector<const StudentResult*> sorted;
  for (const auto& r : results) sorted.push_back(&r);
  std::sort(sorted.begin(), sorted.end(), [](auto* a, auto* b) { return a->student < b->student; });
  for (const StudentResult* r : sorted) {
    std::vector<std::string> points, outcomes;
    for (const auto& e : config.exercises()) {
      const auto it = std::find_if(r->report.exercises.begin(), r->report.exercises.end(),
                                   [&](const ExerciseReport& x) { return x.name == e.name; });
      points.push_back(it == r->report.exercises.end() ? "0" : pts(it->points_earned));
      // A submission that never ran has one status for every exercise: why it never ran.
      const bool ran =
          r->status == "passed" || r->status == "incomplete" || r->status == "crashed" || r->status == "timed out";
      outcomes.push_back(!ran || it == r->report.exercises.end() ? r->status : exercise_status(*it));
    }
    out += csv_field(r->student);
    for (const auto& p : points) out += "," + p;
    out += "," + pts(r->report.points_earned) + "," + pts(config.total_points()) + "," + csv_field(r->status);
    for (const auto& o : outcomes) out += "," + csv_field(o);
    if (late && r->late)
      out += fmt::format(",{},{:.2f},{},{}", r->late->submitted_at, r->late->late_hours, pts(r->late->percent),
                         pts(r->late->final_points));
    else if (late)
      out += ",,," + pts(r->report.points_earned);  // not judged (nothing submitted): no time, no penalty
    out += "\n";
  }
  return out;
}

nlohmann::json results_json(const LabConfig& config, const std::vector<StudentResult>& results,
                            const nlohmann::json& run_info) {
  nlohmann::json students = nlohmann::json::array();
  std::map<std::string, int> counts;
  for (const auto& r : results) {
    students.push_back(to_json(r));
    ++counts[r.status];
  }
  return {{"lab", config.name()}, {"title", config.title()}, {"max_points", config.total_points()},
          {"run", run_info},      {"counts", counts},        {"students", students}};
}

std::string feedback_markdown(const StudentResult& r) {
  std::string md = fmt::format("# {}: {}\n\n", r.report.lab, r.student);
  md += fmt::format("**Status:** {}  \n**Points:** {} / {}  \n", r.status, pts(r.report.points_earned),
                    pts(r.report.points_possible));
  if (r.late)
    md += fmt::format("**Late work:** {}  \n**Final points:** {} / {}  \n", r.late->why, pts(r.late->final_points),
                      pts(r.report.points_possible));
  if (!r.graded_at.empty()) md += fmt::format("**Graded:** {}  \n", r.graded_at);
  md += "\n";
  if (!r.detail.empty() && r.status != "passed" && r.status != "incomplete")
    md += "## What happened\n\n```\n" + r.detail + "\n```\n\n";
  if (!r.notes.empty()) {
    md += "## Notes\n\n";
    for (const auto& n : r.notes) md += "- " + n + "\n";
    md += "\n";
  }
  md += "## Report\n\nThe same report `grader check " + r.report.lab + "` shows:\n\n```\n" +
        render_text(r.report, false) + "```\n";
  if (!r.profile.empty())
    md += "\n## Why slow: a profile\n\n" + r.profile + "\nThe same on your machine: `grader check " + r.report.lab +
          " --profile --exercise <exercise>`.\n";
  return md;
}

GradescopeVisibility gradescope_visibility(const LabConfig& config) {
  return {config.gradescope_visibility(), config.hidden().visibility};
}

nlohmann::json gradescope_json(const StudentResult& r, const GradescopeVisibility& visibility) {
  nlohmann::json tests = nlohmann::json::array();
  for (const auto& e : r.report.exercises) {
    for (const auto& k : e.kinds) {
      // Each case's share of the kind's points, scaled as the kind was (a kind whose points are
      // withheld, performance not graded, gives its hidden cases nothing either).
      const double share = k.cases.empty() ? 0 : k.points_possible / static_cast<double>(k.cases.size());
      const double scale = k.passed > 0 && share > 0 ? k.points_earned / (share * k.passed) : 0;
      double hidden_possible = 0, hidden_earned = 0;
      std::string output;
      int shown = 0, shown_passed = 0;
      for (const auto& c : k.cases) {
        if (c.hidden) {
          const double earned = c.passed() ? share * scale : 0;
          hidden_possible += share;
          hidden_earned += earned;
          tests.push_back(
              {{"name", e.name + ": " + k.kind + ", " + c.name},
               {"score", earned},
               {"max_score", share},
               {"status", c.passed() ? "passed" : "failed"},
               {"output", c.passed() ? "passed" : to_string(c.outcome) + (c.detail.empty() ? "" : " - " + c.detail)},
               {"visibility", visibility.hidden}});
          continue;
        }
        ++shown;
        if (c.passed())
          ++shown_passed;
        else
          output += c.name + ": " + to_string(c.outcome) + (c.detail.empty() ? "" : " - " + c.detail) + "\n";
      }
      if (shown == 0) continue;
      if (output.empty()) output = fmt::format("all {} cases passed", shown);
      tests.push_back({{"name", e.name + ": " + k.kind},
                       {"score", std::max(0.0, k.points_earned - hidden_earned)},
                       {"max_score", k.points_possible - hidden_possible},
                       {"status", shown_passed == shown ? "passed" : "failed"},
                       {"output", output},
                       {"visibility", visibility.cases}});
    }
  }
  std::string output = "Status: " + r.status;
  if (!r.detail.empty() && r.status != "passed" && r.status != "incomplete") output += "\n\n" + r.detail;
  // The score is what the student gets: a late penalty is taken from the tests' sum.
  if (r.late) output += "\n\nLate work: " + r.late->why;
  return {{"score", r.final_points()},
          {"execution_time", static_cast<int>(r.seconds + 0.5)},
          {"output", output},
          {"visibility", visibility.cases},
          {"tests", tests}};
}

}  // namespace grader
