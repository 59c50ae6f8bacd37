// Kernels the coalescing benchmark measures beside the reference solution's (bench_kernels.hpp).
#include "bench_kernels.hpp"

#include "workbook/cuda_check.hpp"

#include <cstddef>
#include <cstdint>
#include <stdexcept>

namespace coalescing_bench {
namespace {

inline int ceil_div(int a, int b) { return (a + b - 1) / b; }
constexpr int LINE_BLOCK = 64;  // as in the reference
constexpr int TILE_DIM = 32;

__global__ void addPerRowNoL1(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C,
                              int M, int N) {
  const int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= M) return;
  const std::size_t rowStart = static_cast<std::size_t>(row) * N;
  for (int col = 0; col < N; ++col) C[rowStart + col] = __ldcg(&A[rowStart + col]) + __ldcg(&B[rowStart + col]);
}

__global__ void addPerColumnNoL1(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C,
                                 int M, int N) {
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (col >= N) return;
  for (int row = 0; row < M; ++row) {
    const std::size_t i = static_cast<std::size_t>(row) * N + col;
    C[i] = __ldcg(&A[i]) + __ldcg(&B[i]);
  }
}

// x along the columns of out (= rows of in): stores coalesced, loads N floats apart.
__global__ void transposeNaiveStridedReads(const float* __restrict__ in, float* __restrict__ out, int M, int N) {
  const int outCol = blockIdx.x * TILE_DIM + threadIdx.x;  // row of in
  const int outRow = blockIdx.y * TILE_DIM + threadIdx.y;  // column of in
  if (outCol >= M) return;
  for (int j = 0; j < TILE_DIM; j += 8)
    if (outRow + j < N)
      out[static_cast<std::size_t>(outRow + j) * M + outCol] = in[static_cast<std::size_t>(outCol) * N + outRow + j];
}

// ---- exploration ----
template <int PER_THREAD>
__global__ void addXColsN(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int M,
                          int N) {
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  const int col0 = blockIdx.x * (blockDim.x * PER_THREAD) + threadIdx.x;
  if (row >= M) return;
  const std::size_t rowStart = static_cast<std::size_t>(row) * N;
#pragma unroll
  for (int k = 0; k < PER_THREAD; ++k) {
    const int col = col0 + k * blockDim.x;
    if (col < N) C[rowStart + col] = A[rowStart + col] + B[rowStart + col];
  }
}

__global__ void addXColsVec4(const float4* __restrict__ A, const float4* __restrict__ B, float4* __restrict__ C,
                             int M, int N4) {
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= M || col >= N4) return;
  const std::size_t i = static_cast<std::size_t>(row) * N4 + col;
  const float4 a = A[i], b = B[i];
  C[i] = make_float4(a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w);
}

__global__ void copyVec4(const float4* __restrict__ A, float4* __restrict__ C, std::size_t n4) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n4; i += std::size_t(gridDim.x) * blockDim.x)
    C[i] = A[i];
}

__global__ void addPerRowB(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int M,
                           int N) {
  const int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= M) return;
  const std::size_t rowStart = static_cast<std::size_t>(row) * N;
  for (int col = 0; col < N; ++col) C[rowStart + col] = A[rowStart + col] + B[rowStart + col];
}

__global__ void addPerColumnB(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int M,
                              int N) {
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (col >= N) return;
  for (int row = 0; row < M; ++row) {
    const std::size_t i = static_cast<std::size_t>(row) * N + col;
    C[i] = A[i] + B[i];
  }
}

template <int BLOCK_ROWS>
__global__ void transposePaddedR(const float* __restrict__ in, float* __restrict__ out, int M, int N) {
  __shared__ float tile[TILE_DIM][TILE_DIM + 1];
  int x = blockIdx.x * TILE_DIM + threadIdx.x;
  int y = blockIdx.y * TILE_DIM + threadIdx.y;
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
    if (y + j < M && x < N) tile[threadIdx.y + j][threadIdx.x] = in[static_cast<std::size_t>(y + j) * N + x];
  __syncthreads();
  x = blockIdx.y * TILE_DIM + threadIdx.x;
  y = blockIdx.x * TILE_DIM + threadIdx.y;
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
    if (y + j < N && x < M) out[static_cast<std::size_t>(y + j) * M + x] = tile[threadIdx.x][threadIdx.y + j];
}

bool aligned16(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; }

}  // namespace

void add_per_row_no_l1(const float* A, const float* B, float* C, int M, int N, cudaStream_t stream) {
  CUDA_CHECK_LAUNCH(addPerRowNoL1<<<ceil_div(M, LINE_BLOCK), LINE_BLOCK, 0, stream>>>(A, B, C, M, N));
}
void add_per_column_no_l1(const float* A, const float* B, float* C, int M, int N, cudaStream_t stream) {
  CUDA_CHECK_LAUNCH(addPerColumnNoL1<<<ceil_div(N, LINE_BLOCK), LINE_BLOCK, 0, stream>>>(A, B, C, M, N));
}
void transpose_naive_strided_reads(const float* in, float* out, int M, int N, cudaStream_t stream) {
  const dim3 grid(ceil_div(M, TILE_DIM), ceil_div(N, TILE_DIM));
  CUDA_CHECK_LAUNCH(transposeNaiveStridedReads<<<grid, dim3(TILE_DIM, 8), 0, stream>>>(in, out, M, N));
}

void add_x_cols_1(const float* A, const float* B, float* C, int M, int N, cudaStream_t stream) {
  CUDA_CHECK_LAUNCH(addXColsN<1><<<dim3(ceil_div(N, 32), ceil_div(M, 8)), dim3(32, 8), 0, stream>>>(A, B, C, M, N));
}
void add_x_cols_8(const float* A, const float* B, float* C, int M, int N, cudaStream_t stream) {
  CUDA_CHECK_LAUNCH(addXColsN<8><<<dim3(ceil_div(N, 256), ceil_div(M, 8)), dim3(32, 8), 0, stream>>>(A, B, C, M, N));
}
void add_x_cols_vec4(const float* A, const float* B, float* C, int M, int N, cudaStream_t stream) {
  if (N % 4 || !aligned16(A) || !aligned16(B) || !aligned16(C)) throw std::invalid_argument("vec4: N % 4 != 0");
  const int N4 = N / 4;
  CUDA_CHECK_LAUNCH(addXColsVec4<<<dim3(ceil_div(N4, 32), ceil_div(M, 8)), dim3(32, 8), 0, stream>>>(
      reinterpret_cast<const float4*>(A), reinterpret_cast<const float4*>(B), reinterpret_cast<float4*>(C), M, N4));
}
void copy_vec4(const float* A, const float*, float* C, int M, int N, cudaStream_t stream) {
  const std::size_t n = std::size_t(M) * N;
  if (n % 4) throw std::invalid_argument("copy_vec4: M * N % 4 != 0");
  CUDA_CHECK_LAUNCH(copyVec4<<<132 * 8, 256, 0, stream>>>(reinterpret_cast<const float4*>(A),
                                                          reinterpret_cast<float4*>(C), n / 4));
}
void add_per_row_block(const float* A, const float* B, float* C, int M, int N, int block, cudaStream_t stream) {
  CUDA_CHECK_LAUNCH(addPerRowB<<<ceil_div(M, block), block, 0, stream>>>(A, B, C, M, N));
}
void add_per_column_block(const float* A, const float* B, float* C, int M, int N, int block, cudaStream_t stream) {
  CUDA_CHECK_LAUNCH(addPerColumnB<<<ceil_div(N, block), block, 0, stream>>>(A, B, C, M, N));
}
void transpose_padded_rows(const float* in, float* out, int M, int N, int block_rows, cudaStream_t stream) {
  const dim3 grid(ceil_div(N, TILE_DIM), ceil_div(M, TILE_DIM));
  switch (block_rows) {
    case 4: CUDA_CHECK_LAUNCH(transposePaddedR<4><<<grid, dim3(TILE_DIM, 4), 0, stream>>>(in, out, M, N)); break;
    case 16: CUDA_CHECK_LAUNCH(transposePaddedR<16><<<grid, dim3(TILE_DIM, 16), 0, stream>>>(in, out, M, N)); break;
    case 32: CUDA_CHECK_LAUNCH(transposePaddedR<32><<<grid, dim3(TILE_DIM, 32), 0, stream>>>(in, out, M, N)); break;
    default: throw std::invalid_argument("block_rows");
  }
}

}  // namespace coalescing_bench
