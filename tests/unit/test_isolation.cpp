#include "grader/catch.hpp"
#include "grader/isolation.hpp"
#include "grader/lab_config.hpp"
#include "grader/process.hpp"
#include "grader/report.hpp"
#include "grader/results.hpp"

#include <filesystem>
#include <fstream>
#include <unistd.h>

using namespace grader;
namespace fs = std::filesystem;

TEST_CASE("filter_excluding leaves the exercises out of every term of a test spec", "[isolation]") {
  CHECK(filter_excluding("", {}) == "");
  CHECK(filter_excluding("", {"naive"}) == "~[.]~[naive]");
  CHECK(filter_excluding(kUntimedCases, {"naive", "tiled"}) == "~[performance]~[.]~[naive]~[tiled]");
  CHECK(filter_excluding("[naive][performance],[tiled][performance]", {"naive"}) ==
        "[naive][performance]~[naive],[tiled][performance]~[naive]");
}

namespace {
// A fake test program of a lab with three exercises (a, b, c), two cases each, which dies by
// SIGSEGV half-way through exercise a, as a kernel fault in a test program that links the
// student's code would end it. It runs every exercise its filter (the first argument) does not
// exclude with "~[x]".
const char* kFakeTestProgram = R"(
for ex in a b c; do
  case "$1" in *"~[$ex]"*) continue;; esac
  echo '{"plan":{"exercise":"'$ex'","kind":"correctness","cases":2}}' >> "$RESULTS"
  echo '{"case":"one","exercise":"'$ex'","kind":"correctness","outcome":"passed","detail":"","seed":1,"metrics":{}}' >> "$RESULTS"
  if [ "$ex" = a ]; then kill -SEGV $$; fi
  echo '{"case":"two","exercise":"'$ex'","kind":"correctness","outcome":"passed","detail":"","seed":1,"metrics":{}}' >> "$RESULTS"
done
)";

const char* kLab = R"(
[lab]
name = "demo"
files = ["demo.cu"]
exercises = ["a", "b", "c"]
[exercises.a]
points = { correctness = 10 }
[exercises.b]
points = { correctness = 10 }
[exercises.c]
points = { correctness = 10 }
)";
}  // namespace

TEST_CASE("a test program that crashes in exercise 1 of 3: the other two run again and keep their points",
          "[isolation]") {
  const fs::path dir = fs::temp_directory_path() / "workbook-isolation-test";
  fs::remove_all(dir);
  fs::create_directories(dir);
  const fs::path results = dir / "results.jsonl";
  std::vector<std::string> filters;
  const IsolatedRun run = run_isolated("", results, [&](const std::string& filter) {
    filters.push_back(filter);
    ProcessOptions p;
    p.argv = {"/bin/sh", "-c", kFakeTestProgram, "fake-test-program", filter};
    p.set_env = {{"RESULTS", results.string()}};
    p.output_file = dir / "log.txt";
    p.timeout_s = 30;
    const auto r = run_process(p);
    if (r.signal != 0) return RunStatus{RunState::Crashed, r.describe()};
    return RunStatus{};
  });
  CHECK(filters == std::vector<std::string>{"", "~[.]~[a]"});
  CHECK(run.status.state == RunState::Completed);
  CHECK(run.restarts == 1);
  CHECK(run.ended_in == std::vector<std::string>{"a"});

  const auto report = build_report(LabConfig::parse(kLab, "lab.toml"), read_results(results), run.status, 1, "GPU",
                                   read_plans(results));
  REQUIRE(report.exercises.size() == 3);
  // a: one case passed, then the program ended: charged (1 of 2 planned + the crash case).
  CHECK(report.exercises[0].points_earned < 10);
  const auto& a_cases = report.exercises[0].kinds[0].cases;
  CHECK(std::any_of(a_cases.begin(), a_cases.end(), [](const CaseResult& c) {
    return c.outcome == Outcome::Crashed && c.detail.find("SIGSEGV") != std::string::npos;
  }));
  // b and c ran in the fresh process: full points.
  CHECK(report.exercises[1].points_earned == 10);
  CHECK(report.exercises[2].points_earned == 10);
  fs::remove_all(dir);
}

TEST_CASE("a test program that dies before recording anything is not started again", "[isolation]") {
  const fs::path dir = fs::temp_directory_path() / "workbook-isolation-test-2";
  fs::remove_all(dir);
  fs::create_directories(dir);
  int runs = 0;
  const IsolatedRun run = run_isolated("", dir / "results.jsonl", [&](const std::string&) {
    ++runs;
    return RunStatus{RunState::Crashed, "killed by signal SIGSEGV"};
  });
  CHECK(runs == 1);
  CHECK(run.status.state == RunState::Crashed);
  CHECK(run.restarts == 0);
  fs::remove_all(dir);
}

// The spec the grader runs the untimed phase with, given to a real test program: every
// correctness and static test, none of the hidden ones (the leaderboard's timing, the baselines
// for calibrate, which run for seconds) and no timed one. Catch2 runs hidden tests for a spec of
// exclusions alone, so this is what keeps a student's check from timing the whole leaderboard.
TEST_CASE("the untimed phase's spec lists no hidden and no timed test of a real test program", "[isolation]") {
  const fs::path program = WORKBOOK_PROBE_PROGRAM;  // the first lab built (tests/CMakeLists.txt)
  REQUIRE(fs::exists(program));
  const auto list = [&](const std::string& spec) {
    const fs::path out = fs::temp_directory_path() / ("workbook-list-" + std::to_string(::getpid()) + ".txt");
    ProcessOptions p;
    p.argv = {program.string(), spec, "--list-tests"};
    p.output_file = out;
    p.timeout_s = 60;
    REQUIRE(run_process(p).exit_code >= 0);
    std::ifstream in(out);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    fs::remove(out);
    return text;
  };
  const std::string untimed = list(kUntimedCases);
  CHECK(untimed.find("[correctness]") != std::string::npos);
  CHECK(untimed.find("[performance]") == std::string::npos);
  CHECK(untimed.find("[.]") == std::string::npos);
  // The spec that ran them before: Catch2 v2 ran the hidden tests (the leaderboard's timing) for
  // it; v3 does not (hidden tests there need a filter that names them).
  CHECK((list("~[performance]").find("[.]") != std::string::npos) == (WORKBOOK_CATCH2_MAJOR < 3));
  // Its test program may wait asleep; a spec with timed cases may not.
  CHECK(untimed_spec(kUntimedCases));
  CHECK(untimed_spec(filter_excluding(kUntimedCases, {"naive"})));
  CHECK_FALSE(untimed_spec("[naive][performance]"));
  CHECK_FALSE(untimed_spec(""));
  // After a crash, the remaining exercises of an empty spec: still none hidden.
  CHECK(list(filter_excluding("", {"naive"})).find("[.]") == std::string::npos);
}
