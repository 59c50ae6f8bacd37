// What makes one lab's test program itself: its lab.toml, the sources under test and, where the
// code under test runs in a process of its own (grader/remote/), the runner to start. Defined
// per program by grader/kit/src/test_program_info.cpp (from compile definitions); read by the main()
// all test programs share (grader/kit/src/test_main.cpp, compiled once).
#pragma once

namespace grading::program {

extern const char* const lab_toml;    // the lab's lab.toml
extern const char* const source_dir;  // the folder of the sources under test
extern const char* const runner;      // the runner program, or "" when the code is linked in

// True in inspect-<lab> and inspect-reference-<lab>, the programs `grader check --sanitize` and
// `--profile` run under compute-sanitizer and Nsight Compute. They grade nothing; under
// racecheck they may run fewer cases (grading::fewer_cases()).
extern const bool inspecting;

}  // namespace grading::program
