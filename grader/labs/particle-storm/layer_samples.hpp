// Whole-layer checks of a whole program (issue 32, "Whole answers checked").
//
// A whole program returns only each storm's maximum, and a program that computes only the cells
// near the particles can get those right. So the grader checks the layer too, without trusting
// the program: in the runner (remote.cu), the steps simulate() is given have a `maximum` that
// first samples the layer it is handed (the relaxed layer of that storm, storm.h) and then calls
// the real maximum (yours, or the grader's Ref1). The sample, per storm:
//   - every cell, on a layer of at most kRandomCells + the fixed cells below;
//   - else both end cells, the cells at and beside each particle's impact (its position, or the
//     nearer end for a particle off the layer; up to kImpactsSampled particles), and
//     kRandomCells cells at positions drawn on the device from a seed that the runner draws from
//     std::random_device at the moment maximum is called (after the call started: no input, no
//     earlier call and nothing the program can read beforehand tells where they fall).
// One small gather kernel per storm, on the stream maximum is given (so it sees exactly the
// layer maximum sees), writes the cells' positions and values into the harness's device memory;
// the harness reads them back after the call and compares each with the reference layer after
// that storm (reference.hpp: tolerance, as the update's and relax's own cases do).
//
// What the harness sets up before the call (stage_layer_samples: the fixed cells, uploaded
// outside any timed window and any count of copies) is here; the runner's side is in remote.cu;
// the verdict is in storm_programs.cpp (check_program).
#pragma once

#include "storm.h"
#include "workbook/seeded.hpp"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <type_traits>
#include <vector>

#ifndef WORKBOOK_RUNNER
#include "workbook/cuda_check.hpp"
#include "workbook/device_buffer.hpp"
#endif

namespace storm_grading {

constexpr int kRandomCells = 4096;     // cells at random positions, per storm
constexpr int kImpactsSampled = 4096;  // particles whose impact cells are sampled, per storm

// Where each storm's sample lies in the arrays: storm i has slot_count(i) slots from slot_offset[i]
// (positions and values) and fixed_count(i) fixed cells from fixed_offset[i]; the slots after its
// fixed cells are drawn at random. `whole`: the sample is every cell, slot t being cell t.
struct SampleLayout {
  int layer_size = 0;
  std::vector<int> particles;                  // each storm's particle count
  std::vector<std::uint64_t> fixed_offset{0};  // storms + 1 entries
  std::vector<std::uint64_t> slot_offset{0};   // storms + 1 entries
  std::uint64_t fixed_count(std::size_t i) const { return fixed_offset[i + 1] - fixed_offset[i]; }
  std::uint64_t slot_count(std::size_t i) const { return slot_offset[i + 1] - slot_offset[i]; }
  bool whole(std::size_t i) const { return slot_count(i) == std::uint64_t(layer_size); }
  std::uint64_t fixed_total() const { return fixed_offset.back(); }
  std::uint64_t slot_total() const { return slot_offset.back(); }
};

inline int impacts_sampled(int particles) { return std::min(particles, kImpactsSampled); }

inline SampleLayout sample_layout(int layer_size, const std::vector<int>& particles) {
  SampleLayout l;
  l.layer_size = layer_size;
  l.particles = particles;
  for (int p : particles) {
    const std::uint64_t fixed = 2 + 3 * std::uint64_t(impacts_sampled(std::max(p, 0)));
    const bool whole = layer_size > 0 && std::uint64_t(layer_size) <= fixed + kRandomCells;
    l.fixed_offset.push_back(l.fixed_offset.back() + (whole ? 0 : fixed));
    l.slot_offset.push_back(l.slot_offset.back() +
                            (whole ? std::uint64_t(std::max(layer_size, 0)) : fixed + kRandomCells));
  }
  return l;
}

inline std::vector<int> particle_counts(const std::vector<storm::Storm>& storms) {
  std::vector<int> counts;
  counts.reserve(storms.size());
  for (const auto& s : storms) counts.push_back(s.size());
  return counts;
}

// The fixed cells of one storm (appended to `out`): both ends, then for each sampled particle the
// cell it hits (its position, clamped to the layer) and its two neighbours (clamped too).
inline void append_fixed_cells(int layer_size, const storm::Storm& s, std::vector<int>& out) {
  const auto clamp = [&](long long k) { return int(std::min<long long>(std::max<long long>(k, 0), layer_size - 1)); };
  out.push_back(0);
  out.push_back(layer_size - 1);
  const int n = impacts_sampled(s.size());
  for (int i = 0; i < n; ++i) {
    const int j = int((long long)i * s.size() / n);  // evenly over the storm when it has more
    const long long p = clamp(s.posval[2 * std::size_t(j)]);
    for (long long d = -1; d <= 1; ++d) out.push_back(clamp(p + d));
  }
}

// The random cell of slot t (t counted from the storm's first slot), from the call's seed: the
// same on the device (remote.cu) and here, where it is not needed (the runner writes the
// positions it used beside the values) but documents the rule.
#if defined(__CUDACC__)
__host__ __device__
#endif
    inline int
    random_cell(std::uint64_t seed, std::uint64_t t, int layer_size) {
  return int(workbook::seeded::bits_at(seed, t) % std::uint64_t(layer_size));
}

#ifndef WORKBOOK_RUNNER

// The harness's side: the fixed cells of the next call, and room for what the runner writes.
// One set of buffers for the whole run (grown when a workload needs more), so that the runner
// opens their IPC handles once and a timed call allocates nothing.
struct SampleStage {
  bool staged = false;
  SampleLayout layout;
  workbook::DeviceBuffer<int> fixed;      // the fixed cells, uploaded by stage_layer_samples
  workbook::DeviceBuffer<int> positions;  // written by the runner: the cell of each slot
  workbook::DeviceBuffer<float> values;   // written by the runner: its value
  bool matches(int layer_size, const std::vector<storm::Storm>& storms) const {
    if (!staged || layout.layer_size != layer_size || layout.particles.size() != storms.size()) return false;
    for (std::size_t i = 0; i < storms.size(); ++i)
      if (layout.particles[i] != storms[i].size()) return false;
    return true;
  }
};

inline SampleStage& sample_stage() {
  static SampleStage stage;
  return stage;
}

// What the runner said about the last call of the student's simulate() (remote.cu, harness side).
struct LayerSampleRecord {
  bool sampled = false;             // the call's layers were sampled (the call was staged)
  std::uint32_t steps = 0;          // remote.cu's StepsChoice: 0 the student's steps, 1 the grader's Ref1
  std::uint32_t maximum_calls = 0;  // how many times simulate() called steps.maximum
};

inline std::optional<LayerSampleRecord>& last_layer_samples() {
  static std::optional<LayerSampleRecord> record;
  return record;
}

// Before a call of a program on these storms, outside any timed window and any count of copies:
// uploads the fixed cells (a cudaMemcpy, then the legacy stream synchronized: from pageable
// memory the copy may return before its DMA has landed, device_buffer.hpp) and forgets the last call's
// record, so that a program that does not run in the runner (the tiers) leaves none.
inline void stage_layer_samples(int layer_size, const std::vector<storm::Storm>& storms) {
  SampleStage& st = sample_stage();
  last_layer_samples().reset();
  st.staged = false;
  if (layer_size < 1) return;
  st.layout = sample_layout(layer_size, particle_counts(storms));
  std::vector<int> fixed;
  fixed.reserve(st.layout.fixed_total());
  for (std::size_t i = 0; i < storms.size(); ++i)
    if (!st.layout.whole(i)) append_fixed_cells(layer_size, storms[i], fixed);
  const auto grow = [](auto& buffer, std::uint64_t need) {
    using Buffer = std::decay_t<decltype(buffer)>;
    if (buffer.size() < need) buffer = Buffer(std::max<std::uint64_t>({need, 2 * buffer.size(), 1 << 16}));
  };
  grow(st.fixed, std::max<std::uint64_t>(fixed.size(), 1));
  grow(st.positions, std::max<std::uint64_t>(st.layout.slot_total(), 1));
  grow(st.values, std::max<std::uint64_t>(st.layout.slot_total(), 1));
  if (!fixed.empty())
    CUDA_CHECK(cudaMemcpy(st.fixed.data(), fixed.data(), fixed.size() * sizeof(int), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaStreamSynchronize(cudaStreamLegacy));
  st.staged = true;
}

#endif  // WORKBOOK_RUNNER

}  // namespace storm_grading
