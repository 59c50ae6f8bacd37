// The harness's side of remote calls: the runner process it starts, feeds and restarts.
// (The calls themselves are made through call.hpp's WORKBOOK_REMOTE functions.)
#pragma once

#include <string>

namespace remote {

struct HarnessOptions {
  std::string runner;          // the runner program (the submission's code)
  double call_timeout_s = 60;  // a call that has not finished by then is a hang: the runner is killed
};

// Set once, before the first call (grading::init does it from WORKBOOK_RUNNER and lab.toml).
void configure(const HarnessOptions& options);

// What the runner did since the last call to this: how many times it had to be restarted.
int restarts();

// Ends the runner (at exit of the harness).
void shutdown();

}  // namespace remote
