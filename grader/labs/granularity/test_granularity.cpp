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
#include "grader/baseline_cache.hpp"
#include "grader/grading.hpp"
#include "grader/static_check.hpp"
#include "../matmul-tiled/leaderboard_kernels.hpp"  // the same C = A x B: matmul-tiled's GPU helpers
#include "granularity.h"
#include "reference.hpp"
#include "sequential.hpp"
#include "tiled_reference.hpp"
#include "workbook/compare.hpp"
#include "workbook/contest.hpp"
#include "workbook/guarded_buffer.hpp"
#include "workbook/random.hpp"
#include "workbook/stream.hpp"
#include "workbook/timer.hpp"

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
using workbook::DeviceBuffer;
using workbook::GuardedBuffer;

struct Shape {
  int M, N, K;
  std::string str() const { return std::to_string(M) + "x" + std::to_string(N) + "x" + std::to_string(K); }
};

// matmul-tiled's awkward shapes, plus shapes for the register-blocked kernels: an exact 128 x 128
// block tile with a single 8-wide phase, and shapes whose N and K are multiples of 4 (so
// register_2d takes its float4 path) but whose M, N and K are multiples of no tile, so the
// vector loads and stores meet the edges.
const Shape kShapes[] = {
    {1, 1, 1},       {16, 16, 16},   {32, 32, 32},     {33, 17, 45},      {127, 131, 137},
    {1, 300, 7},     {300, 1, 5},    {64, 48, 1},      {128, 128, 8},     {100, 132, 68},
    {129, 260, 36},  {512, 384, 257}, {1024, 768, 1000},
};

// N and K are multiples of 4, but every pointer is moved 4 bytes off its 16-byte alignment: a
// kernel that reads or writes float4 without checking the alignment faults here.
const Shape kOffsetShape = {260, 388, 516};

enum class Values { SmallIntegers, Floats };

struct Problem {
  Shape shape;
  std::vector<float> A, B;
  std::vector<double> C;  // the reference
  workbook::Tolerance tol;
};

// Inputs for one case, from the run's seed and the case's own stream number, so each case's
// inputs are fixed by the seed alone. Cached: the exercises share the same problems.
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
    // Floats in [-1, 1): rounding depends on the order of the additions, which differs between
    // kernels; K * FLT_EPSILON bounds it for any order (see matmul-tiled), while one dropped or
    // repeated product is off by about 0.3.
    p.A = workbook::random_floats(a_count, seed_a);
    p.B = workbook::random_floats(b_count, seed_b);
    p.tol = {s.K * double(FLT_EPSILON), 1e-5};
  }
  p.C = granularity_grading::reference(p.A, p.B, s.M, s.N, s.K);
  return cache.emplace(key, std::move(p)).first->second;
}

using Launcher = std::function<void(const float*, const float*, float*, int, int, int, cudaStream_t)>;

// "C[0][0]: expected 3, got nan; ...", plus a pointer to the TODOs when the kernel wrote
// nothing at all (every element still holds the poison's bits): the usual first report.
std::string describe_wrong(const workbook::Comparison& cmp, const std::string& exercise) {
  std::string detail = cmp.describe("C");
  if (cmp.nothing_written())
    detail += "; nothing was written to C: see the TODO(" + exercise + ") steps in " + exercise + ".cu";
  return detail;
}

bool is_poison(float x) {
  std::uint32_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  return bits == 0xFFFFFFFFu;
}

// One call of the kernel on fresh device copies of the problem; the verdict goes into `r`.
// offset = 1 moves A, B and C one float (4 bytes) past a 16-byte boundary.
void run_once(const Problem& p, const Launcher& launch, int offset, CaseResult& r) {
  const auto& s = p.shape;
  const std::size_t c_count = std::size_t(s.M) * s.N;
  workbook::Stream stream;
  // In front of an offset A and B lies a NaN, so that reading one element too early shows.
  std::vector<float> a(offset, std::numeric_limits<float>::quiet_NaN()), b = a;
  a.insert(a.end(), p.A.begin(), p.A.end());
  b.insert(b.end(), p.B.begin(), p.B.end());
  DeviceBuffer<float> A(a), B(b);
  GuardedBuffer<float> C(c_count + offset);
  C.poison(stream);
  launch(A.data() + offset, B.data() + offset, C.data() + offset, s.M, s.N, s.K, stream);
  stream.synchronize();
  auto all = C.download();
  const bool front_intact = std::all_of(all.begin(), all.begin() + offset, is_poison);
  const std::vector<float> result(all.begin() + offset, all.end());
  const auto cmp = workbook::compare(result, p.C, s.M, s.N, p.tol);
  r.metrics = {{"M", s.M}, {"N", s.N}, {"K", s.K}, {"wrong", cmp.wrong}, {"max_abs_error", cmp.max_abs_error}};
  if (offset) r.metrics["pointer_offset_bytes"] = offset * int(sizeof(float));
  if (!cmp.ok()) {
    r.outcome = Outcome::Incorrect;
    r.detail = describe_wrong(cmp, r.exercise);
  } else if (!front_intact || !C.intact_guards()) {
    r.outcome = Outcome::Incorrect;
    r.detail = "wrote outside C (memory just before or after C changed): check Row < M && Col < N";
  } else {
    r.outcome = Outcome::Passed;
  }
}

// Every shape, with exact and float inputs; small shapes twice on fresh inputs, so that a race
// (a missing __syncthreads) that gets lucky once is caught the next time; then the offset
// pointers, once with each kind of input.
bool is_large(const Shape& s) { return double(s.M) * s.N * s.K > 64e6; }

int correctness_cases() {
  int n = 2 + static_cast<int>(grading::hidden_shapes().size());  // the offset shape, the hidden ones
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
        GRADE_CASE(exercise, "correctness", name,
                   [&](CaseResult& r) { run_once(problem(s, v, repeat), launch, 0, r); });
      }
    }
  }
  for (Values v : {Values::SmallIntegers, Values::Floats}) {
    const std::string name = prefix + kOffsetShape.str() + (v == Values::SmallIntegers ? " ints" : " floats") +
                             ", pointers 4 bytes off 16-byte alignment";
    GRADE_CASE(exercise, "correctness", name,
               [&](CaseResult& r) { run_once(problem(kOffsetShape, v, 0), launch, 1, r); });
  }
  // The instructor's hidden shapes ([hidden] shapes, each [M, N, K]), float inputs, once each.
  for (const auto& h : grading::hidden_shapes()) {
    const Shape s{h[0], h[1], h[2]};
    GRADE_HIDDEN_CASE(exercise, "correctness", prefix,
                      [&](CaseResult& r) { run_once(problem(s, Values::Floats, 0), launch, 0, r); });
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

double gflops(const Shape& s, double ms) { return 2.0 * s.M * s.N * s.K / (ms * 1e-3) / 1e9; }

struct Measured {
  workbook::Timing timing;
  std::size_t wrong_calls = 0;  // timed calls whose output was wrong
  std::string first_wrong;
};

// Times the kernel at shape s: every timed call writes into a poisoned output and is checked
// afterwards, so a kernel cannot be fast by being wrong.
Measured measure(const std::string& exercise, const Launcher& launch, const Shape& s) {
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
      "granularity/sequential/" + s.str(),
      [&] {
        const Problem& p = problem(s, Values::Floats, 0);
        std::vector<float> C(std::size_t(s.M) * s.N);
        const auto timing = workbook::time_host(
            [&] { granularity_grading::sequential(p.A.data(), p.B.data(), C.data(), s.M, s.N, s.K); }, 3, 10.0);
        return grader::BaselineTime{timing.ms.median, timing.ms.min, timing.ms.cv, timing.ms.count, false};
      },
      [](const std::string& msg) { std::cout << "  " << msg << std::endl; });
  return t.median_ms;
}

std::string wrong_calls_detail(const Measured& m) {
  std::ostringstream d;
  d << m.wrong_calls << " of " << m.timing.ms.count + grading::timing_options().warmup
    << " calls (warm-up and timed) gave a wrong result, first: " << m.first_wrong;
  return d.str();
}

// Speedup over the sequential baseline, at performance.size.
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
  if (m.wrong_calls > 0) {
    r.outcome = Outcome::Incorrect;
    r.detail = wrong_calls_detail(m);
  } else if (speedup >= min_speedup) {
    r.outcome = Outcome::Passed;
  } else {
    r.outcome = Outcome::TooSlow;
    std::ostringstream d;
    d.precision(3);
    d << "median " << med << " ms is " << speedup << "x the sequential baseline (" << base << " ms); needs "
      << min_speedup << "x, i.e. at most " << base / min_speedup << " ms";
    r.detail = d.str();
  }
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
  r.metrics = {{"M", s.M},          {"N", s.N},
               {"K", s.K},          {"median_ms", med},
               {"min_ms", m.timing.ms.min}, {"cv", m.timing.ms.robust_cv},
               {"runs", m.timing.ms.count}, {"gflops", gflops(s, med)},
               {"tiled_ms", tiled_ms}, {"tiled_gflops", gflops(s, tiled_ms)},
               {"ratio", ratio},      {"min_ratio", min_ratio}};  // the report prints "4.57x (needs >= 3.40x)"
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
    speedup_verdict(measure(exercise, launch, perf_shape()), grading::threshold("exercises." + exercise + ".min_speedup"),
                    r);
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
      r.detail = "register_2d.cu never uses float4 (comments do not count): the exercise asks for 16-byte "
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
      matmul_grading::time_product_contest(s.M, s.N, s.K, grading::seed(), launch, grading::contest_options());
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
