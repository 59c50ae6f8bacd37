// granularity, exercise 2 (reference solution): 1D register blocking.
//
// Each block computes a BM x BN tile of C; each thread computes a column of TM elements of it
// (TM rows, one column). Per step k of a phase, the thread reads ONE value of B from shared
// memory, Nvalue = Nds[k][threadCol], keeps it in a register and uses it for TM FMAs, one for
// each of its rows. The coarsened kernel did the opposite (one value of A for COARSE_FACTOR
// outputs in a row), and what it could not avoid, one read of B per FMA, is exactly what this
// kernel removes.
//
// Names follow PMPP where it has them (Mds, Nds, Pvalue); BM, BN, BK, TM are those of siboehm's
// SGEMM worklog (kernel 4, "1D blocktiling"), which this kernel follows.
#include "granularity.h"

#include "workbook/cuda_check.hpp"

namespace granularity {
namespace {

constexpr int BM = 64;  // rows of C per block
constexpr int BN = 64;  // columns of C per block
constexpr int BK = 8;   // width of the slice of K staged per phase
constexpr int TM = 8;   // rows of C per thread
constexpr int THREADS = BM * BN / TM;  // 512 threads, each a column of TM outputs

// Each phase stages BM x BK floats of A and BK x BN of B: how many of each a thread loads.
constexpr int A_LOADS = BM * BK / THREADS;
constexpr int B_LOADS = BK * BN / THREADS;
static_assert(A_LOADS * THREADS == BM * BK && B_LOADS * THREADS == BK * BN, "the tiles must split evenly");

__host__ __device__ inline int ceil_div(int a, int b) { return (a + b - 1) / b; }

__global__ void __launch_bounds__(THREADS) register1dKernel(const float* __restrict__ A, const float* __restrict__ B,
                                                            float* __restrict__ C, int M, int N, int K) {
  __shared__ float Mds[BM][BK];
  __shared__ float Nds[BK][BN];

  const int tid = threadIdx.x;
  // threadCol runs fastest: the 32 threads of a warp have consecutive columns and the same
  // threadRow, so their reads of Nds[k][threadCol] are 32 consecutive floats (no bank conflict)
  // and their reads of Mds[threadRow * TM + i][k] are one address (a broadcast).
  const int threadCol = tid % BN, threadRow = tid / BN;
  const int blockRow = blockIdx.y * BM, blockCol = blockIdx.x * BN;

  float Pvalue[TM] = {};  // TM partial sums, in registers (the loops over i are unrolled)

  const int numPhases = ceil_div(K, BK);
  for (int ph = 0; ph < numPhases; ++ph) {
    // Load the phase's slices, zero past the edges. Element l of thread tid is element
    // tid + l * THREADS of the slice in row-major order: consecutive threads, consecutive
    // addresses. A compile-time count (A_LOADS), not a loop `idx += THREADS` up to BM * BK,
    // so that the compiler unrolls it.
#pragma unroll
    for (int l = 0; l < A_LOADS; ++l) {
      const int idx = tid + l * THREADS;
      const int r = idx / BK, k = idx % BK;
      const int aRow = blockRow + r, aCol = ph * BK + k;
      Mds[r][k] = (aRow < M && aCol < K) ? A[aRow * K + aCol] : 0.0f;
    }
#pragma unroll
    for (int l = 0; l < B_LOADS; ++l) {
      const int idx = tid + l * THREADS;
      const int k = idx / BN, c = idx % BN;
      const int bRow = ph * BK + k, bCol = blockCol + c;
      Nds[k][c] = (bRow < K && bCol < N) ? B[bRow * N + bCol] : 0.0f;
    }
    __syncthreads();

#pragma unroll
    for (int k = 0; k < BK; ++k) {
      const float Nvalue = Nds[k][threadCol];  // one shared read, reused for TM FMAs
#pragma unroll
      for (int i = 0; i < TM; ++i) Pvalue[i] += Mds[threadRow * TM + i][k] * Nvalue;
    }
    __syncthreads();
  }

  const int Col = blockCol + threadCol;
#pragma unroll
  for (int i = 0; i < TM; ++i) {
    const int Row = blockRow + threadRow * TM + i;
    if (Row < M && Col < N) C[Row * N + Col] = Pvalue[i];
  }
}

}  // namespace

void register_1d(const float* A, const float* B, float* C, int M, int N, int K, cudaStream_t stream) {
  const dim3 block(THREADS);
  const dim3 grid(ceil_div(N, BN), ceil_div(M, BM));
  CUDA_CHECK_LAUNCH(register1dKernel<<<grid, block, 0, stream>>>(A, B, C, M, N, K));
}

}  // namespace granularity
