// Timing GPU work as docs/architecture.md ("How checking and timing work") describes it:
//   - CUDA events recorded on the launching stream around each call (device time, not host time);
//   - warm-up calls first, so module loading and first-touch costs stay out of the numbers;
//   - the L2 cache flushed before each timed call by writing a buffer twice its size, so every
//     call starts cold, as it would inside a real program;
//   - at least `min_runs` timed calls, more until the coefficient of variation drops under
//     `target_cv` (robust: the interquartile range, stats.hpp) or the time budget is spent; the
//     median is the result. Where the caller knows the limit the median is judged against
//     (`decided`), it stops as soon as the calls so far decide the verdict of the median of
//     min_runs calls (decided_by_limit below).
//
// `before` runs ahead of each call outside the timed window (poison the output, fresh inputs);
// `after` runs after each call outside the window (check the output). Both may be no-ops.
// time_gpu throws std::runtime_error when the call's work escapes the stream (the device still
// busy, in the median call, for longer than the call took once the stream is done): a kernel
// launched without the stream argument would otherwise time as a few microseconds.
#pragma once

#include "workbook/cuda_check.hpp"
#include "workbook/device_buffer.hpp"
#include "workbook/stats.hpp"

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace workbook {

struct TimingOptions {
  int warmup = 2;
  int min_runs = 10;
  int max_runs = 200;
  double target_cv = 0.01;
  double budget_s = 3.0;  // stop adding runs past this much wall time (after min_runs)
  bool flush_l2 = true;
  // Whether the calls so far already decide the verdict (decided_by_limit); asked after
  // every timed call. Empty: never.
  std::function<bool(const std::vector<double>& samples_ms)> decided;
};

// A `decided` for the verdict "the median of min_runs calls at most limit_ms":
//   - min_runs / 2 + 1 calls, every one more than `margin` (a fraction) under the limit or every
//     one more than `margin` over it: the median would be on that side too (the margin covers
//     the calls past min_runs that the CV target could have added);
//   - or, for a pass only, fewer calls, every one at most a bar of the limit that rises from
//     `clear` after one call to 1 - margin at the majority: to move the median over the limit,
//     the later calls would each have to be 1 / bar times slower than every call before (with
//     5 runs: 2x after one call at half the limit, 1.38x after two at 0.725 of it). A slow first
//     call (modules loading, first touch) is never failed early: a fail needs the majority.
std::function<bool(const std::vector<double>&)> decided_by_limit(double limit_ms, int min_runs, double margin = 0.05,
                                                                 double clear = 0.5);

struct Timing {
  Summary ms;                   // median, min, cv ... in milliseconds
  std::vector<double> samples;  // every timed call, in milliseconds, in order
  double tail_ms = 0;           // calls run in another process: their median tail (ForeignCall)
};

// A start and a stop event that destroy themselves.
struct EventPair {
  cudaEvent_t start = nullptr, stop = nullptr;
  EventPair();
  ~EventPair();
  EventPair(const EventPair&) = delete;
  EventPair& operator=(const EventPair&) = delete;
};

// Clears the L2 cache by writing a device buffer of twice its size.
class L2Flusher {
public:
  L2Flusher();
  void flush(cudaStream_t stream);
  std::size_t bytes() const { return buffer_.bytes(); }

private:
  DeviceBuffer<unsigned char> buffer_;
};

Timing time_gpu(cudaStream_t stream, const std::function<void()>& launch, const std::function<void()>& before = {},
                const std::function<void()>& after = {}, const TimingOptions& options = {});

// Work that runs in another process (the grader's harness sends a submission's calls to a
// runner process: docs/architecture.md, "Two processes") is timed by the code that sends it, on
// the launching stream, and reported here; time_gpu and time_contest then use that time instead
// of their own events, which would also count the wait for the other process's reply. Several
// reports during one call add up.
struct ForeignCall {
  double device_ms = 0;  // between the stream's start and stop events around the work
  double cpu_ms = 0;     // CPU time of the other process over the call
  int threads = 0;       // its threads after the call
  // From seeing the call's work done on its stream to the other process's reply, which it sends
  // once its whole device is idle: work on another stream of that process shows here.
  double tail_ms = 0;
};
void report_foreign_call(const ForeignCall& call);
// What was reported since the last take (and clears it); nullopt when nothing was.
std::optional<ForeignCall> take_foreign_call();

// What a foreign call's time is charged: the time to `done` plus its whole tail, from `done` to
// the runner's device idle (both spinning, on one clock, the reply's trip over the socket left
// out: a few microseconds for an honest call). Work left on another stream after `done` is paid
// for by the call that left it, whatever its share (before, a quarter of the call went free,
// then 0.05 ms: the last eighth of a 0.27 ms product on a stream of its own timed 10% faster).
double charged_ms(const ForeignCall& call);

// Work of a foreign call that escaped its stream (the call says it is done, the other process's
// GPU is still busy): "" when the median tail of the calls is at most max(0.1 ms, a quarter of the
// median call), else why not. Medians, so that one late reply (the other process descheduled for
// a moment while other submissions build) cannot accuse correct code; work put on a stream of
// its own in every call moves the median. The 0.1 ms covers the reply's own cost (a device
// synchronize that spins, a message on a socket).
std::string escaped_work(const std::vector<double>& tails_ms, const std::vector<double>& calls_ms);

// The same method for plain host code (the sequential baselines): steady_clock around each call.
Timing time_host(const std::function<void()>& run, int min_runs, double budget_s, int warmup = 0);

}  // namespace workbook
