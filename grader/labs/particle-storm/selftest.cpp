// CPU tests of the lab-side code of particle-storm (no GPU needed): the storm-file reader and
// its messages, the fast reference against the sequential program bit for bit, the generator,
// the verdict on positions, and the expected results listed in storms/cases.txt.
#include "grader/catch.hpp"

#include "generator.hpp"
#include "reference.hpp"
#include "sequential.hpp"
#include "storm_file.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

namespace {

namespace sg = storm_grading;

storm::Storm parse(const std::string& text) {
  std::istringstream in(text);
  return storm_io::parse_storm(in, "test.txt");
}

// The message of the InputError that parsing `text` throws ("" if it does not throw).
std::string error_of(const std::string& text) {
  try {
    parse(text);
  } catch (const storm_io::InputError& e) {
    return e.what();
  }
  return "";
}

bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

std::string result_line(const std::vector<storm::Result>& results) {
  std::string line;
  char buf[64];
  for (const auto& r : results) {
    std::snprintf(buf, sizeof buf, "%s%d %f", line.empty() ? "" : " ", r.position, r.value);
    line += buf;
  }
  return line;
}

bool same_bits(float a, float b) { return std::memcmp(&a, &b, sizeof a) == 0; }

}  // namespace

TEST_CASE("storm files: the original format, whitespace free, the rest ignored") {
  const auto s = parse("3\n1 10\n-2 -20   7\n30\nignored words 1 2 3\n");
  REQUIRE(s.size() == 3);
  CHECK(s.posval == std::vector<int>{1, 10, -2, -20, 7, 30});
  CHECK(parse("0\n").size() == 0);
  CHECK(parse("  2  \r\n 5 6\r\n 7 8\r\n").posval == std::vector<int>{5, 6, 7, 8});
  std::ostringstream out;
  storm_io::write_storm(out, s);
  CHECK(parse(out.str()).posval == s.posval);
}

TEST_CASE("storm files: clear errors naming the file and the line") {
  CHECK(error_of("") == "test.txt:1: missing the particle count: the file is empty");
  CHECK(contains(error_of("\n\n  \n"), "test.txt:1: missing the particle count"));
  CHECK(error_of("five\n1 2\n") == "test.txt:1: the particle count must be an integer, found 'five'");
  CHECK(error_of("\n\n-3\n") == "test.txt:3: the particle count is -3: it must be 0 or more");
  CHECK(
      contains(error_of("5\n1 10\n2 20\n3 30\n"), "test.txt:4: the file ends in particle 4 of 5 (line 1 announces 5)"));
  CHECK(contains(error_of("2\n1 10\n2\n"), "test.txt:3: the file ends in particle 2 of 2"));
  CHECK(contains(error_of("2\n1 10\n2\n"), "no energy value"));
  CHECK(error_of("3\n1 10\n1.5 20\n3 30\n") == "test.txt:3: particle 2: the position must be an integer, found '1.5'");
  CHECK(error_of("1\n4 ten\n") == "test.txt:2: particle 1: the energy value must be an integer, found 'ten'");
  CHECK(error_of("1\n4 12abc\n") == "test.txt:2: particle 1: the energy value must be an integer, found '12abc'");
  CHECK(contains(error_of("1\n3000000000 1\n"), "test.txt:2: particle 1: the position 3000000000 is out of range"));
  CHECK(contains(error_of("1\n1 99999999999\n"), "the energy value 99999999999 does not fit in an int"));
  CHECK(contains(error_of("999999999999\n"), "is too large"));
  // A position outside the layer is valid: the reader knows no layer.
  CHECK(parse("2\n-1000000000 1\n1000000000 1\n").size() == 2);
}

TEST_CASE("storm files: a missing file is named") {
  try {
    storm_io::read_storm_file("/nonexistent/storm.txt");
    FAIL("no error");
  } catch (const storm_io::InputError& e) {
    CHECK(contains(e.what(), "/nonexistent/storm.txt: cannot open the storm file"));
  }
}

TEST_CASE("layer size: a positive integer, nothing else") {
  CHECK(storm_io::parse_layer_size("35") == 35);
  CHECK(storm_io::parse_layer_size("1") == 1);
  CHECK(storm_io::parse_layer_size("1000000000") == 1000000000);
  for (const char* bad : {"0", "-5", "", "abc", "35cells", "3.5", " 35", "5000000000"}) {
    INFO(bad);
    CHECK_THROWS_AS(storm_io::parse_layer_size(bad), storm_io::InputError);
  }
}

TEST_CASE("generator: the same seed gives the same storms, within the ranges") {
  sg::StormShape shape;
  shape.layer_size = 500;
  shape.particles = 1000;
  shape.storms = 3;
  shape.min_position = -20;
  shape.max_position = 520;
  shape.min_energy = -5;
  shape.max_energy = 5;
  const auto a = sg::generate_storms(shape, 42), b = sg::generate_storms(shape, 42), c = sg::generate_storms(shape, 43);
  REQUIRE(a.size() == 3);
  for (int i = 0; i < 3; ++i) {
    CHECK(a[i].posval == b[i].posval);
    CHECK(a[i].posval != c[i].posval);
    CHECK(a[i].size() == 1000);
    for (int j = 0; j < 1000; ++j) {
      CHECK(a[i].posval[2 * j] >= -20);
      CHECK(a[i].posval[2 * j] <= 520);
      CHECK(a[i].posval[2 * j + 1] >= -5);
      CHECK(a[i].posval[2 * j + 1] <= 5);
    }
  }
  CHECK(a[0].posval != a[1].posval);
  sg::StormShape defaults;
  defaults.layer_size = 10;
  defaults.particles = 200;
  const auto d = sg::generate_storm(defaults, 1, 0);
  for (int j = 0; j < 200; ++j) {
    CHECK(d.posval[2 * j] >= 0);
    CHECK(d.posval[2 * j] <= 9);
    CHECK(d.posval[2 * j + 1] >= 1);
    CHECK(d.posval[2 * j + 1] <= 1000);
  }
}

TEST_CASE("reference: bit for bit the sequential program") {
  struct Shape {
    int layer_size, storms, particles, min_energy, max_energy;
    long long min_position, max_position;
  };
  const Shape shapes[] = {
      {1, 2, 3, 1, 1000, -2, 2},          {2, 3, 5, -1000, 1000, -3, 4},
      {3, 2, 7, -50, 50, 0, 2},           {17, 4, 40, -1000, 1000, -5, 21},
      {35, 3, 8, 1, 1000, 0, 34},         {4097, 3, 300, -1000, 1000, -100, 4200},
      {30000, 2, 400, 1, 1000, 0, 29999}, {70001, 2, 50, 1, 1000, -1000000000, 1000000000},
  };
  std::uint64_t seed = 7;
  for (const auto& s : shapes) {
    const sg::StormShape shape = sg::storm_shape(s.layer_size, s.storms, s.particles, s.min_position, s.max_position,
                                                 s.min_energy, s.max_energy);
    const auto storms = sg::generate_storms(shape, seed++);
    std::vector<float> sequential_layer;
    const auto expected = sg::sequential_simulate(s.layer_size, storms, nullptr, &sequential_layer);
    std::vector<sg::RefLayer> layers;
    const auto got = sg::ref_simulate(s.layer_size, storms, &layers);
    INFO("layer " << s.layer_size << ", " << s.storms << " storms x " << s.particles);
    REQUIRE(got.size() == expected.size());
    for (std::size_t i = 0; i < got.size(); ++i) {
      CHECK(got[i].position == expected[i].position);
      CHECK(same_bits(got[i].value, expected[i].value));
      CHECK(sg::judge(layers[i], expected[i], got[i]).ok);
    }
    std::size_t differ = 0;
    for (int k = 0; k < s.layer_size; ++k) differ += !same_bits(layers.back().value[k], sequential_layer[k]);
    CHECK(differ == 0);
  }
}

TEST_CASE("judge: the value within tolerance; another position only for a near tie") {
  // Two equal peaks at 2 and 6 (relaxed), one smaller at 9.
  sg::RefLayer layer(std::vector<float>{0, 1, 5, 1, 0, 1, 5, 1, 3, 4, 3, 0});
  layer.particles = 100;
  const storm::Result expected{2, 5.0f};
  CHECK(sg::judge(layer, expected, {2, 5.0f}).ok);
  CHECK(sg::judge(layer, expected, {2, 5.0f * (1 + 1e-6f)}).ok);  // rounding
  CHECK(sg::judge(layer, expected, {6, 5.0f}).ok);                // the other peak, just as large
  CHECK_FALSE(sg::judge(layer, expected, {9, 4.0f}).ok);          // the value is off
  CHECK_FALSE(sg::judge(layer, expected, {9, 5.0f}).ok);          // right value, wrong cell
  CHECK_FALSE(sg::judge(layer, expected, {3, 5.0f}).ok);          // not a local maximum
  CHECK_FALSE(sg::judge(layer, expected, {0, 5.0f}).ok);          // an end cell
  CHECK_FALSE(sg::judge(layer, expected, {2, 5.01f}).ok);
  CHECK_FALSE(sg::judge(layer, expected, {2, NAN}).ok);
  CHECK_FALSE(sg::judge(layer, expected, {-1, NAN}).ok);
  CHECK_FALSE(sg::judge(layer, expected, {0, 0.0f}).ok);  // found nothing
  // No maximum expected: (0, 0) is right, a real peak is not.
  sg::RefLayer negative(std::vector<float>{-1, -2, -1, -3, -1});
  CHECK(sg::judge(negative, {0, 0.0f}, {0, 0.0f}).ok);
  CHECK_FALSE(sg::judge(negative, {0, 0.0f}, {2, -1.0f}).ok);
  const auto msg = sg::judge(layer, expected, {9, 5.0f}).why;
  CHECK(contains(msg, "expected 2 5.000000, got 9 5.000000"));
}

TEST_CASE("reference: step by step, as storm.h states it") {
  // update adds to what the layer holds; relax leaves the ends; maximum wants strict maxima.
  sg::RefLayer layer(std::vector<float>{1, 1, 1, 1, 1});
  const int particle[] = {2, 1};  // position 2, value 1: energy 1000
  sg::ref_update(layer, particle, 1);
  for (int k = 0; k < 5; ++k) {
    const int distance = std::abs(2 - k) + 1;
    CHECK(same_bits(layer.value[k], 1.0f + 1000.0f / 5 / std::sqrt(float(distance))));
  }
  const std::vector<float> before = layer.value;
  sg::ref_relax(layer);
  CHECK(same_bits(layer.value[0], before[0]));
  CHECK(same_bits(layer.value[4], before[4]));
  CHECK(same_bits(layer.value[2], (before[1] + before[2] + before[3]) / 3));
  CHECK(sg::ref_maximum(layer.value).position == 2);
  CHECK(sg::ref_maximum({1, 5, 5, 1}).position == 0);     // a plateau: no strict maximum
  CHECK(sg::ref_maximum({0, 3, 0, 3, 0}).position == 1);  // equal values: the first wins
  CHECK(sg::ref_maximum({-1, -0.5f, -1}).position == 0);  // only values > 0 count
}

TEST_CASE("storms/cases.txt: every case reads, and the sequential program gives the listed results") {
  const auto cases = storm_io::read_cases(std::string(PARTICLE_STORM_DIR) + "/storms");
  REQUIRE(cases.size() >= 10);
  for (const auto& c : cases) {
    INFO(c.name);
    std::vector<storm::Storm> storms;
    for (const auto& f : c.files) storms.push_back(storm_io::read_storm_file(f));
    const auto expected = sg::sequential_simulate(c.layer_size, storms);
    CHECK(result_line(expected) == c.expected);
    CHECK(result_line(sg::ref_simulate(c.layer_size, storms)) == c.expected);
  }
}

int main(int argc, char** argv) { return grader::run_catch_session(argc, argv); }
