#include "grader/device_inputs.hpp"

#include "workbook/cuda_check.hpp"
#include "workbook/device_buffer.hpp"
#include "workbook/seeded.hpp"

#include <algorithm>
#include <cstring>

namespace grading::device {
namespace {

constexpr unsigned kThreads = 256;
unsigned blocks_for(std::size_t n) {
  const std::size_t b = (n + kThreads - 1) / kThreads;
  return static_cast<unsigned>(b < 65535u * 64u ? b : 65535u * 64u);  // grid-stride beyond this
}

__global__ void fill_floats_kernel(float* p, std::size_t n, std::uint64_t seed, float lo, float hi) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
       i += std::size_t(gridDim.x) * blockDim.x)
    p[i] = workbook::seeded::float_at(seed, i, lo, hi);
}

__global__ void fill_ints_kernel(float* p, std::size_t n, std::uint64_t seed, int lo, int hi) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
       i += std::size_t(gridDim.x) * blockDim.x)
    p[i] = workbook::seeded::small_int_at(seed, i, lo, hi);
}

struct Verdict {
  unsigned long long wrong, unwritten, first;  // first: the lowest wrong index
  unsigned long long max_err_bits;             // a non-negative double's bits order as the double
};

// Each thread judges its elements (grid-stride), then each warp combines its threads' counts,
// first wrong index and largest error with shuffles and makes one atomic of each: the whole
// array checked at memory speed (one atomic per element on the largest error took 0.4 s at
// 8192 x 8192 on an H200).
__global__ void compare_kernel(const float* got, const double* expected, std::size_t n, double atol, double rtol,
                               Verdict* v) {
  unsigned long long wrong = 0, unwritten = 0, first = ~0ull, max_err_bits = 0;
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
       i += std::size_t(gridDim.x) * blockDim.x) {
    const float gf = got[i];
    const double g = gf, e = expected[i];
    const double err = fabs(g - e);
    const bool finite = isfinite(g);
    if (finite) max_err_bits = max(max_err_bits, static_cast<unsigned long long>(__double_as_longlong(err)));
    // The CPU's rule, rounded as the CPU rounds it (no FMA), and false for NaN.
    const bool good = finite && err <= __dadd_rn(atol, __dmul_rn(rtol, fabs(e)));
    if (__float_as_uint(gf) == 0xFFFFFFFFu) ++unwritten;
    if (!good) {
      ++wrong;
      first = min(first, static_cast<unsigned long long>(i));
    }
  }
  for (int offset = 16; offset > 0; offset /= 2) {
    wrong += __shfl_down_sync(0xFFFFFFFFu, wrong, offset);
    unwritten += __shfl_down_sync(0xFFFFFFFFu, unwritten, offset);
    first = min(first, __shfl_down_sync(0xFFFFFFFFu, first, offset));
    max_err_bits = max(max_err_bits, __shfl_down_sync(0xFFFFFFFFu, max_err_bits, offset));
  }
  if (threadIdx.x % 32 != 0) return;
  if (wrong) atomicAdd(&v->wrong, wrong);
  if (unwritten) atomicAdd(&v->unwritten, unwritten);
  if (first != ~0ull) atomicMin(&v->first, first);
  if (max_err_bits) atomicMax(&v->max_err_bits, max_err_bits);
}

}  // namespace

void fill_floats(float* p, std::size_t n, std::uint64_t seed, cudaStream_t stream, float lo, float hi) {
  if (n == 0) return;
  CUDA_CHECK_LAUNCH(fill_floats_kernel<<<blocks_for(n), kThreads, 0, stream>>>(p, n, seed, lo, hi));
}

void fill_small_ints(float* p, std::size_t n, std::uint64_t seed, cudaStream_t stream, int lo, int hi) {
  if (n == 0) return;
  CUDA_CHECK_LAUNCH(fill_ints_kernel<<<blocks_for(n), kThreads, 0, stream>>>(p, n, seed, lo, hi));
}

workbook::Comparison compare(const float* got, const double* expected, std::size_t rows, std::size_t cols,
                             workbook::Tolerance tol, cudaStream_t stream) {
  workbook::Comparison c;
  c.checked = rows * cols;
  if (c.checked == 0) return c;
  // One verdict a thread, kept until the thread ends: an allocation per comparison was a driver
  // call per case and per timed call, and those are serialized across the node's GPUs
  // (grader/kept_cases.hpp). A comparison returns only once its stream is idle.
  thread_local workbook::DeviceBuffer<Verdict> v(1);
  const Verdict start{0, 0, ~0ull, 0};
  CUDA_CHECK(cudaMemcpyAsync(v.data(), &start, sizeof start, cudaMemcpyHostToDevice, stream));
  // At most 1024 blocks: each thread takes many elements, and the atomics stay a few thousand.
  const unsigned blocks = std::min(blocks_for(c.checked), 1024u);
  CUDA_CHECK_LAUNCH(
      compare_kernel<<<blocks, kThreads, 0, stream>>>(got, expected, c.checked, tol.atol, tol.rtol, v.data()));
  Verdict out{};
  CUDA_CHECK(cudaMemcpyAsync(&out, v.data(), sizeof out, cudaMemcpyDeviceToHost, stream));
  CUDA_CHECK(cudaStreamSynchronize(stream));
  c.wrong = out.wrong;
  c.unwritten = out.unwritten;
  std::memcpy(&c.max_abs_error, &out.max_err_bits, sizeof c.max_abs_error);
  if (c.wrong == 0) return c;
  float g = 0;
  CUDA_CHECK(cudaMemcpyAsync(&g, got + out.first, sizeof g, cudaMemcpyDeviceToHost, stream));
  CUDA_CHECK(cudaMemcpyAsync(&c.expected, expected + out.first, sizeof c.expected, cudaMemcpyDeviceToHost, stream));
  CUDA_CHECK(cudaStreamSynchronize(stream));
  c.row = out.first / cols;
  c.col = out.first % cols;
  c.got = g;
  c.first_unwritten = workbook::is_poison(g);
  return c;
}

}  // namespace grading::device
