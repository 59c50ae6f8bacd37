// The grader's device inputs and comparison (grader/device_inputs.hpp) against the CPU's: the
// same bits from the same seed, and the same verdict on the same arrays.
#include "grader/catch.hpp"
#include "grader/device_inputs.hpp"
#include "workbook/compare.hpp"
#include "workbook/device_buffer.hpp"
#include "workbook/random.hpp"
#include "workbook/stream.hpp"

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

namespace {

std::vector<float> drawn_on_device(std::size_t n, std::uint64_t seed, bool ints) {
  workbook::Stream stream;
  workbook::DeviceBuffer<float> d(n);
  if (ints)
    grading::device::fill_small_ints(d.data(), n, seed, stream);
  else
    grading::device::fill_floats(d.data(), n, seed, stream, -2.5f, 0.75f);
  stream.synchronize();
  return d.download();
}

}  // namespace

TEST_CASE("inputs drawn on the GPU have the CPU's bits", "[device_inputs]") {
  const std::size_t n = 3'000'001;  // more than one grid-stride pass at 256 threads a block
  const auto floats = drawn_on_device(n, 4242, false);
  const auto host_floats = workbook::random_floats(n, 4242, -2.5f, 0.75f);
  REQUIRE(std::memcmp(floats.data(), host_floats.data(), n * sizeof(float)) == 0);
  const auto ints = drawn_on_device(n, 77, true);
  REQUIRE(ints == workbook::random_small_ints(n, 77));
}

TEST_CASE("the GPU's comparison gives the CPU's verdict", "[device_inputs]") {
  const std::size_t rows = 300, cols = 7;
  std::vector<double> expected(rows * cols);
  for (std::size_t i = 0; i < expected.size(); ++i) expected[i] = 0.5 * double(i);
  std::vector<float> got(expected.begin(), expected.end());
  got[40] += 1e-3f;                                     // within atol 1e-2: right
  got[500] = 3.0f;                                      // wrong
  got[900] = std::numeric_limits<float>::quiet_NaN();   // a computed NaN: wrong
  std::memset(&got[1000], 0xFF, 5 * sizeof(float));     // the poison: never written
  const workbook::Tolerance tol{1e-2, 1e-6};
  workbook::Stream stream;
  workbook::DeviceBuffer<float> d_got(got);
  workbook::DeviceBuffer<double> d_expected(expected);
  const auto gpu = grading::device::compare(d_got.data(), d_expected.data(), rows, cols, tol, stream);
  const auto cpu = workbook::compare(got, expected, rows, cols, tol);
  CHECK(gpu.wrong == cpu.wrong);
  CHECK(gpu.wrong == 7);
  CHECK(gpu.unwritten == cpu.unwritten);
  CHECK(gpu.row == cpu.row);
  CHECK(gpu.col == cpu.col);
  CHECK(gpu.expected == cpu.expected);
  CHECK(gpu.got == cpu.got);
  CHECK(gpu.max_abs_error == cpu.max_abs_error);
  CHECK(gpu.describe("C") == cpu.describe("C"));
}
