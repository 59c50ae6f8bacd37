// Design exploration for all_gpu_privatized (not part of the lab; its results on an H100, 2026-11-21,
// are quoted in labs/kmeans/README.md, section 11).
// Build and run on a GPU: nvcc -O3 -std=c++17 -arch=sm_90 -o exp docs/measurements/kmeans-privatization-experiment.cu && ./exp
#include <cuda_runtime.h>
#include <cstdio>
#include <vector>
#include <algorithm>
#include <random>

#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("%s: %s\n", #x, cudaGetErrorString(e)); exit(1);} } while (0)

__device__ unsigned block_sum(unsigned v) {
  __shared__ unsigned ws[32];
  int lane = threadIdx.x % 32, w = threadIdx.x / 32;
  for (int o = 16; o; o /= 2) v += __shfl_down_sync(~0u, v, o);
  if (!lane) ws[w] = v;
  __syncthreads();
  if (w == 0) { v = lane < (blockDim.x + 31) / 32 ? ws[lane] : 0; for (int o = 16; o; o /= 2) v += __shfl_down_sync(~0u, v, o); }
  return v;
}

// MODE 0: per-block private, shared atomics. 1: + warp aggregation (match_any). 2: per-warp private copies.
// 3: global atomics (no privatization). 4: memory floor (no atomics, no distances beyond k=0)
template <int NC, int MODE>
__global__ void kern(int numCoords, int n, int K, const double* __restrict__ obj, const double* __restrict__ cl,
                     int* __restrict__ mem, unsigned* changedOut, double* gsum, unsigned* gsize) {
  if (NC > 0) numCoords = NC;
  extern __shared__ double sh[];
  const int cc = K * numCoords;
  const int copies = MODE == 2 ? blockDim.x / 32 : 1;
  double* scl = sh;
  double* ssum = sh + cc;
  unsigned* ssize = (unsigned*)(ssum + cc * copies);
  for (int i = threadIdx.x; i < cc; i += blockDim.x) scl[i] = cl[i];
  for (int i = threadIdx.x; i < cc * copies; i += blockDim.x) ssum[i] = 0;
  for (int i = threadIdx.x; i < K * copies; i += blockDim.x) ssize[i] = 0;
  __syncthreads();
  const int warp = threadIdx.x / 32;
  double* mysum = MODE == 2 ? ssum + warp * cc : ssum;
  unsigned* mysize = MODE == 2 ? ssize + warp * K : ssize;
  unsigned changed = 0;
  for (int o = blockIdx.x * blockDim.x + threadIdx.x; o < n; o += blockDim.x * gridDim.x) {
    double x[NC > 0 ? NC : 1];
    if (NC > 0) {
#pragma unroll
      for (int j = 0; j < NC; ++j) x[j] = obj[j * n + o];
    }
    auto coord = [&](int j) { return NC > 0 ? x[j] : obj[j * n + o]; };
    int index = 0;
    double best = 0;
    for (int k = 0; k < (MODE == 4 ? 1 : K); ++k) {
      double d = 0;
#pragma unroll
      for (int j = 0; j < (NC > 0 ? NC : numCoords); ++j) { double t = coord(j) - scl[j * K + k]; d += t * t; }
      if (k == 0 || d < best) { best = d; index = k; }
    }
    if (MODE == 4) index = best > 1e300 ? 1 : 0;  // keeps the loads alive
    if (mem[o] != index) ++changed;
    mem[o] = index;
    if (MODE == 4) continue;
    if (MODE == 3) {
      atomicAdd(&gsize[index], 1u);
#pragma unroll
      for (int j = 0; j < (NC > 0 ? NC : numCoords); ++j) atomicAdd(&gsum[j * K + index], coord(j));
    } else if (MODE == 1) {
      const unsigned active = __activemask();
      const unsigned peers = __match_any_sync(active, index);
      const int lane = threadIdx.x % 32;
      const int leader = __ffs(peers) - 1;
      unsigned cnt = __popc(peers);
      // reduce_peers: sum coords over peers (Westphal)
      double v[NC > 0 ? NC : 1];
#pragma unroll
      for (int j = 0; j < (NC > 0 ? NC : 1); ++j) v[j] = NC > 0 ? x[j] : 0;
      unsigned rem = peers & (0xfffffffeu << lane);
      int rel = __popc(peers & ((1u << lane) - 1));
      while (__any_sync(active, rem)) {
        int next = __ffs(rem);
#pragma unroll
        for (int j = 0; j < (NC > 0 ? NC : 1); ++j) {
          double t = __shfl_sync(active, v[j], next - 1);
          if (next) v[j] += t;
        }
        int done = rel & 1;
        rem &= __ballot_sync(active, !done);
        rel >>= 1;
      }
      if (lane == leader) {
        atomicAdd(&mysize[index], cnt);
#pragma unroll
        for (int j = 0; j < (NC > 0 ? NC : 1); ++j) atomicAdd(&mysum[j * K + index], v[j]);
      }
    } else {
      atomicAdd(&mysize[index], 1u);
#pragma unroll
      for (int j = 0; j < (NC > 0 ? NC : numCoords); ++j) atomicAdd(&mysum[j * K + index], coord(j));
    }
  }
  changed = block_sum(changed);
  if (threadIdx.x == 0 && changed) atomicAdd(changedOut, changed);
  if (MODE == 3 || MODE == 4) return;
  __syncthreads();
  for (int i = threadIdx.x; i < cc; i += blockDim.x) {
    double s = 0;
    for (int c = 0; c < copies; ++c) s += ssum[c * cc + i];
    if (s != 0) atomicAdd(&gsum[i], s);
  }
  for (int i = threadIdx.x; i < K; i += blockDim.x) {
    unsigned s = 0;
    for (int c = 0; c < copies; ++c) s += ssize[c * K + i];
    if (s) atomicAdd(&gsize[i], s);
  }
}

template <int NC, int MODE>
void run(const char* name, int nc, int n, int K, double* obj, double* cl, int* mem, unsigned* ch, double* gs, unsigned* gz,
         int block, bool coarsen, std::vector<double>& ref_sum) {
  auto kfn = kern<NC, MODE>;
  int copies = MODE == 2 ? block / 32 : 1;
  size_t smem = (size_t)K * nc * 8 * (1 + copies) + (size_t)K * 4 * copies;
  if (smem > 48 * 1024) CK(cudaFuncSetAttribute(kfn, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
  int per = 0, sms = 0;
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per, kfn, block, smem));
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  int grid = (n + block - 1) / block;
  if (coarsen) grid = std::min(grid, sms * per);
  cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
  std::vector<float> t;
  for (int r = 0; r < 12; ++r) {
    CK(cudaMemset(gs, 0, K * nc * 8)); CK(cudaMemset(gz, 0, K * 4)); CK(cudaMemset(ch, 0, 4));
    cudaEventRecord(a);
    kfn<<<grid, block, smem>>>(nc, n, K, obj, cl, mem, ch, gs, gz);
    cudaEventRecord(b); CK(cudaEventSynchronize(b));
    float ms; cudaEventElapsedTime(&ms, a, b); if (r >= 2) t.push_back(ms);
  }
  CK(cudaGetLastError());
  std::sort(t.begin(), t.end());
  std::vector<double> s(K * nc); std::vector<unsigned> z(K);
  CK(cudaMemcpy(s.data(), gs, K * nc * 8, cudaMemcpyDeviceToHost)); CK(cudaMemcpy(z.data(), gz, K * 4, cudaMemcpyDeviceToHost));
  double tot = 0; for (unsigned x : z) tot += x;
  double maxrel = 0;
  if (!ref_sum.empty() && MODE != 4) for (int i = 0; i < K * nc; ++i) maxrel = std::max(maxrel, std::abs(s[i] - ref_sum[i]) / std::max(1.0, std::abs(ref_sum[i])));
  if (ref_sum.empty() && MODE != 4) ref_sum = s;
  printf("  %-34s nc=%2d block=%4d grid=%6d blocks/SM=%d smem=%6zu  median %.4f ms  min %.4f  (sizes %s, sums rel diff %.1e)\n", name, nc, block, grid, per, smem,
         t[t.size() / 2], t[0], MODE == 4 ? "-" : (tot == n ? "ok" : "BAD"), maxrel);
}

int main() {
  for (int nc : {2, 16}) {
    const int n = 256 * 1024 * 1024 / (nc * 8), K = 16;
    std::vector<double> h((size_t)n * nc);
    std::mt19937_64 g(1); std::uniform_real_distribution<double> u(0, 10);
    for (auto& x : h) x = u(g);
    std::vector<double> hc(K * nc);
    for (int k = 0; k < K; ++k) for (int j = 0; j < nc; ++j) hc[j * K + k] = h[j * (size_t)n + k];
    double *obj, *cl, *gs; int* mem; unsigned *ch, *gz;
    CK(cudaMalloc(&obj, h.size() * 8)); CK(cudaMalloc(&cl, K * nc * 8)); CK(cudaMalloc(&gs, K * nc * 8));
    CK(cudaMalloc(&mem, n * 4)); CK(cudaMalloc(&ch, 4)); CK(cudaMalloc(&gz, K * 4));
    CK(cudaMemcpy(obj, h.data(), h.size() * 8, cudaMemcpyHostToDevice)); CK(cudaMemcpy(cl, hc.data(), K * nc * 8, cudaMemcpyHostToDevice));
    CK(cudaMemset(mem, 0xFF, n * 4));
    // copy bandwidth
    double* dst; CK(cudaMalloc(&dst, h.size() * 8));
    cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
    std::vector<float> t;
    for (int r = 0; r < 12; ++r) { cudaEventRecord(a); cudaMemcpy(dst, obj, h.size() * 8, cudaMemcpyDeviceToDevice); cudaEventRecord(b); cudaEventSynchronize(b); float ms; cudaEventElapsedTime(&ms, a, b); t.push_back(ms); }
    std::sort(t.begin(), t.end());
    printf("nc=%d n=%d: D2D copy of 256 MiB %.4f ms -> %.0f GB/s, read time %.4f ms\n", nc, n, t[6], 2 * 268435456.0 / (t[6] * 1e-3) / 1e9, t[6] / 2);
    cudaFree(dst);
    std::vector<double> ref;
    if (nc == 2) {
      // Sustained load: the same kernel back to back, medians per window of 200 launches.
      {
        auto kfn = kern<2, 0>;
        int per = 0, sms = 0;
        CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per, kfn, 256, 576));
        CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
        int grid = sms * per;
        std::vector<cudaEvent_t> ev(2001);
        for (auto& e : ev) cudaEventCreate(&e);
        cudaEventRecord(ev[0]);
        for (int r = 0; r < 2000; ++r) { kfn<<<grid, 256, 576>>>(nc, n, K, obj, cl, mem, ch, gs, gz); cudaEventRecord(ev[r + 1]); }
        CK(cudaEventSynchronize(ev[2000]));
        for (int w = 0; w < 10; ++w) {
          std::vector<float> t;
          for (int r = w * 200; r < (w + 1) * 200; ++r) { float ms; cudaEventElapsedTime(&ms, ev[r], ev[r + 1]); t.push_back(ms); }
          std::sort(t.begin(), t.end());
          printf("  sustained window %d: median %.4f ms min %.4f\n", w, t[100], t[0]);
        }
      }
      run<2, 0>("per-block shared atomics, reg", nc, n, K, obj, cl, mem, ch, gs, gz, 256, true, ref);
      run<2, 4>("FLOOR: k=0 only, no atomics", nc, n, K, obj, cl, mem, ch, gs, gz, 256, true, ref);
      run<0, 3>("global atomics, generic", nc, n, K, obj, cl, mem, ch, gs, gz, 256, false, ref);
      run<0, 0>("per-block shared atomics, generic", nc, n, K, obj, cl, mem, ch, gs, gz, 256, true, ref);
      run<2, 1>("per-block + warp aggregation, reg", nc, n, K, obj, cl, mem, ch, gs, gz, 256, true, ref);
      for (int bl : {128, 512}) run<2, 0>("per-block shared atomics, reg", nc, n, K, obj, cl, mem, ch, gs, gz, bl, true, ref);
    } else {
      run<16, 0>("per-block shared atomics, reg", nc, n, K, obj, cl, mem, ch, gs, gz, 256, true, ref);
      run<0, 3>("global atomics, generic", nc, n, K, obj, cl, mem, ch, gs, gz, 256, false, ref);
      run<0, 0>("per-block shared atomics, generic", nc, n, K, obj, cl, mem, ch, gs, gz, 256, true, ref);
      run<16, 1>("per-block + warp aggregation, reg", nc, n, K, obj, cl, mem, ch, gs, gz, 256, true, ref);
    }
    cudaFree(obj); cudaFree(cl); cudaFree(gs); cudaFree(mem); cudaFree(ch); cudaFree(gz);
  }
  return 0;
}
