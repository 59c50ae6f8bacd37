// main() of every lab's test program, compiled once for all of them (Catch2's implementation is
// grader/kit/src/catch_impl.cpp, also compiled once). What differs between programs (which lab.toml, whose
// sources, which runner) comes from grader/kit/src/test_program_info.cpp, compiled per program.
//
// Without a usable GPU the program prints why and exits with status 77, which CTest reports as
// "Skipped" (SKIP_RETURN_CODE), never as passed.
#include "grader/catch.hpp"
#include "grader/gpu_gate.hpp"
#include "grader/grading.hpp"
#include "grader/test_program.hpp"
#include "workbook/contest.hpp"
#include "workbook/device_query.hpp"
#include "remote/harness.hpp"

#include <cuda_runtime.h>
#include <fcntl.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <cstdlib>

#include <algorithm>
#include <cstring>
#include <iostream>

namespace {

// Listing tests or tags, or asking for help: needs no GPU.
bool listing_only(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const char* a = argv[i];
    if (std::strncmp(a, "--list", 6) == 0 || std::strcmp(a, "-l") == 0 || std::strcmp(a, "-t") == 0 ||
        std::strcmp(a, "-h") == 0 || std::strcmp(a, "--help") == 0)
      return true;
  }
  return false;
}

// The runner's options with the lab's call timeout, once lab.toml is read.
remote::HarnessOptions with_call_timeout(remote::HarnessOptions options) {
  options.call_timeout_s = grading::config().number("lab.call_timeout_s").value_or(options.call_timeout_s);
  // A hung call must end well before the grader's limit on the whole run does, so that the run
  // goes on with the other exercises (grading.cpp skips the rest of the hung one).
  if (const char* phase = std::getenv("WORKBOOK_PHASE_TIMEOUT_S"); phase && std::atof(phase) > 0)
    options.call_timeout_s = std::min(options.call_timeout_s, std::atof(phase) / 3);
  return options;
}

// A phase that needs the GPU alone (grader/gpu_gate.hpp): this program's CUDA context first, made
// beside the GPU's other phases, then the wait for the GPU (the submission's code starts after).
// 0 once the GPU is this program's, else the program's exit status.
int wait_for_gpu_alone(int gate) {
  if (const cudaError_t e = cudaFree(nullptr); e != cudaSuccess) {
    std::cout << "could not set up beside the GPU's other work (cudaFree(nullptr), this program's CUDA context: "
              << cudaGetErrorString(e) << "): the grader runs this again with the GPU to itself\n";
    return grader::kGateSetupFailed;
  }
  if (const std::string why = grader::wait_at_gate(gate); !why.empty()) {
    std::cout << "FAILED: waiting for the GPU to itself: " << why << '\n';
    return 2;
  }
  ::close(gate);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  // The verdict's descriptors are for this process only: close-on-exec before anything starts.
  for (const char* name : {"WORKBOOK_RESULTS_FD", "WORKBOOK_LEADERBOARD_OUT_FD", "WORKBOOK_GATE_FD"})
    if (const char* fd = std::getenv(name)) ::fcntl(std::atoi(fd), F_SETFD, FD_CLOEXEC);
  const bool listing = listing_only(argc, argv);
  // The code under test runs in the runner, a child process (grader/remote/), unless it is
  // linked into this program (the inspect programs: grader check --sanitize, --profile).
  const bool remote_code = *grading::program::runner != '\0';
  // Then this program's own GPU work (inputs, expected outputs, checks) runs in order on one
  // stream at a time, and one hardware queue serves it: the driver makes such a context in
  // half the time when a node's GPUs are busy (16 processes on four H200s, 2026-11-28: 2.1 to
  // 2.4 s instead of 4.1 to 4.4 s), and it makes every test program's context, on every GPU of
  // the node, one at a time. The runner gets the setting this program found. Before any CUDA call.
  const char* found_connections = std::getenv("CUDA_DEVICE_MAX_CONNECTIONS");
  const std::string runner_connections = found_connections ? found_connections : "";
  if (remote_code) ::setenv("CUDA_DEVICE_MAX_CONNECTIONS", "1", 1);
  // A leaderboard run: the CUDA runtime must block, not spin, while it waits, so that CPU time
  // during a timed call means work on the host (contest.hpp). Before any other CUDA call.
  // An untimed phase (WORKBOOK_UNTIMED) blocks too: nothing in it is timed, and a class's
  // correctness phases run many at once beside builds.
  const bool untimed = std::getenv("WORKBOOK_UNTIMED") != nullptr;
  if (!listing && (untimed || std::getenv("WORKBOOK_LEADERBOARD_OUT") || std::getenv("WORKBOOK_LEADERBOARD_OUT_FD")) &&
      !workbook::blocking_sync())
    std::cout << "warning: could not ask the CUDA runtime for blocking synchronization\n";
  struct Shutdown {
    bool on;
    ~Shutdown() {
      if (on) remote::shutdown();
    }
  } shutdown{remote_code};
  // The runner: WORKBOOK_RUNNER (grader batch: the submission's), else this build's own.
  const auto runner_options = [untimed, &runner_connections] {
    remote::HarnessOptions options;
    const char* runner = std::getenv("WORKBOOK_RUNNER");
    options.runner = runner && *runner ? runner : grading::program::runner;
    options.polite = untimed;
    options.runner_max_connections = runner_connections;
    if (const char* cap = std::getenv("WORKBOOK_RUNNER_FILE_BYTES"))
      options.file_bytes = std::strtoull(cap, nullptr, 10);
    return options;
  };
  if (remote_code) {
    // This process keeps the verdict, so the runner may not read or trace it: not dumpable means
    // no ptrace, no /proc/<pid>/mem, fd/ or environ for a process of the same user without
    // privileges.
    ::prctl(PR_SET_DUMPABLE, 0);
  }
  // Started first, with or without a GPU: what the submission runs before main() runs now, and if
  // it ends the program, that is the verdict for every case. Behind a gate, only once the GPU is
  // this program's alone: no submission's code runs beside another's timing.
  const char* gate = listing ? nullptr : std::getenv("WORKBOOK_GATE_FD");
  const auto start_code = [] {
    if (const std::string why = remote::start_runner(); !why.empty()) {
      std::cout << "FAILED: the program built from your code did not start: it " << why
                << " (code that runs before main, such as a global object's constructor, can end it)\n";
      return 3;
    }
    return 0;
  };
  if (remote_code && !listing) {
    remote::configure(runner_options());
    if (!gate)
      if (const int status = start_code()) return status;
  }
  if (!listing) {
    std::string why;
    if (workbook::device_count(&why) == 0) {
      std::cout << "SKIPPED: no CUDA GPU is usable here (" << why << "); these tests need one.\n";
      return 77;
    }
  }
  try {
    grading::init({grading::program::lab_toml, grading::program::source_dir, grading::program::inspecting});
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << '\n';
    return 2;
  }
  if (remote_code && !listing) remote::configure(with_call_timeout(runner_options()));
  if (gate) {
    if (const int status = wait_for_gpu_alone(std::atoi(gate))) return status;
    if (remote_code)
      if (const int status = start_code()) return status;
  }
  // 0 (all passed) or 1 (something failed); 70 (a CUDA fault) and 77 (no GPU) are ours.
  return grader::run_catch_session(argc, argv);
}
