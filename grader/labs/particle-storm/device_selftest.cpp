// GPU test of particle-storm's device reference (device_reference.hpp): on every workload, the
// same results and the same layers as the CPU reference (reference.hpp), bit for bit: values,
// magnitudes, counts. The CPU reference is itself the sequential program bit for bit
// (selftest.cpp), so the verdicts of the timed rounds are the verdicts they were.
// Without a GPU: a visible skip (exit 77, CTest "Skipped").
//
//   build/dev/bin/particle-storm-device-selftest          (or: ctest -R gpu/particle-storm-reference)
#include "grader/catch.hpp"

#include "device_reference.hpp"
#include "generator.hpp"
#include "reference.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

namespace {

namespace sg = storm_grading;

bool same_bits(float a, float b) { return std::memcmp(&a, &b, sizeof a) == 0; }

// How many floats differ in their bits (a size mismatch counts every element).
std::size_t differing(const std::vector<float>& a, const std::vector<float>& b) {
  if (a.size() != b.size()) return std::max(a.size(), b.size()) + 1;
  std::size_t n = 0;
  for (std::size_t k = 0; k < a.size(); ++k) n += !same_bits(a[k], b[k]);
  return n;
}

void require_same_layer(const sg::RefLayer& cpu, const sg::RefLayer& gpu) {
  CHECK(differing(cpu.value, gpu.value) == 0);
  CHECK(cpu.magnitude.empty() == gpu.magnitude.empty());
  CHECK(differing(cpu.magnitude, gpu.magnitude) == 0);
  CHECK(cpu.particles == gpu.particles);
  CHECK(cpu.storms == gpu.storms);
}

struct Shape {
  std::string what;
  int layer_size, storms, particles;
  long long min_position, max_position;
  int min_energy, max_energy;
};

sg::StormShape storm_shape(const Shape& s) {
  return sg::storm_shape(s.layer_size, s.storms, s.particles, s.min_position, s.max_position, s.min_energy,
                         s.max_energy);
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Both references on the storms: the same results, layers and verdicts.
void compare_simulations(const std::string& what, int layer_size, const std::vector<storm::Storm>& storms) {
  INFO(what);
  std::vector<sg::RefLayer> cpu_layers, gpu_layers;
  auto t0 = std::chrono::steady_clock::now();
  const auto cpu = sg::ref_simulate(layer_size, storms, &cpu_layers);
  const double cpu_s = seconds_since(t0);
  t0 = std::chrono::steady_clock::now();
  const auto gpu = sg::ref_simulate_device(layer_size, storms, &gpu_layers);
  const double gpu_s = seconds_since(t0);
  std::printf("  %-70s CPU reference %8.1f ms, device %7.1f ms\n", what.c_str(), cpu_s * 1e3, gpu_s * 1e3);
  REQUIRE(cpu.size() == storms.size());
  REQUIRE(gpu.size() == cpu.size());
  REQUIRE(gpu_layers.size() == cpu_layers.size());
  for (std::size_t i = 0; i < cpu.size(); ++i) {
    INFO("storm " << i + 1 << " of " << cpu.size());
    CHECK(gpu[i].position == cpu[i].position);
    CHECK(same_bits(gpu[i].value, cpu[i].value));
    require_same_layer(cpu_layers[i], gpu_layers[i]);
    // The verdicts follow (the same inputs to judge): right accepted, wrong rejected, by both.
    CHECK(sg::judge(gpu_layers[i], gpu[i], cpu[i]).ok);
    // A value off by more than any cell's tolerance (position 0 is judged with the largest).
    double widest = 0;
    for (int k = 0; k < cpu_layers[i].size(); ++k) widest = std::max(widest, sg::tolerance(cpu_layers[i], k));
    const storm::Result off{cpu[i].position, float(cpu[i].value + 4 * widest + 1e-3 * std::fabs(cpu[i].value) + 1e-6)};
    CHECK(sg::judge(cpu_layers[i], cpu[i], off).ok == sg::judge(gpu_layers[i], gpu[i], off).ok);
    CHECK_FALSE(sg::judge(gpu_layers[i], gpu[i], off).ok);
  }
}

}  // namespace

TEST_CASE("device reference: ref_simulate's results and layers, bit for bit") {
  const int n = 1 << 20;
  const Shape shapes[] = {
      // The [performance] workload of lab.toml (the timed rounds and the leaderboard's timed calls).
      {"performance: 1048576 cells, 2 storms x 2048", n, 2, 2048, 0, n - 1, 1, 1000},
      // The leaderboard's validity calls (test_storm.cpp, contest_validity_shapes).
      {"validity: 1048576 cells, 2 x 2048, both signs, off both ends", n, 2, 2048, -(n / 16), n + n / 16, -1000, 1000},
      {"validity: 100003 cells, 3 x 1000, both signs", 100003, 3, 1000, -1000, 101002, -1000, 1000},
      {"validity: 4097 cells, 3 x 300, both signs", 4097, 3, 300, -200, 4296, -1000, 1000},
      {"validity: 4194305 cells, 2 x 64, both signs, far off", (1 << 22) + 1, 2, 64, -100000, (1 << 22) + 100000, -1000,
       1000},
      // The correctness workloads' shapes (resident and program cases).
      {"1048576 cells, 2 x 512, both signs, off both ends", n, 2, 512, -65536, n + 65536, -1000, 1000},
      {"1048576 cells, 2 x 200, off both ends", n, 2, 200, -1000, n + 1000, 1, 1000},
      // Edges: tiny layers (no relaxation below 3 cells), a block edge, positions at +-10^9,
      // a layer past 2^24 cells (cell indices no longer all floats), zero energies, and only
      // negative energies.
      {"1 cell", 1, 3, 5, -2, 2, -1000, 1000},
      {"2 cells", 2, 3, 5, -3, 4, -1000, 1000},
      {"3 cells", 3, 2, 7, -2, 4, -50, 50},
      {"257 cells, zero energies among others", 257, 3, 100, -10, 266, -2, 2},
      {"70001 cells, positions +-10^9", 70001, 2, 50, -1000000000, 1000000000, 1, 1000},
      {"20000000 cells, 2 x 2, both signs", 20000000, 2, 2, 19999000, 20001000, -1000, 1000},
      {"65536 cells, only negative energies", 65536, 2, 300, 0, 65535, -1000, -1},
  };
  std::uint64_t seed = 3301;
  for (const auto& s : shapes) compare_simulations(s.what, s.layer_size, sg::generate_storms(storm_shape(s), seed++));

  // Positive storms first, then one with a negative energy: the magnitude starts mid-way (equal
  // to the value up to then); then an empty storm.
  sg::StormShape positive = storm_shape({"", 100003, 2, 400, 0, 100002, 1, 1000});
  auto storms = sg::generate_storms(positive, seed++);
  sg::StormShape mixed = storm_shape({"", 100003, 1, 400, -500, 100500, -1000, 1000});
  storms.push_back(sg::generate_storm(mixed, seed++, 0));
  storms.push_back(storm::Storm{});
  compare_simulations("100003 cells: 2 positive storms, a mixed one, an empty one", 100003, storms);
}

TEST_CASE("device reference: ref_update on a layer that already holds energy, bit for bit") {
  struct Case {
    const char* what;
    int layer_size, particles, min_energy, max_energy;
    float low, high;  // the initial layer's values
  };
  const Case cases[] = {
      {"update performance case: 1048576 cells, 2048 particles, layer in [0, 1)", 1 << 20, 2048, 1, 1000, 0.0f, 1.0f},
      {"1048576 cells, 512 particles, both signs, layer in [-1, 1)", 1 << 20, 512, -1000, 1000, -1.0f, 1.0f},
      {"positive layer, a negative particle: the magnitude starts here", 4097, 300, -1000, 1000, 0.0f, 1.0f},
      {"negative layer, positive particles", 4097, 300, 1, 1000, -1.0f, 0.0f},
      {"2 cells", 2, 5, -1000, 1000, -1.0f, 1.0f},
  };
  std::uint64_t seed = 77;
  for (const auto& c : cases) {
    INFO(c.what);
    sg::StormShape shape;
    shape.layer_size = c.layer_size;
    shape.particles = c.particles;
    shape.min_position = -100;
    shape.max_position = c.layer_size + 100;
    shape.min_energy = c.min_energy;
    shape.max_energy = c.max_energy;
    const storm::Storm s = sg::generate_storm(shape, seed++, 0);
    std::vector<float> initial(c.layer_size);
    std::uint64_t z = seed++;
    for (float& v : initial) {  // any values will do: a small LCG
      z = z * 6364136223846793005ull + 1442695040888963407ull;
      v = c.low + (c.high - c.low) * float(z >> 40) / float(1 << 24);
    }
    sg::RefLayer cpu(initial), gpu(initial);
    sg::ref_update(cpu, s.posval.data(), s.size());
    sg::ref_update_device(gpu, s.posval.data(), s.size());
    require_same_layer(cpu, gpu);
    // And a second step on the same layers (the counts and magnitudes carry over).
    sg::ref_relax(cpu);
    sg::ref_relax(gpu);  // on the host: RefLayer is host data between steps
    sg::ref_update(cpu, s.posval.data(), s.size());
    sg::ref_update_device(gpu, s.posval.data(), s.size());
    require_same_layer(cpu, gpu);
  }
}

TEST_CASE("device reference: used for the large workloads only") {
  // The runtime self-check agrees here (else the grader would fall back to the CPU, slower).
  REQUIRE(sg::device_reference_agrees());
  sg::StormShape perf;
  perf.layer_size = 1 << 20;
  perf.storms = 2;
  perf.particles = 2048;
  CHECK(sg::device_reference_pays(perf.layer_size, sg::generate_storms(perf, 1)));
  sg::StormShape small;
  small.layer_size = 100003;
  small.storms = 2;
  small.particles = 300;
  CHECK_FALSE(sg::device_reference_pays(small.layer_size, sg::generate_storms(small, 1)));
  std::vector<sg::RefLayer> a, b;
  const auto storms = sg::generate_storms(perf, 2);
  const auto best = sg::ref_simulate_best(perf.layer_size, storms, &a);
  const auto cpu = sg::ref_simulate(perf.layer_size, storms, &b);
  REQUIRE(best.size() == cpu.size());
  for (std::size_t i = 0; i < cpu.size(); ++i) {
    CHECK(best[i].position == cpu[i].position);
    CHECK(same_bits(best[i].value, cpu[i].value));
    require_same_layer(b[i], a[i]);
  }
}
