// Built with -O3 -fno-math-errno -fno-trapping-math -ffp-contract=off (CMakeLists.txt): vector
// code, no fused multiply-adds and no reassociation, so every float operation rounds exactly
// as in sequential.cpp. The self-test (selftest.cpp) checks that bit for bit.
#include "reference.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <thread>

namespace storm_grading {
namespace {

// Adds one particle to cells [k0, k1): the sequential update(), one cell after the other.
// Written branch-free so the compiler vectorises it; the operations and their order per cell
// are the original's: energy / layer_size / sqrtf((float)distance), then the threshold test.
#if defined(__GNUC__) && defined(__x86_64__)
__attribute__((target_clones("avx2", "default")))
#endif
void add_particle(float* layer, int layer_size, int k0, int k1, int position, float energy) {
  const float energy_per_size = energy / layer_size;  // the first of the two divisions
  const float threshold = storm::THRESHOLD / layer_size;
  for (int k = k0; k < k1; ++k) {
    int distance = position - k;
    distance = distance < 0 ? -distance : distance;
    distance = distance + 1;
    const float energy_k = energy_per_size / sqrtf(static_cast<float>(distance));
    const bool add = (energy_k >= threshold) | (energy_k <= -threshold);
    const float old = layer[k];
    layer[k] = add ? old + energy_k : old;
  }
}

// Runs body(k0, k1) over [0, n) in chunks of `chunk` cells on every core.
template <class Body>
void parallel_chunks(int n, long long work_per_cell, const Body& body) {
  constexpr int chunk = 4096;  // 16 KiB of floats: stays in L1 while all particles go by
  const int chunks = (n + chunk - 1) / chunk;
  unsigned threads = std::max(1u, std::min(std::thread::hardware_concurrency(), 64u));
  if (static_cast<long long>(n) * work_per_cell < (1LL << 22)) threads = 1;  // not worth a thread
  threads = std::min<unsigned>(threads, chunks);
  std::atomic<int> next{0};
  const auto worker = [&] {
    for (int c; (c = next++) < chunks;) body(c * chunk, std::min(n, (c + 1) * chunk));
  };
  if (threads <= 1) return worker();
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads; ++t) pool.emplace_back(worker);
  worker();
  for (auto& t : pool) t.join();
}

void relax_array(std::vector<float>& layer) {
  const int n = static_cast<int>(layer.size());
  if (n < 3) return;
  // Only the previous value of k-1 is needed: keep it instead of copying the whole layer.
  float left = layer[0];
  for (int k = 1; k < n - 1; ++k) {
    const float here = layer[k];
    layer[k] = (left + here + layer[k + 1]) / 3;
    left = here;
  }
}

}  // namespace

RefLayer::RefLayer(std::vector<float> initial) : value(std::move(initial)) {
  if (std::any_of(value.begin(), value.end(), [](float v) { return v < 0; })) {
    magnitude.resize(value.size());
    for (std::size_t k = 0; k < value.size(); ++k) magnitude[k] = std::fabs(value[k]);
  }
}

void ref_update(RefLayer& layer, const int* posval, int num_particles) {
  const int n = layer.size();
  bool negative = false;
  for (int j = 0; j < num_particles; ++j) negative |= posval[2 * j + 1] < 0;
  if (negative && layer.magnitude.empty()) layer.magnitude = layer.value;  // all terms were >= 0
  const bool track = !layer.magnitude.empty();
  parallel_chunks(n, num_particles * (track ? 2 : 1), [&](int k0, int k1) {
    for (int j = 0; j < num_particles; ++j) {
      const float energy = static_cast<float>(posval[2 * j + 1]) * 1000;
      add_particle(layer.value.data(), n, k0, k1, posval[2 * j], energy);
      // The magnitude takes |term| wherever the value takes the term (the threshold test is
      // symmetric), so it is the same computation with |energy|.
      if (track) add_particle(layer.magnitude.data(), n, k0, k1, posval[2 * j], std::fabs(energy));
    }
  });
  layer.particles += num_particles;
}

void ref_relax(RefLayer& layer) {
  relax_array(layer.value);
  relax_array(layer.magnitude);  // nothing to do while it is empty
  ++layer.storms;
}

storm::Result ref_maximum(const std::vector<float>& layer) {
  storm::Result r;  // position 0, value 0.0f: the sequential program's starting point
  const int n = static_cast<int>(layer.size());
  for (int k = 1; k < n - 1; ++k)
    if (layer[k] > layer[k - 1] && layer[k] > layer[k + 1] && layer[k] > r.value) r = {k, layer[k]};
  return r;
}

std::vector<storm::Result> ref_simulate(int layer_size, const std::vector<storm::Storm>& storms,
                                        std::vector<RefLayer>* layers) {
  RefLayer layer(layer_size);
  std::vector<storm::Result> results;
  if (layers) layers->clear();
  for (const auto& s : storms) {
    ref_update(layer, s.posval.data(), s.size());
    ref_relax(layer);
    results.push_back(ref_maximum(layer.value));
    if (layers) layers->push_back(layer);
  }
  return results;
}

double tolerance(const RefLayer& layer, int k) {
  // Per term, rsqrtf and a reciprocal cost a few units of 2^-24 relative; a different summation
  // order typically sqrt(terms) units; each relaxation two more. Generous for rounding, and
  // still far below what a dropped, repeated or misplaced particle changes.
  constexpr double u = 1.0 / (1 << 24);
  const double rtol = 2e-6 + u * (8.0 * std::sqrt(static_cast<double>(layer.particles) + 1) + 4.0 * layer.storms);
  return rtol * layer.magnitude_at(k) + 1e-30;
}

Verdict judge(const RefLayer& after, const storm::Result& expected, const storm::Result& got) {
  const int n = after.size();
  char buf[512];
  // The tolerance of the expected value: at its cell, or, with no maximum, the largest anywhere
  // (a correct program may then find a tiny positive maximum that rounding created).
  double tol_expected = 0;
  if (expected.position != 0 || n < 3) {
    tol_expected = tolerance(after, expected.position);
  } else {
    for (int k = 0; k < n; ++k) tol_expected = std::max(tol_expected, tolerance(after, k));
  }
  if (!std::isfinite(got.value)) {
    std::snprintf(buf, sizeof buf, "expected %d %f, got %d %f: the value is not a number", expected.position,
                  expected.value, got.position, got.value);
    return {false, buf};
  }
  if (std::fabs(double(got.value) - expected.value) > tol_expected) {
    std::snprintf(buf, sizeof buf, "expected %d %f, got %d %f: the value is off by %.3g (allowed %.3g)",
                  expected.position, expected.value, got.position, got.value,
                  std::fabs(double(got.value) - expected.value), tol_expected);
    return {false, buf};
  }
  if (got.position == expected.position) return {};
  // No maximum found where the expected one is itself within rounding of zero: accepted too.
  if (got.position == 0 && got.value == 0.0f) return {};  // the value check above passed
  // Another position: accepted only if that cell is, within tolerance, a strict local maximum
  // as large as the expected one.
  if (got.position < 1 || got.position > n - 2) {
    std::snprintf(buf, sizeof buf, "expected %d %f, got %d %f: position %d is not an interior cell (1 .. %d)",
                  expected.position, expected.value, got.position, got.value, got.position, n - 2);
    return {false, buf};
  }
  const int p = got.position;
  const double tol = tolerance(after, p) + tol_expected;
  const double v = after.value[p];
  const bool as_large = std::fabs(v - expected.value) <= tol;
  const bool local_max = v + tol >= after.value[p - 1] && v + tol >= after.value[p + 1];
  if (as_large && local_max) return {};
  std::snprintf(buf, sizeof buf, "expected %d %f, got %d %f: cell %d holds %f in the sequential program's layer, %s",
                expected.position, expected.value, got.position, got.value, p, after.value[p],
                !as_large ? "not the maximum" : "not a local maximum");
  return {false, buf};
}

}  // namespace storm_grading
