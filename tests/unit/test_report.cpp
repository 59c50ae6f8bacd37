#include "grader/catch.hpp"
#include "grader/report.hpp"

#include <cmath>

using namespace grader;

namespace {
const char* kLab = R"(
[lab]
name = "demo"
files = ["demo.cu"]
exercises = ["naive", "tiled"]
[exercises.naive]
title = "Naive"
points = { correctness = 30, performance = 10 }
[exercises.tiled]
title = "Tiled"
points = { correctness = 20, static = 5, performance = 20 }
)";

CaseResult make(const std::string& ex, const std::string& kind, const std::string& name, Outcome o,
                nlohmann::json metrics = nlohmann::json::object()) {
  CaseResult r;
  r.exercise = ex;
  r.kind = kind;
  r.name = name;
  r.outcome = o;
  r.metrics = std::move(metrics);
  if (o != Outcome::Passed) r.detail = "C[1][2]: expected 3, got nan; 5 of 9 elements wrong";
  return r;
}

std::vector<CaseResult> all_passing() {
  return {make("naive", "correctness", "a", Outcome::Passed),
          make("naive", "correctness", "b", Outcome::Passed),
          make("naive", "performance", "1024", Outcome::Passed,
               {{"median_ms", 0.4}, {"speedup", 900.0}, {"min_speedup", 300.0}}),
          make("tiled", "correctness", "a", Outcome::Passed),
          make("tiled", "static", "shared", Outcome::Passed),
          make("tiled", "performance", "t16", Outcome::Passed),
          make("tiled", "performance", "t32", Outcome::Passed)};
}
}  // namespace

TEST_CASE("all cases passed: full points, exit status 0", "[report]") {
  const auto config = LabConfig::parse(kLab, "lab.toml");
  const auto r = build_report(config, all_passing(), {}, 7, "GPU");
  CHECK(r.passed());
  CHECK(r.points_earned == 85);
  CHECK(r.points_possible == 85);
  CHECK(exit_status(r) == 0);
}

TEST_CASE("each kind's points are shared by its cases: partial credit", "[report]") {
  const auto config = LabConfig::parse(kLab, "lab.toml");
  auto results = all_passing();
  results[6].outcome = Outcome::TooSlow;  // tiled performance: 1 of 2 -> 10 of 20
  const auto r = build_report(config, results, {}, 7, "GPU");
  CHECK_FALSE(r.passed());
  CHECK(exit_status(r) == 1);
  CHECK(r.exercises[0].points_earned == 40);
  CHECK(r.exercises[1].points_earned == 35);
  CHECK(r.points_earned == 75);
  // Kinds in natural order whatever order lab.toml's table gave them.
  CHECK(r.exercises[1].kinds[0].kind == "correctness");
  CHECK(r.exercises[1].kinds[1].kind == "static");
  CHECK(r.exercises[1].kinds[2].kind == "performance");
}

TEST_CASE("performance earns nothing while a correctness case of the exercise fails", "[report]") {
  const auto config = LabConfig::parse(kLab, "lab.toml");
  auto results = all_passing();
  results[1].outcome = Outcome::Incorrect;  // naive correctness: 1 of 2 -> 15 of 30
  const auto r = build_report(config, results, {}, 7, "GPU");
  CHECK(r.exercises[0].points_earned == 15);  // its passed timing does not count
  CHECK(r.exercises[1].points_earned == 45);  // tiled is untouched
  const auto& perf = r.exercises[0].kinds[1];
  REQUIRE(perf.kind == "performance");
  REQUIRE(perf.cases.size() == 1);
  CHECK(perf.cases[0].outcome == Outcome::NotRun);
  CHECK(perf.cases[0].detail.find("every other check") != std::string::npos);
}

TEST_CASE("performance is gated on every check that carries points, static ones and whole programs too", "[report]") {
  const auto config = LabConfig::parse(kLab, "lab.toml");
  auto results = all_passing();
  results[4].outcome = Outcome::Incorrect;  // tiled static: no __shared__ tiles
  CHECK(exercises_to_time(config, results) == std::vector<std::string>{"naive"});
  const auto r = build_report(config, results, {}, 7, "GPU");
  const auto& perf = r.exercises[1].kinds[2];
  REQUIRE(perf.kind == "performance");
  CHECK(perf.cases[0].outcome == Outcome::NotRun);
  CHECK(r.exercises[1].points_earned == 20);  // correctness only: no static, no performance
  // A kind the configuration does not give points to is information, not a gate.
  results[4].outcome = Outcome::Passed;
  results.push_back(make("tiled", "program", "storms/borders", Outcome::Incorrect));
  CHECK(exercises_to_time(config, results) == std::vector<std::string>{"naive", "tiled"});
  // particle-storm's whole program is a check with points: a wrong program gates the timing.
  std::string lab = kLab;
  lab.replace(lab.find("static = 5"), 10, "program = 5");
  const auto with_program = LabConfig::parse(lab, "lab.toml");
  CHECK(exercises_to_time(with_program, results) == std::vector<std::string>{"naive"});
}

TEST_CASE("only exercises whose correctness passed are timed", "[report]") {
  const auto config = LabConfig::parse(kLab, "lab.toml");
  auto results = all_passing();
  CHECK(exercises_to_time(config, results) == std::vector<std::string>{"naive", "tiled"});
  results[3].outcome = Outcome::Crashed;  // tiled correctness
  CHECK(exercises_to_time(config, results) == std::vector<std::string>{"naive"});
  results[0].outcome = Outcome::Incorrect;
  CHECK(exercises_to_time(config, results).empty());
  CHECK(timed_filter({"naive", "tiled"}) == "[naive][performance],[tiled][performance]");
  CHECK(timed_filter({"naive"}) == "[naive][performance]");
}

TEST_CASE("a crash: the kinds it never reached are 'not run' and earn nothing", "[report]") {
  const auto config = LabConfig::parse(kLab, "lab.toml");
  std::vector<CaseResult> results = {make("naive", "correctness", "a", Outcome::Passed),
                                     make("naive", "correctness", "b", Outcome::Crashed)};
  const auto r = build_report(config, results, {RunState::Crashed, "stopped after a CUDA error"}, 7, "GPU");
  CHECK(exit_status(r) == 3);
  CHECK(r.points_earned == 15);
  const auto& perf = r.exercises[0].kinds[1];
  REQUIRE(perf.cases.size() == 1);
  CHECK(perf.cases[0].outcome == Outcome::NotRun);
  CHECK(perf.cases[0].detail.find("crashed") != std::string::npos);
}

TEST_CASE("build failure, timeout, no GPU: their own exit statuses", "[report]") {
  const auto config = LabConfig::parse(kLab, "lab.toml");
  CHECK(exit_status(build_report(config, {}, {RunState::BuildFailed, "x"}, 1, "")) == 2);
  CHECK(exit_status(build_report(config, all_passing(), {RunState::TimedOut, "x"}, 1, "")) == 3);
  CHECK(exit_status(build_report(config, {}, {RunState::NoGpu, "x"}, 1, "")) == 4);
  // A timed-out run is not a pass even if every recorded case passed.
  CHECK_FALSE(build_report(config, all_passing(), {RunState::TimedOut, "x"}, 1, "").passed());
}

TEST_CASE("the text report shows failures with their detail, times, points and the seed", "[report]") {
  const auto config = LabConfig::parse(kLab, "lab.toml");
  auto results = all_passing();
  results[3].outcome = Outcome::Incorrect;  // tiled correctness
  results[3].detail = "C[1][2]: expected 3, got nan; 5 of 9 elements wrong";
  const auto text = render_text(build_report(config, results, {}, 424242, "Some GPU"), false);
  CHECK(text.find("seed 424242") != std::string::npos);
  CHECK(text.find("GPU: Some GPU") != std::string::npos);
  CHECK(text.find("C[1][2]: expected 3, got nan") != std::string::npos);
  CHECK(text.find("speedup 900x (needs >= 300x)") != std::string::npos);
  CHECK(text.find("0 / 20") != std::string::npos);
  CHECK(text.find("grader check demo --seed 424242") != std::string::npos);
  CHECK(text.find("\033[") == std::string::npos);  // no colour codes when asked for none
}

TEST_CASE("a build failure shows the compiler's words, not a table of cases", "[report]") {
  const auto config = LabConfig::parse(kLab, "lab.toml");
  const auto text = render_text(
      build_report(config, {}, {RunState::BuildFailed, "    labs/demo/demo.cu(12): error: expected a \";\""}, 1, ""),
      false);
  CHECK(text.find("does not compile") != std::string::npos);
  CHECK(text.find("demo.cu(12): error") != std::string::npos);
  CHECK(text.find("not run") == std::string::npos);
}

TEST_CASE("the JSON report carries every case and the totals", "[report]") {
  const auto config = LabConfig::parse(kLab, "lab.toml");
  const auto j = to_json(build_report(config, all_passing(), {}, 5, "GPU"));
  CHECK(j["lab"] == "demo");
  CHECK(j["passed"] == true);
  CHECK(j["exit_status"] == 0);
  CHECK(j["points"] == 85.0);
  CHECK(j["run"]["state"] == "completed");
  CHECK(j["exercises"][0]["checks"][1]["cases"][0]["metrics"]["speedup"] == 900.0);
  CHECK(j["exercises"].size() == 2);
}

TEST_CASE("a crash part-way through a kind: planned cases never recorded count as not run", "[report]") {
  const auto config = LabConfig::parse(kLab, "lab.toml");
  // 5 of a planned 38 correctness cases passed, the 6th crashed, the program stopped.
  std::vector<CaseResult> results;
  for (int i = 0; i < 5; ++i) results.push_back(make("naive", "correctness", "c" + std::to_string(i), Outcome::Passed));
  results.push_back(make("naive", "correctness", "c5", Outcome::Crashed));
  const std::vector<Plan> plans = {{"naive", "correctness", 38}};
  const auto r = build_report(config, results, {RunState::Crashed, "stopped"}, 1, "", plans);
  const auto& correctness = r.exercises[0].kinds[0];
  CHECK(correctness.cases.size() == 38);
  CHECK(correctness.passed == 5);
  CHECK(std::fabs(correctness.points_earned - 30.0 * 5 / 38) < 1e-9);
  CHECK(correctness.cases.back().outcome == Outcome::NotRun);
}

TEST_CASE("a filtered run reports only what it ran, and passes when that passed", "[report]") {
  const auto config = LabConfig::parse(kLab, "lab.toml");
  const std::vector<CaseResult> results = {make("naive", "correctness", "a", Outcome::Passed)};
  auto r = build_report(config, results, {}, 9, "", {}, /*only_recorded=*/true);
  r.filter = "[naive][correctness]";
  REQUIRE(r.exercises.size() == 1);
  REQUIRE(r.exercises[0].kinds.size() == 1);
  CHECK(r.points_possible == 30);
  CHECK(r.passed());
  CHECK(exit_status(r) == 0);
  const auto text = render_text(r, false);
  CHECK(text.find("Filtered run") != std::string::npos);
}

TEST_CASE("an exercise whose timed cases are not graded says so once, not again as planned cases", "[report]") {
  const auto config = LabConfig::parse(kLab, "lab.toml");
  // tiled's correctness failed, so its two planned timed cases were never run: one line says
  // why, and no "planned case 2 of 2 ... did not get this far (completed)" contradicts it.
  std::vector<CaseResult> results = {
      make("naive", "correctness", "a", Outcome::Passed), make("naive", "performance", "1024", Outcome::Passed),
      make("tiled", "correctness", "a", Outcome::Incorrect), make("tiled", "static", "shared", Outcome::Passed)};
  const std::vector<Plan> plans = {{"tiled", "correctness", 1}, {"tiled", "performance", 2}};
  const auto r = build_report(config, results, {}, 1, "GPU", plans);
  const auto& perf = r.exercises[1].kinds[2];
  REQUIRE(perf.kind == "performance");
  REQUIRE(perf.cases.size() == 1);
  CHECK(perf.cases[0].detail.rfind("not graded:", 0) == 0);
  const std::string text = render_text(r, false);
  CHECK(text.find("planned case") == std::string::npos);
  CHECK(text.find("did not get this far") == std::string::npos);
}
