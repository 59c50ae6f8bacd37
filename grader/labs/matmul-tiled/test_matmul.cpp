// The grader's tests for matmul-tiled. The same file builds against labs/matmul-tiled (what a
// student runs) and against solutions/matmul-tiled (what the project's own tests require to
// pass). Tags: [naive] [tiled] x [correctness] [static] [performance] [leaderboard] (hidden).
#include "device_product.hpp"
#include "grader/grading.hpp"
#include "grader/verdicts.hpp"
#include "matmul.h"
#include "product.hpp"
#include "workbook/contest.hpp"

#include <optional>
#include <vector>

namespace {

using grader::CaseResult;
using product_grading::Launcher;
using product_grading::Measured;
using product_grading::Shape;

// Awkward shapes on purpose: 1x1, exact tiles, sizes that are not multiples of 16 or 32,
// rectangular and degenerate (a single row, a single column, K = 1), primes, and one large size.
const std::vector<Shape> kShapes = {
    {1, 1, 1},   {16, 16, 16}, {32, 32, 32}, {33, 17, 45},    {127, 131, 137},
    {1, 300, 7}, {300, 1, 5},  {64, 48, 1},  {512, 384, 257}, {1024, 768, 1000},
};

// Every shape (product_grading::check_shapes), then the instructor's hidden shapes.
int correctness_cases() {
  return product_grading::shape_cases(kShapes) + static_cast<int>(grading::hidden_shapes().size());
}

void check_correctness(const std::string& exercise, const std::string& prefix, const Launcher& launch) {
  product_grading::check_shapes(exercise, prefix, kShapes, launch, "matmul.cu");
  product_grading::check_hidden_shapes(exercise, prefix, launch, "matmul.cu");
}

// ---- performance --------------------------------------------------------------------------

Shape perf_shape() { return product_grading::config_shape("performance.size"); }

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
    grading::shared_memory_verdict(r, "matmul.cu", "tiledKernel", "the tiles Mds and Nds belong in shared memory");
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
    grading::threshold_verdict(r, n.wrong_calls > 0 || tiled32->wrong_calls > 0,
                               "both naive and tiled must be correct before their times can be compared", ratio,
                               min_ratio, [&](std::ostream& d) {
                                 d << "tiled (32) takes " << tiled32->timing.ms.median << " ms, naive "
                                   << n.timing.ms.median << " ms: " << ratio << "x; needs " << min_ratio << "x";
                               });
  });
}

// The leaderboard (`grader leaderboard matmul-tiled`, docs/leaderboard-guide.md): hidden tests
// ([.]), run only when asked for by tag. Every call, warm-up included, gets fresh inputs made on
// the GPU from the run's seed and the call's number, and its output is checked against a double
// precision product (contest.hpp has the other rules). The size is [leaderboard] size.
TEST_CASE("naive: leaderboard timing", "[naive][leaderboard][.]") { product_grading::leaderboard_case("naive", naive); }
TEST_CASE("tiled: leaderboard timing (TILE_WIDTH 32)", "[tiled][leaderboard][.]") {
  product_grading::leaderboard_case("tiled", tiled(32));
}

// The sequential baseline alone (hidden: `grader calibrate` runs it where there is no reference
// solution to time, to learn this CPU's speed; the time lands in the baseline cache).
TEST_CASE("the sequential baseline, for grader calibrate", "[baseline][.]") { CHECK(baseline_ms() > 0); }
