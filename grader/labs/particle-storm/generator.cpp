#include "generator.hpp"

#include "workbook/random.hpp"

#include <stdexcept>

namespace storm_grading {
namespace {

long long uniform(workbook::SplitMix64& rng, long long lo, long long hi) {
  const auto span = static_cast<unsigned long long>(hi - lo) + 1;
  return lo + static_cast<long long>(rng.next() % span);  // the bias is below 2^-30: no matter
}

}  // namespace

storm::Storm generate_storm(const StormShape& shape, std::uint64_t seed, int index) {
  const long long lo = shape.min_position;
  const long long hi = shape.max_position >= shape.min_position ? shape.max_position : shape.layer_size - 1LL;
  if (shape.particles < 0 || shape.min_energy > shape.max_energy || lo > hi)
    throw std::invalid_argument("generate_storm: empty range of particles, positions or energies");
  workbook::SplitMix64 rng(workbook::derive_seed(seed, static_cast<std::uint64_t>(index)));
  storm::Storm s;
  s.posval.resize(2 * static_cast<std::size_t>(shape.particles));
  for (int j = 0; j < shape.particles; ++j) {
    s.posval[2 * j] = static_cast<int>(uniform(rng, lo, hi));
    s.posval[2 * j + 1] = static_cast<int>(uniform(rng, shape.min_energy, shape.max_energy));
  }
  return s;
}

std::vector<storm::Storm> generate_storms(const StormShape& shape, std::uint64_t seed) {
  std::vector<storm::Storm> storms;
  for (int i = 0; i < shape.storms; ++i) storms.push_back(generate_storm(shape, seed, i));
  return storms;
}

StormShape storm_shape(int layer_size, int storms, int particles, long long min_position, long long max_position,
                       int min_energy, int max_energy) {
  StormShape shape;
  shape.layer_size = layer_size;
  shape.storms = storms;
  shape.particles = particles;
  shape.min_position = min_position;
  shape.max_position = max_position;
  shape.min_energy = min_energy;
  shape.max_energy = max_energy;
  return shape;
}

}  // namespace storm_grading
