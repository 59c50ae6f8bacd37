// The grader's tests for matmul-tiled. The same file builds against labs/matmul-tiled (what a
// student runs) and against solutions/matmul-tiled (what the project's own tests require to
// pass). Tags: [naive] [tiled] x [correctness] [static] [performance] [leaderboard] (hidden).
#include "device_product.hpp"
#include "grader/grading.hpp"
#include "grader/static_check.hpp"
#include "matmul.h"
#include "product.hpp"
#include "workbook/contest.hpp"

#include <fstream>
#include <optional>
#include <sstream>

namespace {

using grader::CaseResult;
using grader::Outcome;
using product_grading::Draw;
using product_grading::Launcher;
using product_grading::Measured;
using product_grading::Shape;
using product_grading::Values;

// Awkward shapes on purpose: 1x1, exact tiles, sizes that are not multiples of 16 or 32,
// rectangular and degenerate (a single row, a single column, K = 1), primes, and one large size.
const Shape kShapes[] = {
    {1, 1, 1},   {16, 16, 16}, {32, 32, 32}, {33, 17, 45},    {127, 131, 137},
    {1, 300, 7}, {300, 1, 5},  {64, 48, 1},  {512, 384, 257}, {1024, 768, 1000},
};

void run_once(const Shape& s, Draw draw, const Launcher& launch, CaseResult& r) {
  product_grading::run_case(s, draw, launch, 0, "matmul.cu", r);
}

// Every shape, with exact and float inputs; small shapes twice on fresh inputs, so that a race
// (a missing __syncthreads) that gets lucky once is caught the next time.
int correctness_cases() {
  int n = static_cast<int>(grading::hidden_shapes().size());
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
          run_once(s, {v, std::uint64_t(repeat)}, launch, r);
        });
      }
    }
  }
  // The instructor's hidden shapes ([hidden] shapes, each [M, N, K]), float inputs, once each.
  for (const auto& h : grading::hidden_shapes()) {
    const Shape s{h[0], h[1], h[2]};
    GRADE_HIDDEN_CASE(exercise, "correctness", prefix, [&](CaseResult& r) { run_once(s, {}, launch, r); });
  }
}

// ---- performance --------------------------------------------------------------------------

Shape perf_shape() {
  const auto size = grading::config().int_list("performance.size");
  if (size.size() != 3) throw grader::ConfigError("performance.size must be [M, N, K]");
  return {size[0], size[1], size[2]};
}

// Every timed call on fresh inputs, checked in full (product_grading::measure).
Measured measure(const std::string& exercise, const Launcher& launch) {
  return product_grading::measure(perf_shape(), launch, exercise, "matmul.cu");
}

double baseline_ms() { return product_grading::baseline_ms("matmul-tiled", perf_shape()); }

// Grades a measured kernel against its speedup threshold at performance.size.
void speedup_verdict(const Measured& m, double min_speedup, CaseResult& r) {
  product_grading::speedup_verdict(perf_shape(), m, baseline_ms(), min_speedup, r);
}

const Launcher naive = [](const float* A, const float* B, float* C, int M, int N, int K, cudaStream_t s) {
  matmul::naive(A, B, C, M, N, K, s);
};
Launcher tiled(int tile_width) {
  return [tile_width](const float* A, const float* B, float* C, int M, int N, int K, cudaStream_t s) {
    matmul::tiled(A, B, C, M, N, K, tile_width, s);
  };
}

// naive's measurement, kept for tiled's "faster than naive" case whichever runs first.
const Measured& naive_measured() {
  static std::optional<Measured> m;
  if (!m) m = measure("naive", naive);
  return *m;
}

}  // namespace

TEST_CASE("naive: correct on every shape", "[naive][correctness]") {
  grading::plan("naive", "correctness", correctness_cases());
  check_correctness("naive", "", naive);
}

TEST_CASE("naive: speedup over the sequential baseline", "[naive][performance]") {
  GRADE_CASE("naive", "performance", perf_shape().str(), [](CaseResult& r) {
    speedup_verdict(naive_measured(), grading::threshold("exercises.naive.min_speedup"), r);
  });
}

TEST_CASE("tiled: correct on every shape, TILE_WIDTH 16 and 32", "[tiled][correctness]") {
  grading::plan("tiled", "correctness", 2 * correctness_cases());
  for (int tw : {16, 32}) check_correctness("tiled", "tile " + std::to_string(tw) + ": ", tiled(tw));
}

TEST_CASE("tiled: stages tiles in shared memory", "[tiled][static]") {
  GRADE_CASE("tiled", "static", "tiledKernel declares __shared__ tiles", [](CaseResult& r) {
    const auto path = grading::source_file("matmul.cu");
    std::ifstream in(path);
    if (!in) throw std::runtime_error("cannot read " + path.string());
    std::stringstream text;
    text << in.rdbuf();
    // The kernel and every function, macro and file-scope array it reaches: tiles declared in a
    // __device__ helper, or as extern __shared__ at file scope, count.
    const std::string body = grader::kernel_code(text.str(), "tiledKernel");
    if (body.empty()) {
      r.outcome = Outcome::Incorrect;
      r.detail = "no definition of tiledKernel found in matmul.cu (keep the starter's kernel name)";
    } else if (!grader::code_uses(body, "__shared__")) {
      r.outcome = Outcome::Incorrect;
      r.detail =
          "neither tiledKernel nor a function it calls declares a __shared__ array: the tiles Mds and Nds "
          "belong in shared memory";
    } else {
      r.outcome = Outcome::Passed;
    }
  });
}

TEST_CASE("tiled: speedup over the sequential baseline and over naive", "[tiled][performance]") {
  std::optional<Measured> tiled32;
  grading::plan("tiled", "performance", 3);
  for (int tw : {16, 32}) {
    GRADE_CASE("tiled", "performance", "tile " + std::to_string(tw) + ": " + perf_shape().str(), [&](CaseResult& r) {
      const Measured m = measure("tiled", tiled(tw));
      if (tw == 32) tiled32 = m;
      speedup_verdict(m, grading::threshold("exercises.tiled.min_speedup"), r);
    });
  }
  GRADE_CASE("tiled", "performance", "tile 32 faster than naive", [&](CaseResult& r) {
    const double min_ratio = grading::threshold("exercises.tiled.min_speedup_over_naive");
    if (!tiled32) throw std::runtime_error("tile 32 could not be timed");
    const Measured& n = naive_measured();
    const double ratio = n.timing.ms.median / tiled32->timing.ms.median;
    r.metrics = {{"naive_ms", n.timing.ms.median},
                 {"tiled_ms", tiled32->timing.ms.median},
                 {"ratio", ratio},
                 {"min_ratio", min_ratio}};
    if (n.wrong_calls > 0 || tiled32->wrong_calls > 0) {
      r.outcome = Outcome::Incorrect;
      r.detail = "both naive and tiled must be correct before their times can be compared";
    } else if (ratio >= min_ratio) {
      r.outcome = Outcome::Passed;
    } else {
      r.outcome = Outcome::TooSlow;
      std::ostringstream d;
      d.precision(3);
      d << "tiled (32) takes " << tiled32->timing.ms.median << " ms, naive " << n.timing.ms.median << " ms: " << ratio
        << "x; needs " << min_ratio << "x";
      r.detail = d.str();
    }
  });
}

// The leaderboard (`grader leaderboard matmul-tiled`, docs/leaderboard-guide.md): hidden tests
// ([.]), run only when asked for by tag. Every call, warm-up included, gets fresh inputs made on
// the GPU from the run's seed and the call's number, and its output is checked against a double
// precision product (contest.hpp has the other rules). The size is [leaderboard] size.
namespace {

Shape leaderboard_shape() {
  const auto size = grading::config().int_list("leaderboard.size");
  if (size.size() != 3) throw grader::ConfigError("leaderboard.size must be [M, N, K]");
  return {size[0], size[1], size[2]};
}

void leaderboard_case(const std::string& exercise, const Launcher& launch) {
  const Shape s = leaderboard_shape();
  const auto result =
      product_grading::time_product_contest(s.M, s.N, s.K, grading::seed(), launch, grading::contest_options());
  grading::record_leaderboard(exercise, "self", result);
  INFO(result.invalid);
  CHECK(result.valid());
}

}  // namespace

TEST_CASE("naive: leaderboard timing", "[naive][leaderboard][.]") { leaderboard_case("naive", naive); }
TEST_CASE("tiled: leaderboard timing (TILE_WIDTH 32)", "[tiled][leaderboard][.]") {
  leaderboard_case("tiled", tiled(32));
}

// The sequential baseline alone (hidden: `grader calibrate` runs it where there is no reference
// solution to time, to learn this CPU's speed; the time lands in the baseline cache).
TEST_CASE("the sequential baseline, for grader calibrate", "[baseline][.]") { CHECK(baseline_ms() > 0); }
