#include "grader/catch.hpp"
#include "workbook/random.hpp"
#include "workbook/seeded.hpp"

#include <cmath>
#include <algorithm>
#include <set>

using namespace workbook;

TEST_CASE("the same seed gives the same inputs; another seed, others", "[random]") {
  CHECK(random_floats(1000, 42) == random_floats(1000, 42));
  CHECK(random_floats(1000, 42) != random_floats(1000, 43));
  CHECK(random_small_ints(1000, 7) == random_small_ints(1000, 7));
}

TEST_CASE("SplitMix64 is fixed across platforms (reference values)", "[random]") {
  // The first outputs for seed 0 of the published SplitMix64 generator.
  SplitMix64 rng(0);
  CHECK(rng.next() == 0xE220A8397B1DCDAFull);
  CHECK(rng.next() == 0x6E789E6AA1B965F4ull);
}

TEST_CASE("floats stay in [lo, hi) and cover it", "[random]") {
  const auto v = random_floats(100000, 1, -1.0f, 1.0f);
  float lo = 1, hi = -1;
  for (float x : v) {
    REQUIRE(x >= -1.0f);
    REQUIRE(x < 1.0f);
    lo = std::min(lo, x);
    hi = std::max(hi, x);
  }
  CHECK(lo < -0.99f);
  CHECK(hi > 0.99f);
}

TEST_CASE("small integers are integers in [lo, hi], every value drawn", "[random]") {
  const auto v = random_small_ints(10000, 3, -4, 4);
  std::set<int> seen;
  for (float x : v) {
    REQUIRE(x == std::round(x));
    REQUIRE(x >= -4);
    REQUIRE(x <= 4);
    seen.insert(static_cast<int>(x));
  }
  CHECK(seen.size() == 9);
}

TEST_CASE("derived seeds differ by stream and are reproducible", "[random]") {
  CHECK(derive_seed(1, 0) == derive_seed(1, 0));
  CHECK(derive_seed(1, 0) != derive_seed(1, 1));
  CHECK(derive_seed(1, 0) != derive_seed(2, 0));
  const auto s = fresh_seed();
  CHECK(s >= 100000000ull);
  CHECK(s < 1000000000ull);
}

TEST_CASE("an element drawn alone has the stream's bits (seeded.hpp, what the GPU fills use)", "[random]") {
  // The old sequential draw, written out: element i is SplitMix64's (i + 1)-th output.
  SplitMix64 rng(12345);
  for (std::uint64_t i = 0; i < 1000; ++i) REQUIRE(seeded::bits_at(12345, i) == rng.next());
  SplitMix64 floats(99);
  const auto v = random_floats(1000, 99, -2.5f, 0.75f);
  for (std::size_t i = 0; i < v.size(); ++i)
    REQUIRE(v[i] == static_cast<float>(-2.5f + (0.75f - -2.5f) * floats.uniform()));  // the generator before seeded.hpp
  SplitMix64 ints(5);
  const auto w = random_small_ints(1000, 5, -4, 4);
  for (std::size_t i = 0; i < w.size(); ++i)
    REQUIRE(w[i] == static_cast<float>(-4 + static_cast<int>(ints.next() % 9)));
}
