#include "grader/isolation.hpp"

#include "grader/results.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>

namespace grader {

std::string filter_excluding(const std::string& filter, const std::vector<std::string>& exercises) {
  std::string excluded;
  for (const auto& e : exercises) excluded += "~[" + e + "]";
  if (filter.empty()) return excluded.empty() ? "" : "~[.]" + excluded;  // not hidden, as an empty spec
  std::string out;
  std::stringstream terms(filter);
  for (std::string term; std::getline(terms, term, ',');) out += (out.empty() ? "" : ",") + term + excluded;
  return out;
}

namespace {
// Every exercise with a line in the results, and the last one's.
std::vector<std::string> recorded_exercises(const std::filesystem::path& results, std::string* last,
                                            std::string* last_kind = nullptr) {
  std::vector<std::string> all;
  std::ifstream in(results);
  for (std::string line; std::getline(in, line);) {
    const auto j = nlohmann::json::parse(line, nullptr, false);
    if (!j.is_object()) continue;  // a torn last line
    const nlohmann::json& record = j.contains("plan") && j["plan"].is_object() ? j["plan"] : j;
    const std::string exercise = record.value("exercise", "");
    if (exercise.empty()) continue;
    if (std::find(all.begin(), all.end(), exercise) == all.end()) all.push_back(exercise);
    if (last) *last = exercise;
    if (last_kind) *last_kind = record.value("kind", "correctness");
  }
  return all;
}
}  // namespace

std::string last_recorded_exercise(const std::filesystem::path& results) {
  std::string last;
  recorded_exercises(results, &last);
  return last;
}

IsolatedRun run_isolated(const std::string& filter, const std::filesystem::path& results,
                         const std::function<RunStatus(const std::string& filter)>& run_once) {
  IsolatedRun run;
  std::vector<std::string> done;
  for (;;) {
    run.status = run_once(filter_excluding(filter, done));
    if (run.status.state != RunState::Crashed && run.status.state != RunState::TimedOut) return run;
    std::string in_flight, kind;
    const auto recorded = recorded_exercises(results, &in_flight, &kind);
    const bool progress = std::any_of(recorded.begin(), recorded.end(), [&](const std::string& e) {
      return std::find(done.begin(), done.end(), e) == done.end();
    });
    if (!progress) return run;  // it ended before recording anything new: nothing to isolate
    // The exercise in flight is charged: one case that says how the program ended.
    CaseResult ended;
    ended.exercise = in_flight;
    ended.kind = kind;
    ended.name = "(the test program ended here)";
    ended.outcome = Outcome::Crashed;
    ended.detail = (run.status.state == RunState::TimedOut ? "timed out: " : "crashed: ") + run.status.detail +
                   " (the exercises after this one ran again in a fresh process)";
    ResultsWriter(results).write(ended);
    run.ended_in.push_back(in_flight);
    ++run.restarts;
    done = recorded;
  }
}

}  // namespace grader
