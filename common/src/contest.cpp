#include "workbook/contest.hpp"

#include "workbook/cuda_check.hpp"
#include "workbook/timer.hpp"

#include <fmt/format.h>

#include <chrono>
#include <ctime>
#include <filesystem>

namespace workbook {

std::string judge_call(const CallMeasure& m, const ContestOptions& o) {
  if (!m.wrong.empty()) return "wrong result: " + m.wrong;
  if (m.threads_after > m.threads_before && m.threads_before > 0)
    return fmt::format(
        "the process has {} threads, {} when timing began: the submission starts threads "
        "(work outside the timed call)",
        m.threads_after, m.threads_before);
  if (o.host_timed) return "";
  // A call run in another process is timed on the host from the moment it is sent until its
  // work is done: host work, computing the results on the CPU included, is inside that time, so
  // neither the CPU-time rule nor the escape rule is needed (nor meaningful: the CUDA runtime's
  // own threads in that process cost CPU time of their own).
  if (m.foreign) return "";
  if (m.cpu_ms > m.host_ms * o.cpu_ratio + o.cpu_slack_ms)
    return fmt::format("{:.3f} ms of CPU time in a {:.3f} ms call: results computed on the host", m.cpu_ms, m.host_ms);
  if (m.host_ms > m.event_ms * (1 + o.host_slack_ratio) + o.host_slack_ms)
    return fmt::format(
        "{:.3f} ms until the device was idle, but {:.3f} ms on the timed stream: work on "
        "another stream escapes the timed window",
        m.host_ms, m.event_ms);
  return "";
}

bool blocking_sync() { return cudaSetDeviceFlags(cudaDeviceScheduleBlockingSync) == cudaSuccess; }

int thread_count() {
  std::error_code error;
  int n = 0;
  for (auto it = std::filesystem::directory_iterator("/proc/self/task", error);
       !error && it != std::filesystem::directory_iterator(); it.increment(error))
    ++n;
  return error ? 0 : n;
}

double process_cpu_ms() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

ContestResult time_contest(cudaStream_t stream, const std::function<void(int)>& prepare,
                           const std::function<void()>& launch, const std::function<std::string(int)>& check,
                           const ContestOptions& o) {
  using clock = std::chrono::steady_clock;
  L2Flusher flusher;
  EventPair events;
  ContestResult result;
  int threads_at_start = 0;
  for (int i = 0; i < o.warmup + o.calls; ++i) {
    prepare(i);
    if (o.flush_l2) flusher.flush(stream);
    // Nothing of the submission's may still run when the timer starts (and the inputs are in).
    CUDA_CHECK(cudaDeviceSynchronize());
    if (i == 0) threads_at_start = thread_count();
    CallMeasure m;
    m.threads_before = threads_at_start;
    const double cpu0 = process_cpu_ms();
    take_foreign_call();
    const auto t0 = clock::now();
    CUDA_CHECK(cudaEventRecord(events.start, stream));
    launch();
    CUDA_CHECK(cudaEventRecord(events.stop, stream));
    CUDA_CHECK(cudaDeviceSynchronize());  // every stream: work elsewhere is waited for, and seen
    m.host_ms = std::chrono::duration<double, std::milli>(clock::now() - t0).count();
    m.cpu_ms = process_cpu_ms() - cpu0;
    float ms = 0;
    CUDA_CHECK(cudaEventElapsedTime(&ms, events.start, events.stop));
    m.event_ms = ms;
    m.threads_after = thread_count();
    if (const auto f = take_foreign_call()) {
      m.foreign = true;
      if (!o.host_timed) m.event_ms = charged_ms(*f);
      m.cpu_ms = f->cpu_ms;
      m.threads_after = f->threads;
      // A thread the first call starts and leaves running fails that call in the runner itself
      // (grader/remote/src/runner.cpp), which counts its threads before any call.
      if (i == 0) threads_at_start = f->threads;
      m.threads_before = threads_at_start;
      m.tail_ms = f->tail_ms;
    }
    m.wrong = check(i);
    const std::string why = judge_call(m, o);
    if (!why.empty() && result.invalid.empty())
      result.invalid = fmt::format("{} call {}: {}", i < o.warmup ? "warm-up" : "timed",
                                   i < o.warmup ? i + 1 : i - o.warmup + 1, why);
    if (i >= o.warmup) result.samples.push_back(o.host_timed ? m.host_ms : m.event_ms);
    result.calls.push_back(m);
  }
  // Work escaped from a foreign call's stream: judged over all the calls (a median), since one
  // late reply proves nothing.
  if (result.invalid.empty() && !o.host_timed) {
    std::vector<double> tails, times;
    for (const auto& m : result.calls)
      if (m.foreign) {
        tails.push_back(m.tail_ms);
        times.push_back(m.event_ms);
      }
    if (const std::string why = escaped_work(tails, times); !why.empty()) result.invalid = "the calls: " + why;
  }
  return result;
}

}  // namespace workbook
