#include "grader/catch.hpp"
#include "grader/results.hpp"

#include <unistd.h>

#include <filesystem>
#include <fstream>

using namespace grader;

namespace {
std::filesystem::path temp_file(const std::string& name) {
  auto p = std::filesystem::temp_directory_path() / ("workbook-test-" + std::to_string(::getpid()) + "-" + name);
  std::filesystem::remove(p);
  return p;
}
}  // namespace

TEST_CASE("results round-trip through the JSON-lines file", "[results]") {
  const auto path = temp_file("results.jsonl");
  ResultsWriter writer(path);
  CaseResult a;
  a.exercise = "naive";
  a.kind = "correctness";
  a.name = "33x17x45 ints";
  a.outcome = Outcome::Incorrect;
  a.detail = "C[3][5]: expected 12, got nan; 120 of 561 elements wrong";
  a.seed = 123456789;
  a.metrics = {{"M", 33}};
  CaseResult b = a;
  b.kind = "performance";
  b.outcome = Outcome::TooSlow;
  b.metrics = {{"median_ms", 1.5}, {"speedup", 10.0}};
  writer.write(a);
  writer.write(b);

  const auto back = read_results(path);
  REQUIRE(back.size() == 2);
  CHECK(back[0].exercise == "naive");
  CHECK(back[0].name == "33x17x45 ints");
  CHECK(back[0].outcome == Outcome::Incorrect);
  CHECK(back[0].detail == a.detail);
  CHECK(back[0].seed == 123456789);
  CHECK(back[0].metrics["M"] == 33);
  CHECK(back[1].outcome == Outcome::TooSlow);
  CHECK(back[1].metrics["median_ms"] == 1.5);
  std::filesystem::remove(path);
}

TEST_CASE("a torn last line (the test program died mid-write) is skipped, the rest kept", "[results]") {
  const auto path = temp_file("torn.jsonl");
  CaseResult a;
  a.exercise = "tiled";
  a.kind = "correctness";
  a.name = "1x1x1 ints";
  a.outcome = Outcome::Passed;
  ResultsWriter(path).write(a);
  {
    std::ofstream out(path, std::ios::app);
    out << R"({"exercise":"tiled","kind":"corr)";
  }
  const auto back = read_results(path);
  REQUIRE(back.size() == 1);
  CHECK(back[0].passed());
  std::filesystem::remove(path);
}

TEST_CASE("outcome names are stable (reports and gradebooks show them)", "[results]") {
  for (Outcome o :
       {Outcome::Passed, Outcome::Incorrect, Outcome::TooSlow, Outcome::Error, Outcome::Crashed, Outcome::NotRun})
    CHECK(outcome_from_string(to_string(o)) == o);
  CHECK(to_string(Outcome::TooSlow) == "too slow");
  CHECK_THROWS_AS(outcome_from_string("excellent"), std::invalid_argument);
  CHECK(read_results("/nonexistent/results.jsonl").empty());
}

TEST_CASE("plans and cases share the file; each reader takes its own lines", "[results]") {
  const auto path = temp_file("plans.jsonl");
  ResultsWriter writer(path);
  writer.write(Plan{"naive", "correctness", 38});
  CaseResult a;
  a.exercise = "naive";
  a.kind = "correctness";
  a.name = "1x1x1 ints";
  a.outcome = Outcome::Passed;
  writer.write(a);
  const auto plans = read_plans(path);
  REQUIRE(plans.size() == 1);
  CHECK(plans[0].exercise == "naive");
  CHECK(plans[0].cases == 38);
  CHECK(read_results(path).size() == 1);
  std::filesystem::remove(path);
}

TEST_CASE("a hidden case keeps its mark through the results file", "[results][hidden]") {
  grader::CaseResult r;
  r.exercise = "naive";
  r.kind = "correctness";
  r.name = "hidden case 1";
  r.outcome = grader::Outcome::Passed;
  r.hidden = true;
  const auto back = grader::case_from_json(grader::to_json(r));
  CHECK(back.hidden);
  r.hidden = false;
  CHECK_FALSE(grader::to_json(r).contains("hidden"));  // the usual line is unchanged
  CHECK_FALSE(grader::case_from_json(grader::to_json(r)).hidden);
}
