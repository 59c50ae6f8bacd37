// The grader's tests for matmul-tiled. The same file builds against labs/matmul-tiled (what a
// student runs) and against solutions/matmul-tiled (what the project's own tests require to
// pass). Tags: [naive] [tiled] x [correctness] [static] [performance] [leaderboard] (hidden).
#include "grader/baseline_cache.hpp"
#include "grader/grading.hpp"
#include "grader/static_check.hpp"
#include "leaderboard_kernels.hpp"
#include "matmul.h"
#include "reference.hpp"
#include "sequential.hpp"
#include "workbook/compare.hpp"
#include "workbook/contest.hpp"
#include "workbook/guarded_buffer.hpp"
#include "workbook/random.hpp"
#include "workbook/stream.hpp"
#include "workbook/timer.hpp"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>
#include <tuple>

namespace {

using grader::CaseResult;
using grader::Outcome;
using workbook::DeviceBuffer;
using workbook::GuardedBuffer;

struct Shape {
  int M, N, K;
  std::string str() const { return std::to_string(M) + "x" + std::to_string(N) + "x" + std::to_string(K); }
};

// Awkward shapes on purpose: 1x1, exact tiles, sizes that are not multiples of 16 or 32,
// rectangular and degenerate (a single row, a single column, K = 1), primes, and one large size.
const Shape kShapes[] = {
    {1, 1, 1},     {16, 16, 16},    {32, 32, 32},     {33, 17, 45},   {127, 131, 137},
    {1, 300, 7},   {300, 1, 5},     {64, 48, 1},      {512, 384, 257}, {1024, 768, 1000},
};

enum class Values { SmallIntegers, Floats };

struct Problem {
  Shape shape;
  std::vector<float> A, B;
  std::vector<double> C;  // the reference
  workbook::Tolerance tol;
};

// Inputs for one case, from the run's seed and the case's own stream number, so each case's
// inputs are fixed by the seed alone. Cached: the kernels under test share the same problems.
const Problem& problem(const Shape& s, Values values, int repeat) {
  static std::map<std::tuple<int, int, int, int, int>, Problem> cache;
  const auto key = std::make_tuple(s.M, s.N, s.K, static_cast<int>(values), repeat);
  if (auto it = cache.find(key); it != cache.end()) return it->second;

  const std::uint64_t stream = (std::uint64_t(s.M) * 1000003u + s.N) * 1000003u + s.K + 7919u * repeat;
  const auto seed_a = workbook::derive_seed(grading::seed(), 2 * stream);
  const auto seed_b = workbook::derive_seed(grading::seed(), 2 * stream + 1);
  Problem p;
  p.shape = s;
  const std::size_t a_count = std::size_t(s.M) * s.K, b_count = std::size_t(s.K) * s.N;
  if (values == Values::SmallIntegers) {
    // Integers in [-4, 4]: every partial sum stays far below 2^24, so float arithmetic is exact
    // in any order and the answer must match bit for bit.
    p.A = workbook::random_small_ints(a_count, seed_a);
    p.B = workbook::random_small_ints(b_count, seed_b);
    p.tol = workbook::Tolerance::exact();
  } else {
    // Floats in [-1, 1). Each of the K additions into Pvalue rounds by up to half an ulp of the
    // running sum; the sums stay of order sqrt(K), so the accumulated error stays well under
    // K * FLT_EPSILON, whatever the order of summation. A kernel that drops or repeats even one
    // product is off by about 0.3, thousands of times more.
    p.A = workbook::random_floats(a_count, seed_a);
    p.B = workbook::random_floats(b_count, seed_b);
    p.tol = {s.K * double(FLT_EPSILON), 1e-5};
  }
  p.C = matmul_grading::reference(p.A, p.B, s.M, s.N, s.K);
  return cache.emplace(key, std::move(p)).first->second;
}

using Launcher = std::function<void(const float*, const float*, float*, int, int, int, cudaStream_t)>;

// "C[0][0]: expected 3, got nan; ...", plus a pointer to the TODOs when the kernel wrote
// nothing at all (every element still holds the poison's bits): the usual first report.
std::string describe_wrong(const workbook::Comparison& cmp, const std::string& exercise) {
  std::string detail = cmp.describe("C");
  if (cmp.nothing_written())
    detail += "; nothing was written to C: see the TODO(" + exercise + ") steps in matmul.cu";
  return detail;
}

// One call of the kernel on fresh device copies of the problem; the verdict goes into `r`.
void run_once(const Problem& p, const Launcher& launch, CaseResult& r) {
  const auto& s = p.shape;
  workbook::Stream stream;
  DeviceBuffer<float> A(p.A), B(p.B);
  GuardedBuffer<float> C(std::size_t(s.M) * s.N);
  C.poison(stream);
  launch(A.data(), B.data(), C.data(), s.M, s.N, s.K, stream);
  stream.synchronize();
  const auto result = C.download();
  const auto cmp = workbook::compare(result, p.C, s.M, s.N, p.tol);
  r.metrics = {{"M", s.M}, {"N", s.N}, {"K", s.K}, {"wrong", cmp.wrong}, {"max_abs_error", cmp.max_abs_error}};
  if (!cmp.ok()) {
    r.outcome = Outcome::Incorrect;
    r.detail = describe_wrong(cmp, r.exercise);
  } else if (!C.intact_guards()) {
    r.outcome = Outcome::Incorrect;
    r.detail = "wrote outside C (memory just before or after C changed): check Row < M && Col < N";
  } else {
    r.outcome = Outcome::Passed;
  }
}

// Every shape, with exact and float inputs; small shapes twice on fresh inputs, so that a race
// (a missing __syncthreads) that gets lucky once is caught the next time.
bool is_large(const Shape& s) { return double(s.M) * s.N * s.K > 64e6; }

int correctness_cases() {
  int n = static_cast<int>(grading::hidden_shapes().size());
  for (const Shape& s : kShapes) n += 2 * (is_large(s) ? 1 : 2);
  return n;
}

void check_correctness(const std::string& exercise, const std::string& prefix, const Launcher& launch) {
  for (const Shape& s : kShapes) {
    const bool large = is_large(s);
    if (large && grading::fewer_cases()) continue;
    for (Values v : {Values::SmallIntegers, Values::Floats}) {
      for (int repeat = 0; repeat < (large || grading::fewer_cases() ? 1 : 2); ++repeat) {
        const std::string name = prefix + s.str() + (v == Values::SmallIntegers ? " ints" : " floats") +
                                 (repeat ? " #2" : "");
        GRADE_CASE(exercise, "correctness", name, [&](CaseResult& r) { run_once(problem(s, v, repeat), launch, r); });
      }
    }
  }
  // The instructor's hidden shapes ([hidden] shapes, each [M, N, K]), float inputs, once each.
  for (const auto& h : grading::hidden_shapes()) {
    const Shape s{h[0], h[1], h[2]};
    GRADE_HIDDEN_CASE(exercise, "correctness", prefix,
                      [&](CaseResult& r) { run_once(problem(s, Values::Floats, 0), launch, r); });
  }
}

// ---- performance --------------------------------------------------------------------------

Shape perf_shape() {
  const auto size = grading::config().int_list("performance.size");
  if (size.size() != 3) throw grader::ConfigError("performance.size must be [M, N, K]");
  return {size[0], size[1], size[2]};
}

double gflops(const Shape& s, double ms) { return 2.0 * s.M * s.N * s.K / (ms * 1e-3) / 1e9; }

struct Measured {
  workbook::Timing timing;
  std::size_t wrong_calls = 0;  // timed calls whose output was wrong
  std::string first_wrong;
};

// Times the kernel at the performance size: every timed call writes into a poisoned output
// and is checked afterwards, so a kernel cannot be fast by being wrong.
Measured measure(const std::string& exercise, const Launcher& launch) {
  const Shape s = perf_shape();
  const Problem& p = problem(s, Values::Floats, 0);
  workbook::Stream stream;
  DeviceBuffer<float> A(p.A), B(p.B), C(std::size_t(s.M) * s.N);
  Measured m;
  m.timing = workbook::time_gpu(
      stream, [&] { launch(A.data(), B.data(), C.data(), s.M, s.N, s.K, stream); },
      [&] { C.poison(stream); },
      [&] {
        const auto result = C.download();
        const auto cmp = workbook::compare(result, p.C, s.M, s.N, p.tol);
        if (!cmp.ok() && m.wrong_calls++ == 0) m.first_wrong = describe_wrong(cmp, exercise);
      },
      grading::timing_options());
  return m;
}

double baseline_ms() {
  const Shape s = perf_shape();
  const auto t = grader::cached_baseline(
      "matmul-tiled/sequential/" + s.str(),
      [&] {
        const Problem& p = problem(s, Values::Floats, 0);
        std::vector<float> C(std::size_t(s.M) * s.N);
        const auto timing = workbook::time_host(
            [&] { matmul_grading::sequential(p.A.data(), p.B.data(), C.data(), s.M, s.N, s.K); }, 3, 10.0);
        return grader::BaselineTime{timing.ms.median, timing.ms.min, timing.ms.cv, timing.ms.count, false};
      },
      [](const std::string& msg) { std::cout << "  " << msg << std::endl; });
  return t.median_ms;
}

// Grades a measured kernel against its speedup threshold; fills the case's metrics.
void speedup_verdict(const Measured& m, double min_speedup, CaseResult& r) {
  const Shape s = perf_shape();
  const double base = baseline_ms();
  const double med = m.timing.ms.median;
  const double speedup = base / med;
  r.metrics = {{"M", s.M},           {"N", s.N},
               {"K", s.K},           {"median_ms", med},
               {"min_ms", m.timing.ms.min}, {"cv", m.timing.ms.robust_cv},
               {"runs", m.timing.ms.count}, {"gflops", gflops(s, med)},
               {"baseline_ms", base}, {"speedup", speedup},
               {"min_speedup", min_speedup}};
  std::ostringstream detail;
  if (m.wrong_calls > 0) {
    r.outcome = Outcome::Incorrect;
    detail << m.wrong_calls << " of " << m.timing.ms.count + grading::timing_options().warmup
           << " calls (warm-up and timed) gave a wrong result, first: " << m.first_wrong;
  } else if (speedup >= min_speedup) {
    r.outcome = Outcome::Passed;
  } else {
    r.outcome = Outcome::TooSlow;
    detail.precision(3);
    detail << "median " << med << " ms is " << speedup << "x the sequential baseline (" << base
           << " ms); needs " << min_speedup << "x, i.e. at most " << base / min_speedup << " ms";
  }
  r.detail = detail.str();
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
    const std::string body = grader::function_body(text.str(), "tiledKernel");
    if (body.empty()) {
      r.outcome = Outcome::Incorrect;
      r.detail = "no definition of tiledKernel found in matmul.cu (keep the starter's kernel name)";
    } else if (!grader::code_uses(body, "__shared__")) {
      r.outcome = Outcome::Incorrect;
      r.detail = "tiledKernel declares no __shared__ array: the tiles Mds and Nds belong in shared memory";
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
    r.metrics = {{"naive_ms", n.timing.ms.median}, {"tiled_ms", tiled32->timing.ms.median},
                 {"ratio", ratio}, {"min_ratio", min_ratio}};
    if (n.wrong_calls > 0 || tiled32->wrong_calls > 0) {
      r.outcome = Outcome::Incorrect;
      r.detail = "both naive and tiled must be correct before their times can be compared";
    } else if (ratio >= min_ratio) {
      r.outcome = Outcome::Passed;
    } else {
      r.outcome = Outcome::TooSlow;
      std::ostringstream d;
      d.precision(3);
      d << "tiled (32) takes " << tiled32->timing.ms.median << " ms, naive " << n.timing.ms.median
        << " ms: " << ratio << "x; needs " << min_ratio << "x";
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
      matmul_grading::time_product_contest(s.M, s.N, s.K, grading::seed(), launch, grading::contest_options());
  grading::record_leaderboard(exercise, "self", result);
  INFO(result.invalid);
  CHECK(result.valid());
}

}  // namespace

TEST_CASE("naive: leaderboard timing", "[naive][leaderboard][.]") { leaderboard_case("naive", naive); }
TEST_CASE("tiled: leaderboard timing (TILE_WIDTH 32)", "[tiled][leaderboard][.]") { leaderboard_case("tiled", tiled(32)); }

// The sequential baseline alone (hidden: `grader calibrate` runs it where there is no reference
// solution to time, to learn this CPU's speed; the time lands in the baseline cache).
TEST_CASE("the sequential baseline, for grader calibrate", "[baseline][.]") { CHECK(baseline_ms() > 0); }
