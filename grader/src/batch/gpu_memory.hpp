// One student's GPU memory costs no one else (issue 32): a correctness phase that failed with
// out-of-memory, or crashed, while other submissions shared its GPU is run again alone
// (grading_stages.cpp), and the submission that held the memory is named in its own feedback. This
// file holds the parts that need no GPU: recognising such a failure, reading `nvidia-smi
// --query-compute-apps`, and a watch that samples each running phase's GPU memory (its process
// tree's) to name the holder. The command that lists the GPU's processes can be a stand-in
// (tests/batch/).
#pragma once

#include "grader/results.hpp"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace grader {

// "out of memory", cudaErrorMemoryAllocation, CUDA_ERROR_OUT_OF_MEMORY, std::bad_alloc of a
// device allocator's message ... in any case of the text.
bool mentions_out_of_memory(const std::string& text);

// Whether a phase failed for want of GPU memory: a case it recorded, or how it ended (the
// status's detail, the end of its log), says so.
bool phase_out_of_memory(const std::vector<CaseResult>& recorded, const std::string& ended_how);

// How many lines of `text` name a launch error that the launch alone decides: a block of more
// threads than a block may have, more registers or shared memory than one may use, no code for
// this GPU. No neighbour on the GPU can cause one (unlike a failed allocation, or what follows
// an unchecked one: an illegal address, a crash). With `invalid_argument`, "invalid argument"
// counts too: CUDA 13 reports a block of 64 x 64 threads so (measured on an H200, 2026-11-28),
// but so is a copy to the null pointer an unchecked allocation left, so it counts only when
// no neighbour held memory enough to make an allocation fail.
int launch_errors_named(const std::string& text, bool invalid_argument = false);

// Why a phase that shared its GPU should run again alone, "" when nothing says its neighbours
// could have caused its failure: "out of GPU memory" (phase_out_of_memory), or "crashed" when a
// case crashed or failed with an error, or the program ended abnormally, other than by a hang.
// A process started beside one that holds the GPU's memory can fail in its CUDA start-up with
// no word of memory; a hang is never run again (it would cost a second timeout), and neither are
// crashes that the output explains, one launch error each (launch_errors_named): a course's
// error check that prints the error and exits, after a launch of 64 x 64 threads.
// `memory_held_beside`: a neighbour may have held much of the GPU's memory meanwhile (true when
// nobody watched).
std::string reason_to_run_alone(const std::vector<CaseResult>& recorded, const std::string& ended_how,
                                bool ended_abnormally, bool memory_held_beside = true);

// One row of `nvidia-smi --query-compute-apps=pid,used_memory --format=csv,noheader,nounits`
// (extra columns between them, such as gpu_uuid, are allowed; the first is the pid, the last the
// MiB). Rows that do not parse ("[N/A]", a header) are skipped.
struct GpuApp {
  int pid = 0;
  double used_mib = 0;
};
std::vector<GpuApp> parse_compute_apps(const std::string& csv);

// The pid's ancestors (parent first) by /proc/<pid>/stat, up to `max_depth`.
std::vector<int> ancestors(int pid, int max_depth = 64);

class GpuMemoryWatch {
public:
  // `command`: a shell command printing the compute apps as above; "" disables the watch.
  explicit GpuMemoryWatch(std::string command, double period_s = 0.5);
  ~GpuMemoryWatch();
  GpuMemoryWatch(const GpuMemoryWatch&) = delete;
  GpuMemoryWatch& operator=(const GpuMemoryWatch&) = delete;

  bool enabled() const { return !command_.empty(); }
  // A phase's root process (the sandbox or the test program) started on GPU `gpu` (pool index).
  void started(int root_pid, const std::string& student, int gpu);
  void ended(int root_pid);
  // The submission (not `victim`) whose processes held the most memory on `gpu` between `from`
  // and `to`, with its peak in MiB; nullopt when the watch saw none. `min_mib`: less is no hog
  // (kHogMiB: an honest test program holds its CUDA context and at most about 2 GiB of buffers,
  // coalescing's 8192 x 8192 pair the largest; a context alone is about 0.5 GiB on an H100).
  struct Holder {
    std::string student;
    double peak_mib = 0;
  };
  static constexpr double kHogMiB = 4096;
  std::optional<Holder> largest_beside(const std::string& victim, int gpu, std::chrono::steady_clock::time_point from,
                                       std::chrono::steady_clock::time_point to, double min_mib = kHogMiB) const;
  // Whether the watch saw `student`'s own processes hold memory on `gpu` between `from` and
  // `to`: where it did not (a phase shorter than its period, or processes it cannot trace to
  // the phase, as in another PID namespace), its silence on neighbours says nothing.
  bool saw(const std::string& student, int gpu, std::chrono::steady_clock::time_point from,
           std::chrono::steady_clock::time_point to) const;
  // One sample now (the thread calls it; tests call it directly).
  void sample();

private:
  struct Running {
    std::string student;
    int gpu = 0;
  };
  struct Sample {
    std::chrono::steady_clock::time_point at;
    std::string student;
    int gpu = 0;
    double mib = 0;
  };
  void loop();
  std::string command_;
  double period_s_;
  mutable std::mutex m_;
  std::condition_variable cv_;
  std::map<int, Running> running_;  // root pid -> phase
  std::vector<Sample> samples_;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace grader
