#include "product.hpp"

#include "device_product.hpp"
#include "grader/baseline_cache.hpp"
#include "grader/device_inputs.hpp"
#include "grader/grading.hpp"
#include "grader/kept_cases.hpp"
#include "grader/verdicts.hpp"
#include "sequential.hpp"
#include "workbook/device_buffer.hpp"
#include "workbook/guarded_buffer.hpp"
#include "workbook/phases.hpp"
#include "workbook/random.hpp"
#include "workbook/stream.hpp"

#include <fmt/format.h>

#include <cfloat>
#include <cmath>
#include <iostream>
#include <memory>
#include <tuple>
#include <vector>

namespace product_grading {
namespace {

using grader::Outcome;
using workbook::Phase;
using workbook::PhaseScope;

// The seeds of A and B for one draw: from the run's seed and a stream number of the shape and
// the draw, so each case's inputs are fixed by the seed alone and adding a case moves no other.
std::pair<std::uint64_t, std::uint64_t> input_seeds(const Shape& s, Draw d) {
  const std::uint64_t stream = (std::uint64_t(s.M) * 1000003u + s.N) * 1000003u + s.K + 7919u * d.number;
  return {workbook::derive_seed(grading::seed(), 2 * stream), workbook::derive_seed(grading::seed(), 2 * stream + 1)};
}

// Exact for small integers; for floats, each of the K additions rounds by up to half an ulp of a
// running sum of order sqrt(K), so K * FLT_EPSILON bounds the error in any order of summation,
// while a dropped or repeated product is off by about 0.3.
workbook::Tolerance tolerance(const Shape& s, Values v) {
  return v == Values::SmallIntegers ? workbook::Tolerance::exact()
                                    : workbook::Tolerance{s.K * double(FLT_EPSILON), 1e-5};
}

// A, B and C of one shape on the device, `offset` floats into guarded allocations (NaN around
// them), and the expected product. The inputs are drawn, and the product computed, in buffers of
// the grader's own that the submission never sees; only then are they copied into A and B, just
// before the call: a thread of the submission's watching its buffers for the next inputs gets
// them microseconds before the clock starts, not the whole time the expected product takes.
class DeviceCase {
public:
  DeviceCase(const Shape& s, int offset)
      : s_(s),
        offset_(offset),
        A_(std::size_t(s.M) * s.K + offset),
        B_(std::size_t(s.K) * s.N + offset),
        C_(std::size_t(s.M) * s.N + offset),
        A_drawn_(std::size_t(s.M) * s.K),
        B_drawn_(std::size_t(s.K) * s.N),
        E_(std::size_t(s.M) * s.N) {}
  // What a case of that shape and offset takes of the GPU's memory (KeptCases' budget).
  static double allocated_bytes(const Shape& s, int offset) {
    using Guarded = workbook::GuardedBuffer<float>;
    const std::size_t a = std::size_t(s.M) * s.K, b = std::size_t(s.K) * s.N, c = std::size_t(s.M) * s.N;
    return double(Guarded::allocated_bytes(a + offset) + Guarded::allocated_bytes(b + offset) +
                  Guarded::allocated_bytes(c + offset) + workbook::allocated_bytes(a * sizeof(float)) +
                  workbook::allocated_bytes(b * sizeof(float)) + workbook::allocated_bytes(c * sizeof(double)));
  }

  float* a() { return A_.data() + offset_; }
  float* b() { return B_.data() + offset_; }
  float* c() { return C_.data() + offset_; }

  // New inputs, C poisoned, the expected product computed; `stream` is idle when this returns.
  void draw(Draw d, cudaStream_t stream) {
    const std::size_t na = A_drawn_.size(), nb = B_drawn_.size();
    {
      PhaseScope phase(Phase::Inputs);
      const auto [seed_a, seed_b] = input_seeds(s_, d);
      if (d.values == Values::SmallIntegers) {
        grading::device::fill_small_ints(A_drawn_.data(), na, seed_a, stream);
        grading::device::fill_small_ints(B_drawn_.data(), nb, seed_b, stream);
      } else {
        grading::device::fill_floats(A_drawn_.data(), na, seed_a, stream);
        grading::device::fill_floats(B_drawn_.data(), nb, seed_b, stream);
      }
      tol_ = tolerance(s_, d.values);
    }
    {
      PhaseScope phase(Phase::Reference);
      expected_product(A_drawn_.data(), B_drawn_.data(), E_.data(), nullptr, s_.M, s_.N, s_.K, stream);
    }
    PhaseScope phase(Phase::Inputs);
    A_.poison(stream);
    B_.poison(stream);
    C_.poison(stream);
    CUDA_CHECK(cudaMemcpyAsync(a(), A_drawn_.data(), na * sizeof(float), cudaMemcpyDeviceToDevice, stream));
    CUDA_CHECK(cudaMemcpyAsync(b(), B_drawn_.data(), nb * sizeof(float), cudaMemcpyDeviceToDevice, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
  }

  workbook::Comparison compare(cudaStream_t stream) {
    PhaseScope phase(Phase::Check);
    return grading::device::compare(c(), E_.data(), s_.M, s_.N, tol_, stream);
  }

  // Nothing written before C's offset or past either end of its allocation.
  bool wrote_only_c() {
    PhaseScope phase(Phase::Check);
    std::vector<float> front(offset_);
    if (offset_ > 0) CUDA_CHECK(cudaMemcpy(front.data(), C_.data(), offset_ * sizeof(float), cudaMemcpyDeviceToHost));
    for (float x : front)
      if (!workbook::is_poison(x)) return false;
    return C_.intact_guards();
  }

private:
  Shape s_;
  int offset_;
  workbook::GuardedBuffer<float> A_, B_, C_;         // what the call sees
  workbook::DeviceBuffer<float> A_drawn_, B_drawn_;  // the grader's own
  workbook::DeviceBuffer<double> E_;
  workbook::Tolerance tol_;
};

// The DeviceCase of a shape and offset, kept from case to case (grader/kept_cases.hpp says why
// and what draw() must do for it): a shape comes back in every draw and every exercise.
DeviceCase& kept_case(const Shape& s, int offset) {
  static grading::KeptCases<DeviceCase, std::tuple<int, int, int, int>> kept(1.5 * (1ull << 30));
  return kept.get({s.M, s.N, s.K, offset}, DeviceCase::allocated_bytes(s, offset),
                  [&] { return std::make_unique<DeviceCase>(s, offset); });
}

// "C[0][0]: expected 3, got nan; ...", plus where to look when nothing at all was written (the
// usual first report) or when a NaN came from reading past an input.
std::string describe_wrong(const workbook::Comparison& cmp, const std::string& exercise, const std::string& file) {
  std::string detail = cmp.describe("C");
  if (cmp.nothing_written())
    detail += "; nothing was written to C: see the TODO(" + exercise + ") steps in " + file;
  else if (!cmp.first_unwritten && std::isnan(cmp.got))
    detail +=
        "; A and B hold NaN just past their ends: a load of an element outside the matrix (a tile that "
        "overhangs the edge) needs the same bounds check as the store, and 0 in its place";
  return detail;
}

}  // namespace

bool is_large(const Shape& s) { return double(s.M) * s.N * s.K > 64e6; }

Shape config_shape(const std::string& key) {
  const auto size = grading::config().int_list(key);
  if (size.size() != 3) throw grader::ConfigError(key + " must be [M, N, K]");
  return {size[0], size[1], size[2]};
}

void run_case(const Shape& s, Draw draw, const Launcher& launch, int offset, const std::string& file,
              grader::CaseResult& r) {
  workbook::Stream stream;
  DeviceCase& dc = kept_case(s, offset);
  dc.draw(draw, stream);
  {
    PhaseScope phase(Phase::Call);
    launch(dc.a(), dc.b(), dc.c(), s.M, s.N, s.K, stream);
    stream.synchronize();
  }
  const auto cmp = dc.compare(stream);
  r.metrics = {{"M", s.M}, {"N", s.N}, {"K", s.K}, {"wrong", cmp.wrong}, {"max_abs_error", cmp.max_abs_error}};
  if (offset) r.metrics["pointer_offset_bytes"] = offset * int(sizeof(float));
  if (!cmp.ok()) {
    r.outcome = Outcome::Incorrect;
    r.detail = describe_wrong(cmp, r.exercise, file);
  } else if (!dc.wrote_only_c()) {
    r.outcome = Outcome::Incorrect;
    r.detail = "wrote outside C (memory just before or after C changed): check Row < M && Col < N";
  } else {
    r.outcome = Outcome::Passed;
  }
}

int shape_cases(const std::vector<Shape>& shapes) {
  int n = 0;
  for (const Shape& s : shapes) n += 2 * (is_large(s) ? 1 : 2);
  return n;
}

void check_shapes(const std::string& exercise, const std::string& prefix, const std::vector<Shape>& shapes,
                  const Launcher& launch, const std::string& file) {
  for (const Shape& s : shapes) {
    const bool large = is_large(s);
    if (large && grading::fewer_cases()) continue;
    for (Values v : {Values::SmallIntegers, Values::Floats}) {
      for (int repeat = 0; repeat < (large || grading::fewer_cases() ? 1 : 2); ++repeat) {
        const std::string name =
            prefix + s.str() + (v == Values::SmallIntegers ? " ints" : " floats") + (repeat ? " #2" : "");
        GRADE_CASE(exercise, "correctness", name, [&](grader::CaseResult& r) {
          run_case(s, {v, std::uint64_t(repeat)}, launch, 0, file, r);
        });
      }
    }
  }
}

void check_hidden_shapes(const std::string& exercise, const std::string& prefix, const Launcher& launch,
                         const std::string& file) {
  for (const auto& h : grading::hidden_shapes()) {
    const Shape s{h[0], h[1], h[2]};
    GRADE_HIDDEN_CASE(exercise, "correctness", prefix,
                      [&](grader::CaseResult& r) { run_case(s, {}, launch, 0, file, r); });
  }
}

std::string Measured::wrong_calls_detail() const {
  return fmt::format("{} of {} calls (warm-up and timed) gave a wrong result, first: {}", wrong_calls,
                     timing.ms.count + grading::timing_options().warmup, first_wrong);
}

Measured measure(const Shape& s, const Launcher& launch, const std::string& exercise, const std::string& file) {
  workbook::Stream stream;
  DeviceCase& dc = kept_case(s, 0);
  Measured m;
  m.timing = workbook::time_gpu(
      stream, [&] { launch(dc.a(), dc.b(), dc.c(), s.M, s.N, s.K, stream); },
      [&] {
        dc.draw({Values::Floats, 16 + grading::timed_draw()}, stream);
      },  // 0 and 1 are the correctness cases'
      [&] {
        const auto cmp = dc.compare(stream);
        if (!cmp.ok() && m.wrong_calls++ == 0) m.first_wrong = describe_wrong(cmp, exercise, file);
      },
      grading::timing_options());
  return m;
}

double gflops(const Shape& s, double ms) { return 2.0 * s.M * s.N * s.K / (ms * 1e-3) / 1e9; }

nlohmann::json timing_metrics(const Shape& s, const Measured& m) {
  const auto& t = m.timing.ms;
  return {{"M", s.M},
          {"N", s.N},
          {"K", s.K},
          {"median_ms", t.median},
          {"min_ms", t.min},
          {"cv", t.robust_cv},
          {"runs", t.count},
          {"gflops", gflops(s, t.median)},
          {"tail_ms", m.timing.tail_ms}};
}

void speedup_verdict(const Shape& s, const Measured& m, double base_ms, double min_speedup, grader::CaseResult& r) {
  const double med = m.timing.ms.median, speedup = base_ms / med;
  r.metrics = timing_metrics(s, m);
  r.metrics["baseline_ms"] = base_ms;
  r.metrics["speedup"] = speedup;
  r.metrics["min_speedup"] = min_speedup;
  if (m.wrong_calls > 0) {
    r.outcome = Outcome::Incorrect;
    r.detail = m.wrong_calls_detail();
  } else if (speedup >= min_speedup) {
    r.outcome = Outcome::Passed;
  } else {
    r.outcome = Outcome::TooSlow;
    r.detail = fmt::format(
        "median {:.3g} ms is {:.3g}x the sequential baseline ({:.3g} ms); needs {:.3g}x, i.e. at most "
        "{:.3g} ms",
        med, speedup, base_ms, min_speedup, base_ms / min_speedup);
  }
}

void leaderboard_case(const std::string& exercise, const Launcher& launch) {
  const Shape s = config_shape("leaderboard.size");
  const auto result = time_product_contest(s.M, s.N, s.K, grading::seed(), launch, grading::contest_options());
  grading::record_own_entry(exercise, result);
}

double baseline_ms(const std::string& lab, const Shape& s) {
  const auto t = grader::cached_baseline(
      lab + "/sequential/" + s.str(),
      [&] {
        const auto [seed_a, seed_b] = input_seeds(s, {Values::Floats, 0});
        const auto A = workbook::random_floats(std::size_t(s.M) * s.K, seed_a);
        const auto B = workbook::random_floats(std::size_t(s.K) * s.N, seed_b);
        std::vector<float> C(std::size_t(s.M) * s.N);
        const auto timing =
            workbook::time_host([&] { sequential(A.data(), B.data(), C.data(), s.M, s.N, s.K); }, 3, 10.0);
        return grader::BaselineTime{timing.ms.median, timing.ms.min, timing.ms.cv, timing.ms.count, false};
      },
      [](const std::string& msg) { std::cout << "  " << msg << std::endl; });
  return t.median_ms;
}

}  // namespace product_grading
