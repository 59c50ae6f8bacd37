// Kernels the coalescing benchmark measures beside the reference solution's (bench_kernels.hpp).
// Each is a copy of a reference kernel with one change; the block shapes are the reference's.
#include "bench_kernels.hpp"

#include "workbook/cuda_check.hpp"

#include <cstddef>
#include <cstdint>
#include <stdexcept>

namespace coalescing_bench {
namespace {

inline int ceil_div(int a, int b) { return (a + b - 1) / b; }
constexpr int BLOCK_X = 32, BLOCK_Y = 8;  // add: as in the reference
constexpr int LINE_BLOCK = 64;            // per row / per column: as in the reference
constexpr int TILE_DIM = 32, BLOCK_ROWS = 8;

// A load that does not allocate its line in L1: ld.global.nc like the reference's loads (the
// pointers are const __restrict__, so the compiler uses the read-only path), with the
// L1::no_allocate eviction priority. Not volatile: the compiler may schedule it as freely as
// an ordinary load, so the only difference from the reference is the cache.
__device__ __forceinline__ float load_no_l1(const float* p) {
  float v;
  asm("ld.global.nc.L1::no_allocate.f32 %0, [%1];" : "=f"(v) : "l"(p));
  return v;
}

constexpr int COLS_PER_THREAD = 4;

__global__ void addXCols4(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int M,
                          int N) {
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  const int col0 = blockIdx.x * (blockDim.x * COLS_PER_THREAD) + threadIdx.x;
  if (row >= M) return;
  const std::size_t rowStart = static_cast<std::size_t>(row) * N;
#pragma unroll
  for (int k = 0; k < COLS_PER_THREAD; ++k) {
    const int col = col0 + k * blockDim.x;  // at each k the warp covers 32 consecutive columns
    if (col < N) C[rowStart + col] = A[rowStart + col] + B[rowStart + col];
  }
}

// N4 = N / 4 float4 per row: a warp moves 512 contiguous bytes per load instruction.
__global__ void addXColsFloat4(const float4* __restrict__ A, const float4* __restrict__ B, float4* __restrict__ C,
                               int M, int N4) {
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row < M && col < N4) {
    const std::size_t i = static_cast<std::size_t>(row) * N4 + col;
    const float4 a = A[i], b = B[i];
    C[i] = make_float4(a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w);
  }
}

__global__ void addPerRowNoL1(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int M,
                              int N) {
  const int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= M) return;
  const std::size_t rowStart = static_cast<std::size_t>(row) * N;
  for (int col = 0; col < N; ++col) C[rowStart + col] = load_no_l1(&A[rowStart + col]) + load_no_l1(&B[rowStart + col]);
}

__global__ void addPerColumnNoL1(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int M,
                                 int N) {
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (col >= N) return;
  for (int row = 0; row < M; ++row) {
    const std::size_t i = static_cast<std::size_t>(row) * N + col;
    C[i] = load_no_l1(&A[i]) + load_no_l1(&B[i]);
  }
}

// x along the columns of out (= the rows of in): stores coalesced, loads N floats apart.
__global__ void transposeNaiveStridedReads(const float* __restrict__ in, float* __restrict__ out, int M, int N) {
  const int outCol = blockIdx.x * TILE_DIM + threadIdx.x;  // a row of in
  const int outRow = blockIdx.y * TILE_DIM + threadIdx.y;  // a column of in
  if (outCol >= M) return;
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
    if (outRow + j < N)
      out[static_cast<std::size_t>(outRow + j) * M + outCol] = in[static_cast<std::size_t>(outCol) * N + outRow + j];
}

bool aligned16(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; }

}  // namespace

void add_x_cols_4_per_thread(const float* A, const float* B, float* C, int M, int N, cudaStream_t stream) {
  const dim3 grid(ceil_div(N, BLOCK_X * COLS_PER_THREAD), ceil_div(M, BLOCK_Y));
  CUDA_CHECK_LAUNCH(addXCols4<<<grid, dim3(BLOCK_X, BLOCK_Y), 0, stream>>>(A, B, C, M, N));
}

void add_x_cols_float4(const float* A, const float* B, float* C, int M, int N, cudaStream_t stream) {
  if (N % 4 != 0 || !aligned16(A) || !aligned16(B) || !aligned16(C))
    throw std::invalid_argument("add_x_cols_float4 needs N % 4 == 0 and 16-byte aligned pointers");
  const int N4 = N / 4;
  const dim3 grid(ceil_div(N4, BLOCK_X), ceil_div(M, BLOCK_Y));
  CUDA_CHECK_LAUNCH(addXColsFloat4<<<grid, dim3(BLOCK_X, BLOCK_Y), 0, stream>>>(
      reinterpret_cast<const float4*>(A), reinterpret_cast<const float4*>(B), reinterpret_cast<float4*>(C), M, N4));
}

void add_per_row_no_l1(const float* A, const float* B, float* C, int M, int N, cudaStream_t stream) {
  CUDA_CHECK_LAUNCH(addPerRowNoL1<<<ceil_div(M, LINE_BLOCK), LINE_BLOCK, 0, stream>>>(A, B, C, M, N));
}

void add_per_column_no_l1(const float* A, const float* B, float* C, int M, int N, cudaStream_t stream) {
  CUDA_CHECK_LAUNCH(addPerColumnNoL1<<<ceil_div(N, LINE_BLOCK), LINE_BLOCK, 0, stream>>>(A, B, C, M, N));
}

void transpose_naive_strided_reads(const float* in, float* out, int M, int N, cudaStream_t stream) {
  const dim3 grid(ceil_div(M, TILE_DIM), ceil_div(N, TILE_DIM));
  CUDA_CHECK_LAUNCH(transposeNaiveStridedReads<<<grid, dim3(TILE_DIM, BLOCK_ROWS), 0, stream>>>(in, out, M, N));
}

}  // namespace coalescing_bench
