#include "grader/catch.hpp"
#include "grader/gradebook.hpp"

#include <sstream>
#include <string>
#include <vector>

using namespace grader;

namespace {
const char* kLab = R"(
[lab]
name = "demo"
files = ["demo.cu"]
exercises = ["naive", "tiled"]
[exercises.naive]
points = { correctness = 30, performance = 10 }
[exercises.tiled]
points = { correctness = 60 }
)";

CaseResult make(const std::string& ex, const std::string& kind, Outcome o, const std::string& detail = "") {
  CaseResult c;
  c.exercise = ex;
  c.kind = kind;
  c.name = kind + " case";
  c.outcome = o;
  c.detail = detail;
  return c;
}

StudentResult graded(const LabConfig& config, const std::string& id, std::vector<CaseResult> cases) {
  StudentResult r;
  r.student = id;
  r.report = build_report(config, cases, {}, 42, "GPU");
  r.status = r.report.passed() ? "passed" : "incomplete";
  return r;
}
}  // namespace

TEST_CASE("gradebook.csv: stable columns, one row per student in id order", "[gradebook]") {
  const auto config = LabConfig::parse(kLab, "lab.toml");
  std::vector<StudentResult> all;
  all.push_back(graded(config, "zoe",
                       {make("naive", "correctness", Outcome::Passed), make("naive", "performance", Outcome::TooSlow),
                        make("tiled", "correctness", Outcome::Incorrect, "C[0][0]: expected 1, got nan")}));
  all.push_back(graded(config, "adam",
                       {make("naive", "correctness", Outcome::Passed), make("naive", "performance", Outcome::Passed),
                        make("tiled", "correctness", Outcome::Passed)}));
  StudentResult missing;
  missing.student = "ben, jr";
  missing.status = "missing file";
  missing.report = build_report(config, {}, {RunState::NotGraded, "missing file: demo.cu"}, 42, "");
  all.push_back(missing);

  std::stringstream csv(gradebook_csv(config, all));
  std::vector<std::string> lines;
  for (std::string l; std::getline(csv, l);) lines.push_back(l);
  REQUIRE(lines.size() == 4);
  CHECK(lines[0] == "student,naive,tiled,total,max_points,status,naive_outcome,tiled_outcome");
  CHECK(lines[1] == "adam,40,60,100,100,passed,passed,passed");
  CHECK(lines[2] == "\"ben, jr\",0,0,0,100,missing file,missing file,missing file");
  CHECK(lines[3] == "zoe,30,0,30,100,incomplete,too slow,incorrect");
}

TEST_CASE("csv fields are quoted only when they must be", "[gradebook]") {
  CHECK(csv_field("plain") == "plain");
  CHECK(csv_field("a,b") == "\"a,b\"");
  CHECK(csv_field("say \"hi\"") == "\"say \"\"hi\"\"\"");
  CHECK(csv_field("two\nlines") == "\"two\nlines\"");
}

TEST_CASE("exercise status: the worst outcome of its cases", "[gradebook]") {
  const auto config = LabConfig::parse(kLab, "lab.toml");
  const auto r =
      build_report(config,
                   {make("naive", "correctness", Outcome::Incorrect), make("naive", "correctness", Outcome::Crashed),
                    make("tiled", "correctness", Outcome::Passed), make("tiled", "performance", Outcome::Passed)},
                   {}, 1, "");
  CHECK(exercise_status(r.exercises[0]) == "crashed");
  CHECK(exercise_status(r.exercises[1]) == "passed");
  // An incorrect exercise's performance is "not run" (not graded): the column says "incorrect".
  const auto wrong = build_report(
      config, {make("naive", "correctness", Outcome::Incorrect), make("naive", "performance", Outcome::Passed)}, {}, 1,
      "");
  CHECK(exercise_status(wrong.exercises[0]) == "incorrect");
}

TEST_CASE("a student's result survives the round trip through its JSON file (resume)", "[gradebook]") {
  const auto config = LabConfig::parse(kLab, "lab.toml");
  StudentResult r = graded(config, "amy",
                           {make("naive", "correctness", Outcome::Passed),
                            make("naive", "performance", Outcome::TooSlow, "median 2 ms; needs 1 ms"),
                            make("tiled", "correctness", Outcome::Passed)});
  r.notes = {"took amy/matmul.cu"};
  r.seconds = 12.5;
  r.graded_at = "2026-11-20T12:00:00Z";
  const StudentResult back = student_from_json(nlohmann::json::parse(to_json(r).dump()));
  CHECK(back.student == "amy");
  CHECK(back.status == "incomplete");
  CHECK(back.notes == r.notes);
  CHECK(back.report.points_earned == r.report.points_earned);
  CHECK(back.report.exercises[0].kinds[1].cases[0].detail == "median 2 ms; needs 1 ms");
  CHECK(gradebook_csv(config, {back}) == gradebook_csv(config, {r}));
  CHECK(back.profile.empty());
  CHECK(feedback_markdown(back).find("Why slow") == std::string::npos);  // not profiled: no section
  // --feedback-profile's section is kept with the result and shown in the feedback after the report.
  r.profile = "### Why is naive slow? (Nsight Compute)\n\n| metric | yours | reference | |\n";
  const StudentResult profiled = student_from_json(nlohmann::json::parse(to_json(r).dump()));
  CHECK(profiled.profile == r.profile);
  const std::string md = feedback_markdown(profiled);
  const auto report_at = md.find("## Report"), profile_at = md.find("## Why slow: a profile");
  REQUIRE(profile_at != std::string::npos);
  CHECK(report_at < profile_at);
  CHECK(md.find("### Why is naive slow?") != std::string::npos);
  CHECK(md.find("--profile --exercise") != std::string::npos);
}

TEST_CASE("Gradescope results: score, one test per exercise and kind, failures in the output", "[gradebook]") {
  const auto config = LabConfig::parse(kLab, "lab.toml");
  const auto r = graded(config, "amy",
                        {make("naive", "correctness", Outcome::Passed),
                         make("naive", "performance", Outcome::TooSlow, "median 2 ms; needs 1 ms"),
                         make("tiled", "correctness", Outcome::Passed)});
  const auto g = gradescope_json(r);
  CHECK(g["score"] == 90.0);
  REQUIRE(g["tests"].size() == 3);
  CHECK(g["tests"][1]["name"] == "naive: performance");
  CHECK(g["tests"][1]["score"] == 0.0);
  CHECK(g["tests"][1]["max_score"] == 10.0);
  CHECK(g["tests"][1]["status"] == "failed");
  CHECK(g["tests"][1]["output"].get<std::string>().find("needs 1 ms") != std::string::npos);
}

TEST_CASE("Gradescope results: each hidden case a test of its own, with the hidden visibility", "[gradebook][hidden]") {
  const auto config = LabConfig::parse(kLab, "lab.toml");
  auto hidden = [](Outcome o) {
    auto c = make("tiled", "correctness", o, o == Outcome::Passed ? "" : "wrong result (an instructor's hidden case)");
    c.hidden = true;
    return c;
  };
  // tiled: 4 cases for 60 points, 15 each; 2 shown (both pass), 2 hidden (one passes).
  auto c1 = hidden(Outcome::Passed), c2 = hidden(Outcome::Incorrect);
  c1.name = "hidden case 1";
  c2.name = "hidden case 2";
  const auto r =
      graded(config, "amy",
             {make("naive", "correctness", Outcome::Passed), make("naive", "performance", Outcome::Passed),
              make("tiled", "correctness", Outcome::Passed), make("tiled", "correctness", Outcome::Passed), c1, c2});
  const auto g = gradescope_json(r, {"visible", "after_published"});
  CHECK(g["score"] == 85.0);
  CHECK(g["visibility"] == "visible");
  double total = 0;
  nlohmann::json shown, first, second;
  for (const auto& t : g["tests"]) {
    total += t["score"].get<double>();
    if (t["name"] == "tiled: correctness") shown = t;
    if (t["name"] == "tiled: correctness, hidden case 1") first = t;
    if (t["name"] == "tiled: correctness, hidden case 2") second = t;
  }
  CHECK(total == Approx(85.0));  // the tests add up to the score
  CHECK(shown["score"] == 30.0);
  CHECK(shown["max_score"] == 30.0);
  CHECK(shown["status"] == "passed");
  CHECK(shown["visibility"] == "visible");
  CHECK(first["score"] == 15.0);
  CHECK(first["visibility"] == "after_published");
  CHECK(second["score"] == 0.0);
  CHECK(second["max_score"] == 15.0);
  CHECK(second["status"] == "failed");
  CHECK(second["output"].get<std::string>().find("hidden case") != std::string::npos);
  // Without hidden cases, every test has the cases' visibility.
  const auto plain =
      gradescope_json(graded(config, "ben", {make("naive", "correctness", Outcome::Passed)}), {"hidden", "hidden"});
  for (const auto& t : plain["tests"]) CHECK(t["visibility"] == "hidden");
}

TEST_CASE("feedback: what the student would see from grader check, with the status", "[gradebook]") {
  const auto config = LabConfig::parse(kLab, "lab.toml");
  StudentResult r;
  r.student = "ben";
  r.status = "build failed";
  r.detail = "    demo.cu(12): error: expected a \";\"";
  r.report = build_report(config, {}, {RunState::BuildFailed, r.detail}, 42, "");
  const auto md = feedback_markdown(r);
  CHECK(md.find("**Status:** build failed") != std::string::npos);
  CHECK(md.find("demo.cu(12): error") != std::string::npos);
  CHECK(md.find("does not compile") != std::string::npos);
}
