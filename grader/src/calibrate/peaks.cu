// Micro-benchmarks of the GPU's ceilings (peaks.hpp). Each is timed with CUDA events around
// the work alone, several times, and the best run kept: a ceiling is what the machine can do,
// so the fastest run is the estimate, not the median.
#include "calibrate/peaks.hpp"

#include "workbook/cuda_check.hpp"
#include "workbook/device_buffer.hpp"
#include "workbook/stream.hpp"

#include <algorithm>
#include <vector>

namespace grader::calibrate {
namespace {

constexpr int kChains = 8;         // independent FMA chains per thread: enough to hide latency
constexpr int kIterations = 4096;  // FMAs per chain

// Every thread runs kChains independent chains of FMAs; the result is stored only if it is a
// value the inputs never produce, so the compiler cannot drop the work.
__global__ void fmaKernel(float a, float b, float* sink) {
  float x[kChains];
  for (int c = 0; c < kChains; ++c) x[c] = threadIdx.x * 1e-3f + c;
#pragma unroll 16
  for (int i = 0; i < kIterations; ++i)
#pragma unroll
    for (int c = 0; c < kChains; ++c) x[c] = fmaf(x[c], a, b);
  float sum = 0;
  for (int c = 0; c < kChains; ++c) sum += x[c];
  if (sum == -1.0f) *sink = sum;
}

// The best time, in ms, of `runs` timed runs of `work` on `stream` (one untimed run first).
template <class Work>
float best_ms(cudaStream_t stream, int runs, Work work) {
  cudaEvent_t start, stop;
  CUDA_CHECK(cudaEventCreate(&start));
  CUDA_CHECK(cudaEventCreate(&stop));
  work();
  CUDA_CHECK(cudaStreamSynchronize(stream));
  float best = 0;
  for (int r = 0; r < runs; ++r) {
    CUDA_CHECK(cudaEventRecord(start, stream));
    work();
    CUDA_CHECK(cudaEventRecord(stop, stream));
    CUDA_CHECK(cudaEventSynchronize(stop));
    float ms = 0;
    CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
    best = r == 0 ? ms : std::min(best, ms);
  }
  CUDA_CHECK(cudaEventDestroy(start));
  CUDA_CHECK(cudaEventDestroy(stop));
  return best;
}

}  // namespace

Peaks measure_peaks() {
  Peaks p;
  int device = 0, sms = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  workbook::Stream stream;

  // FP32: 64 blocks of 256 threads per SM keep every SM busy for a few milliseconds.
  workbook::DeviceBuffer<float> sink(1);
  const int blocks = sms * 64, threads = 256;
  const float fma_ms = best_ms(
      stream, 5, [&] { CUDA_CHECK_LAUNCH(fmaKernel<<<blocks, threads, 0, stream>>>(0.999f, 1e-3f, sink.data())); });
  const double flops = 2.0 * kChains * kIterations * double(blocks) * threads;
  p.fp32_tflops = flops / (fma_ms * 1e-3) / 1e12;

  // Device memory: a 1 GiB copy, read and written (the coalescing lab's "copy bandwidth" too),
  // or a quarter of the free memory on a small GPU.
  std::size_t free_bytes = 0, total_bytes = 0;
  CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  const std::size_t bytes = std::min(std::size_t(1) << 30, free_bytes / 4 / 256 * 256);
  workbook::DeviceBuffer<unsigned char> from(bytes), to(bytes);
  CUDA_CHECK(cudaMemsetAsync(from.data(), 1, bytes, stream));
  const float copy_ms = best_ms(
      stream, 5, [&] { CUDA_CHECK(cudaMemcpyAsync(to.data(), from.data(), bytes, cudaMemcpyDeviceToDevice, stream)); });
  p.copy_gbs = 2.0 * bytes / (copy_ms * 1e-3) / 1e9;

  // From the host: 256 MiB of pageable memory, as a program copies its std::vector input.
  const std::size_t host_bytes = std::size_t(256) << 20;
  std::vector<unsigned char> host(host_bytes, 1);
  const float h2d_ms = best_ms(stream, 3, [&] {
    CUDA_CHECK(cudaMemcpyAsync(to.data(), host.data(), host_bytes, cudaMemcpyHostToDevice, stream));
  });
  p.h2d_gbs = host_bytes / (h2d_ms * 1e-3) / 1e9;
  return p;
}

}  // namespace grader::calibrate
