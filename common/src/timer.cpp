#include "workbook/timer.hpp"

#include "workbook/phases.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>
#include <utility>
#include <string>

namespace workbook {
namespace {

int l2_bytes() {
  int device = 0, bytes = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&bytes, cudaDevAttrL2CacheSize, device));
  return bytes;
}

thread_local std::optional<ForeignCall> t_foreign;

}  // namespace

void report_foreign_call(const ForeignCall& call) {
  if (!t_foreign) {
    t_foreign = call;
    return;
  }
  t_foreign->device_ms += call.device_ms;
  t_foreign->cpu_ms += call.cpu_ms;
  t_foreign->threads = std::max(t_foreign->threads, call.threads);
  t_foreign->tail_ms += call.tail_ms;
}

std::optional<ForeignCall> take_foreign_call() { return std::exchange(t_foreign, std::nullopt); }

double charged_ms(const ForeignCall& call) { return call.device_ms + call.tail_ms; }

std::string escaped_work(const std::vector<double>& tails_ms, const std::vector<double>& calls_ms) {
  if (tails_ms.empty() || calls_ms.empty()) return "";
  const double tail = median(tails_ms), call = median(calls_ms);
  if (tail <= std::max(0.1, 0.25 * call)) return "";
  return fmt::format(
      "the GPU kept working {:.3f} ms (median) after the call's stream was done, which took {:.3f} ms: "
      "some of the work ran on another stream, which the timing cannot see. Launch every kernel and "
      "copy on the stream you are given",
      tail, call);
}

EventPair::EventPair() {
  CUDA_CHECK(cudaEventCreate(&start));
  CUDA_CHECK(cudaEventCreate(&stop));
}
EventPair::~EventPair() {
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
}

L2Flusher::L2Flusher() : buffer_(2 * static_cast<std::size_t>(l2_bytes())) {}

void L2Flusher::flush(cudaStream_t stream) {
  if (buffer_.size() > 0) CUDA_CHECK(cudaMemsetAsync(buffer_.data(), 0, buffer_.bytes(), stream));
}

Timing time_gpu(cudaStream_t stream, const std::function<void()>& launch, const std::function<void()>& before,
                const std::function<void()>& after, const TimingOptions& options) {
  using clock = std::chrono::steady_clock;
  L2Flusher flusher;
  EventPair events;

  for (int i = 0; i < options.warmup; ++i) {
    if (before) before();
    {
      PhaseScope call(Phase::Call);
      launch();
      CUDA_CHECK(cudaStreamSynchronize(stream));
    }
    if (after) after();
  }

  Timing timing;
  std::vector<double> tails;          // per call: how long the device stayed busy after the stream was done
  bool foreign = false;               // the calls ran in another process, which timed them (ForeignCall)
  std::vector<double> foreign_tails;  // per call: that process's GPU busy after the call's stream was done
  const auto started = clock::now();
  for (int run = 0; run < options.max_runs; ++run) {
    if (before) before();
    std::optional<PhaseScope> phase(std::in_place, Phase::Inputs);
    if (options.flush_l2) flusher.flush(stream);
    take_foreign_call();
    phase.emplace(Phase::Call);
    CUDA_CHECK(cudaEventRecord(events.start, stream));
    launch();
    CUDA_CHECK(cudaEventRecord(events.stop, stream));
    CUDA_CHECK(cudaEventSynchronize(events.stop));
    const auto stream_done = clock::now();
    CUDA_CHECK(cudaDeviceSynchronize());
    tails.push_back(std::chrono::duration<double, std::milli>(clock::now() - stream_done).count());
    phase.reset();
    float ms = 0;
    CUDA_CHECK(cudaEventElapsedTime(&ms, events.start, events.stop));
    if (const auto f = take_foreign_call()) {
      ms = static_cast<float>(charged_ms(*f));
      foreign = true;
      foreign_tails.push_back(f->tail_ms);
    }
    timing.samples.push_back(ms);
    if (after) after();

    if (options.decided && options.decided(timing.samples)) break;
    if (run + 1 >= options.min_runs) {
      const double elapsed = std::chrono::duration<double>(clock::now() - started).count();
      // The robust CV: in a class batch, builds keep every core busy and now and then a call's
      // reply is late by a millisecond; the plain CV then never reaches the target and every
      // timed case ran to its budget (200 calls where 10 agree to a fraction of a percent).
      if (summarize(timing.samples).robust_cv < options.target_cv || elapsed > options.budget_s) break;
    }
  }
  timing.ms = summarize(timing.samples);
  if (foreign) timing.tail_ms = median(foreign_tails);
  // Work launched on another stream is outside the events' window: a launch without the stream
  // argument goes to the legacy default stream, which a non-blocking stream does not wait for,
  // and would time as a few microseconds. Once the timed stream is done the device should be
  // idle; if, in the median call, it stays busy longer than the call itself took (and than
  // 0.05 ms, the cost of asking), the time is not the call's. Medians, so that one late wake-up
  // of the host cannot accuse correct code.
  // Calls run in another process have the same test on that process's tail (escaped_work).
  if (foreign)
    if (const std::string why = escaped_work(foreign_tails, timing.samples); !why.empty())
      throw std::runtime_error(why);
  const double tail = median(tails);
  if (!foreign && tail > 0.05 && tail > timing.ms.median)
    throw std::runtime_error(
        "the GPU kept working " + std::to_string(tail) + " ms after the timed stream had finished (" +
        std::to_string(timing.ms.median) +
        " ms): some of the work ran on another stream, which the timing "
        "cannot see. Launch every kernel on the stream you are given (kernel<<<grid, block, shared, stream>>>; "
        "without it, the launch goes to the default stream)");
  return timing;
}

std::function<bool(const std::vector<double>&)> decided_by_limit(double limit_ms, int min_runs, double margin,
                                                                 double clear) {
  return [=](const std::vector<double>& samples) {
    if (samples.empty() || !(limit_ms > 0)) return false;
    if (!std::all_of(samples.begin(), samples.end(), [](double ms) { return std::isfinite(ms); })) return false;
    const auto [lo, hi] = std::minmax_element(samples.begin(), samples.end());
    const int calls = static_cast<int>(samples.size()), majority = min_runs / 2 + 1;
    if (calls >= majority) return *hi < limit_ms * (1 - margin) || *lo > limit_ms * (1 + margin);
    // Fewer calls than a majority: a pass when every call is under a bar that rises from `clear`
    // at one call to 1 - margin at a majority (linearly in the number of calls).
    // (Here majority >= 2, since calls >= 1.)
    const double bar = clear + (1 - margin - clear) * (calls - 1) / (majority - 1);
    return *hi <= limit_ms * bar;
  };
}

Timing time_host(const std::function<void()>& run, int min_runs, double budget_s, int warmup) {
  using clock = std::chrono::steady_clock;
  for (int i = 0; i < warmup; ++i) run();
  Timing timing;
  const auto started = clock::now();
  do {
    const auto t0 = clock::now();
    run();
    timing.samples.push_back(std::chrono::duration<double, std::milli>(clock::now() - t0).count());
  } while (static_cast<int>(timing.samples.size()) < min_runs ||
           (std::chrono::duration<double>(clock::now() - started).count() < budget_s &&
            summarize(timing.samples).cv >= 0.01 && timing.samples.size() < 1000));
  timing.ms = summarize(timing.samples);
  return timing;
}

}  // namespace workbook
