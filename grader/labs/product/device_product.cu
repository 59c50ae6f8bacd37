#include "device_product.hpp"

#include "workbook/cuda_check.hpp"
#include "workbook/device_buffer.hpp"
#include "workbook/stream.hpp"

#include <fmt/format.h>

namespace product_grading {
namespace {

// SplitMix64's mixing function: a counter-based generator, so any element can be made alone.
__device__ std::uint64_t mix(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

__global__ void fill_random_kernel(float* p, std::size_t n, std::uint64_t seed, std::uint64_t stream) {
  const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (i >= n) return;
  const std::uint64_t bits = mix(seed ^ mix(stream * 0x9e3779b97f4a7c15ull + i));
  p[i] = static_cast<float>(static_cast<double>(bits >> 40) / (1ull << 24) * 2.0 - 1.0);  // 24 bits: exact in float
}

// One thread per element, plain and obviously right: its speed does not matter (untimed).
__global__ void expected_kernel(const float* A, const float* B, double* E, double* S, int M, int N, int K) {
  const int Row = blockIdx.y * blockDim.y + threadIdx.y, Col = blockIdx.x * blockDim.x + threadIdx.x;
  if (Row >= M || Col >= N) return;
  double e = 0, s = 0;
  for (int k = 0; k < K; ++k) {
    const double product =
        static_cast<double>(A[static_cast<std::size_t>(Row) * K + k]) * B[static_cast<std::size_t>(k) * N + Col];
    e += product;
    s += fabs(product);
  }
  E[static_cast<std::size_t>(Row) * N + Col] = e;
  if (S) S[static_cast<std::size_t>(Row) * N + Col] = s;
}

struct Verdict {
  unsigned long long wrong;
  unsigned long long first;  // the lowest wrong index
};

__global__ void check_kernel(const float* C, const double* E, const double* S, std::size_t n, Verdict* v) {
  const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (i >= n) return;
  const double c = C[i];
  if (!(fabs(c - E[i]) <= 1e-4 * S[i] + 1e-6)) {  // written so that NaN is wrong
    atomicAdd(&v->wrong, 1ull);
    atomicMin(&v->first, static_cast<unsigned long long>(i));
  }
}

unsigned blocks(std::size_t n) { return static_cast<unsigned>((n + 255) / 256); }

}  // namespace

void fill_random(float* p, std::size_t n, std::uint64_t seed, std::uint64_t stream, cudaStream_t s) {
  if (n == 0) return;
  CUDA_CHECK_LAUNCH(fill_random_kernel<<<blocks(n), 256, 0, s>>>(p, n, seed, stream));
}

void expected_product(const float* A, const float* B, double* E, double* S, int M, int N, int K, cudaStream_t s) {
  const dim3 block(16, 16), grid((N + 15) / 16, (M + 15) / 16);
  CUDA_CHECK_LAUNCH(expected_kernel<<<grid, block, 0, s>>>(A, B, E, S, M, N, K));
}

std::string check_product(const float* C, const double* E, const double* S, int M, int N, cudaStream_t s) {
  const std::size_t n = static_cast<std::size_t>(M) * N;
  thread_local workbook::DeviceBuffer<Verdict> v(1);  // kept: grading::device::compare says why
  const Verdict start{0, ~0ull};
  CUDA_CHECK(cudaMemcpyAsync(v.data(), &start, sizeof start, cudaMemcpyHostToDevice, s));
  CUDA_CHECK_LAUNCH(check_kernel<<<blocks(n), 256, 0, s>>>(C, E, S, n, v.data()));
  Verdict got{};
  CUDA_CHECK(cudaMemcpyAsync(&got, v.data(), sizeof got, cudaMemcpyDeviceToHost, s));
  CUDA_CHECK(cudaStreamSynchronize(s));
  if (got.wrong == 0) return "";
  float c = 0;
  double e = 0;
  CUDA_CHECK(cudaMemcpy(&c, C + got.first, sizeof c, cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaMemcpy(&e, E + got.first, sizeof e, cudaMemcpyDeviceToHost));
  return fmt::format("C[{}][{}]: expected {:.6g}, got {:.6g}; {} of {} elements wrong", got.first / N, got.first % N, e,
                     c, got.wrong, n);
}

workbook::ContestResult time_product_contest(int M, int N, int K, std::uint64_t seed, const ProductLaunch& launch,
                                             const workbook::ContestOptions& options) {
  const std::size_t a = std::size_t(M) * K, b = std::size_t(K) * N, c = std::size_t(M) * N;
  workbook::Stream stream;
  workbook::DeviceBuffer<float> A(a), B(b), C(c);
  workbook::DeviceBuffer<double> E(c), S(c);
  return workbook::time_contest(
      stream,
      [&](int call) {
        fill_random(A.data(), a, seed, 2 * call, stream);
        fill_random(B.data(), b, seed, 2 * call + 1, stream);
        C.poison(stream);
        expected_product(A.data(), B.data(), E.data(), S.data(), M, N, K, stream);
      },
      [&] { launch(A.data(), B.data(), C.data(), M, N, K, stream); },
      [&](int) { return check_product(C.data(), E.data(), S.data(), M, N, stream); }, options);
}

}  // namespace product_grading
