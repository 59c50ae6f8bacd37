// `grader check <lab> --sanitize` and `grader check <lab> --profile`: why a kernel is wrong or
// slow, in NVIDIA's tools' measurements and in plain words.
//
// Both run inspect-<lab> (cmake/WorkbookLab.cmake): the lab's tests with the student's code
// linked into the same process, built with -lineinfo like every program here. It grades nothing
// (the verdict comes from `grader check`, whose runner keeps the student's code away from the
// results); it exists so that compute-sanitizer sees each buffer at its exact size and every
// kernel in one process, and so that Nsight Compute profiles the student's kernels alone.
#pragma once

#include "labs.hpp"

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace grader::inspect {

struct InspectOptions {
  std::string lab;
  std::string filter;                  // a Catch2 test spec; empty: see each mode
  std::string exercise;                // one exercise (instead of a filter)
  std::vector<std::string> tools;      // --sanitize: memcheck, racecheck, synccheck, initcheck
  std::optional<std::uint64_t> seed;
  std::vector<std::filesystem::path> overrides;
  bool reference = false;              // solutions/ instead of labs/
  bool build = true;
  bool json = false;
  double timeout_s = 0;                // per tool run; 0: the lab's timeout_s
};

// Exit status of both: 0 nothing found, 1 problems found (or slower than the reference), 2 does
// not compile, 3 a tool run did not finish, 4 no GPU, 5 the tool is missing or not permitted,
// 64 a usage error.
constexpr int kToolUnavailable = 5;

// The tools run when --tool names none: what a lab's kernels most often get wrong.
std::vector<std::string> default_sanitizer_tools();

int run_sanitize(const Paths& paths, const InspectOptions& options);
int run_profile(const Paths& paths, const InspectOptions& options);

// The inspect program of a lab (the student's, or the reference's with `reference`).
std::filesystem::path inspect_program(const Paths& paths, const std::string& lab, bool reference);

}  // namespace grader::inspect
