// The grader's tests for particle-storm. The same file builds against labs/particle-storm (what a
// student runs) and against solutions/particle-storm (what the project's own tests require to
// pass). Tags: [update] [relax] [maximum] [resident] x [correctness] [performance] and, for
// resident, [program] [transfers] [tiers].
//
// Each step is graded on its own against the sequential program's semantics (storm.h), on
// inputs made for it; `resident` is graded with the grader's own steps (Ref1), so that it
// depends only on simulate(); the whole program (your simulate with your steps) is graded end
// to end and timed against the sequential baseline, beside the reference tiers Ref1 and Ref2.
// Every call of simulate() is checked storm by storm: each maximum, and the layer it was taken
// from (cells sampled at random during the call and around every impact: layer_samples.hpp).
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

namespace {

using grader::CaseResult;
using grader::Outcome;
using storm::Result;
using storm::Storm;
using workbook::DeviceBuffer;
using workbook::GuardedBuffer;
namespace sg = storm_grading;

// ---- inputs and small helpers -------------------------------------------------------------------

// Each input of each case has its own stream of random numbers (kind, case index, repeat), so a
// seed fixes every input and adding a case changes no other case's inputs.
std::uint64_t input_seed(int kind, int index, int repeat, int input = 0) {
  return workbook::derive_seed(grading::seed(), ((std::uint64_t(kind) * 1000 + index) * 10 + repeat) * 10 + input);
}

std::string strf(const char* format, ...) __attribute__((format(printf, 1, 2)));
std::string strf(const char* format, ...) {
  char buf[1024];
  va_list args;
  va_start(args, format);
  std::vsnprintf(buf, sizeof buf, format, args);
  va_end(args);
  return buf;
}

std::string cells(long long n) { return std::to_string(n) + (n == 1 ? " cell" : " cells"); }

// A float's bits, to tell a NaN the code computed from the starter's NAN or the poison.
std::uint32_t bits_of(float x) {
  std::uint32_t b;
  std::memcpy(&b, &x, sizeof b);
  return b;
}

template <class T>
void copy_to_device(T* dst, const std::vector<T>& src, cudaStream_t stream) {
  CUDA_CHECK(cudaMemcpyAsync(dst, src.data(), src.size() * sizeof(T), cudaMemcpyHostToDevice, stream));
  CUDA_CHECK(cudaStreamSynchronize(stream));
}

// The particles of a storm on the device (at least one element, so the pointer is never null).
DeviceBuffer<int> device_particles(const Storm& s, cudaStream_t stream) {
  DeviceBuffer<int> d(std::max<std::size_t>(s.posval.size(), 2));
  copy_to_device(d.data(), s.posval, stream);
  return d;
}

// Cell by cell comparison with a tolerance per cell: the first wrong cell, how many are wrong.
struct CellCheck {
  std::size_t wrong = 0, first = 0;
  double expected = 0, got = 0, allowed = 0;
};
CellCheck check_cells(const std::vector<float>& got, const std::vector<float>& expected,
                      const std::function<double(std::size_t)>& allowed) {
  CellCheck c;
  for (std::size_t k = 0; k < got.size(); ++k) {
    const double a = allowed(k);
    if (!(std::isfinite(got[k]) && std::fabs(double(got[k]) - expected[k]) <= a)) {
      if (c.wrong++ == 0) c = {1, k, expected[k], got[k], a};
    }
  }
  return c;
}
std::string describe(const CellCheck& c, std::size_t n) {
  return strf("layer[%zu]: expected %.9g, got %.9g (allowed +-%.3g); %zu of %zu cells wrong", c.first, c.expected,
              c.got, c.allowed, c.wrong, n);
}

// ---- update ---------------------------------------------------------------------------------------

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
bool is_large(int layer_size, long long particles) { return double(layer_size) * particles > 1e8 || layer_size > 4e6; }

std::string update_name(const UpdateShape& s, int repeat) {
  return cells(s.layer_size) + ", " + std::to_string(s.particles) + (s.particles == 1 ? " particle" : " particles") +
         (repeat ? " #2" : "");
}

void run_update(const UpdateShape& shape, int index, int repeat, CaseResult& r) {
  const sg::StormShape gen = sg::storm_shape(shape.layer_size, 1, shape.particles, shape.min_position,
                                             shape.max_position, shape.min_energy, shape.max_energy);
  std::optional<workbook::PhaseScope> phase(std::in_place, workbook::Phase::Inputs);
  const Storm s = sg::generate_storm(gen, input_seed(1, index, repeat), 0);
  // The layer already holds energy (it is not reset between storms): update must add to it.
  const auto initial = workbook::random_floats(shape.layer_size, input_seed(1, index, repeat, 1), -1.0f, 1.0f);
  phase.emplace(workbook::Phase::Reference);
  sg::RefLayer ref(initial);
  // The same bits either way (device_reference.hpp); 2^20 cells x 257 particles is a third of a
  // second of CPU.
  if (sg::device_reference_pays(double(shape.layer_size), double(s.size())))
    sg::ref_update_device(ref, s.posval.data(), s.size());
  else
    sg::ref_update(ref, s.posval.data(), s.size());

  phase.emplace(workbook::Phase::Call);
  workbook::Stream stream;
  GuardedBuffer<float> layer(shape.layer_size);
  layer.poison(stream);
  copy_to_device(layer.data(), initial, stream);
  const auto particles = device_particles(s, stream);
  storm::update(layer.data(), shape.layer_size, particles.data(), s.size(), stream);
  stream.synchronize();
  phase.emplace(workbook::Phase::Check);
  const auto got = layer.download();

  const auto c = check_cells(got, ref.value, [&](std::size_t k) { return sg::tolerance(ref, int(k)); });
  r.metrics = {{"layer_size", shape.layer_size}, {"particles", shape.particles}, {"wrong", c.wrong}};
  if (c.wrong > 0) {
    r.outcome = Outcome::Incorrect;
    r.detail = describe(c, got.size());
    if (std::memcmp(got.data(), initial.data(), got.size() * sizeof(float)) == 0)
      r.detail += "; the layer did not change: see the TODO(update) steps in storm.cu";
  } else if (!layer.intact_guards()) {
    r.outcome = Outcome::Incorrect;
    r.detail = "wrote outside the layer (memory just before or after it changed): check k < layer_size";
  } else {
    r.outcome = Outcome::Passed;
  }
}

// ---- relax ----------------------------------------------------------------------------------------

const int kRelaxSizes[] = {3, 4, 16, 17, 255, 256, 257, 1000, 4097, 100003, 1 << 20, 1 << 24};

void run_relax(int n, int index, int repeat, CaseResult& r) {
  std::optional<workbook::PhaseScope> phase(std::in_place, workbook::Phase::Inputs);
  const auto initial = workbook::random_floats(n, input_seed(2, index, repeat), -1.0f, 1.0f);
  phase.emplace(workbook::Phase::Reference);
  sg::RefLayer ref(initial);
  sg::ref_relax(ref);

  phase.emplace(workbook::Phase::Call);
  workbook::Stream stream;
  GuardedBuffer<float> layer(n), layer_copy(n);
  layer.poison(stream);
  layer_copy.poison(stream);  // NaN: a cell read from the copy before it is written shows
  copy_to_device(layer.data(), initial, stream);
  storm::relax(layer.data(), layer_copy.data(), n, stream);
  stream.synchronize();
  phase.emplace(workbook::Phase::Check);
  const auto got = layer.download();

  const auto c = check_cells(got, ref.value, [&](std::size_t k) {
    if (k == 0 || k + 1 == got.size()) return 0.0;  // the ends: untouched, exactly
    // (a + b + c) / 3 in another order, or times 1/3: a few units of 2^-24 of the terms.
    return 4.0 / (1 << 24) * (std::fabs(initial[k - 1]) + std::fabs(initial[k]) + std::fabs(initial[k + 1])) / 3 +
           1e-30;
  });
  r.metrics = {{"layer_size", n}, {"wrong", c.wrong}};
  if (c.wrong > 0) {
    r.outcome = Outcome::Incorrect;
    r.detail = describe(c, got.size());
    if (std::memcmp(got.data(), initial.data(), got.size() * sizeof(float)) == 0)
      r.detail += "; the layer did not change: see the TODO(relax) steps in storm.cu";
    else if (c.first == 0 || c.first + 1 == got.size())
      r.detail += "; the two end cells must be left as they are";
    else if (std::isnan(c.got))
      r.detail +=
          "; a NaN: a cell was read from layer_copy before it was written there (a race between "
          "blocks? layer_copy starts as NaN)";
  } else if (!layer.intact_guards() || !layer_copy.intact_guards()) {
    r.outcome = Outcome::Incorrect;
    r.detail = "wrote outside the layer or its copy (memory just before or after them changed)";
  } else {
    r.outcome = Outcome::Passed;
  }
}

// ---- maximum --------------------------------------------------------------------------------------

struct MaximumCase {
  std::string name;
  std::function<std::vector<float>(std::uint64_t seed)> layer;
};

std::vector<float> random_layer(int n, std::uint64_t seed, float lo = -1.0f, float hi = 1.0f) {
  return workbook::random_floats(n, seed, lo, hi);
}

std::vector<MaximumCase> maximum_cases() {
  std::vector<MaximumCase> cases = {
      {"1 cell: no interior cell", [](std::uint64_t) { return std::vector<float>{5}; }},
      {"2 cells: no interior cell",
       [](std::uint64_t) {
         return std::vector<float>{1, 5};
       }},
      {"3 cells: a peak in the middle",
       [](std::uint64_t) {
         return std::vector<float>{1, 5, 2};
       }},
      {"larger values at the ends only",
       [](std::uint64_t) {
         return std::vector<float>{9, 1, 2, 1, 9};
       }},
      {"a plateau is no strict maximum", [](std::uint64_t) { return std::vector<float>{0, 1, 5, 5, 1, 0, 2, 1}; }},
      {"all negative: no maximum", [](std::uint64_t seed) { return random_layer(1000, seed, -2.0f, -1.0f); }},
      {"all zero: no maximum", [](std::uint64_t) { return std::vector<float>(70000, 0.0f); }},
      {"one tiny positive peak in 1M zeros",
       [](std::uint64_t) {
         std::vector<float> v(1 << 20, 0.0f);
         v[777777] = 1e-30f;
         return v;
       }},
      {"a rising ramp: the largest cells are no maxima",
       [](std::uint64_t) {
         std::vector<float> v(5000);
         for (int k = 0; k < 5000; ++k) v[k] = float(k);
         v[5] = 100;  // the one strict local maximum
         return v;
       }},
      {"equal maxima in one block: the lowest position wins",
       [](std::uint64_t seed) {
         auto v = random_layer(1000, seed, 0.0f, 1.0f);
         for (int k : {500, 12, 10}) v[k] = 3.0f;
         return v;
       }},
      {"equal maxima across blocks: the lowest position wins",
       [](std::uint64_t seed) {
         auto v = random_layer(1 << 20, seed, 0.0f, 1.0f);
         for (int k : {900000, 600000, 300001, 1000001}) v[k] = 7.5f;
         return v;
       }},
      {"a relaxed layer from a real storm",
       [](std::uint64_t seed) {
         sg::StormShape shape;
         shape.layer_size = 30000;
         shape.particles = 2000;
         const auto s = sg::generate_storm(shape, seed, 0);
         sg::RefLayer ref(shape.layer_size);
         sg::ref_update(ref, s.posval.data(), s.size());
         sg::ref_relax(ref);
         return ref.value;
       }},
  };
  for (int n : {16, 17, 255, 256, 257, 4097, 100003, 1 << 20, (1 << 24) + 3})
    cases.push_back({"random, " + cells(n), [n](std::uint64_t seed) { return random_layer(n, seed); }});

  // Ties at many alignments. A reduction step that keeps its own pair on equal values (`>`), or
  // the other one (`>=`), is right or wrong depending on which side of the step the lower
  // position sits, and that depends on how the reduction maps cells to threads, warps and blocks
  // (one thread per cell or a grid-stride loop, a shared-memory tree halving its stride or
  // doubling it, warp shuffles, a second pass in a block or on the host). Two equal maxima in one
  // place catch some shapes and miss others; these placements (the same warp, adjacent warps,
  // across the 256- and 1024-cell marks, the first and last candidate cells, one grid-stride of
  // 1024 blocks of 256 apart, the higher cell on the lower thread, 64 scattered ones) catch
  // either wrong tie-break in each of those shapes where it can give a wrong answer: tie_model.py
  // beside this file models the shapes and checks it (keep its CASES in step with these).
  struct Tie {
    const char* where;
    int layer_size;
    std::vector<int> positions;  // empty: 64 scattered positions
  };
  const Tie ties[] = {
      {"in one warp (cells 3 and 29)", 1000, {29, 3}},
      {"in adjacent warps (cells 31 and 33)", 1000, {33, 31}},
      {"two warps apart (cells 2 and 40)", 1000, {40, 2}},
      {"across the 256 mark (cells 255 and 257)", 5000, {257, 255}},
      {"across the 1024 mark (cells 1023 and 1025)", 5000, {1025, 1023}},
      {"at the first and last candidate cells", 100003, {100001, 1}},
      {"one grid-stride apart (cells 7 and 262149)", 1 << 20, {262149, 7}},
      {"64 of them scattered over 1M cells", 1 << 20, {}},
  };
  for (const Tie& t : ties)
    cases.push_back({std::string("equal maxima ") + t.where + ": the lowest position wins", [t](std::uint64_t seed) {
                       auto v = random_layer(t.layer_size, seed, 0.0f, 1.0f);  // below the ties
                       std::vector<int> positions = t.positions;
                       if (positions.empty()) {  // fixed odd cells (no two adjacent), the same every run
                         std::uint64_t x = 0x9E3779B97F4A7C15ull;
                         for (int i = 0; i < 64; ++i) {
                           x = workbook::derive_seed(x, i);
                           positions.push_back(1 + 2 * int(x % std::uint64_t(t.layer_size / 2 - 1)));
                         }
                       }
                       for (int k : positions) v[k] = 3.0f;
                       return v;
                     }});
  return cases;
}

void run_maximum(const MaximumCase& mc, int index, int repeat, CaseResult& r) {
  std::optional<workbook::PhaseScope> phase(std::in_place, workbook::Phase::Inputs);
  const auto input = mc.layer(input_seed(3, index, repeat));
  const int n = static_cast<int>(input.size());
  phase.emplace(workbook::Phase::Reference);
  const Result expected = sg::ref_maximum(input);

  phase.emplace(workbook::Phase::Call);
  workbook::Stream stream;
  DeviceBuffer<float> layer(n);
  copy_to_device(layer.data(), input, stream);
  // The scratch arrays have room for 2 * layer_size elements each (storm.h): one 8-byte
  // (value, position) pair per cell fits in either; the guards catch a write beyond that.
  GuardedBuffer<float> candidate_values(2 * std::size_t(n)), max_value(1);
  GuardedBuffer<int> candidate_positions(2 * std::size_t(n)), max_position(1);
  for (auto* b : {&candidate_values, &max_value}) b->poison(stream);
  for (auto* b : {&candidate_positions, &max_position}) b->poison(stream);
  storm::maximum(layer.data(), n, candidate_values.data(), candidate_positions.data(), max_value.data(),
                 max_position.data(), stream);
  stream.synchronize();
  phase.emplace(workbook::Phase::Check);
  const Result got{max_position.download()[0], max_value.download()[0]};

  r.metrics = {{"layer_size", n}, {"expected_position", expected.position}, {"got_position", got.position}};
  const std::string what = strf("expected position %d value %.9g, got position %d value %.9g", expected.position,
                                expected.value, got.position, got.value);
  if (got.position != expected.position || !(got.value == expected.value)) {
    r.outcome = Outcome::Incorrect;
    r.detail = what;
    // Both results are filled with every bit set before the call: an int that nothing wrote
    // reads -1, a float a NaN with those exact bits (a computed NaN has others).
    const bool value_unwritten = workbook::is_poison(got.value), position_unwritten = got.position == -1;
    if (value_unwritten && position_unwritten) {
      r.detail +=
          "; nothing was written to *max_position or *max_value (both still hold the grader's fill, "
          "every bit set): see the TODO(maximum) steps in storm.cu";
    } else if (value_unwritten) {
      r.detail += "; nothing was written to *max_value (it still holds the grader's fill, every bit set)";
    } else if (std::isnan(got.value)) {
      r.detail += "; a NaN your code computed (not the grader's fill of *max_value)";
    } else if (position_unwritten) {
      r.detail +=
          "; *max_position is -1, which is also the grader's fill (every bit set): your code either never "
          "wrote it or computed -1 (a reduction that starts from position -1 and met no candidate?); with "
          "no strict local maximum greater than 0, the result is position 0, value 0";
    } else if (got.position >= 0 && got.position < n && got.position != expected.position &&
               input[got.position] == expected.value) {
      r.detail += "; equal values: the lowest position must win";
    } else if (got.position == 0 || got.position == n - 1) {
      r.detail += "; cells 0 and layer_size-1 are never candidates";
    } else if (expected.position == 0) {
      r.detail += "; with no strict local maximum greater than 0, the result is position 0, value 0";
    }
  } else if (layer.download() != input) {
    r.outcome = Outcome::Incorrect;
    r.detail = what + "; but maximum() changed the layer: it must only read it";
  } else if (!max_value.intact_guards() || !max_position.intact_guards() || !candidate_values.intact_guards() ||
             !candidate_positions.intact_guards()) {
    r.outcome = Outcome::Incorrect;
    r.detail = "wrote outside the result or the candidate arrays (memory just before or after them changed)";
  } else {
    r.outcome = Outcome::Passed;
  }
}

// ---- whole programs ---------------------------------------------------------------------------------

using Program = std::function<std::vector<Result>(int layer_size, const std::vector<Storm>& storms)>;

// Compares a program's results with the reference's, storm by storm (reference.hpp, judge).
std::string wrong_results(const std::vector<Result>& expected, const std::vector<sg::RefLayer>& layers,
                          const std::vector<Result>& got) {
  if (got.size() != expected.size())
    return strf("simulate() returned %zu results for %zu storms", got.size(), expected.size());
  std::size_t wrong = 0, first = 0;
  std::string why;
  for (std::size_t i = 0; i < got.size(); ++i) {
    const auto v = sg::judge(layers[i], expected[i], got[i]);
    if (!v.ok && wrong++ == 0) {
      first = i;
      why = v.why;
    }
  }
  if (wrong == 0) return "";
  std::string detail = strf("storm %zu of %zu: %s", first + 1, got.size(), why.c_str());
  if (wrong > 1) detail += strf(" (%zu storms wrong)", wrong);
  const Result& g = got[first];
  if (g.position == -1 && bits_of(g.value) == bits_of(NAN)) {
    // Exactly what the starter's simulate() returns for a storm it did not compute.
    detail +=
        "; (-1, nan) is the starter's placeholder: simulate() did not fill in this storm's result (see the "
        "TODO(resident) steps in storm.cu)";
  } else if (g.position == -1 && workbook::is_poison(g.value)) {
    detail +=
        "; position -1 and a NaN with every bit set: the bytes the grader leaves in free device memory, so "
        "the result was copied from device memory that nothing wrote (did maximum() write this storm's "
        "element of the result arrays before the copy?)";
  } else if (g.position == -1) {
    detail +=
        "; position -1 is not the starter's placeholder: your code computed it (a reduction that starts "
        "from position -1 and met no candidate?); with no strict local maximum greater than 0, the result "
        "is position 0, value 0";
  }
  return detail;
}

// ---- the whole layer (layer_samples.hpp) ----------------------------------------------------------

// The workloads (steps, layer size, storms) whose every storm's layer and maximum a call of the
// student's simulate() got right in this run. A later call on the same storms with the same steps
// may return its results without running the steps at all (results it remembers): those were
// checked, cell by cell, when it computed them.
std::set<std::uint64_t>& checked_workloads() {
  static std::set<std::uint64_t> keys;
  return keys;
}
std::uint64_t workload_key(std::uint32_t steps, int layer_size, const std::vector<Storm>& storms) {
  std::uint64_t h = 1469598103934665603ull;  // FNV-1a over the words
  const auto mix = [&h](std::uint64_t v) {
    for (int b = 0; b < 8; ++b) h = (h ^ ((v >> (8 * b)) & 0xFF)) * 1099511628211ull;
  };
  mix(steps);
  mix(std::uint64_t(layer_size));
  mix(storms.size());
  for (const Storm& s : storms) {
    mix(s.posval.size());
    for (int v : s.posval) mix(std::uint32_t(v));
  }
  return h;
}

// The sampled cells of storms 0 .. storms-1 against the reference layers: "" when every one is
// within the tolerance of its cell (sg::tolerance, as update's cases), else the first storm with
// a wrong cell, described.
std::string wrong_layers(const std::vector<sg::RefLayer>& layers, std::size_t storms) {
  const auto& stage = sg::sample_stage();
  const auto& l = stage.layout;
  const std::size_t slots = l.slot_offset[storms];
  if (slots == 0) return "";
  std::vector<int> positions(slots);
  std::vector<float> values(slots);
  CUDA_CHECK(cudaMemcpy(positions.data(), stage.positions.data(), slots * sizeof(int), cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaMemcpy(values.data(), stage.values.data(), slots * sizeof(float), cudaMemcpyDeviceToHost));
  for (std::size_t i = 0; i < storms; ++i) {
    const sg::RefLayer& ref = layers[i];
    std::size_t wrong = 0, checked = 0, first = 0;
    for (std::size_t t = l.slot_offset[i]; t < l.slot_offset[i + 1]; ++t) {
      const int k = positions[t];
      if (k < 0 || k >= ref.size()) {  // the runner writes the cells it read: never outside
        return strf("storm %zu of %zu: internal: the layer sample names cell %d of %d", i + 1, layers.size(), k,
                    ref.size());
      }
      const float expected = ref.value[k];
      if (!std::isfinite(expected)) continue;  // nothing to compare with (the results' check judges)
      ++checked;
      const double allowed = sg::tolerance(ref, k);
      if (!(std::isfinite(values[t]) && std::fabs(double(values[t]) - expected) <= allowed) && wrong++ == 0) first = t;
    }
    if (wrong == 0) continue;
    const int k = positions[first];
    std::string detail = strf(
        "storm %zu of %zu: cells of the layer were wrong (the layer simulate() handed to steps.maximum, %s): "
        "layer[%d] expected %.9g, got %.9g (allowed +-%.3g); %zu of %zu cells checked wrong",
        i + 1, layers.size(),
        l.whole(i)
            ? "every cell"
            : "checked at both ends, around every particle's impact and at cells drawn at random during the call",
        k, ref.value[k], values[first], sg::tolerance(ref, k), wrong, checked);
    if (std::isnan(values[first]))
      detail +=
          "; a NaN: a cell never written (the grader leaves NaN in free device memory: zero the layer on the device)";
    return detail;
  }
  return "";
}

// One call of a program judged: each storm's result (wrong_results) and, for the student's
// simulate() (which runs in the runner, remote.cu), the layer after each storm. The call must
// have been staged (sg::stage_layer_samples) just before it, and no count of copies may be
// running (the samples are read back with cudaMemcpy).
std::string check_program(int layer_size, const std::vector<Storm>& storms, const std::vector<Result>& expected,
                          const std::vector<sg::RefLayer>& layers, const std::vector<Result>& got) {
  const std::optional<sg::LayerSampleRecord> record = sg::last_layer_samples();
  sg::last_layer_samples().reset();
  const std::string results = wrong_results(expected, layers, got);
  if (!record || !record->sampled) return results;  // the tiers (the grader's own programs)
  const std::size_t n = storms.size();
  const std::size_t calls = record->maximum_calls;
  const std::uint64_t key = workload_key(record->steps, layer_size, storms);
  if (calls == n) {
    std::string layer = wrong_layers(layers, n);
    if (!layer.empty())
      return layer + (results.empty() ? "; each storm's maximum was right, but every cell of the layer must be"
                                      : "; the maxima are wrong too: " + results);
    if (results.empty()) checked_workloads().insert(key);
    return results;
  }
  if (!results.empty()) return results;                         // the starter's placeholders and the like say more
  if (calls == 0 && checked_workloads().count(key)) return "";  // remembered from a call checked in full
  return strf(
      "simulate() called steps.maximum %zu times for %zu storms: storm.h asks it to call steps.update, steps.relax "
      "(or relax by ping-pong) and steps.maximum once per storm, through `steps`, not directly: the grader checks "
      "the layer that each call of steps.maximum is handed, so results returned without it cannot be checked%s",
      calls, n,
      calls == 0 ? " (results remembered from an earlier call with other steps, or computed without the steps?)" : "");
}

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

Workload make_workload(std::string name, int layer_size, std::vector<Storm> storms) {
  Workload w{std::move(name), layer_size, std::move(storms), {}, {}};
  workbook::PhaseScope phase(workbook::Phase::Reference);
  w.expected = sg::ref_simulate_best(w.layer_size, w.storms, &w.layers);
  return w;
}

// Leaves NaN in the memory the next allocations will likely get, so that a layer that is
// allocated but never zeroed holds garbage instead of the zeros a fresh allocation often has.
void dirty_device_memory(std::size_t bytes) {
  DeviceBuffer<unsigned char> junk(bytes);
  junk.poison();
  CUDA_CHECK(cudaDeviceSynchronize());
}

// The shipped debugging cases (storms/cases.txt) and generated workloads.
std::vector<Workload>& program_workloads() {
  static std::vector<Workload> all;
  if (!all.empty()) return all;
  for (const auto& c : storm_io::read_cases(std::string(PARTICLE_STORM_DIR) + "/storms")) {
    std::vector<Storm> storms;
    for (const auto& f : c.files) storms.push_back(storm_io::read_storm_file(f));
    all.push_back(make_workload("storms/" + c.name + ": " + cells(c.layer_size), c.layer_size, std::move(storms)));
  }
  struct Generated {
    int layer_size, storms, particles;
    long long min_position, max_position;
    int min_energy, max_energy;
  };
  const Generated generated[] = {
      {1000, 3, 50, 0, 999, 1, 1000},
      {4097, 4, 500, -200, 4296, -1000, 1000},
      {100003, 2, 1000, 0, 100002, 1, 1000},
      {1 << 20, 2, 200, -1000, (1 << 20) + 1000, 1, 1000},
      // The leaderboard's layer, with both signs and particles off both ends (the layer check
      // makes a program that computes only near the particles fail here, whatever its maxima).
      {1 << 20, 2, 512, -65536, (1 << 20) + 65536, -1000, 1000},
  };
  int index = 0;
  for (const auto& g : generated) {
    const sg::StormShape shape = sg::storm_shape(g.layer_size, g.storms, g.particles, g.min_position, g.max_position,
                                                 g.min_energy, g.max_energy);
    all.push_back(make_workload(strf("generated: %s, %d storms x %d particles%s", cells(g.layer_size).c_str(), g.storms,
                                     g.particles, g.min_energy < 0 ? ", mixed signs" : ""),
                                g.layer_size, sg::generate_storms(shape, input_seed(4, index++, 0))));
  }
  return all;
}

// Runs the program twice on the workload (the second run likely gets the first one's memory
// back: a layer that is not zeroed then starts from the first run's energy). Each run is judged
// on its results and on its layer after every storm (check_program).
void run_program_case(const Workload& w, const Program& program, CaseResult& r) {
  r.metrics = {{"layer_size", w.layer_size}, {"storms", w.storms.size()}};
  dirty_device_memory(std::size_t(w.layer_size) * 4 * sizeof(float) + (1 << 20));
  for (int run = 0; run < 2; ++run) {
    std::optional<workbook::PhaseScope> phase(std::in_place, workbook::Phase::Inputs);
    sg::stage_layer_samples(w.layer_size, w.storms);
    phase.emplace(workbook::Phase::Call);
    const auto got = program(w.layer_size, w.storms);
    phase.emplace(workbook::Phase::Check);
    const std::string wrong = check_program(w.layer_size, w.storms, w.expected, w.layers, got);
    if (!wrong.empty()) {
      r.outcome = Outcome::Incorrect;
      r.detail =
          (run == 1 ? "right the first time, wrong the second (is the layer zeroed on the device?): " : "") + wrong;
      return;
    }
  }
  r.outcome = Outcome::Passed;
}

// simulate() with the grader's steps (Ref1: the sequential program's arithmetic), for `resident`.
std::vector<Result> simulate_with_ref1(int layer_size, const std::vector<Storm>& storms) {
  return storm::simulate(layer_size, storms, storm_tiers::ref1_steps());
}
// simulate() with the student's steps: the program as main() runs it.
std::vector<Result> simulate_with_yours(int layer_size, const std::vector<Storm>& storms) {
  return storm::simulate(layer_size, storms);
}

// ---- performance -------------------------------------------------------------------------------------

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

PerfWorkload perf_workload() {
  const auto& c = grading::config();
  return {static_cast<int>(c.require_number("performance.layer_size")),
          static_cast<int>(c.require_number("performance.storms")),
          static_cast<int>(c.require_number("performance.particles")),
          static_cast<std::uint64_t>(c.require_number("performance.seed"))};
}

struct Baselines {
  double program_ms = 0;  // the sequential program on the leaderboard workload
  double update_ms = 0;   // its update step for one storm
};

// Measured once per machine and workload and cached (grader/baseline_cache.hpp). One run of the
// sequential program gives both: it times its phases.
const Baselines& baselines() {
  static std::optional<Baselines> cached;
  if (cached) return *cached;
  const PerfWorkload w = perf_workload();
  const auto announce = [](const std::string& msg) { std::cout << "  " << msg << std::endl; };
  std::optional<double> update_ms;
  const auto run_sequential = [&](int storms) {
    sg::StormShape shape = w.shape();
    shape.storms = storms;
    const auto input = sg::generate_storms(shape, w.seed);
    sg::SequentialBreakdown breakdown;
    const auto t = workbook::time_host(
        [&] {
          breakdown = {};
          sg::sequential_simulate(w.layer_size, input, &breakdown);
        },
        1, 0.0);
    update_ms = breakdown.update_s * 1e3 / storms;
    return grader::BaselineTime{t.ms.median, t.ms.min, t.ms.cv, t.ms.count, false};
  };
  const auto program = grader::cached_baseline(
      "particle-storm/sequential/program/" + w.key(), [&] { return run_sequential(w.storms); }, announce);
  const auto update = grader::cached_baseline(
      strf("particle-storm/sequential/update/%dx%d", w.layer_size, w.particles),
      [&] {
        if (!update_ms) run_sequential(1);
        return grader::BaselineTime{*update_ms, *update_ms, 0.0, 1, false};
      },
      announce);
  cached = Baselines{program.median_ms, update.median_ms};
  return *cached;
}

// update, timed on device-resident data: fresh particles before every call (outside the timed
// window), every call's layer checked.
void update_performance(CaseResult& r) {
  const PerfWorkload w = perf_workload();
  const double min_speedup = grading::threshold("exercises.update.min_speedup");
  const int n = w.layer_size;
  sg::StormShape shape = w.shape();
  shape.storms = 1;

  workbook::Stream stream;
  const auto initial = workbook::random_floats(n, input_seed(5, 0, 0), 0.0f, 1.0f);
  DeviceBuffer<float> d_initial(n), layer(n);
  copy_to_device(d_initial.data(), initial, stream);
  DeviceBuffer<int> particles(2 * std::size_t(w.particles));
  Storm s;
  sg::RefLayer expected;
  int call = 0;
  std::size_t wrong = 0, calls = 0;
  std::string first_wrong;
  workbook::TimingOptions options = grading::timing_options();
  options.decided = workbook::decided_by_limit(baselines().update_ms / min_speedup, options.min_runs);
  const auto timing = workbook::time_gpu(
      stream, [&] { storm::update(layer.data(), n, particles.data(), s.size(), stream); },
      [&] {
        s = sg::generate_storm(shape, input_seed(5, 1, 0), call++);
        CUDA_CHECK(cudaMemcpyAsync(particles.data(), s.posval.data(), s.posval.size() * sizeof(int),
                                   cudaMemcpyHostToDevice, stream));
        CUDA_CHECK(cudaMemcpyAsync(layer.data(), d_initial.data(), layer.bytes(), cudaMemcpyDeviceToDevice, stream));
        workbook::PhaseScope reference(workbook::Phase::Reference);
        expected = sg::RefLayer(initial);
        // The same bits as ref_update, on the device: a storm of this size is seconds of CPU
        // work for every call (device_reference.hpp).
        if (sg::device_reference_pays(double(n), double(s.size()))) {
          sg::ref_update_device(expected, s.posval.data(), s.size());
        } else {
          sg::ref_update(expected, s.posval.data(), s.size());
        }
      },
      [&] {
        ++calls;
        const auto got = layer.download();
        const auto c = check_cells(got, expected.value, [&](std::size_t k) { return sg::tolerance(expected, int(k)); });
        if (c.wrong > 0 && wrong++ == 0) first_wrong = describe(c, got.size());
      },
      options);

  // Ref1's and Ref2's update on the same storm size, for comparison (the grader's own kernels,
  // validated elsewhere, so timed on one storm without checking each call).
  const auto tier_ms = [&](storm_tiers::Update which) {
    const auto storm_for_tiers = sg::generate_storm(shape, input_seed(5, 2, 0), 0);
    copy_to_device(particles.data(), storm_for_tiers.posval, stream);
    return workbook::time_gpu(
               stream,
               [&] { storm_tiers::update(which, layer.data(), n, particles.data(), storm_for_tiers.size(), stream); },
               [&] { CUDA_CHECK(cudaMemsetAsync(layer.data(), 0, layer.bytes(), stream)); }, {},
               grading::timing_options())
        .ms.median;
  };
  const double ref1_ms = tier_ms(storm_tiers::Update::Ref1), ref2_ms = tier_ms(storm_tiers::Update::Ref2);

  const double base = baselines().update_ms;
  const double med = timing.ms.median;
  const double speedup = base / med;
  const double updates = double(n) * w.particles;
  r.metrics = {{"layer_size", n},
               {"particles", w.particles},
               {"median_ms", med},
               {"min_ms", timing.ms.min},
               {"cv", timing.ms.robust_cv},
               {"runs", timing.ms.count},
               {"baseline_ms", base},
               {"speedup", speedup},
               {"min_speedup", min_speedup},
               {"gcell_updates_per_s", updates / (med * 1e-3) / 1e9},
               {"ref1_ms", ref1_ms},
               {"ref2_ms", ref2_ms}};
  if (wrong > 0) {
    r.outcome = Outcome::Incorrect;
    r.detail =
        strf("%zu of %zu calls (warm-up and timed) gave a wrong layer, first: %s", wrong, calls, first_wrong.c_str());
  } else if (speedup >= min_speedup) {
    r.outcome = Outcome::Passed;
  } else {
    r.outcome = Outcome::TooSlow;
    r.detail = strf(
        "median %.3g ms (%.0f G cell-updates/s) is %.0fx the sequential update (%.4g ms); needs %.0fx, "
        "i.e. at most %.3g ms (Ref1's update takes %.3g ms, Ref2's %.3g ms)",
        med, updates / (med * 1e-3) / 1e9, speedup, base, min_speedup, base / min_speedup, ref1_ms, ref2_ms);
  }
}

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

// One call of a program on the round's storms: its wall time, and whether its results are right.
double call_program(Timed& p, int layer_size, const std::vector<Storm>& storms, const std::vector<Result>& expected,
                    const std::vector<sg::RefLayer>& layers, bool count_transfers) {
  using clock = std::chrono::steady_clock;
  sg::stage_layer_samples(layer_size, storms);  // before the count and the clock
  std::optional<sg::TransferCount> count;
  if (count_transfers) count.emplace();
  std::vector<Result> got;
  std::string wrong;
  (void)workbook::take_foreign_call();
  std::optional<workbook::PhaseScope> phase(std::in_place, workbook::Phase::Call);
  const auto t0 = clock::now();
  try {
    got = p.program(layer_size, storms);
  } catch (const workbook::CudaError& e) {
    if (e.sticky()) throw;  // the context is lost: the case is recorded as crashed
    wrong = std::string("simulate() threw: ") + e.what();
  } catch (const remote::CallFailed& e) {
    if (e.crashed) throw;  // a fault, an exit or a hang: the case is recorded as such
    wrong = std::string("simulate() threw: ") + e.what();
  } catch (const std::exception& e) {
    wrong = std::string("simulate() threw: ") + e.what();
  }
  double ms = std::chrono::duration<double, std::milli>(clock::now() - t0).count();
  // Your program ran in the runner (grader/remote/): its time is the harness's clock from the
  // call to its end, without packing the storms into shared memory before and the results out
  // after. The tiers run here, and the host clock around them is their time.
  if (const auto foreign = workbook::take_foreign_call()) ms = foreign->device_ms;
  if (count) p.transfers = count->stop();
  ++p.calls;
  phase.emplace(workbook::Phase::Check);
  if (wrong.empty()) wrong = check_program(layer_size, storms, expected, layers, got);
  if (!wrong.empty()) {
    if (p.wrong++ == 0) p.first_wrong = wrong;
    p.active = false;  // a wrong program is not worth timing any further
  }
  return ms;
}

// One round's storms and the reference's results for them: on the device for the [performance]
// workload (on the CPU it was 2.7 s of the reference solution's check on an H100 host), the same
// bits as the CPU reference (device_reference.hpp).
struct RoundInputs {
  std::vector<Storm> storms;
  std::vector<sg::RefLayer> layers;
  std::vector<Result> expected;
};

RoundInputs round_inputs(const PerfWorkload& w, int round) {
  workbook::PhaseScope phase(workbook::Phase::Reference);
  RoundInputs in;
  in.storms = sg::generate_storms(w.shape(), input_seed(6, round, 0));
  in.expected = sg::ref_simulate_best(w.layer_size, in.storms, &in.layers);
  return in;
}

// Rounds, each program in turn in an order that rotates from round to round. Each program is
// called twice in a row: first on the previous round's storms (untimed: it brings the GPU back to
// full clocks after the idle time of the reference, which would otherwise favour whoever runs
// later), then on this round's fresh storms, which no earlier call has seen: that call is timed,
// so results kept from an earlier call have nothing to hit. Both calls are checked. At least
// min_runs timed rounds after `warmup` untimed ones, then more until every program's spread is
// under target_cv or the budget is spent; but no more once the first program's calls decide its
// verdicts (`decided`, timer.hpp's decided_by_limit) or it gave a wrong result (after one timed
// round, so that the tiers have a time to show).
void time_programs(std::vector<Timed>& programs, const std::function<bool(const std::vector<double>&)>& decided) {
  using clock = std::chrono::steady_clock;
  const auto options = grading::timing_options();
  const PerfWorkload w = perf_workload();
  const int warmup = std::max(1, options.warmup);
  const auto started = clock::now();
  RoundInputs previous = round_inputs(w, 0);
  for (int round = 0; round < warmup + options.max_runs; ++round) {
    RoundInputs fresh = round_inputs(w, round + 1);
    for (std::size_t i = 0; i < programs.size(); ++i) {
      Timed& p = programs[(i + round) % programs.size()];
      if (!p.active) continue;
      call_program(p, w.layer_size, previous.storms, previous.expected, previous.layers, round == 0);
      if (!p.active) continue;
      const double ms = call_program(p, w.layer_size, fresh.storms, fresh.expected, fresh.layers, false);
      if (p.active && round >= warmup) p.samples.push_back(ms);
    }
    previous = std::move(fresh);
    const int timed = round + 1 - warmup;
    if (timed >= 1 && (!programs[0].active || decided(programs[0].samples))) break;
    if (timed >= options.min_runs) {
      const double elapsed = std::chrono::duration<double>(clock::now() - started).count();
      const bool steady = std::all_of(programs.begin(), programs.end(), [&](const Timed& p) {
        return !p.active || p.summary().robust_cv < options.target_cv;  // one late call moves no median
      });
      if (steady || elapsed > options.budget_s) break;
    }
  }
}

// Where the time of your program goes (the report shows this breakdown): your three steps,
// timed as kernels on one storm of the leaderboard workload; the rest of the program's time is
// allocation, transfers and host work.
struct Breakdown {
  double update_ms = 0, relax_ms = 0, maximum_ms = 0;
};

Breakdown step_times() {
  const PerfWorkload w = perf_workload();
  const int n = w.layer_size;
  const auto s = sg::generate_storm(w.shape(), input_seed(8, 0, 0), 0);
  workbook::Stream stream;
  DeviceBuffer<float> layer(n), layer_copy(n), candidate_values(2 * std::size_t(n)), max_value(1);
  DeviceBuffer<int> candidate_positions(2 * std::size_t(n)), max_position(1);  // 2n: storm.h
  const auto particles = device_particles(s, stream);
  CUDA_CHECK(cudaMemsetAsync(layer.data(), 0, layer.bytes(), stream));
  workbook::TimingOptions options = grading::timing_options();
  options.budget_s = 0.5;
  const auto time = [&](const std::function<void()>& launch) {
    return workbook::time_gpu(stream, launch, {}, {}, options).ms.median;
  };
  Breakdown b;
  b.update_ms = time([&] { storm::update(layer.data(), n, particles.data(), s.size(), stream); });
  b.relax_ms = time([&] { storm::relax(layer.data(), layer_copy.data(), n, stream); });
  b.maximum_ms = time([&] {
    storm::maximum(layer.data(), n, candidate_values.data(), candidate_positions.data(), max_value.data(),
                   max_position.data(), stream);
  });
  return b;
}

struct ProgramTimes {
  Timed yours, ref1, ref2;
  std::optional<Breakdown> steps;  // of your program, when it is right
};

const ProgramTimes& program_times() {
  static std::optional<ProgramTimes> times;
  if (times) return *times;
  std::vector<Timed> programs(3);
  programs[0].name = "your program";
  programs[0].program = simulate_with_yours;
  programs[1].name = "Ref1";
  programs[1].program = storm_tiers::ref1_program;
  programs[2].name = "Ref2";
  programs[2].program = storm_tiers::ref2_program;
  // Decided once the calls settle both tiers' verdicts (the median against each tier's limit).
  const auto limit = [](const char* key) {
    return baselines().program_ms / grading::threshold(std::string("exercises.resident.") + key);
  };
  const int min_runs = grading::timing_options().min_runs;
  const auto ref1_decided = workbook::decided_by_limit(limit("min_speedup_ref1"), min_runs);
  const auto ref2_decided = workbook::decided_by_limit(limit("min_speedup_ref2"), min_runs);
  time_programs(programs, [&](const std::vector<double>& ms) { return ref1_decided(ms) && ref2_decided(ms); });
  times = ProgramTimes{programs[0], programs[1], programs[2], std::nullopt};
  if (programs[0].wrong == 0 && !programs[0].samples.empty()) {
    times->steps = step_times();
    const auto& b = *times->steps;
    const PerfWorkload w = perf_workload();
    const double median = programs[0].summary().median;
    const double kernels = w.storms * (b.update_ms + b.relax_ms + b.maximum_ms);
    std::cout << strf(
        "  your program: %.3f ms = %d storms x (update %.3f + relax %.3f + maximum %.3f ms of kernels) "
        "+ %.3f ms of allocation, transfers and host work (%s in the first call)\n",
        median, w.storms, b.update_ms, b.relax_ms, b.maximum_ms, median - kernels,
        programs[0].transfers.describe().c_str());
  }
  return *times;
}

void program_metrics(const Timed& t, CaseResult& r) {
  const double base = baselines().program_ms;
  const auto s = t.summary();
  r.metrics["median_ms"] = s.median;
  r.metrics["min_ms"] = s.min;
  r.metrics["cv"] = s.robust_cv;
  r.metrics["runs"] = s.count;
  r.metrics["baseline_ms"] = base;
  r.metrics["speedup"] = base / s.median;
}

// One tier of the leaderboard: your program's speedup must reach the tier's threshold. The
// metrics place you between Ref1 and Ref2, timed in the same rounds.
void tier_case(const std::string& threshold_key, CaseResult& r) {
  const auto& t = program_times();
  const double min_speedup = grading::threshold("exercises.resident." + threshold_key);
  const double base = baselines().program_ms;
  const PerfWorkload w = perf_workload();
  r.metrics = {{"layer_size", w.layer_size}, {"storms", w.storms}, {"particles", w.particles}};
  if (t.yours.wrong > 0 || t.yours.samples.empty()) {
    r.outcome = Outcome::Incorrect;
    r.detail = strf("%zu of %zu calls gave wrong results, first: %s", t.yours.wrong, t.yours.calls,
                    t.yours.first_wrong.c_str());
    return;
  }
  program_metrics(t.yours, r);
  r.metrics["min_speedup"] = min_speedup;
  const double med = t.yours.summary().median;
  r.metrics["h2d_bytes"] = t.yours.transfers.h2d_bytes;
  r.metrics["d2h_bytes"] = t.yours.transfers.d2h_bytes;
  if (t.steps) {  // the breakdown: kernels per storm, and the rest
    r.metrics["update_ms"] = t.steps->update_ms;
    r.metrics["relax_ms"] = t.steps->relax_ms;
    r.metrics["maximum_ms"] = t.steps->maximum_ms;
    r.metrics["other_ms"] = med - w.storms * (t.steps->update_ms + t.steps->relax_ms + t.steps->maximum_ms);
  }
  if (!t.ref1.samples.empty()) r.metrics["ref1_ms"] = t.ref1.summary().median;
  if (!t.ref2.samples.empty()) r.metrics["ref2_ms"] = t.ref2.summary().median;
  if (!t.ref1.samples.empty() && !t.ref2.samples.empty()) {
    // Where you stand: 0 at Ref1's time, 1 at Ref2's (on a log scale of time), beyond either end.
    const double a = std::log(t.ref1.summary().median), b = std::log(t.ref2.summary().median);
    r.metrics["between_ref1_and_ref2"] = (a - std::log(med)) / (a - b);
  }
  const double speedup = base / med;
  if (speedup >= min_speedup) {
    r.outcome = Outcome::Passed;
  } else {
    r.outcome = Outcome::TooSlow;
    r.detail = strf(
        "median %.3g ms is %.0fx the sequential program (%.4g s); needs %.0fx, i.e. at most %.3g ms "
        "(Ref1 takes %.3g ms, Ref2 %.3g ms)",
        med, speedup, base / 1e3, min_speedup, base / min_speedup,
        t.ref1.samples.empty() ? NAN : t.ref1.summary().median, t.ref2.samples.empty() ? NAN : t.ref2.summary().median);
  }
}

// A reference tier's own row: its time and speedup, beside the threshold of its tier.
void reference_tier(const Timed& t, const std::string& threshold_key, CaseResult& r) {
  if (t.wrong > 0 || t.samples.empty()) {
    r.outcome = Outcome::Error;
    r.detail = "internal: the reference tier gave wrong results: " + t.first_wrong;
    return;
  }
  program_metrics(t, r);
  r.metrics["min_speedup"] = grading::threshold("exercises.resident." + threshold_key);
  r.outcome = Outcome::Passed;
}

}  // namespace

// ---- the graded cases ---------------------------------------------------------------------------

TEST_CASE("update: every cell gets every particle's energy", "[update][correctness]") {
  int count = 0;
  for (const auto& s : kUpdateShapes) count += is_large(s.layer_size, s.particles) ? 1 : 2;
  grading::plan("update", "correctness", count);
  int index = 0;
  for (const auto& s : kUpdateShapes) {
    if (is_large(s.layer_size, s.particles) && grading::fewer_cases()) {
      ++index;
      continue;
    }
    for (int repeat = 0; repeat < (is_large(s.layer_size, s.particles) || grading::fewer_cases() ? 1 : 2); ++repeat)
      GRADE_CASE("update", "correctness", update_name(s, repeat),
                 [&](CaseResult& r) { run_update(s, index, repeat, r); });
    ++index;
  }
}

TEST_CASE("update: speedup over the sequential update", "[update][performance]") {
  const PerfWorkload w = perf_workload();
  GRADE_CASE("update", "performance", strf("%d cells x %d particles", w.layer_size, w.particles),
             [](CaseResult& r) { update_performance(r); });
}

TEST_CASE("relax: the three-point average, ends untouched, no race", "[relax][correctness]") {
  grading::plan("relax", "correctness", 2 * static_cast<int>(std::size(kRelaxSizes)));
  int index = 0;
  for (int n : kRelaxSizes) {
    for (int repeat = 0; repeat < (grading::fewer_cases() ? 1 : 2); ++repeat)
      GRADE_CASE("relax", "correctness", cells(n) + (repeat ? " #2" : ""),
                 [&](CaseResult& r) { run_relax(n, index, repeat, r); });
    ++index;
  }
}

TEST_CASE("maximum: strict local maxima, ties to the lowest position", "[maximum][correctness]") {
  const auto cases = maximum_cases();
  grading::plan("maximum", "correctness", 2 * static_cast<int>(cases.size()));
  int index = 0;
  for (const auto& mc : cases) {
    for (int repeat = 0; repeat < (grading::fewer_cases() ? 1 : 2); ++repeat)
      GRADE_CASE("maximum", "correctness", mc.name + (repeat ? " #2" : ""),
                 [&](CaseResult& r) { run_maximum(mc, index, repeat, r); });
    ++index;
  }
}

TEST_CASE("resident: simulate() with the grader's steps", "[resident][correctness]") {
  const auto& workloads = program_workloads();
  grading::plan("resident", "correctness", static_cast<int>(workloads.size()));
  for (const auto& w : workloads)
    GRADE_CASE("resident", "correctness", w.name, [&](CaseResult& r) { run_program_case(w, simulate_with_ref1, r); });
}

TEST_CASE("resident: only the particles go in, only the results come out", "[resident][transfers]") {
  GRADE_CASE("resident", "transfers", "4194304 cells, 3 storms x 64 particles", [](CaseResult& r) {
    const auto& c = grading::config();
    const double per_particle = c.require_number("exercises.resident.max_h2d_bytes_per_particle");
    const double per_storm = c.require_number("exercises.resident.max_d2h_bytes_per_storm");
    const double slack = c.require_number("exercises.resident.transfer_slack_bytes");
    sg::StormShape shape;
    shape.layer_size = 1 << 22;
    shape.storms = 3;
    shape.particles = 64;
    const auto w = make_workload("transfers", shape.layer_size, sg::generate_storms(shape, input_seed(7, 0, 0)));
    dirty_device_memory(std::size_t(w.layer_size) * 4 * sizeof(float));
    sg::stage_layer_samples(w.layer_size, w.storms);  // before the count: its upload is the grader's
    sg::TransferCount count;
    const auto got = simulate_with_ref1(w.layer_size, w.storms);
    const sg::Transfers t = count.stop();
    const std::string wrong = check_program(w.layer_size, w.storms, w.expected, w.layers, got);
    const double h2d_limit = per_particle * shape.storms * shape.particles + slack;
    const double d2h_limit = per_storm * shape.storms + slack;
    r.metrics = {{"h2d_bytes", t.h2d_bytes}, {"h2d_calls", t.h2d_calls}, {"d2h_bytes", t.d2h_bytes},
                 {"d2h_calls", t.d2h_calls}, {"d2d_bytes", t.d2d_bytes}, {"h2d_limit", h2d_limit},
                 {"d2h_limit", d2h_limit}};
    const double layer_bytes = double(w.layer_size) * sizeof(float);
    r.metrics["uncounted_allocations"] = t.uncounted_allocations;
    if (!wrong.empty()) {
      r.outcome = Outcome::Incorrect;
      r.detail = "the results must be right before the copies are judged: " + wrong;
    } else if (t.uncounted_allocations > 0) {
      r.outcome = Outcome::Incorrect;
      r.detail = t.describe() +
                 ": the layer belongs in device memory (cudaMalloc), with only the particles "
                 "copied in and the results copied out, each by a copy the grader can count";
    } else if (t.h2d_bytes > h2d_limit) {
      r.outcome = Outcome::Incorrect;
      r.detail = strf(
          "%s; the particles are %.1f KiB and the layer %.1f MiB: the layer must be zeroed on the device "
          "and never copied from the host",
          t.describe().c_str(), 8.0 * shape.storms * shape.particles / 1024, layer_bytes / 1048576);
    } else if (t.d2h_bytes > d2h_limit) {
      r.outcome = Outcome::Incorrect;
      r.detail = strf("%s; only the results (8 bytes a storm) need to come back, the layer (%.1f MiB) never",
                      t.describe().c_str(), layer_bytes / 1048576);
    } else {
      r.outcome = Outcome::Passed;
    }
  });
}

TEST_CASE("resident: the whole program with your steps", "[resident][program]") {
  const auto& workloads = program_workloads();
  grading::plan("resident", "program", static_cast<int>(workloads.size()));
  for (const auto& w : workloads)
    GRADE_CASE("resident", "program", w.name, [&](CaseResult& r) { run_program_case(w, simulate_with_yours, r); });
}

TEST_CASE("resident: the whole program against the sequential one and the tiers", "[resident][performance][tiers]") {
  grading::plan("resident", "performance", 2);
  GRADE_CASE("resident", "performance", "speedup, Ref1 tier", [](CaseResult& r) { tier_case("min_speedup_ref1", r); });
  GRADE_CASE("resident", "performance", "speedup, Ref2 tier", [](CaseResult& r) { tier_case("min_speedup_ref2", r); });
  grading::plan("resident", "tiers", 2);
  GRADE_CASE("resident", "tiers", "Ref1: straightforward port",
             [](CaseResult& r) { reference_tier(program_times().ref1, "min_speedup_ref1", r); });
  GRADE_CASE("resident", "tiers", "Ref2: optimised reference",
             [](CaseResult& r) { reference_tier(program_times().ref2, "min_speedup_ref2", r); });
}

// The leaderboard (`grader leaderboard particle-storm`, docs/leaderboard-guide.md): the course's
// contest, the whole program on the [performance] workload, host in to host out, wall time
// (contest.hpp, host_timed). Hidden ([.]): run only when asked for by tag. Your program and the
// tiers Ref1 and Ref2 each get the same fresh storms for call i, and every call is checked: each
// storm's maximum and, for your program, its layer (check_program). The first warm-up calls are
// validity calls on workloads unlike the timed one (both signs, particles off the layer, other
// layer sizes, as the lab's storms have): a program right only on the timed workload's kind of
// storm is invalid. Warm-up calls are judged but not timed, and come after the contest's
// baselines are taken (contest.cpp), so they change no rule.
namespace {

// The validity calls' workloads (input kind 11): the leaderboard's layer with both signs and
// particles far off both ends, an odd-sized layer, a small one, and a large one.
std::vector<sg::StormShape> contest_validity_shapes(const PerfWorkload& w) {
  const auto shape = [](int layer_size, int storms, int particles, long long lo, long long hi) {
    return sg::storm_shape(layer_size, storms, particles, lo, hi, -1000, 1000);
  };
  const int n = w.layer_size;
  return {shape(n, w.storms, w.particles, -(n / 16), n + n / 16), shape(100003, 3, 1000, -1000, 101002),
          shape(4097, 3, 300, -200, 4296), shape((1 << 22) + 1, 2, 64, -100000, (1 << 22) + 100000)};
}

void leaderboard_program(const std::string& entry,
                         const std::function<std::vector<Result>(int, const std::vector<Storm>&)>& program) {
  const PerfWorkload w = perf_workload();
  struct Call {
    int layer_size = 0;
    std::vector<Storm> storms;
    std::vector<Result> expected;
    std::vector<sg::RefLayer> layers;
    std::string what;  // a validity call's workload, for the verdict
  };
  static std::map<int, Call> calls;  // shared by the three entries: the same inputs for call i
  const auto validity = contest_validity_shapes(w);
  const int extra = static_cast<int>(validity.size());
  workbook::Stream stream;  // the programs make their own; the contest's rules need one
  workbook::ContestOptions options = grading::contest_options();
  options.host_timed = true;
  options.warmup += extra;  // the validity calls first, then the usual warm-up calls
  std::vector<Result> got;
  int current = 0;
  const auto result = workbook::time_contest(
      stream,
      [&](int i) {
        current = i;
        if (!calls.count(i)) {
          Call c;
          if (i < extra) {
            const sg::StormShape& shape = validity[i];
            c.layer_size = shape.layer_size;
            c.storms = sg::generate_storms(shape, input_seed(11, i, 0));
            c.what = strf(
                "the validity workload %d of %d (%s, %d storms x %d particles, both signs, positions %lld .. %lld)",
                i + 1, extra, cells(shape.layer_size).c_str(), shape.storms, shape.particles, shape.min_position,
                shape.max_position);
          } else {  // the timed workload: call i's storms as before the validity calls came
            c.layer_size = w.layer_size;
            c.storms = sg::generate_storms(w.shape(), input_seed(10, i - extra, 0));
          }
          workbook::PhaseScope reference(workbook::Phase::Reference);
          c.expected = sg::ref_simulate_best(c.layer_size, c.storms, &c.layers);  // large: on the device
          calls[i] = std::move(c);
        }
        sg::stage_layer_samples(calls.at(i).layer_size, calls.at(i).storms);  // untimed: prepare
        got.clear();
      },
      [&] { got = program(calls.at(current).layer_size, calls.at(current).storms); },
      [&](int i) {
        const Call& c = calls.at(i);
        const std::string wrong = check_program(c.layer_size, c.storms, c.expected, c.layers, got);
        return wrong.empty() || c.what.empty() ? wrong : "on " + c.what + ": " + wrong;
      },
      options);
  grading::record_leaderboard("resident", entry, result);
  INFO(entry << ": " << result.invalid);
  CHECK(result.valid());
}

}  // namespace

TEST_CASE("resident: leaderboard timing of the whole program, with the tiers", "[resident][leaderboard][.]") {
  leaderboard_program("self", simulate_with_yours);
  if (grading::leaderboard_tiers()) {  // the reference's run times the tiers; a student's does not
    leaderboard_program("Ref1", storm_tiers::ref1_program);
    leaderboard_program("Ref2", storm_tiers::ref2_program);
  }
}

// The sequential baselines alone (hidden: `grader calibrate` runs them where there is no
// reference solution to time, to learn this CPU's speed; the times land in the baseline cache).
TEST_CASE("the sequential baselines, for grader calibrate", "[baseline][.]") { CHECK(baselines().program_ms > 0); }
