// grading::run_case stops an exercise whose calls hang, or crash again and again, and only that
// exercise (grading.cpp): a never-ending kernel costs one call timeout, not one per case.
#include "grader/catch.hpp"
#include "grader/grading.hpp"
#include "grader/results.hpp"
#include "remote/call.hpp"
#include "remote/wire.hpp"
#include "workbook/compare.hpp"

#include <cstdlib>
#include <string>

using grader::Outcome;

namespace {
void init_once() {
  static bool done = false;
  if (done) return;
  ::unsetenv("WORKBOOK_RESULTS");
  ::unsetenv("WORKBOOK_RESULTS_FD");
  ::unsetenv("WORKBOOK_CONFIG");
  ::setenv("WORKBOOK_SEED", "1", 1);
  grading::init({WORKBOOK_SOURCE_ROOT "/labs/matmul-tiled/lab.toml", WORKBOOK_SOURCE_ROOT "/labs/matmul-tiled"});
  done = true;
}
}  // namespace

TEST_CASE("a hung call skips the rest of its exercise, and no other", "[grading][remote]") {
  init_once();
  int ran = 0;
  const auto hang = [&](grader::CaseResult&) {
    ++ran;
    throw remote::CallFailed("naive did not finish within 20 s", true, true);
  };
  const auto pass = [&](grader::CaseResult& r) {
    ++ran;
    r.outcome = Outcome::Passed;
  };
  CHECK(grading::run_case("hangs", "correctness", "1", hang).outcome == Outcome::Crashed);
  const auto skipped = grading::run_case("hangs", "performance", "2", pass);
  CHECK(skipped.outcome == Outcome::NotRun);
  CHECK(skipped.detail.find("did not finish") != std::string::npos);
  CHECK(ran == 1);
  CHECK(grading::run_case("other", "correctness", "1", pass).outcome == Outcome::Passed);
  CHECK(ran == 2);
}

TEST_CASE("five crashes in a row skip the rest of an exercise; a crash now and then does not", "[grading][remote]") {
  init_once();
  const auto crash = [](grader::CaseResult&) { throw remote::CallFailed("killed by SIGSEGV", true); };
  const auto pass = [](grader::CaseResult& r) { r.outcome = Outcome::Passed; };
  // Crashes on some shapes only (say 1 x 1): every other case still runs.
  for (int i = 0; i < 3; ++i)
    CHECK(grading::run_case("sometimes", "correctness", "c", crash).outcome == Outcome::Crashed);
  CHECK(grading::run_case("sometimes", "correctness", "p", pass).outcome == Outcome::Passed);
  for (int i = 0; i < 4; ++i)
    CHECK(grading::run_case("sometimes", "correctness", "c", crash).outcome == Outcome::Crashed);
  CHECK(grading::run_case("sometimes", "correctness", "p", pass).outcome == Outcome::Passed);
  // Crashes every time: after five, the rest is not run.
  for (int i = 0; i < 5; ++i) CHECK(grading::run_case("always", "correctness", "c", crash).outcome == Outcome::Crashed);
  const auto skipped = grading::run_case("always", "correctness", "p", pass);
  CHECK(skipped.outcome == Outcome::NotRun);
  CHECK(skipped.detail.find("5 calls of always in a row crashed") != std::string::npos);
}

TEST_CASE("a hidden case is named by its number and says nothing of its inputs", "[grading][hidden]") {
  init_once();
  const auto wrong = [](grader::CaseResult& r) {
    r.outcome = Outcome::Incorrect;
    r.detail = "C[998][332]: expected 3.5, got 4; 12 of 332667 elements wrong";
    r.metrics = {{"M", 999}, {"N", 333}, {"K", 77}};
  };
  const auto first = grading::run_hidden_case("hidden-demo", "correctness", "tile 16: ", wrong);
  CHECK(first.name == "tile 16: hidden case 1");
  CHECK(first.hidden);
  CHECK(first.outcome == Outcome::Incorrect);
  CHECK(first.detail.find("wrong result") == 0);
  CHECK(first.detail.find("998") == std::string::npos);
  CHECK(first.detail.find("332") == std::string::npos);
  CHECK(first.metrics.empty());
  CHECK(grading::run_hidden_case("hidden-demo", "correctness", "tile 16: ", wrong).name == "tile 16: hidden case 2");
  CHECK(grading::run_hidden_case("hidden-demo", "correctness", "tile 32: ", wrong).name == "tile 32: hidden case 1");
  // A message of the student's code (which could print the inputs it was given) is not shown,
  // and the exercise's later "skipped" lines do not quote it either.
  const auto hang = [](grader::CaseResult&) {
    throw remote::CallFailed("naive did not finish within 20 s; my M was 999", true, true);
  };
  const auto hung = grading::run_hidden_case("hidden-hang", "correctness", "", hang);
  CHECK(hung.outcome == Outcome::Crashed);
  CHECK(hung.detail.find("did not finish") == 0);
  CHECK(hung.detail.find("999") == std::string::npos);
  const auto later = grading::run_case("hidden-hang", "correctness", "1x1x1 ints",
                                       [](grader::CaseResult& r) { r.outcome = Outcome::Passed; });
  CHECK(later.outcome == Outcome::NotRun);
  CHECK(later.detail.find("999") == std::string::npos);
  // A crash after a failed allocation keeps the words "out of memory" (grader batch runs such a
  // phase again alone), still without the code's own message.
  const auto starved = [](grader::CaseResult&) {
    throw remote::CallFailed("tiled: exited with status 1; my M was 999\n" + remote::failed_allocations_note(1, 4096),
                             true);
  };
  const auto oom = grading::run_hidden_case("hidden-oom", "correctness", "", starved);
  CHECK(oom.outcome == Outcome::Crashed);
  CHECK(oom.detail.find("crashed after a device allocation failed: out of memory") == 0);
  CHECK(oom.detail.find("999") == std::string::npos);
  // Nor do the "skipped" lines after five hidden crashes in a row (a crash's detail gains the
  // sanitizer's command, so it is not the message remembered: the case says so itself).
  const auto crash = [](grader::CaseResult&) {
    throw remote::CallFailed("tiled: killed by SIGSEGV; my M was 999", true);
  };
  for (int i = 0; i < 5; ++i)
    CHECK(grading::run_hidden_case("hidden-crash", "correctness", "", crash).outcome == Outcome::Crashed);
  const auto after = grading::run_case("hidden-crash", "correctness", "1x1x1 ints",
                                       [](grader::CaseResult& r) { r.outcome = Outcome::Passed; });
  CHECK(after.outcome == Outcome::NotRun);
  CHECK(after.detail.find("5 calls of hidden-crash in a row crashed") != std::string::npos);
  CHECK(after.detail.find("999") == std::string::npos);
}

// A failed correctness case runs once more on the same inputs: other wrong elements the second
// time are a race, named with the tool that finds it; the same ones are not.
TEST_CASE("a correctness case that fails differently on a second run is named a race", "[grading][race]") {
  init_once();
  int calls = 0;
  const auto racy = [&](grader::CaseResult& r) {
    r.outcome = Outcome::Incorrect;
    r.detail = "out[0][1]: expected 1, got 0; " + std::to_string(28 + calls++) + " of 1024 elements wrong";
    r.metrics = {{"wrong", 28 + calls}};
  };
  const auto r = grading::run_case("transpose_tiled", "correctness", "race", racy);
  CHECK(calls == 2);
  CHECK(r.outcome == Outcome::Incorrect);
  CHECK(r.detail.rfind("out[0][1]: expected 1, got 0; 28 of 1024 elements wrong\nNOT DETERMINISTIC", 0) == 0);
  CHECK(r.detail.find("--sanitize --exercise transpose_tiled --tool racecheck") != std::string::npos);
  CHECK(r.metrics.at("deterministic") == false);

  int again = 0;
  const auto indexing = [&](grader::CaseResult& r) {
    ++again;
    r.outcome = Outcome::Incorrect;
    r.detail = "out[0][1]: expected 1, got 2; 1024 of 1024 elements wrong";
  };
  const auto same = grading::run_case("transpose_naive", "correctness", "indexing", indexing);
  CHECK(again == 2);
  CHECK(same.detail == "out[0][1]: expected 1, got 2; 1024 of 1024 elements wrong");
  CHECK(same.metrics.at("deterministic") == true);

  // Passed cases and timed cases are run once.
  int once = 0;
  grading::run_case("transpose_naive", "correctness", "right", [&](grader::CaseResult& r) {
    ++once;
    r.outcome = Outcome::Passed;
  });
  grading::run_case("transpose_naive", "performance", "slow", [&](grader::CaseResult& r) {
    ++once;
    r.outcome = Outcome::Incorrect;
  });
  CHECK(once == 2);
}

// A wrong element that is a NaN the code computed (not the poison's bits) came from memory
// nothing wrote: the report says so and names the tool that finds an out-of-bounds read, once an
// exercise. Not for a race (its own hint), nor for a plain wrong value (both run first here, so
// that the hint has not been given for the exercise yet).
TEST_CASE("a computed NaN names the reads of unwritten memory and memcheck", "[grading][race]") {
  init_once();
  const std::string nan =
      std::string("C[0][0]: expected 3, got nan (") + workbook::kComputedNan + "); 561 of 561 elements wrong";
  int calls = 0;
  const auto racy = grading::run_case("tiled", "correctness", "racy nan", [&](grader::CaseResult& r) {
    r.outcome = Outcome::Incorrect;
    r.detail = nan + (calls++ ? " again" : "");
  });
  CHECK(racy.detail.find("NOT DETERMINISTIC") != std::string::npos);
  CHECK(racy.detail.find("A NaN computed from memory") == std::string::npos);

  const auto plain = grading::run_case("tiled", "correctness", "plain", [&](grader::CaseResult& r) {
    r.outcome = Outcome::Incorrect;
    r.detail = "C[0][0]: expected 3, got 4; 1 of 561 elements wrong";
  });
  CHECK(plain.detail == "C[0][0]: expected 3, got 4; 1 of 561 elements wrong");

  const auto epilogue = grading::run_case("tiled", "correctness", "beta * C", [&](grader::CaseResult& r) {
    r.outcome = Outcome::Incorrect;
    r.detail = nan;
  });
  CHECK(epilogue.detail.rfind(nan + "\nA NaN computed from memory nothing wrote?", 0) == 0);
  CHECK(epilogue.detail.find("+= or a beta * term on the output") != std::string::npos);
  CHECK(epilogue.detail.find("--sanitize --exercise tiled --tool memcheck") != std::string::npos);

  // Once an exercise: the next NaN case of tiled keeps only its own line; another exercise's
  // first NaN case gets the hint again.
  const auto next = grading::run_case("tiled", "correctness", "beta * C, larger", [&](grader::CaseResult& r) {
    r.outcome = Outcome::Incorrect;
    r.detail = nan;
  });
  CHECK(next.detail == nan);
  const auto other = grading::run_case("naive", "correctness", "beta * C", [&](grader::CaseResult& r) {
    r.outcome = Outcome::Incorrect;
    r.detail = nan;
  });
  CHECK(other.detail.find("--sanitize --exercise naive --tool memcheck") != std::string::npos);
}

// The second run of a failed case that never finishes skips the exercise's later cases, as a
// first call that never finishes does: a sometimes-hanging race costs one call timeout.
TEST_CASE("a second run that hangs skips the rest of its exercise", "[grading][race]") {
  init_once();
  int calls = 0;
  const auto wrong_then_hang = [&](grader::CaseResult& r) {
    if (calls++ == 1) throw remote::CallFailed("racy did not finish within 20 s", true, true);
    r.outcome = Outcome::Incorrect;
    r.detail = "out[0][1]: expected 1, got 0; 3 of 1024 elements wrong";
  };
  const auto first = grading::run_case("racy", "correctness", "1", wrong_then_hang);
  CHECK(first.outcome == Outcome::Incorrect);
  CHECK(first.detail.find("NOT DETERMINISTIC") != std::string::npos);
  CHECK(first.detail.find("a crash: racy did not finish") != std::string::npos);
  int later = 0;
  const auto next = grading::run_case("racy", "correctness", "2", [&](grader::CaseResult& r) {
    ++later;
    r.outcome = Outcome::Passed;
  });
  CHECK(later == 0);
  CHECK(next.outcome == Outcome::NotRun);
}
