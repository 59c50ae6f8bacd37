// What `grader batch` writes for an instructor: one result per student, and from all of them
// the gradebook (CSV for an LMS), results.json (every detail), feedback/<student>.md (what the
// student would see from `grader check`) and a Gradescope results.json per student.
#pragma once

#include "grader/lab_config.hpp"
#include "grader/report.hpp"

#include <nlohmann/json.hpp>

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace grader {

// A submission's status, in the gradebook's `status` column:
//   passed        built, ran, every check passed
//   incomplete    built and ran; some checks failed (incorrect, too slow)
//   missing file  a file the lab needs is not in the submission
//   rejected      an unsafe or oversized archive: nothing was graded
//   build failed  the submission does not compile
//   crashed       the test program crashed (a signal, a CUDA fault, a memory or process limit)
//   timed out     the test program was killed at the time limit
//   no GPU        nothing could be run: no GPU on the grading machine
//   grader error  the grader itself failed on this submission (see detail)
struct StudentResult {
  std::string student;
  std::string status;
  std::string detail;              // what the status needs explained: missing files, compiler errors ...
  std::vector<std::string> notes;  // e.g. which copy of a file was taken from an archive
  LabReport report;                // exercises and points (cases empty when nothing ran)
  double seconds = 0;              // time spent grading this submission
  std::string graded_at;           // ISO 8601, UTC
  std::string source;              // submission_fingerprint of what was graded ("" in older records)
  // Late work, when the course has a deadline (grader/src/course/lateness.hpp): worked out
  // again at every run from the kept points, the course's rule and the submission's time.
  struct Late {
    std::string submitted_at;  // ISO 8601, UTC; empty when unknown
    double late_hours = 0;     // after the due time (0: on time, grace included)
    int days = 0;              // days charged
    double percent = 0;        // the penalty
    double final_points = 0;   // what the student gets: the points less the penalty
    std::string why;           // one sentence for the student
  };
  std::optional<Late> late;
  // The thresholds in force when it was graded (lab.toml's [calibration] ones, with the course's
  // overrides and the machine's profile): a resume under changed ones judges the kept timed cases
  // again from their measurements (src/course/rejudge.hpp).
  std::map<std::string, double> thresholds;
  // grader batch --feedback-profile: Nsight Compute's view of each correct-but-slow exercise,
  // Markdown for the feedback file (grader/src/inspect/); empty when not profiled.
  std::string profile;
  double final_points() const { return late ? late->final_points : report.points_earned; }
};

nlohmann::json to_json(const StudentResult& result);
StudentResult student_from_json(const nlohmann::json& j);  // throws on a malformed record

// One word for an exercise: "passed", or the worst outcome among its cases ("crashed", "error",
// "not run", "incorrect", "too slow").
std::string exercise_status(const ExerciseReport& exercise);

// student, one column of points per exercise (lab.toml order), total, max_points, status, then
// one <exercise>_outcome column per exercise; where the course has a deadline, then
// submitted_at, late_hours, penalty_percent and final (the points less the penalty). One row per
// student, sorted by id.
std::string gradebook_csv(const LabConfig& config, const std::vector<StudentResult>& results);

nlohmann::json results_json(const LabConfig& config, const std::vector<StudentResult>& results,
                            const nlohmann::json& run_info);

std::string feedback_markdown(const StudentResult& result);

// Gradescope's autograder format: score, one test per exercise and kind, output. An instructor's
// hidden cases ([hidden], lab_config.hpp) are tests of their own, each with its share of its
// kind's points and the hidden cases' visibility; every other test has `cases`' visibility.
struct GradescopeVisibility {
  std::string cases = "visible";
  std::string hidden = "after_published";
};
GradescopeVisibility gradescope_visibility(const LabConfig& config);  // [gradescope], [hidden]
nlohmann::json gradescope_json(const StudentResult& result, const GradescopeVisibility& visibility = {});

// A CSV field, quoted when it holds a comma, a quote or a line break (RFC 4180).
std::string csv_field(const std::string& value);

}  // namespace grader
