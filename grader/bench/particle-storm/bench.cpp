// particle-storm benchmark (grader/bench/particle-storm/bench.cpp): the update step, the one that
// holds nearly all the work, from Ref1 to Ref2 one idea at a time, and the reference solution's
// update, on one storm of `particles` particles over `layer_size` cells (default 1M x 16K).
// (Kernel names hold no commas: the CSV stays plain.) Each kernel is first validated against the sequential program's arithmetic on a sample of
// cells, then timed with the grader's method (warm-up, L2 flushed, median of >= 20 calls).
//
//   particle-storm-bench [layer_size] [particles] [--csv FILE]
#include "generator.hpp"
#include "storm.h"
#include "tiers.cuh"
#include "workbook/cuda_check.hpp"
#include "workbook/device_buffer.hpp"
#include "workbook/device_query.hpp"
#include "workbook/stream.hpp"
#include "workbook/timer.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

// The sequential program's value of cell k after the storm, starting from 0 (sequential.cpp).
float sequential_cell(int k, int layer_size, const storm::Storm& s) {
  float value = 0.0f;
  for (int j = 0; j < s.size(); ++j) {
    const float energy = (float)s.posval[2 * j + 1] * 1000;
    int distance = s.posval[2 * j] - k;
    if (distance < 0) distance = -distance;
    distance = distance + 1;
    const float energy_k = energy / layer_size / sqrtf((float)distance);
    if (energy_k >= storm::THRESHOLD / layer_size || energy_k <= -storm::THRESHOLD / layer_size)
      value = value + energy_k;
  }
  return value;
}

}  // namespace

int main(int argc, char** argv) try {
  int layer_size = 1 << 20, particles = 1 << 14;
  std::string csv;
  CLI::App app{
      "particle-storm benchmark: the update step of Ref1, Ref2 and the reference solution on one storm, each "
      "validated against the sequential program's arithmetic, then timed"};
  app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);  // a repeated option: the last wins
  app.add_option("layer_size", layer_size, "Cells in the layer")->capture_default_str();
  app.add_option("particles", particles, "Particles in the storm")->capture_default_str();
  app.add_option("--csv", csv, "Also write the results to FILE, one line per kernel (for grader/plot.sh)")
      ->type_name("FILE");
  CLI11_PARSE(app, argc, argv);

  const auto device = workbook::query_device(0);
  fmt::print(
      "particle-storm benchmark: the update step, {} cells x {} particles\nGPU: {} (sm_{}{}, {} SMs, {} MHz)\n\n",
      layer_size, particles, device.name, device.cc_major, device.cc_minor, device.multiprocessors,
      device.sm_clock_khz / 1000);

  storm_grading::StormShape shape;
  shape.layer_size = layer_size;
  shape.particles = particles;
  const storm::Storm s = storm_grading::generate_storm(shape, 2018, 0);
  workbook::Stream stream;
  workbook::DeviceBuffer<int> posval(s.posval);
  workbook::DeviceBuffer<float> layer(layer_size);
  CUDA_CHECK(cudaDeviceSynchronize());

  struct Entry {
    std::string name;
    std::function<void()> launch;
  };
  const auto tier = [&](storm_tiers::Update which) {
    return [&, which] { storm_tiers::update(which, layer.data(), layer_size, posval.data(), particles, stream); };
  };
  const std::vector<Entry> entries = {
      {"Ref1: global memory + sqrtf + divisions", tier(storm_tiers::Update::Ref1)},
      {"staged in shared memory + sqrtf + divisions", tier(storm_tiers::Update::StagedIeee)},
      {"Ref2: staged + rsqrtf + reciprocal", tier(storm_tiers::Update::Ref2)},
      {"reference solution (storm.cu)",
       [&] { storm::update(layer.data(), layer_size, posval.data(), particles, stream); }},
  };

  // Validate first, on 1024 cells spread over the layer and both ends.
  std::vector<int> sample;
  for (int i = 0; i < 1024; ++i) sample.push_back(int((long long)layer_size * i / 1024));
  sample.push_back(layer_size - 1);
  std::vector<float> expected;
  for (int k : sample) expected.push_back(sequential_cell(k, layer_size, s));
  const double rtol = 2e-6 + 8.0 * std::sqrt(double(particles)) / (1 << 24);  // as the grader (reference.hpp)
  for (const auto& e : entries) {
    CUDA_CHECK(cudaMemsetAsync(layer.data(), 0, layer.bytes(), stream));
    e.launch();
    stream.synchronize();
    const auto got = layer.download();
    for (std::size_t i = 0; i < sample.size(); ++i)
      if (!(std::fabs(got[sample[i]] - expected[i]) <= rtol * std::fabs(expected[i])))
        throw std::runtime_error(
            fmt::format("{}: layer[{}] = {}, expected {}", e.name, sample[i], got[sample[i]], expected[i]));
  }

  workbook::TimingOptions options;
  options.min_runs = 20;
  options.budget_s = 5;
  const double updates = double(layer_size) * particles;
  std::ofstream out;
  if (!csv.empty()) {
    out.open(csv);
    out << "kernel,layer_size,particles,median_ms,min_ms,cv,gcell_updates_per_s,over_ref1,gpu\n";
  }
  fmt::print("{:<46} {:>10} {:>10} {:>6} {:>16} {:>8}\n", "update kernel", "median ms", "min ms", "cv %",
             "G cell-updates/s", "x Ref1");
  double ref1_ms = 0;
  for (const auto& e : entries) {
    const auto t = workbook::time_gpu(
        stream, e.launch, [&] { CUDA_CHECK(cudaMemsetAsync(layer.data(), 0, layer.bytes(), stream)); }, {}, options);
    if (ref1_ms == 0) ref1_ms = t.ms.median;
    const double rate = updates / (t.ms.median * 1e-3) / 1e9;
    fmt::print("{:<46} {:>10.3f} {:>10.3f} {:>6.2f} {:>16.0f} {:>7.2f}x\n", e.name, t.ms.median, t.ms.min,
               100 * t.ms.cv, rate, ref1_ms / t.ms.median);
    if (out)
      out << fmt::format("\"{}\",{},{},{:.4f},{:.4f},{:.4f},{:.1f},{:.3f},\"{}\"\n", e.name, layer_size, particles,
                         t.ms.median, t.ms.min, t.ms.cv, rate, ref1_ms / t.ms.median, device.name);
  }
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "particle-storm-bench: %s\n", e.what());
  return 1;
}
