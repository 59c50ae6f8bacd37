// Tuning sweep for the granularity lab (not part of the grader): builds the candidate kernels as
// templates and times them beside cuBLAS at several sizes, validating every variant first, on
// aligned (float4) and unaligned (scalar fallback) shapes.
//   nvcc -O3 -std=c++17 -arch=sm_90 -Xptxas -v tune.cu -lcublas -o tune && ./tune
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#define CK(x)                                                                          \
  do {                                                                                 \
    cudaError_t e_ = (x);                                                              \
    if (e_ != cudaSuccess) {                                                           \
      std::printf("%s: %s (%s:%d)\n", #x, cudaGetErrorString(e_), __FILE__, __LINE__); \
      std::exit(1);                                                                    \
    }                                                                                  \
  } while (0)

__host__ __device__ inline int ceil_div(int a, int b) { return (a + b - 1) / b; }

// ---------------- tiled 32 (yardstick) -----------------------------------------------------------
template <int TW>
__global__ void tiledKernel(const float* A, const float* B, float* C, int M, int N, int K) {
  __shared__ float Mds[TW][TW];
  __shared__ float Nds[TW][TW];
  int tx = threadIdx.x, ty = threadIdx.y;
  int Row = blockIdx.y * TW + ty, Col = blockIdx.x * TW + tx;
  float P = 0;
  for (int ph = 0; ph < ceil_div(K, TW); ++ph) {
    int aCol = ph * TW + tx, bRow = ph * TW + ty;
    Mds[ty][tx] = (Row < M && aCol < K) ? A[Row * K + aCol] : 0.f;
    Nds[ty][tx] = (bRow < K && Col < N) ? B[bRow * N + Col] : 0.f;
    __syncthreads();
    for (int k = 0; k < TW; ++k) P += Mds[ty][k] * Nds[k][tx];
    __syncthreads();
  }
  if (Row < M && Col < N) C[Row * N + Col] = P;
}

// ---------------- coarsened (notes' Col1/Col2, generalised) -------------------------------------
template <int CF>
__global__ void coarsenedKernel(const float* A, const float* B, float* C, int M, int N, int K) {
  constexpr int TW = 32;
  __shared__ float Mds[TW][TW];
  __shared__ float Nds[CF][TW][TW];
  int tx = threadIdx.x, ty = threadIdx.y;
  int Row = blockIdx.y * TW + ty;
  int colStart = blockIdx.x * TW * CF + tx;
  float P[CF];
#pragma unroll
  for (int c = 0; c < CF; ++c) P[c] = 0;
  for (int ph = 0; ph < ceil_div(K, TW); ++ph) {
    int aCol = ph * TW + tx, bRow = ph * TW + ty;
    Mds[ty][tx] = (Row < M && aCol < K) ? A[Row * K + aCol] : 0.f;
#pragma unroll
    for (int c = 0; c < CF; ++c) {
      int Col = colStart + c * TW;
      Nds[c][ty][tx] = (bRow < K && Col < N) ? B[bRow * N + Col] : 0.f;
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < TW; ++k) {
      float m = Mds[ty][k];
#pragma unroll
      for (int c = 0; c < CF; ++c) P[c] += m * Nds[c][k][tx];
    }
    __syncthreads();
  }
#pragma unroll
  for (int c = 0; c < CF; ++c) {
    int Col = colStart + c * TW;
    if (Row < M && Col < N) C[Row * N + Col] = P[c];
  }
}

// ---------------- register 1D ----------------------------------------------------------------------
// Compile-time load counts (a loop over l < LOADS, not idx < BM*BK step THREADS, which the compiler
// cannot unroll). PIPE: register prefetch of the next tile + double-buffered shared memory.
// VEC: float4 global loads (only valid when K % 4 == 0 and N % 4 == 0 and aligned; the launcher checks).
template <int BM, int BN, int BK, int TM, bool PIPE, int MINB>
__global__ void __launch_bounds__(BM* BN / TM, MINB)
    r1Kernel(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int M, int N, int K) {
  constexpr int THREADS = BM * BN / TM;
  constexpr int A_LOADS = BM * BK / THREADS, B_LOADS = BK * BN / THREADS;
  static_assert(A_LOADS * THREADS == BM * BK && B_LOADS * THREADS == BK * BN, "tiles must divide");
  constexpr int NBUF = PIPE ? 2 : 1;
  __shared__ float As[NBUF][BM][BK];
  __shared__ float Bs[NBUF][BK][BN];
  const int tid = threadIdx.x;
  const int threadCol = tid % BN, threadRow = tid / BN;
  const int blockRow = blockIdx.y * BM, blockCol = blockIdx.x * BN;
  float ra[A_LOADS], rb[B_LOADS];
  auto load = [&](int ph) {
#pragma unroll
    for (int l = 0; l < A_LOADS; ++l) {
      int idx = tid + l * THREADS, r = idx / BK, k = idx % BK;
      int gr = blockRow + r, gk = ph * BK + k;
      ra[l] = (gr < M && gk < K) ? A[gr * K + gk] : 0.f;
    }
#pragma unroll
    for (int l = 0; l < B_LOADS; ++l) {
      int idx = tid + l * THREADS, k = idx / BN, c = idx % BN;
      int gk = ph * BK + k, gc = blockCol + c;
      rb[l] = (gk < K && gc < N) ? B[gk * N + gc] : 0.f;
    }
  };
  auto store = [&](int buf) {
#pragma unroll
    for (int l = 0; l < A_LOADS; ++l) {
      int idx = tid + l * THREADS;
      As[buf][idx / BK][idx % BK] = ra[l];
    }
#pragma unroll
    for (int l = 0; l < B_LOADS; ++l) {
      int idx = tid + l * THREADS;
      Bs[buf][idx / BN][idx % BN] = rb[l];
    }
  };
  float P[TM] = {};
  auto compute = [&](int buf) {
#pragma unroll
    for (int k = 0; k < BK; ++k) {
      float b = Bs[buf][k][threadCol];
#pragma unroll
      for (int i = 0; i < TM; ++i) P[i] += As[buf][threadRow * TM + i][k] * b;
    }
  };
  const int phases = ceil_div(K, BK);
  if constexpr (PIPE) {
    load(0);
    store(0);
    __syncthreads();
    for (int ph = 0; ph < phases; ++ph) {
      if (ph + 1 < phases) load(ph + 1);
      compute(ph & 1);
      if (ph + 1 < phases) store((ph + 1) & 1);
      __syncthreads();
    }
  } else {
    for (int ph = 0; ph < phases; ++ph) {
      load(ph);
      store(0);
      __syncthreads();
      compute(0);
      __syncthreads();
    }
  }
  const int col = blockCol + threadCol;
#pragma unroll
  for (int i = 0; i < TM; ++i) {
    int row = blockRow + threadRow * TM + i;
    if (row < M && col < N) C[row * N + col] = P[i];
  }
}

// ---------------- register 2D ----------------------------------------------------------------------
// The register 2D kernel's staging of one phase's tiles: global memory into registers (`load`,
// each thread its share, float4 when VEC) and registers into shared buffer `buf` (`store`; A
// transposed, As[k][row]). Functions of their own so that the kernel reads as its phases.
template <int BM, int BN, int BK, int TM, int TN, bool VEC>
struct R2Staging {
  static constexpr int THREADS = (BM / TM) * (BN / TN);
  static constexpr int A_LOADS = VEC ? BM * BK / 4 / THREADS : BM * BK / THREADS;
  static constexpr int B_LOADS = VEC ? BK * BN / 4 / THREADS : BK * BN / THREADS;
  using RegA = float[A_LOADS][VEC ? 4 : 1];
  using RegB = float[B_LOADS][VEC ? 4 : 1];

  static __device__ __forceinline__ void load(const float* __restrict__ A, const float* __restrict__ B, int M, int N,
                                              int K, int blockRow, int blockCol, int tid, int ph, RegA& ra, RegB& rb) {
#pragma unroll
    for (int l = 0; l < A_LOADS; ++l) {
      int idx = tid + l * THREADS;
      if constexpr (VEC) {
        int r = idx / (BK / 4), k4 = idx % (BK / 4);
        int gr = blockRow + r, gk = ph * BK + k4 * 4;
        float4 v = make_float4(0, 0, 0, 0);
        if (gr < M && gk < K) v = *reinterpret_cast<const float4*>(&A[gr * K + gk]);
        ra[l][0] = v.x;
        ra[l][1] = v.y;
        ra[l][2] = v.z;
        ra[l][3] = v.w;
      } else {
        int r = idx / BK, k = idx % BK;
        int gr = blockRow + r, gk = ph * BK + k;
        ra[l][0] = (gr < M && gk < K) ? A[gr * K + gk] : 0.f;
      }
    }
#pragma unroll
    for (int l = 0; l < B_LOADS; ++l) {
      int idx = tid + l * THREADS;
      if constexpr (VEC) {
        int k = idx / (BN / 4), c4 = idx % (BN / 4);
        int gk = ph * BK + k, gc = blockCol + c4 * 4;
        float4 v = make_float4(0, 0, 0, 0);
        if (gk < K && gc < N) v = *reinterpret_cast<const float4*>(&B[gk * N + gc]);
        rb[l][0] = v.x;
        rb[l][1] = v.y;
        rb[l][2] = v.z;
        rb[l][3] = v.w;
      } else {
        int k = idx / BN, c = idx % BN;
        int gk = ph * BK + k, gc = blockCol + c;
        rb[l][0] = (gk < K && gc < N) ? B[gk * N + gc] : 0.f;
      }
    }
  }

  template <int NBUF>
  static __device__ __forceinline__ void store(float (&As)[NBUF][BK][BM], float (&Bs)[NBUF][BK][BN], int buf, int tid,
                                               const RegA& ra, const RegB& rb) {
#pragma unroll
    for (int l = 0; l < A_LOADS; ++l) {
      int idx = tid + l * THREADS;
      if constexpr (VEC) {
        int r = idx / (BK / 4), k4 = idx % (BK / 4);
#pragma unroll
        for (int j = 0; j < 4; ++j) As[buf][k4 * 4 + j][r] = ra[l][j];
      } else {
        int r = idx / BK, k = idx % BK;
        As[buf][k][r] = ra[l][0];
      }
    }
#pragma unroll
    for (int l = 0; l < B_LOADS; ++l) {
      int idx = tid + l * THREADS;
      if constexpr (VEC) {
        int k = idx / (BN / 4), c4 = idx % (BN / 4);
        *reinterpret_cast<float4*>(&Bs[buf][k][c4 * 4]) = make_float4(rb[l][0], rb[l][1], rb[l][2], rb[l][3]);
      } else {
        int k = idx / BN, c = idx % BN;
        Bs[buf][k][c] = rb[l][0];
      }
    }
  }
};

// SPLIT: the thread's TM x TN block is four (TM/2) x (TN/2) quadrants half a tile apart (conflict-
// free float4 reads of Bs). PIPE: register prefetch of the next tile + double-buffered smem.
template <int BM, int BN, int BK, int TM, int TN, bool SPLIT, bool PIPE, bool VEC, int MINB>
__global__ void __launch_bounds__((BM / TM) * (BN / TN), MINB)
    r2Kernel(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int M, int N, int K) {
  using Staging = R2Staging<BM, BN, BK, TM, TN, VEC>;
  constexpr int NBUF = PIPE ? 2 : 1;
  static_assert(Staging::A_LOADS >= 1 && Staging::B_LOADS >= 1, "tile too small for the block");
  __shared__ __align__(16) float As[NBUF][BK][BM];
  __shared__ __align__(16) float Bs[NBUF][BK][BN];
  const int tid = threadIdx.x;
  const int threadCol = tid % (BN / TN), threadRow = tid / (BN / TN);
  const int blockRow = blockIdx.y * BM, blockCol = blockIdx.x * BN;

  typename Staging::RegA ra;
  typename Staging::RegB rb;
  auto load = [&](int ph) { Staging::load(A, B, M, N, K, blockRow, blockCol, tid, ph, ra, rb); };
  auto store = [&](int buf) { Staging::store(As, Bs, buf, tid, ra, rb); };

  auto rowOf = [&](int i) {
    return SPLIT ? (i / (TM / 2)) * (BM / 2) + threadRow * (TM / 2) + i % (TM / 2) : threadRow * TM + i;
  };
  auto colOf = [&](int j) {
    return SPLIT ? (j / (TN / 2)) * (BN / 2) + threadCol * (TN / 2) + j % (TN / 2) : threadCol * TN + j;
  };

  float P[TM][TN] = {};
  float regM[TM], regN[TN];
  auto compute = [&](int buf) {
#pragma unroll
    for (int k = 0; k < BK; ++k) {
#pragma unroll
      for (int i = 0; i < TM; i += 4) {
        float4 v = *reinterpret_cast<const float4*>(&As[buf][k][rowOf(i)]);
        regM[i] = v.x;
        regM[i + 1] = v.y;
        regM[i + 2] = v.z;
        regM[i + 3] = v.w;
      }
#pragma unroll
      for (int j = 0; j < TN; j += 4) {
        float4 v = *reinterpret_cast<const float4*>(&Bs[buf][k][colOf(j)]);
        regN[j] = v.x;
        regN[j + 1] = v.y;
        regN[j + 2] = v.z;
        regN[j + 3] = v.w;
      }
#pragma unroll
      for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j) P[i][j] += regM[i] * regN[j];
    }
  };

  const int phases = ceil_div(K, BK);
  if constexpr (PIPE) {
    load(0);
    store(0);
    __syncthreads();
    for (int ph = 0; ph < phases; ++ph) {
      const int cur = ph & 1;
      if (ph + 1 < phases) load(ph + 1);
      compute(cur);
      if (ph + 1 < phases) store(cur ^ 1);
      __syncthreads();
    }
  } else {
    for (int ph = 0; ph < phases; ++ph) {
      load(ph);
      store(0);
      __syncthreads();
      compute(0);
      __syncthreads();
    }
  }

#pragma unroll
  for (int i = 0; i < TM; ++i) {
    const int row = blockRow + rowOf(i);
    if (row >= M) continue;
#pragma unroll
    for (int j = 0; j < TN; j += 4) {
      const int col = blockCol + colOf(j);
      if constexpr (VEC) {
        if (col < N)
          *reinterpret_cast<float4*>(&C[row * N + col]) = make_float4(P[i][j], P[i][j + 1], P[i][j + 2], P[i][j + 3]);
      } else {
#pragma unroll
        for (int q = 0; q < 4; ++q)
          if (col + q < N) C[row * N + col + q] = P[i][j + q];
      }
    }
  }
}

using Launch = std::function<void(const float*, const float*, float*, int, int, int)>;

template <int TW>
Launch tiled() {
  return [](const float* A, const float* B, float* C, int M, int N, int K) {
    tiledKernel<TW><<<dim3(ceil_div(N, TW), ceil_div(M, TW)), dim3(TW, TW)>>>(A, B, C, M, N, K);
  };
}
template <int CF>
Launch coarsened() {
  return [](const float* A, const float* B, float* C, int M, int N, int K) {
    coarsenedKernel<CF><<<dim3(ceil_div(N, 32 * CF), ceil_div(M, 32)), dim3(32, 32)>>>(A, B, C, M, N, K);
  };
}
template <int BM, int BN, int BK, int TM, bool PIPE = false, int MINB = 1>
Launch r1() {
  return [](const float* A, const float* B, float* C, int M, int N, int K) {
    r1Kernel<BM, BN, BK, TM, PIPE, MINB><<<dim3(ceil_div(N, BN), ceil_div(M, BM)), BM * BN / TM>>>(A, B, C, M, N, K);
  };
}
template <int BM, int BN, int BK, int TM, int TN, bool SPLIT, bool PIPE, int MINB = 1>
Launch r2() {
  return [](const float* A, const float* B, float* C, int M, int N, int K) {
    const dim3 grid(ceil_div(N, BN), ceil_div(M, BM));
    const int threads = (BM / TM) * (BN / TN);
    const bool vec =
        K % 4 == 0 && N % 4 == 0 &&
        (reinterpret_cast<uintptr_t>(A) | reinterpret_cast<uintptr_t>(B) | reinterpret_cast<uintptr_t>(C)) % 16 == 0;
    if (vec)
      r2Kernel<BM, BN, BK, TM, TN, SPLIT, PIPE, true, MINB><<<grid, threads>>>(A, B, C, M, N, K);
    else
      r2Kernel<BM, BN, BK, TM, TN, SPLIT, PIPE, false, MINB><<<grid, threads>>>(A, B, C, M, N, K);
  };
}

struct Variant {
  std::string name;
  Launch launch;
};

// Every variant of the sweep, by name.
std::vector<Variant> all_variants() {
  return {
      {"tiled32", tiled<32>()},
      {"coarse2", coarsened<2>()},
      {"coarse4", coarsened<4>()},
      {"r1 64x64x8 TM8", r1<64, 64, 8, 8>()},
      {"r1 64x64x8 TM8 mb2", r1<64, 64, 8, 8, false, 2>()},
      {"r1 64x64x16 TM8", r1<64, 64, 16, 8>()},
      {"r1 64x64x16 TM8 mb2", r1<64, 64, 16, 8, false, 2>()},
      {"r1 64x64x8 TM8 pipe", r1<64, 64, 8, 8, true>()},
      {"r1 64x64x16 TM8 pipe", r1<64, 64, 16, 8, true>()},
      {"r1 128x64x8 TM16 mb2", r1<128, 64, 8, 16, false, 2>()},
      {"r1 128x64x16 TM16 mb2", r1<128, 64, 16, 16, false, 2>()},
      {"r1 128x128x8 TM16", r1<128, 128, 8, 16>()},
      {"r1 64x64x8 TM16", r1<64, 64, 8, 16>()},
      {"r1 128x64x8 TM16 pipe mb2", r1<128, 64, 8, 16, true, 2>()},
      {"r1 64x64x16 TM16", r1<64, 64, 16, 16>()},
      {"r1 64x64x16 TM16 pipe", r1<64, 64, 16, 16, true>()},
      {"r2 128x128x8 plain", r2<128, 128, 8, 8, 8, false, false>()},
      {"r2 128x128x8 split", r2<128, 128, 8, 8, 8, true, false>()},
      {"r2 128x128x16 split", r2<128, 128, 16, 8, 8, true, false>()},
      {"r2 128x128x8 split pipe", r2<128, 128, 8, 8, 8, true, true>()},
      {"r2 128x128x8 split pipe mb2", r2<128, 128, 8, 8, 8, true, true, 2>()},
      {"r2 128x128x16 split pipe", r2<128, 128, 16, 8, 8, true, true>()},
      {"r2 128x128x16 split pipe mb2", r2<128, 128, 16, 8, 8, true, true, 2>()},
      {"r2 128x128x8 plain pipe", r2<128, 128, 8, 8, 8, false, true>()},
      {"r2 64x64x8 split pipe", r2<64, 64, 8, 8, 8, true, true>()},
      {"r2 128x64x8 split pipe", r2<128, 64, 8, 8, 8, true, true>()},
      {"r2 64x64x16 split pipe", r2<64, 64, 16, 8, 8, true, true>()},
  };
}

// One launch of each variant at n, for Nsight Compute (profile.sh).
void profile_launches(const std::vector<Variant>& variants, int n) {
  float *A, *B, *C;
  CK(cudaMalloc(&A, size_t(n) * n * 4));
  CK(cudaMalloc(&B, size_t(n) * n * 4));
  CK(cudaMalloc(&C, size_t(n) * n * 4));
  CK(cudaMemset(A, 0, size_t(n) * n * 4));
  CK(cudaMemset(B, 0, size_t(n) * n * 4));
  for (auto& v : variants) {
    v.launch(A, B, C, n, n, n);
    CK(cudaDeviceSynchronize());
  }
  std::printf("profile: launched %zu variants at n = %d\n", variants.size(), n);
}

// Correctness on awkward shapes (vector path with edges, scalar path, misaligned pointers):
// every variant exact against cuBLAS on small integers. Prints each failure; true without any.
bool exact_on_awkward_shapes(const std::vector<Variant>& variants, cublasHandle_t h) {
  const float one = 1, zero = 0;
  struct Shape {
    int M, N, K, offset;
  };
  const Shape shapes[] = {{1, 1, 1, 0},       {33, 17, 45, 0},       {127, 131, 137, 0},
                          {100, 132, 68, 0},  {1000, 1004, 1008, 0}, {1023, 1021, 1019, 0},
                          {260, 388, 516, 1}, {300, 1, 5, 0},        {1, 300, 7, 0}};
  bool all_ok = true;
  for (const Shape& s : shapes) {
    const size_t na = size_t(s.M) * s.K + 4, nb = size_t(s.K) * s.N + 4, nc = size_t(s.M) * s.N + 4;
    std::vector<float> hA(na), hB(nb);
    srand(s.M * 7 + s.N);
    for (auto& x : hA) x = float(rand() % 9 - 4);
    for (auto& x : hB) x = float(rand() % 9 - 4);
    float *A, *B, *C, *R;
    CK(cudaMalloc(&A, na * 4));
    CK(cudaMalloc(&B, nb * 4));
    CK(cudaMalloc(&C, nc * 4));
    CK(cudaMalloc(&R, nc * 4));
    CK(cudaMemcpy(A, hA.data(), na * 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(B, hB.data(), nb * 4, cudaMemcpyHostToDevice));
    const float *a = A + s.offset, *b = B + s.offset;
    float* c = C + s.offset;
    cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, s.N, s.M, s.K, &one, b, s.N, a, s.K, &zero, R, s.N);
    std::vector<float> ref(size_t(s.M) * s.N), got(ref.size());
    CK(cudaMemcpy(ref.data(), R, ref.size() * 4, cudaMemcpyDeviceToHost));
    for (auto& v : variants) {
      CK(cudaMemset(C, 0xFF, nc * 4));
      v.launch(a, b, c, s.M, s.N, s.K);
      CK(cudaGetLastError());
      CK(cudaDeviceSynchronize());
      CK(cudaMemcpy(got.data(), c, got.size() * 4, cudaMemcpyDeviceToHost));
      size_t wrong = 0;
      for (size_t i = 0; i < got.size(); ++i) wrong += !(got[i] == ref[i]);
      if (wrong) {
        std::printf("WRONG %s on %dx%dx%d offset %d: %zu elements\n", v.name.c_str(), s.M, s.N, s.K, s.offset, wrong);
        all_ok = false;
      }
    }
    cudaFree(A);
    cudaFree(B);
    cudaFree(C);
    cudaFree(R);
  }
  return all_ok;
}

// The timings at n: cuBLAS, then every variant, each checked once, then timed with the L2
// flushed before every call (median and min of 15 or 30 calls after 2 untimed).
void time_at(int n, const std::vector<Variant>& variants, cublasHandle_t h, void* flush, size_t flush_bytes,
             cudaEvent_t e0, cudaEvent_t e1) {
  const float one = 1, zero = 0;
  const size_t cnt = size_t(n) * n;
  std::vector<float> hA(cnt), hB(cnt);
  for (auto& x : hA) x = rand() / float(RAND_MAX) * 2 - 1;
  for (auto& x : hB) x = rand() / float(RAND_MAX) * 2 - 1;
  float *A, *B, *C, *R;
  CK(cudaMalloc(&A, cnt * 4));
  CK(cudaMalloc(&B, cnt * 4));
  CK(cudaMalloc(&C, cnt * 4));
  CK(cudaMalloc(&R, cnt * 4));
  CK(cudaMemcpy(A, hA.data(), cnt * 4, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(B, hB.data(), cnt * 4, cudaMemcpyHostToDevice));
  cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, B, n, A, n, &zero, R, n);
  std::vector<float> ref(cnt), got(cnt);
  CK(cudaMemcpy(ref.data(), R, cnt * 4, cudaMemcpyDeviceToHost));

  std::vector<Variant> all = {{"cuBLAS", [&](const float* a, const float* b, float* c, int, int, int) {
                                 cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, b, n, a, n, &zero, c, n);
                               }}};
  all.insert(all.end(), variants.begin(), variants.end());
  double cublas_ms = 0;
  std::printf("\nn = %d\n%-30s %9s %9s %8s %8s\n", n, "variant", "median", "min", "TFLOP/s", "%cuBLAS");
  for (auto& v : all) {
    CK(cudaMemset(C, 0xFF, cnt * 4));
    v.launch(A, B, C, n, n, n);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(got.data(), C, cnt * 4, cudaMemcpyDeviceToHost));
    double maxerr = 0;
    for (size_t i = 0; i < cnt; ++i)
      maxerr = std::max(maxerr, std::isfinite(got[i]) ? double(std::fabs(got[i] - ref[i])) : 1e30);
    std::vector<float> ms;
    const int runs = n >= 4096 ? 15 : 30;
    for (int r = 0; r < runs + 2; ++r) {
      CK(cudaMemsetAsync(flush, r, flush_bytes));
      cudaEventRecord(e0);
      v.launch(A, B, C, n, n, n);
      cudaEventRecord(e1);
      CK(cudaEventSynchronize(e1));
      float t;
      cudaEventElapsedTime(&t, e0, e1);
      if (r >= 2) ms.push_back(t);
    }
    std::sort(ms.begin(), ms.end());
    const double med = ms[ms.size() / 2];
    if (v.name == "cuBLAS") cublas_ms = med;
    const double tf = 2.0 * n * n * double(n) / (med * 1e-3) / 1e12;
    std::printf("%-30s %9.3f %9.3f %8.2f %7.1f%%%s\n", v.name.c_str(), med, ms[0], tf, 100 * cublas_ms / med,
                maxerr > n * 1e-5 ? "  BAD RESULT" : "");
  }
  cudaFree(A);
  cudaFree(B);
  cudaFree(C);
  cudaFree(R);
}

int main(int argc, char** argv) {
  std::vector<int> sizes = {1024, 2048, 4096};
  const bool profile = argc > 1 && std::string(argv[1]) == "profile";  // one launch of each, for ncu
  if (profile) {
    sizes = {argc > 2 ? std::atoi(argv[2]) : 2048};
  } else if (argc > 1) {
    sizes.clear();
    for (int i = 1; i < argc; ++i) sizes.push_back(std::atoi(argv[i]));
  }
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  std::printf("GPU: %s, %d SMs\n", prop.name, prop.multiProcessorCount);

  std::vector<Variant> variants = all_variants();

  cublasHandle_t h;
  cublasCreate(&h);
  cublasSetMathMode(h, CUBLAS_DEFAULT_MATH);

  if (profile) {
    profile_launches(variants, sizes[0]);
    return 0;
  }

  const bool all_ok = exact_on_awkward_shapes(variants, h);
  std::printf("correctness: %s\n", all_ok ? "all variants exact on all shapes" : "FAILURES above");

  // L2 flush buffer.
  void* flush;
  const size_t flush_bytes = 2 * size_t(prop.l2CacheSize);
  CK(cudaMalloc(&flush, flush_bytes));
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0);
  cudaEventCreate(&e1);

  for (int n : sizes) time_at(n, variants, h, flush, flush_bytes, e0, e1);
  return 0;
}
