#include "leaderboard_kernels.hpp"

#include "workbook/cuda_check.hpp"
#include "workbook/device_buffer.hpp"

#include <cmath>

namespace coalescing_grading {
namespace {

// SplitMix64's mixing function: a counter-based generator, so any element can be made alone, by
// the fill and again by the check (and on the host, for the expected value of a report). The
// same generator as matmul-tiled's leaderboard.
__host__ __device__ std::uint64_t mix(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

__host__ __device__ float value(std::uint64_t seed, std::uint64_t stream, std::size_t i) {
  const std::uint64_t bits = mix(seed ^ mix(stream * 0x9e3779b97f4a7c15ull + i));
  return static_cast<float>(static_cast<double>(bits >> 40) / (1ull << 24) * 2.0 - 1.0);  // 24 bits: exact in float
}

// The exact sum of the two inputs, in double (exact: both are multiples of 2^-23 in [-1, 1)).
__host__ __device__ double exact_sum(std::uint64_t seed, std::uint64_t stream_a, std::uint64_t stream_b,
                                     std::size_t i) {
  return static_cast<double>(value(seed, stream_a, i)) + static_cast<double>(value(seed, stream_b, i));
}

__global__ void fill_random_kernel(float* p, std::size_t n, std::uint64_t seed, std::uint64_t stream) {
  const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (i < n) p[i] = value(seed, stream, i);
}

struct Verdict {
  unsigned long long wrong;
  unsigned long long first;  // the lowest wrong index
};

__device__ void record_wrong(Verdict* v, std::size_t i) {
  atomicAdd(&v->wrong, 1ull);
  atomicMin(&v->first, static_cast<unsigned long long>(i));
}

__global__ void check_add_kernel(const float* C, std::size_t n, std::uint64_t seed, std::uint64_t stream_a,
                                 std::uint64_t stream_b, double atol, double rtol, Verdict* v) {
  const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (i >= n) return;
  const double e = exact_sum(seed, stream_a, stream_b, i);
  if (!(fabs(static_cast<double>(C[i]) - e) <= atol + rtol * fabs(e))) record_wrong(v, i);  // so that NaN is wrong
}

// One thread per element of out, reading it in order: out[j], j = c * M + r, must hold
// in[r][c], which is value(seed, stream, r * N + c).
__global__ void check_transpose_kernel(const float* out, int M, int N, std::uint64_t seed, std::uint64_t stream,
                                       Verdict* v) {
  const std::size_t j = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (j >= static_cast<std::size_t>(M) * N) return;
  const std::size_t c = j / M, r = j % M;
  if (!(out[j] == value(seed, stream, r * N + c))) record_wrong(v, j);  // so that NaN is wrong
}

unsigned blocks(std::size_t n) { return static_cast<unsigned>((n + 255) / 256); }

// Runs `launch_check` (a check kernel writing into the verdict it is given) on `s` and returns
// its verdict, the device synchronised.
template <class Launch>
Verdict run_check(cudaStream_t s, const Launch& launch_check) {
  thread_local workbook::DeviceBuffer<Verdict> v(1);  // kept: grading::device::compare says why
  const Verdict start{0, ~0ull};
  CUDA_CHECK(cudaMemcpyAsync(v.data(), &start, sizeof start, cudaMemcpyHostToDevice, s));
  launch_check(v.data());
  Verdict got{};
  CUDA_CHECK(cudaMemcpyAsync(&got, v.data(), sizeof got, cudaMemcpyDeviceToHost, s));
  CUDA_CHECK(cudaStreamSynchronize(s));
  return got;
}

// The verdict as a Comparison of a rows x cols matrix, so that the report reads as the grading
// cases' do ("C[3][5]: expected 0.25, got nan; 120 of 268435456 elements wrong").
workbook::Comparison comparison(const Verdict& v, const float* got, std::size_t rows, std::size_t cols,
                                double expected_at_first) {
  workbook::Comparison cmp;
  cmp.checked = rows * cols;
  cmp.wrong = v.wrong;
  if (v.wrong == 0) return cmp;
  float g = 0;
  CUDA_CHECK(cudaMemcpy(&g, got + v.first, sizeof g, cudaMemcpyDeviceToHost));
  cmp.row = v.first / cols;
  cmp.col = v.first % cols;
  cmp.expected = expected_at_first;
  cmp.got = g;
  return cmp;  // max_abs_error is not computed here: no report of the leaderboard prints it
}

}  // namespace

void fill_random(float* p, std::size_t n, std::uint64_t seed, std::uint64_t stream, cudaStream_t s) {
  if (n == 0) return;
  CUDA_CHECK_LAUNCH(fill_random_kernel<<<blocks(n), 256, 0, s>>>(p, n, seed, stream));
}

workbook::Comparison check_add(const float* C, int M, int N, std::uint64_t seed, std::uint64_t stream_a,
                               std::uint64_t stream_b, const workbook::Tolerance& tol, cudaStream_t s) {
  const std::size_t n = static_cast<std::size_t>(M) * N;
  const Verdict v = run_check(s, [&](Verdict* d) {
    CUDA_CHECK_LAUNCH(
        check_add_kernel<<<blocks(n), 256, 0, s>>>(C, n, seed, stream_a, stream_b, tol.atol, tol.rtol, d));
  });
  return comparison(v, C, M, N, v.wrong ? exact_sum(seed, stream_a, stream_b, v.first) : 0.0);
}

workbook::Comparison check_transpose(const float* out, int M, int N, std::uint64_t seed, std::uint64_t stream,
                                     cudaStream_t s) {
  const std::size_t n = static_cast<std::size_t>(M) * N;
  const Verdict v = run_check(s, [&](Verdict* d) {
    CUDA_CHECK_LAUNCH(check_transpose_kernel<<<blocks(n), 256, 0, s>>>(out, M, N, seed, stream, d));
  });
  // out is N x M: its element [c][r] is in[r][c].
  const std::size_t c = v.first / M, r = v.first % M;
  return comparison(v, out, N, M, v.wrong ? value(seed, stream, r * N + c) : 0.0);
}

}  // namespace coalescing_grading
