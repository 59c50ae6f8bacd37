// Seeded input generators. The same seed gives the same inputs on every machine and compiler
// (SplitMix64, not std::uniform_*_distribution, whose output the C++ standard leaves to the
// library), so a seed printed in a report reproduces the failure anywhere.
#pragma once

#include <cstdint>
#include <vector>

namespace workbook {

class SplitMix64 {
public:
  explicit SplitMix64(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  double uniform() { return (next() >> 11) * 0x1.0p-53; }  // [0, 1)

private:
  std::uint64_t state_;
};

// Derives an independent stream for one input of one case from the run's seed, so that adding
// a case does not change the inputs of the others.
std::uint64_t derive_seed(std::uint64_t seed, std::uint64_t stream);

// Uniform floats in [lo, hi).
std::vector<float> random_floats(std::size_t count, std::uint64_t seed, float lo = -1.0f, float hi = 1.0f);

// Uniform integers in [lo, hi], stored as float. Products and sums of such values are exact in
// float32 as long as every partial sum stays below 2^24, so a result is either exactly right or
// wrong: no tolerance needed, whatever the order of summation.
std::vector<float> random_small_ints(std::size_t count, std::uint64_t seed, int lo = -4, int hi = 4);

// A seed for a run that was given none: different each time, printed so it can be replayed.
std::uint64_t fresh_seed();

}  // namespace workbook
