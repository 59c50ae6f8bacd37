// The harness's side of remote calls: the runner process it starts, feeds and restarts.
// (The calls themselves are made through call.hpp's WORKBOOK_REMOTE functions.)
#pragma once

#include <cstdint>

#include <string>

namespace remote {

struct HarnessOptions {
  std::string runner;          // the runner program (the submission's code)
  double call_timeout_s = 60;  // a call that has not finished by then is a hang: the runner is killed
  // The largest file the runner may write (RLIMIT_FSIZE), 0 for no cap. It is the runner's alone:
  // the harness must grow its arena, itself a file (a memfd), past any such cap (kmeans' 256 MB
  // objects). grader batch and leaderboard set it through WORKBOOK_RUNNER_FILE_BYTES.
  std::uint64_t file_bytes = 0;
  // Nothing this process runs is timed (the untimed phase: WORKBOOK_UNTIMED): wait for each call's
  // reply asleep on the socket, and start the runner with WORKBOOK_RUNNER_POLITE, which blocks in
  // its synchronize instead of spinning. Timed phases spin on both sides for an exact clock; a
  // class's correctness phases, 16 at once on a 4-GPU node, would otherwise spin two cores each.
  bool polite = false;
  // CUDA_DEVICE_MAX_CONNECTIONS as the test program found it ("" when unset): the runner gets
  // that, while the test program itself runs with one hardware queue (test_main.cpp).
  std::string runner_max_connections;
};

// Set once, before the first call (grading::init does it from WORKBOOK_RUNNER and lab.toml).
void configure(const HarnessOptions& options);

// Starts the runner and waits (as long as it takes: the grader's own timeout bounds it) until it
// reaches main(), so that code the submission runs before main (global constructors) runs, and
// fails, once, at the start, on a machine with or without a GPU. Returns "" when it is ready,
// else how it ended ("was killed by SIGSEGV (Segmentation fault)").
std::string start_runner();

// What the runner did since the last call to this: how many times it had to be restarted.
int restarts();

// Ends the runner (at exit of the harness).
void shutdown();

}  // namespace remote
