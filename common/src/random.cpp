#include "workbook/random.hpp"

#include "workbook/seeded.hpp"

#include <chrono>
#include <random>

namespace workbook {

std::uint64_t derive_seed(std::uint64_t seed, std::uint64_t stream) {
  SplitMix64 mix(seed ^ (0xD1B54A32D192ED03ull * (stream + 1)));
  return mix.next();
}

// Element by element from seeded.hpp, which the grader's device fills use too: the same bits.
std::vector<float> random_floats(std::size_t count, std::uint64_t seed, float lo, float hi) {
  std::vector<float> values(count);
  for (std::size_t i = 0; i < count; ++i) values[i] = seeded::float_at(seed, i, lo, hi);
  return values;
}

std::vector<float> random_small_ints(std::size_t count, std::uint64_t seed, int lo, int hi) {
  std::vector<float> values(count);
  for (std::size_t i = 0; i < count; ++i) values[i] = seeded::small_int_at(seed, i, lo, hi);
  return values;
}

std::uint64_t fresh_seed() {
  std::random_device device;
  const auto now = static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
  // Keep seeds short enough to type: 9 decimal digits.
  return (derive_seed(now, device()) % 900000000ull) + 100000000ull;
}

}  // namespace workbook
