// Where a batch's time went (issue 33): per submission, the seconds of each stage of its grading
// (collect, build, correctness, timed, waiting for the GPU, a phase run again alone) and, inside
// its cases, the grader's phases (time_spent.hpp's sum_case_times: inputs, reference, call,
// check); for the class, the totals and one line at the end of the batch. Written into
// batch.json ("time", and each student's entry under "students").
#pragma once

#include "grader/time_spent.hpp"

#include <nlohmann/json.hpp>

#include <map>
#include <mutex>
#include <string>

namespace grader {

// One submission's stages, in seconds of wall time (a stage that did not happen is 0).
struct StageTimes {
  double collect_s = 0;      // its files taken from the entry (archives opened, checks before the build)
  double configure_s = 0;    // the build's configure step (0 where the shared template is used)
  double build_s = 0;        // compiling and linking its program (configure included)
  double correctness_s = 0;  // the correctness and static phases, running (not waiting)
  double timed_s = 0;        // the timed phase, running
  double rerun_s = 0;        // phases run again alone after an out-of-memory beside others
  double gpu_wait_s = 0;     // waiting at the GPU's gate for a turn
  double profile_s = 0;      // --feedback-profile
  double total_s = 0;        // from the start of its grading to its result
  TimeSpent cases;           // inside its cases (sum_case_times), build_s and tests_s filled in
};

nlohmann::json to_json(const StageTimes& t);
StageTimes stage_times_from_json(const nlohmann::json& j);  // what to_json wrote; missing keys 0

// The machine's CPU time, from the first line of /proc/stat: busy (user, nice, system, irq,
// softirq, steal) and every kind, in clock ticks. A batch that grades slower than its stages
// add up to is often short of CPUs (builds and test programs beside each other): the time line
// says how busy they were.
struct CpuTicks {
  unsigned long long busy = 0, total = 0;
};
CpuTicks parse_cpu_ticks(const std::string& proc_stat_first_line);  // {0, 0} when not a "cpu" line
CpuTicks read_cpu_ticks();                                          // {0, 0} where /proc/stat is unreadable

// The class's totals: every stage summed over the submissions graded in this run.
class TimeLedger {
public:
  void add(const StageTimes& t);
  // The batch's own step before any submission: the sequential baselines measured (or found
  // in the cache), once; part of the wall, no submission's.
  void set_calibration(double s);
  // The machine's CPUs over the grading: the share of their time that was busy, and how many.
  void set_cpu_busy(double fraction, unsigned cpus);
  // "wall 54 s for 20 submissions (2.7 s each), of it calibration 0.4 s: build 120.3 s, tests
  // 40.2 s (correctness 30.1 s, timed 10.1 s), waiting for the GPU 15.0 s, collect 0.2 s;
  // summed over the submissions, which ran 16 at a time"
  std::string line(double wall_s, int workers) const;
  nlohmann::json to_json(double wall_s) const;
  int submissions() const;

private:
  mutable std::mutex m_;
  StageTimes sum_;
  int n_ = 0;
  double calibration_s_ = 0;
  double cpu_busy_ = -1;  // < 0: not measured
  unsigned cpus_ = 0;
};

}  // namespace grader
