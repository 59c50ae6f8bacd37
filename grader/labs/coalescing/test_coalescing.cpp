// The grader's tests for coalescing. The same file builds against labs/coalescing (what a
// student runs) and against solutions/coalescing (what the project's own tests require to
// pass). Tags: one per exercise ([add_x_cols] ... [transpose_padded]) x [correctness] [static]
// [performance] [leaderboard] (hidden).
//
// Bandwidth: bytes read + bytes written over the median time (add: 3 x 4 x M x N bytes,
// transpose: 2 x 4 x M x N). The yardstick is the device-to-device copy (cudaMemcpyAsync) of
// one M x N matrix, measured in the same run, its bytes counted the same way (read + written).
#include "coalescing.h"
#include "grader/baseline_cache.hpp"
#include "grader/grading.hpp"
#include "grader/kept_cases.hpp"
#include "grader/verdicts.hpp"
#include "leaderboard_kernels.hpp"
#include "device_reference.hpp"
#include "grader/device_inputs.hpp"
#include "sequential.hpp"
#include "workbook/compare.hpp"
#include "workbook/contest.hpp"
#include "workbook/cuda_check.hpp"
#include "workbook/guarded_buffer.hpp"
#include "workbook/phases.hpp"
#include "workbook/random.hpp"
#include "workbook/stream.hpp"
#include "workbook/timer.hpp"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace {

using grader::CaseResult;
using grader::Outcome;
using workbook::DeviceBuffer;
using workbook::GuardedBuffer;

struct Shape {
  int M, N;  // rows, columns (of A, B, C, and of the transpose's input)
  std::string str() const { return std::to_string(M) + "x" + std::to_string(N); }
  std::size_t count() const { return std::size_t(M) * N; }
};

// Awkward shapes on purpose: 1x1, a multiple of 32, sizes that are multiples of nothing,
// primes, a single row and a single column, tall and wide, and one large size.
const Shape kShapes[] = {
    {1, 1}, {32, 32}, {33, 17}, {127, 131}, {1, 1000}, {1000, 1}, {5000, 7}, {7, 5000}, {1023, 1025}, {3001, 2003},
};

bool is_large(const Shape& s) { return s.count() > 1000000; }

// ---- inputs and expected outputs, on the GPU ------------------------------------------------

// Seeds: one stream per input of each case (and of each timed call: draw 16 on), so each case's
// inputs are fixed by the seed alone.
std::uint64_t case_stream(const Shape& s, std::uint64_t draw, int which) {
  return ((std::uint64_t(s.M) * 1000003u + s.N) * 7919u + draw) * 4u + which;
}
std::uint64_t input_seed(const Shape& s, std::uint64_t draw, int which) {
  return workbook::derive_seed(grading::seed(), case_stream(s, draw, which));
}

// A float addition is correctly rounded: the kernel's A + B is within half an ulp of the exact
// sum (relative error <= FLT_EPSILON / 2). Anything else, a wrong element or NaN, is far out.
const workbook::Tolerance kAddTolerance{0.0, FLT_EPSILON};
// A transpose only moves data: the result must match bit for bit.
const workbook::Tolerance kTransposeTolerance = workbook::Tolerance::exact();

using AddLauncher = std::function<void(const float*, const float*, float*, int, int, cudaStream_t)>;
using TransposeLauncher = std::function<void(const float*, float*, int, int, cudaStream_t)>;

// One add problem on the device: A and B drawn in buffers of the grader's own and the exact sum
// computed from them, then copied in just before the call (as in grader/labs/product/: a thread
// watching for the next inputs gets them microseconds before the clock), NaN past their ends,
// C poisoned. draw() makes new inputs: every timed call gets its own.
class AddCase {
public:
  explicit AddCase(const Shape& s)
      : s_(s), A_(s.count()), B_(s.count()), C_(s.count()), A_drawn_(s.count()), B_drawn_(s.count()), E_(s.count()) {}
  // What a case of that shape takes of the GPU's memory (KeptCases' budget).
  static double allocated_bytes(const Shape& s) {
    return 3.0 * GuardedBuffer<float>::allocated_bytes(s.count()) +
           2.0 * workbook::allocated_bytes(s.count() * sizeof(float)) +
           double(workbook::allocated_bytes(s.count() * sizeof(double)));
  }
  float* a() { return A_.data(); }
  float* b() { return B_.data(); }
  float* c() { return C_.data(); }
  void draw(std::uint64_t number, cudaStream_t stream) {
    {
      workbook::PhaseScope phase(workbook::Phase::Inputs);
      grading::device::fill_floats(A_drawn_.data(), s_.count(), input_seed(s_, number, 0), stream);
      grading::device::fill_floats(B_drawn_.data(), s_.count(), input_seed(s_, number, 1), stream);
    }
    {
      workbook::PhaseScope phase(workbook::Phase::Reference);
      coalescing_grading::expected_add(A_drawn_.data(), B_drawn_.data(), E_.data(), s_.count(), stream);
    }
    workbook::PhaseScope phase(workbook::Phase::Inputs);
    A_.poison(stream);
    B_.poison(stream);
    C_.poison(stream);
    CUDA_CHECK(cudaMemcpyAsync(a(), A_drawn_.data(), A_drawn_.bytes(), cudaMemcpyDeviceToDevice, stream));
    CUDA_CHECK(cudaMemcpyAsync(b(), B_drawn_.data(), B_drawn_.bytes(), cudaMemcpyDeviceToDevice, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
  }
  workbook::Comparison compare(cudaStream_t stream) {
    workbook::PhaseScope phase(workbook::Phase::Check);
    return grading::device::compare(c(), E_.data(), s_.M, s_.N, kAddTolerance, stream);
  }
  bool intact_guards() { return C_.intact_guards(); }

private:
  Shape s_;
  GuardedBuffer<float> A_, B_, C_;         // what the call sees
  DeviceBuffer<float> A_drawn_, B_drawn_;  // the grader's own
  DeviceBuffer<double> E_;
};

// The same for a transpose: in is M x N (distinct random values: an element moved to the wrong
// place cannot match by accident), out and the expected E are N x M.
class TransposeCase {
public:
  explicit TransposeCase(const Shape& s)
      : s_(s), in_(s.count()), out_(s.count()), in_drawn_(s.count()), E_(s.count()) {}
  // What a case of that shape takes of the GPU's memory (KeptCases' budget).
  static double allocated_bytes(const Shape& s) {
    return 2.0 * GuardedBuffer<float>::allocated_bytes(s.count()) +
           double(workbook::allocated_bytes(s.count() * sizeof(float))) +
           double(workbook::allocated_bytes(s.count() * sizeof(double)));
  }
  float* in() { return in_.data(); }
  float* out() { return out_.data(); }
  void draw(std::uint64_t number, cudaStream_t stream) {
    {
      workbook::PhaseScope phase(workbook::Phase::Inputs);
      grading::device::fill_floats(in_drawn_.data(), s_.count(), input_seed(s_, number, 2), stream);
    }
    {
      workbook::PhaseScope phase(workbook::Phase::Reference);
      coalescing_grading::expected_transpose(in_drawn_.data(), E_.data(), s_.M, s_.N, stream);
    }
    workbook::PhaseScope phase(workbook::Phase::Inputs);
    in_.poison(stream);
    out_.poison(stream);
    CUDA_CHECK(cudaMemcpyAsync(in(), in_drawn_.data(), in_drawn_.bytes(), cudaMemcpyDeviceToDevice, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
  }
  workbook::Comparison compare(cudaStream_t stream) {
    workbook::PhaseScope phase(workbook::Phase::Check);
    return grading::device::compare(out(), E_.data(), s_.N, s_.M, kTransposeTolerance, stream);
  }
  bool intact_guards() { return out_.intact_guards(); }

private:
  Shape s_;
  GuardedBuffer<float> in_, out_;  // what the call sees
  DeviceBuffer<float> in_drawn_;   // the grader's own
  DeviceBuffer<double> E_;
};

// The cases of a shape, kept from case to case (grader/kept_cases.hpp says why and what draw()
// must do for it): a shape comes back in every draw and every exercise, and the performance
// size in each exercise's timing. One budget for both kinds: an add case at 8192 x 8192 takes
// 1.75 GiB, a transpose case 1.25 GiB, and a test program holds at most about 2 GiB of buffers
// (grader batch's memory watch counts on it), so the add case goes when the transpose comes.
struct KeptCase {
  std::unique_ptr<AddCase> add;
  std::unique_ptr<TransposeCase> transpose;
};
KeptCase& kept_case(bool add, const Shape& s) {
  static grading::KeptCases<KeptCase, std::tuple<bool, int, int>> kept(2.5 * (1ull << 30));
  const double bytes = add ? AddCase::allocated_bytes(s) : TransposeCase::allocated_bytes(s);
  return kept.get({add, s.M, s.N}, bytes, [&] {
    auto k = std::make_unique<KeptCase>();
    if (add)
      k->add = std::make_unique<AddCase>(s);
    else
      k->transpose = std::make_unique<TransposeCase>(s);
    return k;
  });
}
AddCase& kept_add_case(const Shape& s) { return *kept_case(true, s).add; }
TransposeCase& kept_transpose_case(const Shape& s) { return *kept_case(false, s).transpose; }

// "C[0][0]: expected 0.25, got nan; ...", plus a pointer to the TODOs when the kernel wrote
// nothing at all (every element still holds the poison's bits): the usual first report.
std::string describe_wrong(const workbook::Comparison& cmp, const std::string& name, const std::string& exercise) {
  std::string detail = cmp.describe(name);
  if (cmp.nothing_written())
    detail += "; nothing was written to " + name + ": see the TODO(" + exercise + ") steps in coalescing.cu";
  return detail;
}

// One call of the kernel on the case's inputs; the verdict goes into `r`.
void run_add_once(const Shape& s, int repeat, const AddLauncher& launch, CaseResult& r) {
  workbook::Stream stream;
  AddCase& c = kept_add_case(s);
  c.draw(repeat, stream);
  {
    workbook::PhaseScope phase(workbook::Phase::Call);
    launch(c.a(), c.b(), c.c(), s.M, s.N, stream);
    stream.synchronize();
  }
  const auto cmp = c.compare(stream);
  r.metrics = {{"M", s.M}, {"N", s.N}, {"wrong", cmp.wrong}};
  if (!cmp.ok()) {
    r.outcome = Outcome::Incorrect;
    r.detail = describe_wrong(cmp, "C", r.exercise);
  } else if (!c.intact_guards()) {
    r.outcome = Outcome::Incorrect;
    r.detail = "wrote outside C (memory just before or after C changed): check row < M and col < N";
  } else {
    r.outcome = Outcome::Passed;
  }
}

void run_transpose_once(const Shape& s, int repeat, const TransposeLauncher& launch, CaseResult& r) {
  workbook::Stream stream;
  TransposeCase& c = kept_transpose_case(s);
  c.draw(repeat, stream);
  {
    workbook::PhaseScope phase(workbook::Phase::Call);
    launch(c.in(), c.out(), s.M, s.N, stream);
    stream.synchronize();
  }
  const auto cmp = c.compare(stream);  // out is N x M
  r.metrics = {{"M", s.M}, {"N", s.N}, {"wrong", cmp.wrong}};
  if (!cmp.ok()) {
    r.outcome = Outcome::Incorrect;
    r.detail = describe_wrong(cmp, "out", r.exercise) + " (out is N x M: out[col][row] = in[row][col])";
  } else if (!c.intact_guards()) {
    r.outcome = Outcome::Incorrect;
    r.detail = "wrote outside out (memory just before or after it changed): check the bounds of every store";
  } else {
    r.outcome = Outcome::Passed;
  }
}

// Every shape; all but the large one twice on fresh inputs, so that a race (a missing
// __syncthreads() in a tiled transpose) that gets lucky once is caught the next time.
int correctness_cases() {
  int n = static_cast<int>(grading::hidden_shapes().size());
  for (const Shape& s : kShapes) n += is_large(s) ? 1 : 2;
  return n;
}

template <class Run>
void check_correctness(const std::string& exercise, const Run& run) {
  grading::plan(exercise, "correctness", correctness_cases());
  for (const Shape& s : kShapes) {
    if (is_large(s) && grading::fewer_cases()) continue;
    for (int repeat = 0; repeat < (is_large(s) || grading::fewer_cases() ? 1 : 2); ++repeat)
      GRADE_CASE(exercise, "correctness", s.str() + (repeat ? " #2" : ""), [&](CaseResult& r) { run(s, repeat, r); });
  }
  // The instructor's hidden shapes ([hidden] shapes, each [rows, columns]), once each.
  for (const auto& h : grading::hidden_shapes()) {
    const Shape s{h[0], h[1]};
    GRADE_HIDDEN_CASE(exercise, "correctness", "", [&](CaseResult& r) { run(s, 0, r); });
  }
}

void check_add(const std::string& exercise, const AddLauncher& launch) {
  check_correctness(exercise, [&](const Shape& s, int repeat, CaseResult& r) { run_add_once(s, repeat, launch, r); });
}

void check_transpose(const std::string& exercise, const TransposeLauncher& launch) {
  check_correctness(exercise,
                    [&](const Shape& s, int repeat, CaseResult& r) { run_transpose_once(s, repeat, launch, r); });
}

// ---- static checks ---------------------------------------------------------------------------

void check_uses_shared(const std::string& exercise, const std::string& kernel) {
  GRADE_CASE(exercise, "static", kernel + " declares a __shared__ tile", [&](CaseResult& r) {
    grading::shared_memory_verdict(r, "coalescing.cu", kernel, "the tile belongs in shared memory");
  });
}

// ---- performance -----------------------------------------------------------------------------

Shape perf_shape() {
  const auto size = grading::config().int_list("performance.size");
  if (size.size() != 2) throw grader::ConfigError("performance.size must be [M, N]");
  return {size[0], size[1]};
}

double gbs(double bytes, double ms) { return bytes / (ms * 1e-3) / 1e9; }
double add_bytes(const Shape& s) { return 3.0 * sizeof(float) * s.count(); }        // read A, B; write C
double transpose_bytes(const Shape& s) { return 2.0 * sizeof(float) * s.count(); }  // read in; write out

// The yardstick: cudaMemcpyAsync device to device of one M x N float matrix, timed like every
// kernel (warm-up, L2 flushed before each call, median), bytes read + written. Measured once
// per run; its result is checked too.
double copy_gbs() {
  static std::optional<double> measured;
  if (measured) return *measured;
  const Shape s = perf_shape();
  const std::size_t bytes = s.count() * sizeof(float);
  const auto src_host = workbook::random_floats(s.count(), workbook::derive_seed(grading::seed(), 99));
  workbook::Stream stream;
  DeviceBuffer<float> src(src_host), dst(s.count());
  const auto t = workbook::time_gpu(
      stream, [&] { CUDA_CHECK(cudaMemcpyAsync(dst.data(), src.data(), bytes, cudaMemcpyDeviceToDevice, stream)); }, {},
      {}, grading::timing_options());
  if (dst.download() != src_host) throw std::runtime_error("the device-to-device copy gave a wrong result");
  measured = gbs(2.0 * bytes, t.ms.median);
  std::cout << "  copy bandwidth (cudaMemcpyAsync D2D, " << s.str() << ", read + written): " << *measured
            << " GB/s, median " << t.ms.median << " ms" << std::endl;
  return *measured;
}

struct Measured {
  workbook::Timing timing;
  double bytes = 0;
  std::size_t wrong_calls = 0;  // timed calls whose output was wrong
  std::string first_wrong;
};

// Times a kernel at the performance size: every call (warm-up and timed) writes into a
// poisoned output that is checked afterwards, so a kernel cannot be fast by being wrong.
Measured measure_add(const std::string& exercise, const AddLauncher& launch) {
  const Shape s = perf_shape();
  workbook::Stream stream;
  AddCase& c = kept_add_case(s);
  Measured m;
  m.bytes = add_bytes(s);
  // Draws from 16 on (0 and 1 are the correctness cases'), none another timing has had.
  m.timing = workbook::time_gpu(
      stream, [&] { launch(c.a(), c.b(), c.c(), s.M, s.N, stream); },
      [&] { c.draw(16 + grading::timed_draw(), stream); },
      [&] {
        const auto cmp = c.compare(stream);
        if (!cmp.ok() && m.wrong_calls++ == 0) m.first_wrong = describe_wrong(cmp, "C", exercise);
      },
      grading::timing_options());
  return m;
}

Measured measure_transpose(const std::string& exercise, const TransposeLauncher& launch) {
  const Shape s = perf_shape();
  workbook::Stream stream;
  TransposeCase& c = kept_transpose_case(s);
  Measured m;
  m.bytes = transpose_bytes(s);
  m.timing = workbook::time_gpu(
      stream, [&] { launch(c.in(), c.out(), s.M, s.N, stream); }, [&] { c.draw(16 + grading::timed_draw(), stream); },
      [&] {
        const auto cmp = c.compare(stream);
        if (!cmp.ok() && m.wrong_calls++ == 0) m.first_wrong = describe_wrong(cmp, "out", exercise);
      },
      grading::timing_options());
  return m;
}

// One measurement per exercise, shared by its cases (the copy share and the speedup).
const Measured& measured(const std::string& exercise, const std::function<Measured()>& measure) {
  static std::map<std::string, Measured> cache;
  if (auto it = cache.find(exercise); it != cache.end()) return it->second;
  return cache.emplace(exercise, measure()).first->second;
}

// The sequential baseline's median, measured once per machine and size and cached. `prepare`
// sets up the inputs and a zeroed output outside the timed calls (allocating and first touching
// 64 MiB is no part of the program being timed) and returns the call to time.
double baseline_ms(const std::string& what, const std::function<std::function<void()>()>& prepare) {
  const Shape s = perf_shape();
  const auto t = grader::cached_baseline(
      "coalescing/sequential-" + what + "/" + s.str(),
      [&] {
        const auto run = prepare();
        const auto timing = workbook::time_host(run, 5, 3.0, /*warmup=*/1);
        return grader::BaselineTime{timing.ms.median, timing.ms.min, timing.ms.cv, timing.ms.count, false};
      },
      [](const std::string& msg) { std::cout << "  " << msg << std::endl; });
  return t.median_ms;
}

double add_baseline_ms() {
  return baseline_ms("add", [] {
    const Shape s = perf_shape();
    auto A = std::make_shared<std::vector<float>>(workbook::random_floats(s.count(), input_seed(s, 0, 0)));
    auto B = std::make_shared<std::vector<float>>(workbook::random_floats(s.count(), input_seed(s, 0, 1)));
    auto C = std::make_shared<std::vector<float>>(s.count());
    return std::function<void()>(
        [A, B, C, s] { coalescing_grading::sequential_add(A->data(), B->data(), C->data(), s.M, s.N); });
  });
}

double transpose_baseline_ms() {
  return baseline_ms("transpose", [] {
    const Shape s = perf_shape();
    auto in = std::make_shared<std::vector<float>>(workbook::random_floats(s.count(), input_seed(s, 0, 2)));
    auto out = std::make_shared<std::vector<float>>(s.count());
    return std::function<void()>(
        [in, out, s] { coalescing_grading::sequential_transpose(in->data(), out->data(), s.M, s.N); });
  });
}

// The numbers every performance case reports (the JSON report keeps them all).
void timing_metrics(const Measured& m, CaseResult& r) {
  const Shape s = perf_shape();
  const double med = m.timing.ms.median;
  r.metrics = {{"M", s.M},
               {"N", s.N},
               {"median_ms", med},
               {"min_ms", m.timing.ms.min},
               {"cv", m.timing.ms.robust_cv},
               {"runs", m.timing.ms.count},
               {"bandwidth_gbs", gbs(m.bytes, med)},
               {"copy_gbs", copy_gbs()},
               {"copy_fraction", gbs(m.bytes, med) / copy_gbs()}};
}

// A wrong result is never fast: it is incorrect, whatever its time.
bool wrong_verdict(const Measured& m, CaseResult& r) {
  if (m.wrong_calls == 0) return false;
  r.outcome = Outcome::Incorrect;
  r.detail = std::to_string(m.wrong_calls) + " of " +
             std::to_string(m.timing.ms.count + grading::timing_options().warmup) +
             " calls (warm-up and timed) gave a wrong result, first: " + m.first_wrong;
  return true;
}

// Speedup = sequential baseline median / kernel median, against exercises.<ex>.min_speedup.
void speedup_case(const std::string& exercise, const std::function<Measured()>& measure,
                  const std::function<double()>& baseline) {
  GRADE_CASE(exercise, "performance", "speedup at " + perf_shape().str(), [&](CaseResult& r) {
    const Measured& m = measured(exercise, measure);
    const double base_ms = baseline();
    const double min_speedup = grading::threshold("exercises." + exercise + ".min_speedup");
    timing_metrics(m, r);
    const double speedup = base_ms / m.timing.ms.median;
    r.metrics["baseline_ms"] = base_ms;
    r.metrics["speedup"] = speedup;
    r.metrics["min_speedup"] = min_speedup;
    if (wrong_verdict(m, r)) return;
    if (speedup >= min_speedup) {
      r.outcome = Outcome::Passed;
      return;
    }
    r.outcome = Outcome::TooSlow;
    std::ostringstream d;
    d.precision(3);
    d << "median " << m.timing.ms.median << " ms is " << speedup << "x the sequential baseline (" << base_ms
      << " ms); needs " << min_speedup << "x, i.e. at most " << base_ms / min_speedup << " ms";
    r.detail = d.str();
  });
}

// Achieved bandwidth / copy bandwidth, against exercises.<ex>.min_copy_fraction. The report
// shows the share as "0.93x (needs >= 0.70x)".
void copy_share_case(const std::string& exercise, const std::function<Measured()>& measure) {
  GRADE_CASE(exercise, "performance", "share of copy at " + perf_shape().str(), [&](CaseResult& r) {
    const Measured& m = measured(exercise, measure);
    const double min_fraction = grading::threshold("exercises." + exercise + ".min_copy_fraction");
    timing_metrics(m, r);
    const double fraction = r.metrics["copy_fraction"].get<double>();
    r.metrics["ratio"] = fraction;
    r.metrics["min_ratio"] = min_fraction;
    if (wrong_verdict(m, r)) return;
    if (fraction >= min_fraction) {
      r.outcome = Outcome::Passed;
      return;
    }
    r.outcome = Outcome::TooSlow;
    std::ostringstream d;
    d.precision(3);
    d << gbs(m.bytes, m.timing.ms.median) << " GB/s is " << 100 * fraction << "% of the copy bandwidth (" << copy_gbs()
      << " GB/s); needs " << 100 * min_fraction << "%, i.e. a median of at most "
      << m.timing.ms.median * fraction / min_fraction << " ms";
    r.detail = d.str();
  });
}

std::function<Measured()> add_timing(const std::string& exercise, const AddLauncher& launch) {
  return [=] { return measure_add(exercise, launch); };
}
std::function<Measured()> transpose_timing(const std::string& exercise, const TransposeLauncher& launch) {
  return [=] { return measure_transpose(exercise, launch); };
}

// The two performance cases of a kernel that should run near the copy bandwidth: its share of
// the copy and its speedup over the sequential baseline, from one measurement.
void bandwidth_cases(const std::string& exercise, const std::function<Measured()>& timing,
                     const std::function<double()>& baseline) {
  grading::plan(exercise, "performance", 2);
  copy_share_case(exercise, timing);
  speedup_case(exercise, timing, baseline);
}

}  // namespace

// ---- Part 1: matrix add ------------------------------------------------------------------------

TEST_CASE("add_x_cols: correct on every shape", "[add_x_cols][correctness]") {
  check_add("add_x_cols", coalescing::add_x_cols);
}

TEST_CASE("add_x_cols: share of the copy bandwidth, speedup over the sequential baseline",
          "[add_x_cols][performance]") {
  bandwidth_cases("add_x_cols", add_timing("add_x_cols", coalescing::add_x_cols), add_baseline_ms);
}

TEST_CASE("add_x_rows: correct on every shape", "[add_x_rows][correctness]") {
  check_add("add_x_rows", coalescing::add_x_rows);
}

TEST_CASE("add_x_rows: speedup over the sequential baseline (lenient)", "[add_x_rows][performance]") {
  speedup_case("add_x_rows", add_timing("add_x_rows", coalescing::add_x_rows), add_baseline_ms);
}

TEST_CASE("add_per_row: correct on every shape", "[add_per_row][correctness]") {
  check_add("add_per_row", coalescing::add_per_row);
}

TEST_CASE("add_per_row: speedup over the sequential baseline (lenient)", "[add_per_row][performance]") {
  speedup_case("add_per_row", add_timing("add_per_row", coalescing::add_per_row), add_baseline_ms);
}

TEST_CASE("add_per_column: correct on every shape", "[add_per_column][correctness]") {
  check_add("add_per_column", coalescing::add_per_column);
}

TEST_CASE("add_per_column: speedup over the sequential baseline (lenient)", "[add_per_column][performance]") {
  speedup_case("add_per_column", add_timing("add_per_column", coalescing::add_per_column), add_baseline_ms);
}

// ---- Part 2: transpose -------------------------------------------------------------------------

TEST_CASE("transpose_naive: correct on every shape", "[transpose_naive][correctness]") {
  check_transpose("transpose_naive", coalescing::transpose_naive);
}

TEST_CASE("transpose_naive: speedup over the sequential baseline (lenient)", "[transpose_naive][performance]") {
  speedup_case("transpose_naive", transpose_timing("transpose_naive", coalescing::transpose_naive),
               transpose_baseline_ms);
}

TEST_CASE("transpose_tiled: correct on every shape", "[transpose_tiled][correctness]") {
  check_transpose("transpose_tiled", coalescing::transpose_tiled);
}

TEST_CASE("transpose_tiled: stages the tile in shared memory", "[transpose_tiled][static]") {
  check_uses_shared("transpose_tiled", "transposeTiledKernel");
}

TEST_CASE("transpose_tiled: share of the copy bandwidth, speedup over the sequential baseline",
          "[transpose_tiled][performance]") {
  bandwidth_cases("transpose_tiled", transpose_timing("transpose_tiled", coalescing::transpose_tiled),
                  transpose_baseline_ms);
}

TEST_CASE("transpose_padded: correct on every shape", "[transpose_padded][correctness]") {
  check_transpose("transpose_padded", coalescing::transpose_padded);
}

TEST_CASE("transpose_padded: stages the tile in shared memory", "[transpose_padded][static]") {
  check_uses_shared("transpose_padded", "transposePaddedKernel");
}

TEST_CASE("transpose_padded: share of the copy bandwidth, speedup over the sequential baseline",
          "[transpose_padded][performance]") {
  bandwidth_cases("transpose_padded", transpose_timing("transpose_padded", coalescing::transpose_padded),
                  transpose_baseline_ms);
}

// ---- leaderboard -------------------------------------------------------------------------------

// The leaderboard (`grader leaderboard coalescing`, docs/leaderboard-guide.md): hidden tests ([.]),
// run only when asked for by tag. Every call, warm-up included, gets fresh inputs made on the GPU
// from the run's seed and the call's number, and every element of its output is checked there
// against the inputs made again from the same seed (leaderboard_kernels.cu), with the grading's
// tolerances (contest.hpp has the other rules). The size is [leaderboard] size.
//
// Raced: add_x_cols (coalesced add) and the two tiled transposes, the exercises whose point is
// speed. The uncoalesced mappings and transpose_naive are not: they are slow by design, and a race
// would reward rewriting them into the mapping they exist to measure.
namespace {

Shape leaderboard_shape() {
  const auto size = grading::config().int_list("leaderboard.size");
  if (size.size() != 2) throw grader::ConfigError("leaderboard.size must be [M, N]");
  return {size[0], size[1]};
}

void leaderboard_add(const std::string& exercise, const AddLauncher& launch) {
  const Shape s = leaderboard_shape();
  workbook::Stream stream;
  DeviceBuffer<float> A(s.count()), B(s.count()), C(s.count());
  const std::uint64_t seed = grading::seed();
  const auto result = workbook::time_contest(
      stream,
      [&](int call) {
        coalescing_grading::fill_random(A.data(), s.count(), seed, 2 * call, stream);
        coalescing_grading::fill_random(B.data(), s.count(), seed, 2 * call + 1, stream);
        C.poison(stream);
      },
      [&] { launch(A.data(), B.data(), C.data(), s.M, s.N, stream); },
      [&](int call) {
        const auto cmp =
            coalescing_grading::check_add(C.data(), s.M, s.N, seed, 2 * call, 2 * call + 1, kAddTolerance, stream);
        return cmp.ok() ? std::string() : cmp.describe("C");
      },
      grading::contest_options());
  grading::record_own_entry(exercise, result);
}

void leaderboard_transpose(const std::string& exercise, const TransposeLauncher& launch) {
  const Shape s = leaderboard_shape();
  workbook::Stream stream;
  DeviceBuffer<float> in(s.count()), out(s.count());
  const std::uint64_t seed = grading::seed();
  const auto result = workbook::time_contest(
      stream,
      [&](int call) {
        coalescing_grading::fill_random(in.data(), s.count(), seed, call, stream);
        out.poison(stream);
      },
      [&] { launch(in.data(), out.data(), s.M, s.N, stream); },
      [&](int call) {
        const auto cmp = coalescing_grading::check_transpose(out.data(), s.M, s.N, seed, call, stream);
        return cmp.ok() ? std::string() : cmp.describe("out") + " (out is N x M: out[col][row] = in[row][col])";
      },
      grading::contest_options());
  grading::record_own_entry(exercise, result);
}

}  // namespace

TEST_CASE("add_x_cols: leaderboard timing", "[add_x_cols][leaderboard][.]") {
  leaderboard_add("add_x_cols", coalescing::add_x_cols);
}
TEST_CASE("transpose_tiled: leaderboard timing", "[transpose_tiled][leaderboard][.]") {
  leaderboard_transpose("transpose_tiled", coalescing::transpose_tiled);
}
TEST_CASE("transpose_padded: leaderboard timing", "[transpose_padded][leaderboard][.]") {
  leaderboard_transpose("transpose_padded", coalescing::transpose_padded);
}

// The sequential baselines alone (hidden: `grader calibrate` runs them where there is no
// reference solution to time, to learn this CPU's speed; the times land in the baseline cache).
TEST_CASE("the sequential baselines, for grader calibrate", "[baseline][.]") {
  CHECK(add_baseline_ms() > 0);
  CHECK(transpose_baseline_ms() > 0);
}
