// Grading C = A x B, written once for matmul-tiled and granularity (both labs' kernels take
// row-major A (M x K), B (K x N), C (M x N) and a stream).
//
// Every case draws its inputs on the GPU from the run's seed (grader/device_inputs.hpp: the same
// bits as on the CPU), computes the expected product there in double (device_product.hpp) and
// compares there: a correctness case costs a few kernel launches, not a CPU product, and every
// timed call gets inputs of its own, so an output kept from an earlier call is wrong. Inputs
// have NaN past both ends (GuardedBuffer), so a tile load without its bounds check shows as a
// NaN in C instead of adding a harmless zero.
#pragma once

#include "grader/results.hpp"
#include "workbook/compare.hpp"
#include "workbook/timer.hpp"

#include <cuda_runtime.h>
#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace product_grading {

struct Shape {
  int M, N, K;
  std::string str() const { return std::to_string(M) + "x" + std::to_string(N) + "x" + std::to_string(K); }
};

// Small integers in [-4, 4] (float arithmetic exact in any order: the answer must match bit for
// bit) or floats in [-1, 1) (a tolerance that grows with K).
enum class Values { SmallIntegers, Floats };

using Launcher = std::function<void(const float*, const float*, float*, int, int, int, cudaStream_t)>;

// Over 64M multiply-adds: run once, not twice, and left out of racecheck's smaller set.
bool is_large(const Shape& s);

// The inputs of one case or timed call: `draw` names them (the same draw gives the same values).
struct Draw {
  Values values = Values::Floats;
  std::uint64_t number = 0;  // the case's repeat (0, 1), or a timed call's number
};

// A size of lab.toml in the form [M, N, K] ("performance.size"); a ConfigError otherwise.
Shape config_shape(const std::string& key);

// One correctness case: the inputs of `draw`, C poisoned, one call, every element compared.
// `offset` moves A, B and C that many floats past their allocation's alignment (granularity's
// float4 cases), with NaN in front. `file` is where the TODOs are ("matmul.cu").
void run_case(const Shape& s, Draw draw, const Launcher& launch, int offset, const std::string& file,
              grader::CaseResult& r);

// The correctness cases of one launcher on every shape of `shapes`, with exact and float inputs;
// small shapes twice on fresh inputs, so that a race (a missing __syncthreads) that gets lucky
// once is caught the next time. Named "<prefix><MxNxK> ints|floats[ #2]"; shape_cases() counts
// them for grading::plan (a run with fewer cases records fewer).
int shape_cases(const std::vector<Shape>& shapes);
void check_shapes(const std::string& exercise, const std::string& prefix, const std::vector<Shape>& shapes,
                  const Launcher& launch, const std::string& file);
// The instructor's hidden shapes ([hidden] shapes, each [M, N, K]), float inputs, once each.
void check_hidden_shapes(const std::string& exercise, const std::string& prefix, const Launcher& launch,
                         const std::string& file);

struct Measured {
  workbook::Timing timing;
  std::size_t wrong_calls = 0;  // calls (warm-up and timed) whose output was wrong
  std::string first_wrong;
  std::string wrong_calls_detail() const;  // "2 of 12 calls ... gave a wrong result, first: ..."
};

// Times `launch` at shape s (workbook::time_gpu with the lab's timing options): every call,
// warm-up included, on fresh inputs and checked in full.
Measured measure(const Shape& s, const Launcher& launch, const std::string& exercise, const std::string& file);

double gflops(const Shape& s, double ms);

// A timed case's numbers: the shape, median, min, robust CV, runs and GFLOP/s (the report and the
// JSON read them).
nlohmann::json timing_metrics(const Shape& s, const Measured& m);

// The verdict of a speedup over the sequential baseline (base_ms at s): incorrect when any call
// was wrong, too slow under min_speedup, with the metrics and the detail a student reads.
void speedup_verdict(const Shape& s, const Measured& m, double base_ms, double min_speedup, grader::CaseResult& r);

// One leaderboard entry of `exercise` ("self"), at [leaderboard] size: every call, warm-up
// included, on fresh inputs made on the GPU from the run's seed and the call's number, its output
// checked against a double-precision product (time_product_contest, device_product.hpp).
void leaderboard_case(const std::string& exercise, const Launcher& launch);

// The sequential baseline's median at s, cached per machine under "<lab>/sequential/<MxNxK>".
double baseline_ms(const std::string& lab, const Shape& s);

}  // namespace product_grading
