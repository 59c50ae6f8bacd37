// common/ on a real GPU: buffers, guard zones, launch checks, the timer, the device query.
#include "grader/catch.hpp"
#include "kernels.cuh"
#include "workbook/device_buffer.hpp"
#include "workbook/device_query.hpp"
#include "workbook/guarded_buffer.hpp"
#include "workbook/stream.hpp"
#include "workbook/timer.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

using namespace workbook;

TEST_CASE("DeviceBuffer: upload, download, poison to NaN", "[gpu][buffer]") {
  DeviceBuffer<float> b(std::vector<float>{1, 2, 3});
  CHECK(b.download() == std::vector<float>{1, 2, 3});
  b.poison();
  CUDA_CHECK(cudaDeviceSynchronize());
  for (float x : b.download()) CHECK(std::isnan(x));
  DeviceBuffer<float> moved(std::move(b));
  CHECK(moved.size() == 3);
  CHECK(b.size() == 0);
}

TEST_CASE("GuardedBuffer: writes inside keep the guards, a write past either end is caught", "[gpu][buffer]") {
  Stream stream;
  GuardedBuffer<float> out(100);
  out.poison(stream);
  gpu_tests::fill(out.data(), 0, 100, 1.0f, stream);
  stream.synchronize();
  CHECK(out.intact_guards());
  for (float x : out.download()) CHECK(x == 1.0f);

  out.poison(stream);
  gpu_tests::fill(out.data(), 0, 101, 1.0f, stream);  // one element past the end
  stream.synchronize();
  CHECK_FALSE(out.intact_guards());

  out.poison(stream);
  gpu_tests::fill(out.data(), -1, 1, 1.0f, stream);  // one element before the start
  stream.synchronize();
  CHECK_FALSE(out.intact_guards());
}

TEST_CASE("CUDA_CHECK_LAUNCH reports a bad launch with the launch's text", "[gpu][check]") {
  Stream stream;
  try {
    gpu_tests::launch_with_block(4096, stream);  // more threads than a block may have
    FAIL("no error for a 4096-thread block");
  } catch (const CudaError& e) {
    const std::string what = e.what();
    // CUDA 12 calls an oversized block an invalid configuration, CUDA 13 an invalid value.
    CHECK((e.code() == cudaErrorInvalidConfiguration || e.code() == cudaErrorInvalidValue));
    CHECK(what.find("emptyKernel<<<1, threads, 0, stream>>>()") != std::string::npos);
    CHECK(what.find("kernels.cu:") != std::string::npos);
    CHECK_FALSE(e.sticky());
  }
  CHECK_NOTHROW(gpu_tests::launch_with_block(32, stream));  // the context survived
  stream.synchronize();
}

TEST_CASE("time_gpu: work launched on the legacy default stream is refused, not timed", "[gpu][timer]") {
  // What a kernel launched without its stream argument does: the timed (non-blocking) stream
  // finishes at once, the kernel runs on. Its events would say a few microseconds.
  Stream stream;
  TimingOptions options;
  options.warmup = 1;
  options.min_runs = 5;
  options.budget_s = 1.0;
  std::string refused;
  try {
    time_gpu(stream, [&] { gpu_tests::spin(2000000, cudaStreamLegacy); }, {}, {}, options);  // 2 ms
  } catch (const std::runtime_error& e) {
    refused = e.what();
  }
  INFO(refused);
  CHECK(refused.find("another stream") != std::string::npos);
  // The same kernel on the given stream is timed.
  const auto t = time_gpu(stream, [&] { gpu_tests::spin(2000000, stream); }, {}, {}, options);
  CHECK(t.ms.median >= 2.0);
}

TEST_CASE("time_gpu: device time of a known-length kernel, every call bracketed", "[gpu][timer]") {
  Stream stream;
  int before = 0, after = 0;
  TimingOptions options;
  options.warmup = 2;
  options.min_runs = 10;
  options.budget_s = 1.0;
  const auto t = time_gpu(stream, [&] { gpu_tests::spin(200000, stream); },  // >= 0.2 ms
                          [&] { ++before; }, [&] { ++after; }, options);
  CHECK(t.ms.count >= 10);
  CHECK(static_cast<int>(t.samples.size()) == t.ms.count);
  CHECK(before == t.ms.count + 2);
  CHECK(after == t.ms.count + 2);
  CHECK(t.ms.median >= 0.2);
  CHECK(t.ms.median < 2.0);
  CHECK(t.ms.min <= t.ms.median);
  CHECK(t.ms.cv < 0.2);
}

TEST_CASE("the L2 flush buffer is twice the L2 cache", "[gpu][timer]") {
  const auto d = query_device(0);
  L2Flusher flusher;
  CHECK(flusher.bytes() == 2 * static_cast<std::size_t>(d.l2_bytes));
}

TEST_CASE("device query: the numbers a report needs are there", "[gpu][device]") {
  const auto d = query_device(0);
  CHECK_FALSE(d.name.empty());
  CHECK(d.cc_major >= 7);
  CHECK(d.multiprocessors > 0);
  CHECK(d.sm_clock_khz > 0);
  CHECK(d.l2_bytes > 0);
  CHECK(d.peak_bandwidth_gbs() > 100);
  CHECK(format_device(d).find(d.name) != std::string::npos);
}
