// What a lab's Catch2 tests use to grade: the lab's configuration, the run's seed, and
// grade_case(), which runs one case, records it for the report and asserts it for Catch2.
//
// A test program is configured by its environment, which `grader check` sets:
//   WORKBOOK_CONFIG      lab.toml to read        (default: the lab's own, compiled in)
//   WORKBOOK_OVERRIDES   override files, ':'-separated, laid over lab.toml in order
//   WORKBOOK_SEED        the seed of every input (default: a fresh one, printed)
//   WORKBOOK_RESULTS     JSON-lines file to append each case to (default: none)
//   WORKBOOK_SOURCE_DIR  the student's sources, for static checks (default: compiled in)
//   WORKBOOK_LEADERBOARD_OUT    leaderboard runs (hidden tests tagged [leaderboard]): JSON-lines
//                               file each leaderboard case appends its timings to
//   WORKBOOK_LEADERBOARD_CALLS  timed calls per leaderboard case (default [leaderboard] calls, 10)
//   WORKBOOK_LEADERBOARD_TIERS  set: also time the course's reference tiers (Ref1, Ref2) where a
//                               lab has them (the grader sets it for the reference solution's run)
#pragma once

#include "grader/catch.hpp"
#include "grader/lab_config.hpp"
#include "grader/results.hpp"
#include "workbook/contest.hpp"
#include "workbook/timer.hpp"

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace grading {

struct Defaults {
  std::filesystem::path lab_toml;
  std::filesystem::path source_dir;
  bool inspecting = false;  // an inspect program (grader/test_program.hpp)
};

void init(const Defaults& defaults);  // reads the environment; prints seed and configuration
const grader::LabConfig& config();
std::uint64_t seed();
// A number no other timed call of this program has drawn its inputs with: the timings of one
// program (naive, then tiled with each tile width; kmeans' five versions) must not see the same
// inputs in the same order, or a submission could replay the products one timing computed as
// another's answers (tests/attacks: replay-tiled). The first is 0; each call adds one.
std::uint64_t timed_draw();
std::filesystem::path source_file(const std::string& name);  // a student's file, by name
workbook::TimingOptions timing_options();                    // from [timing] in lab.toml
workbook::ContestOptions contest_options();                  // leaderboard calls: see contest.hpp
bool leaderboard_tiers();                                    // WORKBOOK_LEADERBOARD_TIERS is set

// True in an inspect program run with WORKBOOK_FEWER_CASES=1, which `grader check --sanitize`
// sets for racecheck alone: the labs' correctness loops then run each shape once and leave out
// their largest (is_large()). Racecheck records every shared-memory access: with them it took 82 s
// on matmul-tiled's tiled cases on an H100, 10 s without, and a missing barrier shows on the
// smaller shapes too; a repeat on fresh inputs, which in grading catches a race that got lucky
// once, adds nothing to a tool that sees the race itself. memcheck and the other tools run every
// case: a bad index may go out of bounds only on a large shape. Never true in a grading run.
bool fewer_cases();

// Writes one leaderboard entry's timings ("self" for the code under test, or a tier's name such
// as "Ref1" when the test times the course's reference programs too) to WORKBOOK_LEADERBOARD_OUT
// and prints a summary line.
void record_leaderboard(const std::string& exercise, const std::string& entry, const workbook::ContestResult& result);

// Runs `body`, which sets the outcome, detail and metrics of the case it is given. An exception
// from it becomes an Error case with the exception's text; a CUDA error that leaves the context
// unusable (an illegal address in the student's kernel) is recorded as Crashed and ends the
// program with status 70, since nothing after it could run. The case is written to
// WORKBOOK_RESULTS before this returns.
// Announces that the calling test will record `cases` cases of this exercise and kind, so a
// crash half-way leaves the rest counted as not run (see grader::Plan).
void plan(const std::string& exercise, const std::string& kind, int cases);

grader::CaseResult run_case(const std::string& exercise, const std::string& kind, const std::string& name,
                            const std::function<void(grader::CaseResult&)>& body);

// A threshold of lab.toml ("exercises.naive.min_speedup"), read inside a case's body: the case
// records that it was judged by it (CaseResult::thresholds), which is how `grader calibrate`
// finds the reference's value of each threshold's metric. Throws ConfigError when absent.
double threshold(const std::string& path);

// Instructor-only cases ([hidden] in an override file, lab_config.hpp): the shapes, in the lab's
// form, and run_hidden_case(), which names the case "<prefix>hidden case N" (numbered per exercise
// and kind), marks it hidden, and records only its outcome in words: no metrics, no detail that
// could carry its inputs (a wrong element, a message of the student's code).
const std::vector<std::vector<int>>& hidden_shapes();
grader::CaseResult run_hidden_case(const std::string& exercise, const std::string& kind, const std::string& prefix,
                                   const std::function<void(grader::CaseResult&)>& body);

}  // namespace grading

// Makes a recorded case (a grader::CaseResult) a Catch2 check with its verdict as context.
#define GRADE_CHECK_RESULT_(RESULT_)                                                                                 \
  do {                                                                                                               \
    const ::grader::CaseResult grade_case_result_ = RESULT_;                                                         \
    INFO(grade_case_result_.exercise << " / " << grade_case_result_.kind << " / " << grade_case_result_.name << ": " \
                                     << ::grader::to_string(grade_case_result_.outcome)                              \
                                     << (grade_case_result_.detail.empty() ? "" : " - ")                             \
                                     << grade_case_result_.detail);                                                  \
    CHECK(grade_case_result_.passed());                                                                              \
  } while (0)

// Runs and records one case, and makes it a Catch2 check with the case's detail as context.
// Variadic because the body, a lambda, may hold commas (inside run_case's parentheses they reach
// GRADE_CHECK_RESULT_ as one argument).
#define GRADE_CASE(EXERCISE_, KIND_, NAME_, ...) \
  GRADE_CHECK_RESULT_(::grading::run_case(EXERCISE_, KIND_, NAME_, __VA_ARGS__))

// The same for a hidden case (run_hidden_case): the Catch2 context names it, nothing more.
#define GRADE_HIDDEN_CASE(EXERCISE_, KIND_, PREFIX_, ...) \
  GRADE_CHECK_RESULT_(::grading::run_hidden_case(EXERCISE_, KIND_, PREFIX_, __VA_ARGS__))
