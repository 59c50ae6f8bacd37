// Where a check's time went (grader/time_spent.hpp): the cases' phases added up by kind, and the
// report's one line.
#include "grader/catch.hpp"
#include "grader/time_spent.hpp"

using grader::CaseResult;

namespace {
CaseResult timed_case(const std::string& kind, double total, double inputs, double reference, double call,
                      double check) {
  CaseResult c;
  c.kind = kind;
  c.time_ms = {{"case", total}, {"inputs", inputs}, {"reference", reference}, {"call", call}, {"check", check}};
  return c;
}
}  // namespace

TEST_CASE("the cases' time is added up by kind, in seconds", "[time_spent]") {
  std::vector<CaseResult> cases = {
      timed_case("correctness", 300, 10, 20, 200, 30), timed_case("correctness", 100, 5, 5, 80, 5),
      timed_case("performance", 1600, 10, 400, 400, 100), CaseResult{}};  // one without times
  const auto t = grader::sum_case_times(cases, 2.0, 11.5);
  CHECK(t.kinds.at("correctness").at("case") == Approx(0.4));
  CHECK(t.kinds.at("correctness").at("call") == Approx(0.28));
  CHECK(t.kinds.at("performance").at("reference") == Approx(0.4));
  CHECK(t.kinds.count("static") == 0);
  const std::string line = grader::describe(t);
  CHECK(line.rfind("Time: 13.5 s: build 2.0 s, tests 11.5 s (correctness 0.4 s: calls 0.3; performance 1.6 s:", 0) ==
        0);
  CHECK(line.find("reference 0.4, calls 0.4, checks 0.1") != std::string::npos);
  CHECK(line.find("waiting") == std::string::npos);  // no wait, no word of it
  auto waited = t;
  waited.wait_s = 3.0;
  CHECK(grader::describe(waited).rfind("Time: 16.5 s: waiting for another check 3.0 s, build 2.0 s", 0) == 0);
  CHECK(grader::to_json(waited)["wait_s"] == 3.0);
}
