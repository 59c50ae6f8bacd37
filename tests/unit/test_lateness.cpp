// Late work (grader/src/course/lateness.hpp): times with their offsets, the course's rule, and
// what a submission at a given time gets.
#include "course/lateness.hpp"

#include "grader/catch.hpp"
#include "grader/files.hpp"

#include <cmath>
#include <functional>

using namespace grader;
using namespace grader::course;

namespace {
// What a throwing call says ("" when it does not throw): the tests use only Catch2 v2's and v3's
// common macros (grader/catch.hpp).
std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}
bool near(double a, double b) { return std::abs(a - b) < 1e-9; }
}  // namespace

TEST_CASE("a time is read with its offset, and only with one", "[lateness]") {
  CHECK(parse_time("1970-01-01T00:00:00Z") == 0);
  CHECK(parse_time("2026-12-01T23:59:00-05:00") == parse_time("2026-12-02T04:59:00Z"));
  CHECK(parse_time("2026-12-02 04:59:00Z") == parse_time("2026-12-02T04:59:00Z"));
  CHECK(format_time(*parse_time("2026-12-01T23:59:00-05:00")) == "2026-12-02T04:59:00Z");
  CHECK(format_time(*parse_time("2028-02-29T12:00:00+01:00")) == "2028-02-29T11:00:00Z");  // a leap day
  CHECK_FALSE(parse_time("2026-12-01T23:59:00"));                                          // whose midnight?
  CHECK_FALSE(parse_time("yesterday"));
  CHECK_FALSE(parse_time(""));
  CHECK_FALSE(parse_time("2026-12-01T23:59:00Z\nx = 1"));  // one value, nothing else
}

TEST_CASE("the course's [deadline] is read and checked", "[lateness]") {
  auto config = [](const std::string& deadline) {
    LabConfig c = LabConfig::parse(read_file(WORKBOOK_SOURCE_ROOT "/labs/matmul-tiled/lab.toml"), "lab.toml");
    c.apply_override(deadline, "course.toml");
    return c;
  };
  CHECK_FALSE(late_policy(config("")));
  const auto p =
      late_policy(config("[deadline]\ndue = 2026-12-01T23:59:00-05:00\ngrace_minutes = 15\npenalty_per_day = 10\n"));
  REQUIRE(p);
  CHECK(p->due == *parse_time("2026-12-02T04:59:00Z"));
  CHECK(p->grace_s == 900);
  CHECK(p->max_percent == 100);
  CHECK(error_of([&] { late_policy(config("[deadline]\ngrace_minutes = 5\n")); }).find("due: wanted") !=
        std::string::npos);
  CHECK(error_of([&] { late_policy(config("[deadline]\ndue = 2026-12-01T23:59:00\n")); }).find("offset") !=
        std::string::npos);
  CHECK(error_of([&] {
          late_policy(config("[deadline]\ndue = 2026-12-01T23:59:00Z\npenalty_per_day = 150\n"));
        }).find("penalty_per_day") != std::string::npos);
  CHECK(error_of([&] {
          late_policy(config("[deadline]\ndue = 2026-12-01T23:59:00Z\npenalty = 10\n"));
        }).find("not a key of [deadline]") != std::string::npos);
}

TEST_CASE("lateness: grace, started days, the cap, extensions and the base of the penalty", "[lateness]") {
  LatePolicy p;
  p.due = *parse_time("2026-12-02T04:59:00Z");
  p.grace_s = 15 * 60;
  p.percent_per_day = 10;
  p.max_percent = 25;
  const auto at = [](const char* t) { return parse_time(t); };
  CHECK(assess(p, at("2026-12-02T04:00:00Z"), "", 90, 100).final_points == 90);  // early
  CHECK(assess(p, at("2026-12-02T05:14:00Z"), "", 90, 100).final_points == 90);  // inside the grace
  const auto one = assess(p, at("2026-12-02T05:15:00Z"), "", 90, 100);           // 16 min: a started day
  CHECK(one.days == 1);
  CHECK(near(one.final_points, 81));
  CHECK(near(assess(p, at("2026-12-03T10:59:00Z"), "", 90, 100).final_points, 72));  // 30 h: 2 days, 20%
  CHECK(assess(p, at("2026-12-20T00:00:00Z"), "", 90, 100).percent == 25);           // the cap
  CHECK(assess(p, at("2026-12-03T10:59:00Z"), "2d", 90, 100).final_points == 90);    // extended
  CHECK(assess(p, at("2026-12-03T10:59:00Z"), "2026-12-03T12:00:00Z", 90, 100).final_points == 90);
  CHECK_THROWS(due_for(p, "next week"));
  CHECK_FALSE(assess(p, std::nullopt, "", 90, 100).known);  // no time: no penalty, said so
  CHECK(assess(p, std::nullopt, "", 90, 100).final_points == 90);
  p.of_possible = true;  // 20% of 100 possible, never below zero
  CHECK(near(assess(p, at("2026-12-03T10:59:00Z"), "", 90, 100).final_points, 70));
  CHECK(assess(p, at("2026-12-03T10:59:00Z"), "", 10, 100).final_points == 0);
}
