// coalescing: YOUR CODE. Fill in the TODOs, then run
//     grader check coalescing
// The handout (README.md beside this file) explains each exercise.
//
// Part 1 adds two matrices with four thread mappings, the course notes' experiment; part 2 is the
// transpose ladder of Harris, "An Efficient Matrix Transpose in CUDA C/C++" (TILE_DIM,
// BLOCK_ROWS), and PMPP's chapter on memory coalescing. Every matrix is row-major: element
// [row][col] of an M x N matrix is at [row * N + col].
//
// The pointers are __restrict__: A, B and C never overlap, and saying so lets the compiler issue
// a thread's loads before its earlier stores, so several loads are in flight at once.
//
// Shipped as is, this file builds and runs but computes nothing: the grader reports every
// case as incorrect (the output is filled with NaN before each call, and nothing overwrites it).
#include "coalescing.h"

#include "workbook/cuda_check.hpp"

#include <cstddef>

namespace coalescing {
namespace {

// Blocks needed to cover `a` items, `b` per block: rounded up, so the edge is covered too.
// ([[maybe_unused]]: the starter leaves every call of it to you, and nvcc would warn.)
[[maybe_unused]] __host__ __device__ inline int ceil_div(int a, int b) { return (a + b - 1) / b; }

// =============================================================================================
// Part 1: matrix add, C = A + B
// =============================================================================================

// 2D blocks of 32 x 8 threads: threadIdx.x runs 0..31, so a warp is one "row" of the block
// (a fixed threadIdx.y, all 32 values of threadIdx.x). Which matrix direction x runs along
// decides whether a warp's 32 accesses are neighbours in memory.
constexpr int BLOCK_X = 32;
constexpr int BLOCK_Y = 8;

// add_per_row / add_per_column: 1D blocks. With only M (or N) threads in all, small blocks
// spread them over more SMs: 16384 threads make 256 blocks of 64, two per SM on an H100.
constexpr int LINE_BLOCK = 64;

// Use std::size_t for an element's index, row * N + col: a 16384 x 16384 matrix is still
// within int, but a larger one is not.

// ---------------------------------------------------------------------------------------------
// Exercise add_x_cols: one thread per element, x on the columns.
// ---------------------------------------------------------------------------------------------
__global__ void addXColsKernel(const float* __restrict__ A, const float* __restrict__ B,
                               float* __restrict__ C, int M, int N) {
  // TODO(add_x_cols):
  //   1. col = blockIdx.x * blockDim.x + threadIdx.x   (x runs along the columns)
  //      row = blockIdx.y * blockDim.y + threadIdx.y
  //   2. The grid is rounded up, so some threads fall past the edge: only threads with
  //      row < M and col < N may read or write.
  //   3. C[row][col] = A[row][col] + B[row][col]   (row-major: [row][col] is [row * N + col]).
}

// ---------------------------------------------------------------------------------------------
// Exercise add_x_rows: x on the rows, one element per thread.
// ---------------------------------------------------------------------------------------------
__global__ void addXRowsKernel(const float* __restrict__ A, const float* __restrict__ B,
                               float* __restrict__ C, int M, int N) {
  // TODO(add_x_rows): addXColsKernel with the roles of x and y swapped, on purpose:
  //   row = blockIdx.x * blockDim.x + threadIdx.x,  col = blockIdx.y * blockDim.y + threadIdx.y;
  //   if row < M and col < N: C[row][col] = A[row][col] + B[row][col].
}

// ---------------------------------------------------------------------------------------------
// Exercise add_per_row: one thread per row.
// ---------------------------------------------------------------------------------------------
__global__ void addPerRowKernel(const float* __restrict__ A, const float* __restrict__ B,
                                float* __restrict__ C, int M, int N) {
  // TODO(add_per_row): row = blockIdx.x * blockDim.x + threadIdx.x; if row < M, loop
  //   col = 0 .. N - 1 and add the whole row.
}

// ---------------------------------------------------------------------------------------------
// Exercise add_per_column: one thread per column.
// ---------------------------------------------------------------------------------------------
__global__ void addPerColumnKernel(const float* __restrict__ A, const float* __restrict__ B,
                                   float* __restrict__ C, int M, int N) {
  // TODO(add_per_column): col = blockIdx.x * blockDim.x + threadIdx.x; if col < N, loop
  //   row = 0 .. M - 1 and add the whole column.
}

// =============================================================================================
// Part 2: transpose, out (N x M) = in (M x N) transposed: out[col][row] = in[row][col]
// =============================================================================================

// A block of TILE_DIM x BLOCK_ROWS threads moves one TILE_DIM x TILE_DIM tile: each thread
// handles TILE_DIM / BLOCK_ROWS = 4 elements, BLOCK_ROWS rows apart.
constexpr int TILE_DIM = 32;
constexpr int BLOCK_ROWS = 8;

// ---------------------------------------------------------------------------------------------
// Exercise transpose_naive
// ---------------------------------------------------------------------------------------------
__global__ void transposeNaiveKernel(const float* __restrict__ in, float* __restrict__ out, int M, int N) {
  // TODO(transpose_naive): this block's tile of in starts at row blockIdx.y * TILE_DIM and
  //   column blockIdx.x * TILE_DIM.
  //   1. col = blockIdx.x * TILE_DIM + threadIdx.x (x along the columns of in: coalesced reads);
  //      row = blockIdx.y * TILE_DIM + threadIdx.y.
  //   2. For j = 0, BLOCK_ROWS, 2 * BLOCK_ROWS, ... < TILE_DIM: if row + j < M and col < N,
  //      out[col][row + j] = in[row + j][col]. Remember out is N x M: out[c][r] is out[c * M + r].
}

// ---------------------------------------------------------------------------------------------
// Exercise transpose_tiled (keep the kernel's name: the static check looks for it)
// ---------------------------------------------------------------------------------------------
__global__ void transposeTiledKernel(const float* __restrict__ in, float* __restrict__ out, int M, int N) {
  // TODO(transpose_tiled):
  //   1. Declare the tile: TILE_DIM x TILE_DIM floats in shared memory.
  //   2. Load: x = blockIdx.x * TILE_DIM + threadIdx.x (column of in),
  //      y = blockIdx.y * TILE_DIM + threadIdx.y (row of in); for each j as in naive,
  //      tile[threadIdx.y + j][threadIdx.x] = in[y + j][x] when y + j < M and x < N.
  //   3. __syncthreads(): the whole tile is loaded before anyone reads it. Every thread of the
  //      block must reach it: no early return above it.
  //   4. Store the transposed tile: swap the BLOCK indices, keep threadIdx.x on the columns of
  //      out so the stores are coalesced too:
  //      x = blockIdx.y * TILE_DIM + threadIdx.x (column of out = row of in),
  //      y = blockIdx.x * TILE_DIM + threadIdx.y (row of out = column of in);
  //      out[y + j][x] = tile[threadIdx.x][threadIdx.y + j] when y + j < N and x < M.
}

// ---------------------------------------------------------------------------------------------
// Exercise transpose_padded (keep the kernel's name: the static check looks for it)
// ---------------------------------------------------------------------------------------------
__global__ void transposePaddedKernel(const float* __restrict__ in, float* __restrict__ out, int M, int N) {
  // TODO(transpose_padded): transposeTiledKernel again, with the tile declared
  //   TILE_DIM x (TILE_DIM + 1). The extra column is never used: it shifts each row of the
  //   tile by one bank, so the column read tile[threadIdx.x][...] hits 32 different banks.
}

// All three transposes use the same grid: one block per tile of in, x over its columns.
dim3 transposeGrid(int M, int N) {
  // TODO(transpose_naive): one block per TILE_DIM x TILE_DIM tile of in, rounded up (the tiled
  //   and padded transposes use this grid too):
  //   ceil_div(N, TILE_DIM) blocks in x (the columns of in), ceil_div(M, TILE_DIM) in y.
  return dim3(1, 1);
}

}  // namespace

void add_x_cols(const float* A, const float* B, float* C, int M, int N, cudaStream_t stream) {
  const dim3 block(BLOCK_X, BLOCK_Y);
  // TODO(add_x_cols): enough blocks to cover all of C: x covers the N columns, BLOCK_X per
  //   block; y covers the M rows, BLOCK_Y per block. Round both up with ceil_div.
  const dim3 grid(1, 1);
  CUDA_CHECK_LAUNCH(addXColsKernel<<<grid, block, 0, stream>>>(A, B, C, M, N));
}

void add_x_rows(const float* A, const float* B, float* C, int M, int N, cudaStream_t stream) {
  const dim3 block(BLOCK_X, BLOCK_Y);
  // TODO(add_x_rows): x covers the M rows now, y the N columns.
  const dim3 grid(1, 1);
  CUDA_CHECK_LAUNCH(addXRowsKernel<<<grid, block, 0, stream>>>(A, B, C, M, N));
}

void add_per_row(const float* A, const float* B, float* C, int M, int N, cudaStream_t stream) {
  // TODO(add_per_row): M threads in all, LINE_BLOCK per block.
  const int blocks = 1;
  CUDA_CHECK_LAUNCH(addPerRowKernel<<<blocks, LINE_BLOCK, 0, stream>>>(A, B, C, M, N));
}

void add_per_column(const float* A, const float* B, float* C, int M, int N, cudaStream_t stream) {
  // TODO(add_per_column): N threads in all, LINE_BLOCK per block.
  const int blocks = 1;
  CUDA_CHECK_LAUNCH(addPerColumnKernel<<<blocks, LINE_BLOCK, 0, stream>>>(A, B, C, M, N));
}

void transpose_naive(const float* in, float* out, int M, int N, cudaStream_t stream) {
  CUDA_CHECK_LAUNCH(transposeNaiveKernel<<<transposeGrid(M, N), dim3(TILE_DIM, BLOCK_ROWS), 0, stream>>>(in, out, M, N));
}

void transpose_tiled(const float* in, float* out, int M, int N, cudaStream_t stream) {
  CUDA_CHECK_LAUNCH(transposeTiledKernel<<<transposeGrid(M, N), dim3(TILE_DIM, BLOCK_ROWS), 0, stream>>>(in, out, M, N));
}

void transpose_padded(const float* in, float* out, int M, int N, cudaStream_t stream) {
  CUDA_CHECK_LAUNCH(transposePaddedKernel<<<transposeGrid(M, N), dim3(TILE_DIM, BLOCK_ROWS), 0, stream>>>(in, out, M, N));
}

}  // namespace coalescing
