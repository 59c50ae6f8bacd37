// Design exploration for all_gpu_privatized's per-thread kernel (not part of the lab; its results
// on an H100, 2026-11-21, are quoted in labs/kmeans/README.md, section 12). One launch of the assignment + accumulation kernel on
// {256,2,16}: 16777216 objects, 2 coordinates, K = 16, objects [numCoords][numObjs] in double.
// Build and run on a GPU: nvcc -O3 -std=c++17 -arch=sm_90 -o exp docs/measurements/kmeans-per-thread-experiment.cu && ./exp
//
// Variants (template parameters):
//   OBJS  objects per thread per loop trip: each centroid read from shared memory serves OBJS
//         objects, and their OBJS nearest-centroid searches are independent (instruction-level
//         parallelism)
//   VEC   centroids stored [numClusters][numCoords] (a centroid's coordinates side by side, one
//         16-byte load for two) instead of [numCoords][numClusters]
//   MODE  0: full kernel (per-thread private sums and sizes); 1: no accumulation (what the
//         distances cost); 2: floor (loads and membership only, one centroid)
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#define CK(x)                                                          \
  do {                                                                 \
    cudaError_t e = (x);                                               \
    if (e != cudaSuccess) {                                            \
      std::printf("%s: %s\n", #x, cudaGetErrorString(e));              \
      std::exit(1);                                                    \
    }                                                                  \
  } while (0)

constexpr int NC = 2;

__device__ unsigned block_sum(unsigned v) {
  __shared__ unsigned ws[32];
  const int lane = threadIdx.x % 32, w = threadIdx.x / 32;
  for (int o = 16; o; o /= 2) v += __shfl_down_sync(~0u, v, o);
  if (!lane) ws[w] = v;
  __syncthreads();
  if (w == 0) {
    v = lane < (blockDim.x + 31) / 32 ? ws[lane] : 0;
    for (int o = 16; o; o /= 2) v += __shfl_down_sync(~0u, v, o);
  }
  return v;
}

template <int OBJS, bool VEC, int MODE>
__global__ void __launch_bounds__(1024) kern(int n, int K, const double* __restrict__ obj, const double* __restrict__ cl,
                                             int* __restrict__ mem, unsigned* changedOut, double* gsum, unsigned* gsize) {
  const int t = threadIdx.x, T = blockDim.x;
  extern __shared__ double sh[];
  const int cc = K * NC;
  double* scl = sh;
  double* tsum = sh + cc;
  unsigned* tsize = reinterpret_cast<unsigned*>(tsum + (MODE == 0 ? cc * T : 0));
  for (int i = t; i < cc; i += T) {
    const int k = i % K, j = i / K;  // cl is [j][k]
    scl[VEC ? k * NC + j : i] = cl[i];
  }
  if (MODE == 0) {
    for (int e = 0; e < cc; ++e) tsum[e * T + t] = 0.0;
    for (int k = 0; k < K; ++k) tsize[k * T + t] = 0;
  }
  __syncthreads();
  unsigned changed = 0;
  const int stride = T * gridDim.x * OBJS;
  for (int base = blockIdx.x * T * OBJS + t; base < n; base += stride) {
    double x[OBJS][NC];
    int old[OBJS];
    bool valid[OBJS];
#pragma unroll
    for (int o = 0; o < OBJS; ++o) {
      const int id = base + o * T;
      valid[o] = id < n;
#pragma unroll
      for (int j = 0; j < NC; ++j) x[o][j] = valid[o] ? obj[j * n + id] : 0.0;
      old[o] = valid[o] ? mem[id] : 0;
    }
    int index[OBJS];
    double best[OBJS];
#pragma unroll
    for (int o = 0; o < OBJS; ++o) index[o] = 0;
    for (int k = 0; k < (MODE == 2 ? 1 : K); ++k) {
      double c[NC];
      if (VEC) {
        const double2 v = *reinterpret_cast<const double2*>(&scl[k * NC]);
        c[0] = v.x;
        c[1] = v.y;
      } else {
#pragma unroll
        for (int j = 0; j < NC; ++j) c[j] = scl[j * K + k];
      }
#pragma unroll
      for (int o = 0; o < OBJS; ++o) {
        double d = 0;
#pragma unroll
        for (int j = 0; j < NC; ++j) {
          const double e = x[o][j] - c[j];
          d += e * e;
        }
        if (k == 0 || d < best[o]) {
          best[o] = d;
          index[o] = k;
        }
      }
    }
#pragma unroll
    for (int o = 0; o < OBJS; ++o) {
      if (MODE == 2) index[o] = best[o] > 1e300 ? 1 : 0;  // keeps the loads alive
      if (!valid[o]) continue;
      if (old[o] != index[o]) {
        ++changed;
        mem[base + o * T] = index[o];
      }
      if (MODE == 0) {
        tsize[index[o] * T + t] += 1;
#pragma unroll
        for (int j = 0; j < NC; ++j) tsum[(j * K + index[o]) * T + t] += x[o][j];
      }
    }
  }
  changed = block_sum(changed);
  if (t == 0 && changed) atomicAdd(changedOut, changed);
  if (MODE != 0) return;
  __syncthreads();
  const int lane = t % 32, warp = t / 32, nw = T / 32;
  for (int e = warp; e < cc + K; e += nw) {
    if (e < cc) {
      double s = 0;
      for (int i = lane; i < T; i += 32) s += tsum[e * T + i];
      for (int o = 16; o; o /= 2) s += __shfl_down_sync(~0u, s, o);
      if (lane == 0 && s != 0) atomicAdd(&gsum[e], s);
    } else {
      unsigned s = 0;
      for (int i = lane; i < T; i += 32) s += tsize[(e - cc) * T + i];
      for (int o = 16; o; o /= 2) s += __shfl_down_sync(~0u, s, o);
      if (lane == 0 && s) atomicAdd(&gsize[e - cc], s);
    }
  }
}

template <int OBJS, bool VEC, int MODE>
void run(const char* name, int n, int K, const double* obj, const double* cl, int* mem, unsigned* ch, double* gs, unsigned* gz,
         int block, std::vector<double>& ref) {
  auto kfn = kern<OBJS, VEC, MODE>;
  const size_t smem = (size_t)K * NC * 8 + (MODE == 0 ? (size_t)block * K * (NC * 8 + 4) : 0);
  CK(cudaFuncSetAttribute(kfn, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
  int per = 0, sms = 0;
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per, kfn, block, smem));
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const int grid = std::min((n + block * OBJS - 1) / (block * OBJS), sms * per);
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  std::vector<float> t;
  CK(cudaMemset(mem, 0xFF, n * 4));  // the first launch moves every object, the others none
  for (int r = 0; r < 22; ++r) {
    CK(cudaMemset(gs, 0, K * NC * 8));
    CK(cudaMemset(gz, 0, K * 4));
    CK(cudaMemset(ch, 0, 4));
    CK(cudaEventRecord(a));
    kfn<<<grid, block, smem>>>(n, K, obj, cl, mem, ch, gs, gz);
    CK(cudaEventRecord(b));
    CK(cudaEventSynchronize(b));
    float ms;
    CK(cudaEventElapsedTime(&ms, a, b));
    if (r >= 2) t.push_back(ms);
  }
  CK(cudaGetLastError());
  std::sort(t.begin(), t.end());
  std::vector<double> s(K * NC);
  std::vector<unsigned> z(K);
  CK(cudaMemcpy(s.data(), gs, K * NC * 8, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(z.data(), gz, K * 4, cudaMemcpyDeviceToHost));
  double tot = 0, maxrel = 0;
  for (unsigned v : z) tot += v;
  if (MODE == 0 && !ref.empty())
    for (int i = 0; i < K * NC; ++i) maxrel = std::max(maxrel, std::abs(s[i] - ref[i]) / std::max(1.0, std::abs(ref[i])));
  if (MODE == 0 && ref.empty()) ref = s;
  std::printf("  %-40s block=%4d grid=%5d blocks/SM=%2d smem=%6zu  median %.4f ms  min %.4f  (sizes %s, sums rel diff %.1e)\n",
              name, block, grid, per, smem, t[t.size() / 2], t[0], MODE != 0 ? "-" : (tot == n ? "ok" : "BAD"), maxrel);
}

int main() {
  const int n = 256 * 1024 * 1024 / (NC * 8), K = 16;
  std::vector<double> h((size_t)n * NC);
  std::mt19937_64 g(1);
  std::uniform_real_distribution<double> u(0, 10);
  for (auto& v : h) v = u(g);
  std::vector<double> hc(K * NC);
  for (int k = 0; k < K; ++k)
    for (int j = 0; j < NC; ++j) hc[j * K + k] = h[j * (size_t)n + k];
  double *obj, *cl, *gs, *dst;
  int* mem;
  unsigned *ch, *gz;
  CK(cudaMalloc(&obj, h.size() * 8));
  CK(cudaMalloc(&dst, h.size() * 8));
  CK(cudaMalloc(&cl, K * NC * 8));
  CK(cudaMalloc(&gs, K * NC * 8));
  CK(cudaMalloc(&mem, n * 4));
  CK(cudaMalloc(&ch, 4));
  CK(cudaMalloc(&gz, K * 4));
  CK(cudaMemcpy(obj, h.data(), h.size() * 8, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(cl, hc.data(), K * NC * 8, cudaMemcpyHostToDevice));
  {
    cudaEvent_t a, b;
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
    std::vector<float> t;
    for (int r = 0; r < 12; ++r) {
      CK(cudaEventRecord(a));
      CK(cudaMemcpy(dst, obj, h.size() * 8, cudaMemcpyDeviceToDevice));
      CK(cudaEventRecord(b));
      CK(cudaEventSynchronize(b));
      float ms;
      CK(cudaEventElapsedTime(&ms, a, b));
      t.push_back(ms);
    }
    std::sort(t.begin(), t.end());
    std::printf("n=%d nc=%d K=%d: D2D copy of 256 MiB %.4f ms -> %.0f GB/s, read time %.4f ms, 2x = %.4f ms\n", n, NC, K,
                t[6], 2 * 268435456.0 / (t[6] * 1e-3) / 1e9, t[6] / 2, t[6]);
  }
  std::vector<double> ref;
  for (int block : {256, 128}) {
    run<1, false, 0>("per thread, [j][k] centroids (the patch)", n, K, obj, cl, mem, ch, gs, gz, block, ref);
    run<1, true, 0>("per thread, [k][j] centroids", n, K, obj, cl, mem, ch, gs, gz, block, ref);
    run<2, true, 0>("per thread, [k][j], 2 objects/trip", n, K, obj, cl, mem, ch, gs, gz, block, ref);
    run<4, true, 0>("per thread, [k][j], 4 objects/trip", n, K, obj, cl, mem, ch, gs, gz, block, ref);
    run<2, false, 0>("per thread, [j][k], 2 objects/trip", n, K, obj, cl, mem, ch, gs, gz, block, ref);
  }
  run<1, true, 1>("no accumulation, 1 object/trip", n, K, obj, cl, mem, ch, gs, gz, 256, ref);
  run<2, true, 1>("no accumulation, 2 objects/trip", n, K, obj, cl, mem, ch, gs, gz, 256, ref);
  run<4, true, 1>("no accumulation, 4 objects/trip", n, K, obj, cl, mem, ch, gs, gz, 256, ref);
  run<1, true, 2>("FLOOR: loads + membership, 1 centroid", n, K, obj, cl, mem, ch, gs, gz, 256, ref);
  run<4, true, 2>("FLOOR, 4 objects/trip", n, K, obj, cl, mem, ch, gs, gz, 256, ref);
  return 0;
}
