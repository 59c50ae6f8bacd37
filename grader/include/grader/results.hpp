// One graded case, as the test program records it and the grader reads it back.
//
// The test program appends one JSON object per line to the file named by WORKBOOK_RESULTS and
// flushes after each, so that when a submission crashes half-way, every case it finished is
// still on disk and the grader can say exactly where it stopped.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace grader {

// The outcome of one case. The names are what reports and gradebooks show.
enum class Outcome { Passed, Incorrect, TooSlow, Error, Crashed, NotRun };
std::string to_string(Outcome outcome);
Outcome outcome_from_string(const std::string& name);  // throws std::invalid_argument

struct CaseResult {
  std::string exercise;  // "tiled"
  std::string kind;      // "correctness", "performance", "static", ...
  std::string name;      // "127x131x137 floats"
  Outcome outcome = Outcome::NotRun;
  std::string detail;  // first wrong element, time against threshold, the error's text
  std::uint64_t seed = 0;
  nlohmann::json metrics = nlohmann::json::object();  // median_ms, gflops, speedup, threshold ...
  bool hidden = false;                  // an instructor's hidden case ("hidden case N"): no inputs anywhere
  std::vector<std::string> thresholds;  // the lab.toml thresholds that judged it (grader calibrate)
  // Where the case's time went, in ms: "case" (all of it) and the grader's phases
  // (workbook/phases.hpp: inputs, reference, call, check). Empty when not measured.
  nlohmann::json time_ms = nlohmann::json::object();
  bool passed() const { return outcome == Outcome::Passed; }
};

nlohmann::json to_json(const CaseResult& result);
CaseResult case_from_json(const nlohmann::json& j);

// How many cases a test announced for one exercise and kind before running them. A run that
// crashes half-way leaves fewer cases than planned; the missing ones count as not run, so a
// crash never raises a student's share of the points.
struct Plan {
  std::string exercise, kind;
  int cases = 0;
};

// Appends results to a JSON-lines file, one flushed line per case (or plan).
// To a file by path, or to an open descriptor: `grader batch` hands the test program its results
// file as a descriptor (WORKBOOK_RESULTS_FD), opened outside the sandbox in a folder the program
// cannot see, so that nothing else in the sandbox (the runner with the student's code) can find
// the file by its name and write to it.
class ResultsWriter {
public:
  explicit ResultsWriter(std::filesystem::path path) : path_(std::move(path)) {}
  explicit ResultsWriter(int fd) : fd_(fd) {}
  void write(const CaseResult& result) const;
  void write(const Plan& plan) const;
  void write_line(const std::string& line) const { append(line); }  // any other JSON line
  const std::filesystem::path& path() const { return path_; }

private:
  void append(const std::string& line) const;
  std::filesystem::path path_;
  int fd_ = -1;
};

// Reads every complete case line; a torn last line (the process died while writing it) is skipped.
std::vector<CaseResult> read_results(const std::filesystem::path& path);
// Reads every plan line.
std::vector<Plan> read_plans(const std::filesystem::path& path);

}  // namespace grader
