// The ceilings of this machine's GPU, measured by micro-benchmarks (`grader calibrate`): what a
// kernel bound by arithmetic, by device memory or by copies from the host can reach at best.
// A threshold of a student's workbook (no reference solution to time) follows them.
#pragma once

namespace grader::calibrate {

struct Peaks {
  double fp32_tflops = 0;  // FP32 FMAs, 2 FLOPs each, from independent chains in every thread
  double copy_gbs = 0;     // a device-to-device copy, bytes read plus bytes written per second
  double h2d_gbs = 0;      // host-to-device copies from pageable memory (what cudaMemcpy of a
                           // std::vector does), bytes per second
};

// Best of several timed runs of each benchmark on device 0 (about a second in all on an H100).
// Throws workbook::CudaError where a CUDA call fails.
Peaks measure_peaks();

}  // namespace grader::calibrate
