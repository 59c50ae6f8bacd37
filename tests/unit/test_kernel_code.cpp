// kernel_code (static_check.hpp): a technique check sees the technique wherever the kernel's own
// code puts it. Fixtures in the shapes students write tiled matmul and transpose kernels.
#include "grader/catch.hpp"
#include "grader/static_check.hpp"

#include <string>

using grader::code_uses;
using grader::kernel_code;

namespace {

bool kernel_uses(const std::string& source, const std::string& kernel, const std::string& word) {
  return code_uses(kernel_code(source, kernel), word);
}

// The tiles in a __device__ helper the kernel calls, barriers through cooperative groups.
const char* const kHelperTiles = R"(
#include "matmul.hpp"
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

#define TILE_WIDTH 32

__device__ float tile_product(const float* A, const float* B, int M, int N, int K, int row, int col) {
  __shared__ float As[TILE_WIDTH][TILE_WIDTH];
  __shared__ float Bs[TILE_WIDTH][TILE_WIDTH];
  cg::thread_block block = cg::this_thread_block();
  float acc = 0.0f;
  for (int t = 0; t < (K + TILE_WIDTH - 1) / TILE_WIDTH; ++t) {
    As[threadIdx.y][threadIdx.x] = (row < M && t * TILE_WIDTH + threadIdx.x < K) ? A[row * K + t * TILE_WIDTH + threadIdx.x] : 0.0f;
    Bs[threadIdx.y][threadIdx.x] = (col < N && t * TILE_WIDTH + threadIdx.y < K) ? B[(t * TILE_WIDTH + threadIdx.y) * N + col] : 0.0f;
    block.sync();
    for (int k = 0; k < TILE_WIDTH; ++k) acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];
    block.sync();
  }
  return acc;
}

__global__ void tiledKernel(const float* A, const float* B, float* C, int M, int N, int K) {
  const int row = blockIdx.y * TILE_WIDTH + threadIdx.y, col = blockIdx.x * TILE_WIDTH + threadIdx.x;
  const float acc = tile_product(A, B, M, N, K, row, col);
  if (row < M && col < N) C[row * N + col] = acc;
}
)";

}  // namespace

TEST_CASE("kernel_code: tiles declared in a __device__ helper the kernel calls", "[static][kernel_code]") {
  const std::string code = kernel_code(kHelperTiles, "tiledKernel");
  CHECK(code.find("C[row * N + col] = acc;") != std::string::npos);  // the kernel's own body
  CHECK(code_uses(code, "__shared__"));
  CHECK(code_uses(code, "this_thread_block"));  // a barrier through cooperative groups
  CHECK(code_uses(code, "sync"));
  CHECK_FALSE(code_uses(grader::function_body(kHelperTiles, "tiledKernel"), "__shared__"));  // what the old check read
}

TEST_CASE("kernel_code: a helper defined after the kernel, declared before it", "[static][kernel_code]") {
  const std::string src = R"(
__device__ void load_tiles(float (*As)[16], float (*Bs)[16], const float* A, const float* B, int t);
__global__ void tiledKernel(const float* A, const float* B, float* C) {
  __shared__ float As[16][16], Bs[16][16];  // in the kernel after all
  load_tiles(As, Bs, A, B, 0);
}
__device__ void load_tiles(float (*As)[16], float (*Bs)[16], const float* A, const float* B, int t) {
  As[threadIdx.y][threadIdx.x] = A[t];
  __syncthreads();
}
)";
  const std::string code = kernel_code(src, "tiledKernel");
  CHECK(code_uses(code, "__syncthreads"));
  const std::string later = R"(
__device__ float dot_tile(const float* A, const float* B);
__global__ void tiledKernel(const float* A, const float* B, float* C) { C[0] = dot_tile(A, B); }
__device__ float dot_tile(const float* A, const float* B) {
  __shared__ float tile[32][33];
  tile[threadIdx.y][threadIdx.x] = A[0];
  __syncthreads();
  return tile[0][0] * B[0];
}
)";
  CHECK(kernel_uses(later, "tiledKernel", "__shared__"));
}

TEST_CASE("kernel_code: a helper in a namespace, called qualified", "[static][kernel_code]") {
  const std::string src = R"(
namespace detail {
template <int TILE>
__device__ __forceinline__ void stage(const float* __restrict__ in, float* out, int n) {
  __shared__ float tile[TILE][TILE + 1];
  tile[threadIdx.y][threadIdx.x] = in[threadIdx.x];
  __syncthreads();
  out[threadIdx.x] = tile[threadIdx.x][threadIdx.y];
}
}  // namespace detail

__global__ void transposeSharedKernel(const float* in, float* out, int n) {
  detail::stage<32>(in, out, n);
}
)";
  CHECK(kernel_uses(src, "transposeSharedKernel", "__shared__"));
}

TEST_CASE("kernel_code: dynamic shared memory, extern __shared__ at file scope or in the kernel",
          "[static][kernel_code]") {
  const std::string file_scope = R"(
extern __shared__ float smem[];
__global__ void tiledKernel(const float* A, const float* B, float* C, int tile) {
  float* As = smem;
  float* Bs = smem + tile * tile;
  As[threadIdx.x] = A[threadIdx.x];
  Bs[threadIdx.x] = B[threadIdx.x];
  __syncthreads();
  C[0] = As[0] * Bs[0];
}
void tiled(const float* A, const float* B, float* C, int tile, cudaStream_t s) {
  tiledKernel<<<1, tile * tile, 2 * tile * tile * sizeof(float), s>>>(A, B, C, tile);
}
)";
  CHECK(kernel_uses(file_scope, "tiledKernel", "__shared__"));
  const std::string inside = R"(
template <typename T>
__global__ void tiledKernel(const T* A, T* C) {
  extern __shared__ unsigned char raw[];
  T* tile = reinterpret_cast<T*>(raw);
  tile[threadIdx.x] = A[threadIdx.x];
  __syncthreads();
  C[threadIdx.x] = tile[blockDim.x - 1 - threadIdx.x];
}
)";
  CHECK(kernel_uses(inside, "tiledKernel", "__shared__"));
}

TEST_CASE("kernel_code: a macro-defined tile size and a macro that declares the tiles", "[static][kernel_code]") {
  const std::string src = R"(
#define TILE 16
#define DECLARE_TILES \
  __shared__ float As[TILE][TILE]; \
  __shared__ float Bs[TILE][TILE]
__global__ void tiledKernel(const float* A, const float* B, float* C) {
  DECLARE_TILES;
  As[threadIdx.y][threadIdx.x] = A[0];
  Bs[threadIdx.y][threadIdx.x] = B[0];
  __syncthreads();
  C[0] = As[0][0] + Bs[0][0];
}
)";
  CHECK(kernel_uses(src, "tiledKernel", "__shared__"));
  CHECK(kernel_code(src, "tiledKernel").find("#define TILE 16") != std::string::npos);
}

TEST_CASE("kernel_code: a kernel template, with float4 and a coarsening loop in an overloaded helper",
          "[static][kernel_code]") {
  const std::string src = R"(
__device__ inline float4 load4(const float* p) { return *reinterpret_cast<const float4*>(p); }
__device__ inline float load4(const float* p, int) { return p[0]; }
template <int TM, int TN>
__global__ void __launch_bounds__(256) register2dKernel(const float* A, float* C, int n) {
  float acc[TM][TN] = {};
#pragma unroll
  for (int i = 0; i < TM; ++i) {
    const float4 a = load4(A + 4 * i);
    acc[i][0] += a.x;
  }
  if (n > 0) { C[0] = acc[0][0]; }
}
void launch(const float* A, float* C, int n) { register2dKernel<8, 8><<<1, 256>>>(A, C, n); }
)";
  const std::string code = kernel_code(src, "register2dKernel");
  CHECK(code_uses(code, "float4"));
  CHECK(code.find("reinterpret_cast<const float4*>") != std::string::npos);  // the helper's body
  CHECK(code.find("register2dKernel<8, 8>") == std::string::npos);           // not the host's launch
}

TEST_CASE("kernel_code: a helper that is never called does not count", "[static][kernel_code]") {
  const std::string src = R"(
__device__ float unused_tile(const float* A) {
  __shared__ float tile[32][32];
  tile[threadIdx.y][threadIdx.x] = A[0];
  __syncthreads();
  return tile[0][0];
}
__shared__ float never_used[32][32];
__device__ float plain(const float* A, int k) { return A[k]; }
__global__ void tiledKernel(const float* A, float* C, int K) {
  float acc = 0.0f;
  for (int k = 0; k < K; ++k) acc += plain(A, k);
  if (acc > 0.0f) { C[0] = acc; }
}
)";
  const std::string code = kernel_code(src, "tiledKernel");
  CHECK_FALSE(code.empty());
  CHECK(code.find("return A[k];") != std::string::npos);  // the helper it does call
  CHECK_FALSE(code_uses(code, "__shared__"));
}

TEST_CASE("kernel_code: __shared__ in a comment or a string does not count", "[static][kernel_code]") {
  const std::string src = R"(
// __device__ void helper() { __shared__ float t[16]; }
__device__ const char* note() { return "__shared__ float As[16][16];"; }
__global__ void tiledKernel(const float* A, float* C) {
  /* TODO: __shared__ float Mds[TILE_WIDTH][TILE_WIDTH]; */
  printf("%s\n", note());  // __shared__
  C[0] = A[0];
}
)";
  CHECK_FALSE(kernel_uses(src, "tiledKernel", "__shared__"));
}

TEST_CASE("kernel_code: calls inside statements are not taken for definitions", "[static][kernel_code]") {
  const std::string src = R"(
__device__ bool inside(int r, int c, int n) { return r < n && c < n; }
__global__ void tiledKernel(float* C, int n) {
  if (inside(threadIdx.y, threadIdx.x, n)) { C[0] = 1.0f; }
  while (inside(0, 0, n)) { break; }
}
__device__ void spare() { __shared__ float t[4]; t[0] = 0; }
)";
  const std::string code = kernel_code(src, "tiledKernel");
  CHECK(code.find("C[0] = 1.0f;") != std::string::npos);
  CHECK(code.find("return r < n && c < n;") != std::string::npos);
  CHECK_FALSE(code_uses(code, "__shared__"));
  CHECK(kernel_code(src, "missingKernel").empty());
}
