// Timing for a leaderboard, where a fast wrong answer or a trick is worth something to someone.
// timer.hpp's method (warm-up, L2 flushed before each call, CUDA events on the launching stream)
// hardened call by call:
//   - fresh inputs for every call (`prepare`), and every output checked (`check`): an output
//     cached from an earlier call, or a shortcut taken only at the leaderboard's size, is wrong;
//   - the device idle when the timer starts, and the host clock run across the call and a
//     device-wide synchronize: work launched on another stream, which the events on the given
//     stream do not see, shows as host time far above event time;
//   - the process's CPU time during the call: results computed on the host show as CPU time
//     (the CUDA runtime is asked to block, not spin, while it waits: see blocking_sync());
//   - the process's thread count: a thread the submission starts (to read the inputs or compute
//     ahead of the timer) shows as a new thread.
// A call that breaks a rule makes the whole entry invalid: a leaderboard shows no time for it.
#pragma once

#include <cuda_runtime.h>

#include <functional>
#include <string>
#include <vector>

namespace workbook {

struct ContestOptions {
  int warmup = 2;
  int calls = 10;  // timed calls
  bool flush_l2 = true;
  double host_slack_ms = 0.25;     // host time may exceed event time by this much plus ...
  double host_slack_ratio = 0.25;  // ... this fraction of the event time (launch and wake-up costs)
  double cpu_slack_ms = 2.0;       // CPU time may exceed ...
  double cpu_ratio = 0.5;          // ... this fraction of the host time by this much
  // Whole programs (host in, host out, allocating and copying as they like): the sample is the
  // host time, which sees every stream and the host's own work; only the output and thread rules
  // apply (a lab checks what such a program copies with its own tests).
  bool host_timed = false;
};

// What one call measured.
struct CallMeasure {
  double event_ms = 0;                        // CUDA events on the given stream around the call
  double host_ms = 0;                         // steady clock from before the call to after a device-wide synchronize
  double cpu_ms = 0;                          // the process's CPU time over the same window
  int threads_before = 0, threads_after = 0;  // the process's threads at the first call, at this one
  std::string wrong;                          // check()'s verdict: empty when the output is right
  // The call ran in another process (ForeignCall, timer.hpp): event_ms, cpu_ms and the threads
  // are that process's, measured by the harness from sending the call to seeing its work done
  // (host work included); only the output and thread rules apply (judge_call says why).
  bool foreign = false;
  double tail_ms = 0;  // foreign: that process's GPU still busy after the call's stream was done
};

// Why a call does not count, or "" when it does: the rules above, first broken first. Foreign
// calls are also judged together, after the last one: escaped_work (timer.hpp) over their tails.
std::string judge_call(const CallMeasure& m, const ContestOptions& options);

struct ContestResult {
  std::vector<double> samples;  // event_ms (host_ms when host_timed) of each timed call, in order
  std::vector<CallMeasure> calls;
  std::string invalid;  // the first broken rule, with the call it happened in; "" if none
  bool valid() const { return invalid.empty(); }
};

// `prepare(i)` makes call i's fresh inputs (and the expected output) outside the timed window;
// `launch()` is the submission's call on `stream`; `check(i)` returns "" when call i's output is
// right, else what is wrong. Calls 0 .. warmup-1 are warm-up calls: judged, not timed.
ContestResult time_contest(cudaStream_t stream, const std::function<void(int)>& prepare,
                           const std::function<void()>& launch, const std::function<std::string(int)>& check,
                           const ContestOptions& options = {});

// Asks the CUDA runtime to block (not spin) while it waits for the device, so that waiting costs
// no CPU time and CPU time means work. Call before any other CUDA call; false when too late.
bool blocking_sync();

// The number of threads of this process (/proc/self/task), 0 where that cannot be read.
int thread_count();
// The CPU time of this process, all its threads, in milliseconds.
double process_cpu_ms();

}  // namespace workbook
