// grader/src/course/rejudge.hpp: kept timed cases judged again when a threshold changed, and
// only then.
#include "course/rejudge.hpp"

#include "grader/catch.hpp"
#include "grader/files.hpp"

using namespace grader;

namespace {
LabConfig matmul(const std::string& course = "") {
  LabConfig c = LabConfig::parse(read_file(WORKBOOK_SOURCE_ROOT "/labs/matmul-tiled/lab.toml"), "lab.toml");
  if (!course.empty()) c.apply_override(course, "course.toml");
  return c;
}
CaseResult timed(Outcome outcome, double speedup) {
  CaseResult c;
  c.exercise = "tiled";
  c.kind = "performance";
  c.name = "tile 32";
  c.outcome = outcome;
  c.thresholds = {"exercises.tiled.min_speedup"};
  c.metrics = {{"median_ms", 0.44}, {"speedup", speedup}};
  return c;
}
}  // namespace

TEST_CASE("a kept timed case is judged again only by a threshold that changed", "[rejudge]") {
  const auto then = course::threshold_values(matmul());
  CHECK(then.at("exercises.tiled.min_speedup") == 14000);
  int changed = 0;
  // Unchanged thresholds: the lab's own verdict stands (even one the metric alone would not give).
  auto same =
      course::rejudged({timed(Outcome::TooSlow, 13985), timed(Outcome::Passed, 20000)}, then, matmul(), &changed);
  CHECK(same[0].outcome == Outcome::TooSlow);
  CHECK(same[1].outcome == Outcome::Passed);
  CHECK(changed == 0);
  // Lowered: 13985x now passes. Raised: 20000x is now too slow, and the detail says why.
  auto lower = course::rejudged({timed(Outcome::TooSlow, 13985)}, then,
                                matmul("[exercises.tiled]\nmin_speedup = 13000.0\n"), &changed);
  CHECK(lower[0].outcome == Outcome::Passed);
  CHECK(lower[0].detail.empty());
  CHECK(changed == 1);
  auto raise =
      course::rejudged({timed(Outcome::Passed, 20000)}, then, matmul("[exercises.tiled]\nmin_speedup = 25000.0\n"));
  CHECK(raise[0].outcome == Outcome::TooSlow);
  CHECK(raise[0].detail.find("speedup 2e+04 is below exercises.tiled.min_speedup = 25000") != std::string::npos);
  // An incorrect case, or one graded before thresholds were kept, is left as it was.
  CaseResult wrong = timed(Outcome::Incorrect, 20000);
  CHECK(course::rejudged({wrong}, then, matmul("[exercises.tiled]\nmin_speedup = 1.0\n"))[0].outcome ==
        Outcome::Incorrect);
  CHECK(course::rejudged({timed(Outcome::TooSlow, 13985)}, {}, matmul("[exercises.tiled]\nmin_speedup = 1.0\n"))[0]
            .outcome == Outcome::TooSlow);
}
