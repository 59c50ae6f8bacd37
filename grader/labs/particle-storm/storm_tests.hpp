// particle-storm's test program, in parts: the inputs, checks and cases of the steps
// (storm_steps.cpp), the whole programs checked storm by storm (storm_programs.cpp), the timings
// (storm_timing.cpp), and the graded cases that use them (test_storm.cpp). This header holds what
// the parts share.
#pragma once

#include "device_reference.hpp"
#include "generator.hpp"
#include "layer_samples.hpp"
#include "grader/baseline_cache.hpp"
#include "grader/grading.hpp"
#include "reference.hpp"
#include "remote/call.hpp"
#include "sequential.hpp"
#include "storm.h"
#include "storm_file.hpp"
#include "tiers.cuh"
#include "transfers.hpp"
#include "workbook/contest.hpp"
#include "workbook/compare.hpp"
#include "workbook/cuda_check.hpp"
#include "workbook/device_buffer.hpp"
#include "workbook/guarded_buffer.hpp"
#include "workbook/phases.hpp"
#include "workbook/random.hpp"
#include "workbook/stats.hpp"
#include "workbook/stream.hpp"
#include "workbook/timer.hpp"

#include <algorithm>
#include <cstdarg>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#ifndef PARTICLE_STORM_DIR
#error "PARTICLE_STORM_DIR must name labs/particle-storm"
#endif

namespace storm_tests {

using grader::CaseResult;
using grader::Outcome;
using storm::Result;
using storm::Storm;
using workbook::DeviceBuffer;
using workbook::GuardedBuffer;
namespace sg = storm_grading;

// storm_steps.cpp: inputs and small helpers
std::uint64_t input_seed(int kind, int index, int repeat, int input = 0);
std::string strf(const char* format, ...) __attribute__((format(printf, 1, 2)));
std::string cells(long long n);
std::uint32_t bits_of(float x);

template <class T>
void copy_to_device(T* dst, const std::vector<T>& src, cudaStream_t stream) {
  CUDA_CHECK(cudaMemcpyAsync(dst, src.data(), src.size() * sizeof(T), cudaMemcpyHostToDevice, stream));
  CUDA_CHECK(cudaStreamSynchronize(stream));
}

DeviceBuffer<int> device_particles(const Storm& s, cudaStream_t stream);

// Cell by cell comparison with a tolerance per cell: the first wrong cell, how many are wrong.
struct CellCheck {
  std::size_t wrong = 0, first = 0;
  double expected = 0, got = 0, allowed = 0;
};

struct UpdateShape {
  int layer_size, particles;
  long long min_position, max_position;
  int min_energy, max_energy;
};

// Tiny layers, block edges, positions on and beyond both ends, mixed signs, a prime size, many
// particles on few cells, one particle, a tile-and-a-bit of particles, and layers past 2^24
// cells (where a float no longer holds every cell index).
const UpdateShape kUpdateShapes[] = {
    {1, 1, 0, 0, 1, 1000},
    {2, 3, -1, 2, -1000, 1000},
    {3, 4, -2, 4, -1000, 1000},
    {16, 5, -2, 17, -500, 1000},
    {17, 5, -2, 18, -500, 1000},
    {255, 33, 0, 254, 1, 1000},
    {256, 33, 0, 255, 1, 1000},
    {257, 33, 0, 256, 1, 1000},
    {1000, 1, 0, 999, 1, 1000},
    {4097, 1000, -100, 4196, -1000, 1000},
    {100003, 300, -1000, 101002, -500, 1000},
    {30, 10000, -5, 34, -200, 1000},
    {1 << 20, 257, 0, (1 << 20) - 1, 1, 1000},
    {(1 << 22) + 1, 3, -10, (1 << 22) + 10, 1, 1000},
    {20000000, 2, 19999000, 19999999, 1, 1000},
};

const int kRelaxSizes[] = {3, 4, 16, 17, 255, 256, 257, 1000, 4097, 100003, 1 << 20, 1 << 24};

struct MaximumCase {
  std::string name;
  std::function<std::vector<float>(std::uint64_t seed)> layer;
};

using Program = std::function<std::vector<Result>(int layer_size, const std::vector<Storm>& storms)>;

// A workload: the storms and the reference's results and layers (on the device for the large
// ones: ref_simulate_best, self-checked against the CPU's bits; the 2^20-cell workloads took
// most of a correctness run's seconds on the CPU).
struct Workload {
  std::string name;
  int layer_size = 0;
  std::vector<Storm> storms;
  std::vector<Result> expected;
  std::vector<sg::RefLayer> layers;
};

// The leaderboard workload, [performance] in lab.toml.
struct PerfWorkload {
  int layer_size, storms, particles;
  std::uint64_t seed;
  sg::StormShape shape() const {
    sg::StormShape s;
    s.layer_size = layer_size;
    s.particles = particles;
    s.storms = storms;
    return s;
  }
  std::string str() const { return strf("%d cells, %d storms x %d particles", layer_size, storms, particles); }
  std::string key() const { return strf("%dx%dx%d", layer_size, storms, particles); }
};

struct Baselines {
  double program_ms = 0;  // the sequential program on the leaderboard workload
  double update_ms = 0;   // its update step for one storm
};

// A whole program timed from host storms to host results (as the course timed it), on fresh
// storms every round; every call's results checked.
struct Timed {
  std::string name;
  Program program;
  std::vector<double> samples;  // ms
  std::size_t wrong = 0, calls = 0;
  std::string first_wrong;
  bool active = true;
  sg::Transfers transfers;  // of the first call
  workbook::Summary summary() const { return workbook::summarize(samples); }
};

// Where the time of your program goes (the report shows this breakdown): your three steps,
// timed as kernels on one storm of the leaderboard workload; the rest of the program's time is
// allocation, transfers and host work.
struct Breakdown {
  double update_ms = 0, relax_ms = 0, maximum_ms = 0;
};

struct ProgramTimes {
  Timed yours, ref1, ref2;
  std::optional<Breakdown> steps;  // of your program, when it is right
};

// storm_steps.cpp: the steps' cases
CellCheck check_cells(const std::vector<float>& got, const std::vector<float>& expected,
                      const std::function<double(std::size_t)>& allowed);
std::string describe(const CellCheck& c, std::size_t n);
bool is_large(int layer_size, long long particles);
std::string update_name(const UpdateShape& s, int repeat);
void run_update(const UpdateShape& shape, int index, int repeat, CaseResult& r);
void run_relax(int n, int index, int repeat, CaseResult& r);
std::vector<MaximumCase> maximum_cases();
void run_maximum(const MaximumCase& mc, int index, int repeat, CaseResult& r);

// storm_programs.cpp
std::string check_program(int layer_size, const std::vector<Storm>& storms, const std::vector<Result>& expected,
                          const std::vector<sg::RefLayer>& layers, const std::vector<Result>& got);
Workload make_workload(std::string name, int layer_size, std::vector<Storm> storms);
void dirty_device_memory(std::size_t bytes);
std::vector<Workload>& program_workloads();
void run_program_case(const Workload& w, const Program& program, CaseResult& r);
std::vector<Result> simulate_with_ref1(int layer_size, const std::vector<Storm>& storms);
std::vector<Result> simulate_with_yours(int layer_size, const std::vector<Storm>& storms);

// storm_timing.cpp
PerfWorkload perf_workload();
const Baselines& baselines();
void update_performance(CaseResult& r);
const ProgramTimes& program_times();
void program_metrics(const Timed& t, CaseResult& r);
void tier_case(const std::string& threshold_key, CaseResult& r);
void reference_tier(const Timed& t, const std::string& threshold_key, CaseResult& r);

}  // namespace storm_tests
