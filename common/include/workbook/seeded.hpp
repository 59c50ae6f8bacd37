// The seeded streams as functions of (seed, index): element i of a stream is SplitMix64's
// (i + 1)-th output, so any element can be made on its own, on the CPU or on the GPU, with the
// same bits. random.hpp's vectors are built from these, and the grader's device fills
// (grader/kit/src/device_inputs.cu) call them from kernels: a seed printed in a report reproduces the inputs
// whichever side drew them (tests/gpu compares the two).
//
// Host and device code alike; the arithmetic is spelled out with round-to-nearest intrinsics on
// the device so that nvcc cannot contract lo + (hi - lo) * u into an FMA, whose single rounding
// would give other bits than the CPU's two.
#pragma once

#include <cstdint>

#if defined(__CUDACC__)
#define WORKBOOK_HD __host__ __device__
#else
#define WORKBOOK_HD
#endif

namespace workbook::seeded {

inline constexpr std::uint64_t kGamma = 0x9E3779B97F4A7C15ull;  // SplitMix64's increment

WORKBOOK_HD inline std::uint64_t mix(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// The i-th (from 0) output of SplitMix64(seed).
WORKBOOK_HD inline std::uint64_t bits_at(std::uint64_t seed, std::uint64_t i) { return mix(seed + (i + 1) * kGamma); }

// Uniform in [lo, hi), as random_floats() draws it: a 53-bit fraction times (hi - lo) (a float
// difference), plus lo, in double, then rounded to float.
WORKBOOK_HD inline float float_at(std::uint64_t seed, std::uint64_t i, float lo, float hi) {
  const double u = static_cast<double>(bits_at(seed, i) >> 11) * 0x1.0p-53;
#if defined(__CUDA_ARCH__)
  return static_cast<float>(__dadd_rn(static_cast<double>(lo), __dmul_rn(static_cast<double>(hi - lo), u)));
#else
  const volatile double scaled = static_cast<double>(hi - lo) * u;  // no contraction on the host either
  return static_cast<float>(lo + scaled);
#endif
}

// An integer in [lo, hi], as random_small_ints() draws it, stored as float.
WORKBOOK_HD inline float small_int_at(std::uint64_t seed, std::uint64_t i, int lo, int hi) {
  const std::uint64_t span = static_cast<std::uint64_t>(hi - lo + 1);
  return static_cast<float>(lo + static_cast<int>(bits_at(seed, i) % span));
}

}  // namespace workbook::seeded
