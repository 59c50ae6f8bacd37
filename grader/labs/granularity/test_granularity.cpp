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
#include "grader/verdicts.hpp"
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
#include <utility>
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
const std::vector<Shape> kShapes = {
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

// Every shape (product_grading::check_shapes); then the offset pointers, once with each kind of
// input; then the instructor's hidden shapes.
int correctness_cases() {
  // the offset shape twice, the hidden ones
  return product_grading::shape_cases(kShapes) + 2 + static_cast<int>(grading::hidden_shapes().size());
}

void check_correctness(const std::string& exercise, const std::string& prefix, const Launcher& launch) {
  product_grading::check_shapes(exercise, prefix, kShapes, launch, exercise + ".cu");
  for (Values v : {Values::SmallIntegers, Values::Floats}) {
    const std::string name = prefix + kOffsetShape.str() + (v == Values::SmallIntegers ? " ints" : " floats") +
                             ", pointers 4 bytes off 16-byte alignment";
    GRADE_CASE(exercise, "correctness", name, [&](CaseResult& r) { run_once(kOffsetShape, {v, 0}, launch, 1, r); });
  }
  product_grading::check_hidden_shapes(exercise, prefix, launch, exercise + ".cu");
}

// ---- performance --------------------------------------------------------------------------

Shape perf_shape() { return product_grading::config_shape("performance.size"); }
Shape relative_shape() { return product_grading::config_shape("performance.relative_size"); }

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
  grading::threshold_verdict(r, m.wrong_calls > 0, wrong_calls_detail(m), ratio, min_ratio, [&](std::ostream& d) {
    d << "median " << med << " ms against the tiled kernel's " << tiled_ms << " ms: " << ratio << "x; needs "
      << min_ratio << "x, i.e. at most " << tiled_ms / min_ratio << " ms";
  });
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

// An exercise's launchers, each graded under its prefix ("factor 2: "; "" where there is one).
using Variants = std::vector<std::pair<std::string, Launcher>>;
Variants coarsened_factors() { return {{"factor 2: ", coarsened(2)}, {"factor 4: ", coarsened(4)}}; }

// Plans the exercise's correctness cases, then runs them for every variant.
void correctness_test(const std::string& exercise, const Variants& variants) {
  grading::plan(exercise, "correctness", static_cast<int>(variants.size()) * correctness_cases());
  for (const auto& [prefix, launch] : variants) check_correctness(exercise, prefix, launch);
}

// Plans the exercise's performance cases (two a variant), then runs them.
void performance_test(const std::string& exercise, const Variants& variants) {
  grading::plan(exercise, "performance", 2 * static_cast<int>(variants.size()));
  for (const auto& [prefix, launch] : variants) check_performance(exercise, prefix, launch);
}

}  // namespace

TEST_CASE("coarsened: correct on every shape, COARSE_FACTOR 2 and 4", "[coarsened][correctness]") {
  correctness_test("coarsened", coarsened_factors());
}

TEST_CASE("coarsened: speedup over the sequential baseline and over tiled", "[coarsened][performance]") {
  performance_test("coarsened", coarsened_factors());
}

TEST_CASE("register_1d: correct on every shape", "[register_1d][correctness]") {
  correctness_test("register_1d", {{"", register_1d}});
}

TEST_CASE("register_1d: speedup over the sequential baseline and over tiled", "[register_1d][performance]") {
  performance_test("register_1d", {{"", register_1d}});
}

TEST_CASE("register_2d: loads with float4", "[register_2d][static]") {
  GRADE_CASE("register_2d", "static", "register_2d.cu uses float4", [](CaseResult& r) {
    if (grader::code_uses(grading::source_text("register_2d.cu"), "float4")) {
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
  correctness_test("register_2d", {{"", register_2d}});
}

TEST_CASE("register_2d: speedup over the sequential baseline and over tiled", "[register_2d][performance]") {
  performance_test("register_2d", {{"", register_2d}});
}

// The leaderboard (`grader leaderboard granularity`, docs/leaderboard-guide.md): hidden tests
// ([.]), run only when asked for by tag. As in matmul-tiled, with its GPU helpers: every call,
// warm-up included, gets fresh inputs made on the GPU from the run's seed and the call's number,
// and its output is checked against a double-precision product computed there before the call
// (contest.hpp has the other rules). The size is [leaderboard] size; the CPU reference would
// take tens of seconds per call there.
using product_grading::leaderboard_case;

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
