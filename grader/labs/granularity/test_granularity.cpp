// The grader's tests for granularity. The same file builds against labs/granularity (what a
// student runs) and against solutions/granularity (what the project's own tests require to
// pass). Tags: [coarsened] [register_1d] [register_2d] x [correctness] [static] [performance]
// [leaderboard] (hidden).
//
// Performance is graded two ways (lab.toml, [performance]):
//   - speedup over the sequential baseline at performance.size (1024^3: the plain CPU loop
//     takes seconds there; at 2048^3 it takes minutes, its B accesses missing every cache);
//   - speedup over the grader's own tiled kernel (TILE_WIDTH 32, tiled_reference.cu) at
//     performance.relative_size (2048^3), large enough for the 128 x 128 tiles of register_2d
//     to give every SM of a large GPU work (16 x 16 = 256 blocks).
#include "device_product.hpp"
#include "grader/grading.hpp"
#include "grader/static_check.hpp"
#include "granularity.h"
#include "product.hpp"
#include "tiled_reference.hpp"
#include "workbook/contest.hpp"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <functional>
#include <iostream>
#include <limits>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

namespace {

using grader::CaseResult;
using grader::Outcome;
using product_grading::Draw;
using product_grading::Launcher;
using product_grading::Measured;
using product_grading::Shape;
using product_grading::Values;

// matmul-tiled's awkward shapes, plus shapes for the register-blocked kernels: an exact 128 x 128
// block tile with a single 8-wide phase, and shapes whose N and K are multiples of 4 (so
// register_2d takes its float4 path) but whose M, N and K are multiples of no tile, so the
// vector loads and stores meet the edges.
const Shape kShapes[] = {
    {1, 1, 1},   {16, 16, 16},  {32, 32, 32},   {33, 17, 45},   {127, 131, 137}, {1, 300, 7},       {300, 1, 5},
    {64, 48, 1}, {128, 128, 8}, {100, 132, 68}, {129, 260, 36}, {512, 384, 257}, {1024, 768, 1000},
};

// N and K are multiples of 4, but every pointer is moved 4 bytes off its 16-byte alignment: a
// kernel that reads or writes float4 without checking the alignment faults here.
const Shape kOffsetShape = {260, 388, 516};

// One call on the case's inputs; offset = 1 moves A, B and C one float (4 bytes) past a 16-byte
// boundary, with NaN in front of each.
void run_once(const Shape& s, Draw draw, const Launcher& launch, int offset, CaseResult& r) {
  product_grading::run_case(s, draw, launch, offset, r.exercise + ".cu", r);
}

// Every shape, with exact and float inputs; small shapes twice on fresh inputs, so that a race
// (a missing __syncthreads) that gets lucky once is caught the next time; then the offset
// pointers, once with each kind of input.
int correctness_cases() {
  int n = 2 + static_cast<int>(grading::hidden_shapes().size());  // the offset shape, the hidden ones
  for (const Shape& s : kShapes) n += 2 * (product_grading::is_large(s) ? 1 : 2);
  return n;
}

void check_correctness(const std::string& exercise, const std::string& prefix, const Launcher& launch) {
  for (const Shape& s : kShapes) {
    const bool large = product_grading::is_large(s);
    if (large && grading::fewer_cases()) continue;
    for (Values v : {Values::SmallIntegers, Values::Floats}) {
      for (int repeat = 0; repeat < (large || grading::fewer_cases() ? 1 : 2); ++repeat) {
        const std::string name =
            prefix + s.str() + (v == Values::SmallIntegers ? " ints" : " floats") + (repeat ? " #2" : "");
        GRADE_CASE(exercise, "correctness", name, [&](CaseResult& r) {
          run_once(s, {v, std::uint64_t(repeat)}, launch, 0, r);
        });
      }
    }
  }
  for (Values v : {Values::SmallIntegers, Values::Floats}) {
    const std::string name = prefix + kOffsetShape.str() + (v == Values::SmallIntegers ? " ints" : " floats") +
                             ", pointers 4 bytes off 16-byte alignment";
    GRADE_CASE(exercise, "correctness", name, [&](CaseResult& r) { run_once(kOffsetShape, {v, 0}, launch, 1, r); });
  }
  // The instructor's hidden shapes ([hidden] shapes, each [M, N, K]), float inputs, once each.
  for (const auto& h : grading::hidden_shapes()) {
    const Shape s{h[0], h[1], h[2]};
    GRADE_HIDDEN_CASE(exercise, "correctness", prefix, [&](CaseResult& r) { run_once(s, {}, launch, 0, r); });
  }
}

// ---- performance --------------------------------------------------------------------------

Shape config_shape(const std::string& key) {
  const auto size = grading::config().int_list(key);
  if (size.size() != 3) throw grader::ConfigError(key + " must be [M, N, K]");
  return {size[0], size[1], size[2]};
}
Shape perf_shape() { return config_shape("performance.size"); }
Shape relative_shape() { return config_shape("performance.relative_size"); }

using product_grading::gflops;

// Times the kernel at shape s: every call on fresh inputs, checked in full (product_grading).
Measured measure(const std::string& exercise, const Launcher& launch, const Shape& s) {
  return product_grading::measure(s, launch, exercise, exercise + ".cu");
}

double baseline_ms() { return product_grading::baseline_ms("granularity", perf_shape()); }

std::string wrong_calls_detail(const Measured& m) { return m.wrong_calls_detail(); }

// Speedup over the sequential baseline, at performance.size.
void speedup_verdict(const Measured& m, double min_speedup, CaseResult& r) {
  product_grading::speedup_verdict(perf_shape(), m, baseline_ms(), min_speedup, r);
}

const Launcher tiled32 = [](const float* A, const float* B, float* C, int M, int N, int K, cudaStream_t s) {
  granularity_grading::tiled32(A, B, C, M, N, K, s);
};

// The yardstick, timed once per run at performance.relative_size.
const Measured& tiled_measured() {
  static std::optional<Measured> m;
  if (!m) m = measure("tiled (grader's)", tiled32, relative_shape());
  return *m;
}

// Speedup over the grader's tiled kernel (TILE_WIDTH 32), both at performance.relative_size.
void over_tiled_verdict(const Measured& m, double min_ratio, CaseResult& r) {
  const Shape s = relative_shape();
  const Measured& t = tiled_measured();
  if (t.wrong_calls > 0) throw std::runtime_error("internal: the grader's tiled kernel gave a wrong result");
  const double med = m.timing.ms.median, tiled_ms = t.timing.ms.median;
  const double ratio = tiled_ms / med;
  r.metrics = product_grading::timing_metrics(s, m);
  r.metrics["tiled_ms"] = tiled_ms;
  r.metrics["tiled_gflops"] = gflops(s, tiled_ms);
  r.metrics["ratio"] = ratio;  // the report prints "4.57x (needs >= 3.40x)"
  r.metrics["min_ratio"] = min_ratio;
  if (m.wrong_calls > 0) {
    r.outcome = Outcome::Incorrect;
    r.detail = wrong_calls_detail(m);
  } else if (ratio >= min_ratio) {
    r.outcome = Outcome::Passed;
  } else {
    r.outcome = Outcome::TooSlow;
    std::ostringstream d;
    d.precision(3);
    d << "median " << med << " ms against the tiled kernel's " << tiled_ms << " ms: " << ratio << "x; needs "
      << min_ratio << "x, i.e. at most " << tiled_ms / min_ratio << " ms";
    r.detail = d.str();
  }
}

// The two performance cases of one launcher: over the sequential baseline, over tiled.
void check_performance(const std::string& exercise, const std::string& prefix, const Launcher& launch) {
  GRADE_CASE(exercise, "performance", prefix + perf_shape().str() + " vs sequential", [&](CaseResult& r) {
    speedup_verdict(measure(exercise, launch, perf_shape()),
                    grading::threshold("exercises." + exercise + ".min_speedup"), r);
  });
  GRADE_CASE(exercise, "performance", prefix + relative_shape().str() + " vs tiled 32", [&](CaseResult& r) {
    over_tiled_verdict(measure(exercise, launch, relative_shape()),
                       grading::threshold("exercises." + exercise + ".min_speedup_over_tiled"), r);
  });
}

Launcher coarsened(int factor) {
  return [factor](const float* A, const float* B, float* C, int M, int N, int K, cudaStream_t s) {
    granularity::coarsened(A, B, C, M, N, K, factor, s);
  };
}
const Launcher register_1d = [](const float* A, const float* B, float* C, int M, int N, int K, cudaStream_t s) {
  granularity::register_1d(A, B, C, M, N, K, s);
};
const Launcher register_2d = [](const float* A, const float* B, float* C, int M, int N, int K, cudaStream_t s) {
  granularity::register_2d(A, B, C, M, N, K, s);
};

std::string read_source(const std::string& name) {
  const auto path = grading::source_file(name);
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read " + path.string());
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

TEST_CASE("coarsened: correct on every shape, COARSE_FACTOR 2 and 4", "[coarsened][correctness]") {
  grading::plan("coarsened", "correctness", 2 * correctness_cases());
  for (int cf : {2, 4}) check_correctness("coarsened", "factor " + std::to_string(cf) + ": ", coarsened(cf));
}

TEST_CASE("coarsened: speedup over the sequential baseline and over tiled", "[coarsened][performance]") {
  grading::plan("coarsened", "performance", 4);
  for (int cf : {2, 4}) check_performance("coarsened", "factor " + std::to_string(cf) + ": ", coarsened(cf));
}

TEST_CASE("register_1d: correct on every shape", "[register_1d][correctness]") {
  grading::plan("register_1d", "correctness", correctness_cases());
  check_correctness("register_1d", "", register_1d);
}

TEST_CASE("register_1d: speedup over the sequential baseline and over tiled", "[register_1d][performance]") {
  grading::plan("register_1d", "performance", 2);
  check_performance("register_1d", "", register_1d);
}

TEST_CASE("register_2d: loads with float4", "[register_2d][static]") {
  GRADE_CASE("register_2d", "static", "register_2d.cu uses float4", [](CaseResult& r) {
    if (grader::code_uses(read_source("register_2d.cu"), "float4")) {
      r.outcome = Outcome::Passed;
    } else {
      r.outcome = Outcome::Incorrect;
      r.detail =
          "register_2d.cu never uses float4 (comments do not count): the exercise asks for 16-byte "
          "vector loads where the alignment allows them";
    }
  });
}

TEST_CASE("register_2d: correct on every shape", "[register_2d][correctness]") {
  grading::plan("register_2d", "correctness", correctness_cases());
  check_correctness("register_2d", "", register_2d);
}

TEST_CASE("register_2d: speedup over the sequential baseline and over tiled", "[register_2d][performance]") {
  grading::plan("register_2d", "performance", 2);
  check_performance("register_2d", "", register_2d);
}

// The leaderboard (`grader leaderboard granularity`, docs/leaderboard-guide.md): hidden tests
// ([.]), run only when asked for by tag. As in matmul-tiled, with its GPU helpers: every call,
// warm-up included, gets fresh inputs made on the GPU from the run's seed and the call's number,
// and its output is checked against a double-precision product computed there before the call
// (contest.hpp has the other rules). The size is [leaderboard] size; the CPU reference would
// take tens of seconds per call there.
namespace {

Shape leaderboard_shape() { return config_shape("leaderboard.size"); }

void leaderboard_case(const std::string& exercise, const Launcher& launch) {
  const Shape s = leaderboard_shape();
  const auto result =
      product_grading::time_product_contest(s.M, s.N, s.K, grading::seed(), launch, grading::contest_options());
  grading::record_leaderboard(exercise, "self", result);
  INFO(result.invalid);
  CHECK(result.valid());
}

}  // namespace

// coarsened races at COARSE_FACTOR 4, the faster of its two factors (as matmul-tiled races
// TILE_WIDTH 32): one time per exercise and entry on the board.
TEST_CASE("coarsened: leaderboard timing (COARSE_FACTOR 4)", "[coarsened][leaderboard][.]") {
  leaderboard_case("coarsened", coarsened(4));
}
TEST_CASE("register_1d: leaderboard timing", "[register_1d][leaderboard][.]") {
  leaderboard_case("register_1d", register_1d);
}
TEST_CASE("register_2d: leaderboard timing", "[register_2d][leaderboard][.]") {
  leaderboard_case("register_2d", register_2d);
}

// The sequential baseline alone (hidden: `grader calibrate` runs it where there is no reference
// solution to time, to learn this CPU's speed; the time lands in the baseline cache).
TEST_CASE("the sequential baseline, for grader calibrate", "[baseline][.]") { CHECK(baseline_ms() > 0); }
