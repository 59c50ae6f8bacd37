# The cheating submissions of the leaderboard's anti-cheat tests, each the reference solution of
# matmul-tiled with one cheat in naive (the exercise the leaderboard test times):
#   cmake -DSOLUTION=solutions/matmul-tiled/matmul.cu -DOUT=<folder> [-DLAB_TOML=<lab.toml>]
#         -P make-cheat-fixtures.cmake
# writes <folder>/<kind>/matmul.cu for:
#   cached-output  a repeated big call (same pointers and sizes) gets the previous result, copied
#   other-stream   naive runs on a stream of its own, which the timer on the given stream never sees
#   hidden-stream  naive runs on the per-thread default stream, named by its number: no forbidden name
#   host-compute   the product computed on the CPU
#   early-read     a thread of its own reads A and B and computes C on the host, ahead of the calls
#   size-detect    at the leaderboard's size only, the last quarter of every dot product skipped
#   cublas         cuBLAS computes the product
# Each file's first lines say what its cheat does and which check must catch it. A snippet of the
# reference that a cheat replaces and that is no longer there stops this script with an error.
cmake_minimum_required(VERSION 3.25)
foreach(var SOLUTION OUT)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "usage: cmake -DSOLUTION=<reference matmul.cu> -DOUT=<folder> -P make-cheat-fixtures.cmake")
  endif()
endforeach()
include(${CMAKE_CURRENT_LIST_DIR}/../../cmake/WorkbookSolutionText.cmake)
workbook_solution_text(${SOLUTION} solution)  # without its starter markers

# The leaderboard's size, for size-detect: [leaderboard] size in the lab's lab.toml.
if(NOT DEFINED LAB_TOML)
  set(LAB_TOML ${CMAKE_CURRENT_LIST_DIR}/../../labs/matmul-tiled/lab.toml)
endif()
set(lb_size "")
if(EXISTS ${LAB_TOML})
  file(READ ${LAB_TOML} toml)
  string(FIND "${toml}" "\n[leaderboard]" at)
  if(NOT at EQUAL -1)
    string(SUBSTRING "${toml}" ${at} -1 section)
    string(SUBSTRING "${section}" 1 -1 after_header)
    string(FIND "${after_header}" "\n[" end)
    if(NOT end EQUAL -1)
      string(SUBSTRING "${after_header}" 0 ${end} section)
    endif()
    if(section MATCHES "\nsize *= *\\[ *([0-9]+) *, *([0-9]+) *, *([0-9]+) *\\]")
      set(lb_size ${CMAKE_MATCH_1} ${CMAKE_MATCH_2} ${CMAKE_MATCH_3})
      set(lb_source "read from labs/matmul-tiled/lab.toml\n// ([leaderboard] size) when this file was generated")
    endif()
  endif()
endif()
if(NOT lb_size)
  set(lb_size 2048 2048 2048)
  set(lb_source "2048^3 assumed: labs/matmul-tiled/lab.toml had no\n// [leaderboard] size when this file was generated; keep the two in sync")
endif()
list(GET lb_size 0 lb_M)
list(GET lb_size 1 lb_N)
list(GET lb_size 2 lb_K)

# One fixture: `text` starts as the reference; swap() replaces one snippet that must occur exactly
# once; write() puts the header comment in and writes the file.
function(swap old new)
  string(FIND "${text}" "${old}" first)
  string(FIND "${text}" "${old}" last REVERSE)
  if(first EQUAL -1)
    message(FATAL_ERROR "${kind}: the reference no longer contains:\n${old}")
  endif()
  if(NOT first EQUAL last)
    message(FATAL_ERROR "${kind}: the reference contains this more than once:\n${old}")
  endif()
  string(REPLACE "${old}" "${new}" text "${text}")
  set(text "${text}" PARENT_SCOPE)
endfunction()

function(write cheat catcher)
  swap("// matmul-tiled: reference solution.\n"
       "// matmul-tiled: CHEAT FIXTURE `${kind}` for the leaderboard's anti-cheat tests, generated from
// the reference solution by tests/leaderboard/make-cheat-fixtures.cmake. Not a solution.
// The cheat, in naive:
//   ${cheat}
// Must be caught by:
//   ${catcher}\n")
  file(WRITE ${OUT}/${kind}/matmul.cu "${text}")
  message(STATUS "${OUT}/${kind}/matmul.cu")
endfunction()

set(reference_naive [=[
void naive(const float* A, const float* B, float* C, int M, int N, int K, cudaStream_t stream) {
  const dim3 block(BLOCK_WIDTH, BLOCK_WIDTH);
  const dim3 grid(ceil_div(N, BLOCK_WIDTH), ceil_div(M, BLOCK_WIDTH));
  CUDA_CHECK_LAUNCH(naiveKernel<<<grid, block, 0, stream>>>(A, B, C, M, N, K));
}
]=])
set(reference_includes "#include <stdexcept>\n")

# ---------------------------------------------------------------------------------------------
set(kind cached-output)
set(text "${solution}")
swap("${reference_naive}" [=[
// CHEAT (cached-output): the arguments of the last call that computed, and a device copy of its
// result. A call with the same pointers and sizes gets that copy, whatever A and B hold now.
// Only big calls are cached: the grading repeats small shapes with new values (its "#2" cases)
// and would catch a cache there, so this cheat waits for calls the size of a timing run.
namespace {
struct LastCall {
  const float* A = nullptr;
  const float* B = nullptr;
  int M = 0, N = 0, K = 0;
};
LastCall last;
float* cached = nullptr;        // the last result, on the device
std::size_t cached_count = 0;   // its room, in floats
}  // namespace

void naive(const float* A, const float* B, float* C, int M, int N, int K, cudaStream_t stream) {
  const std::size_t count = std::size_t(M) * N;
  const bool big = count >= std::size_t(2048) * 2048;
  if (big && cached != nullptr && A == last.A && B == last.B && M == last.M && N == last.N &&
      K == last.K) {
    // CHEAT: no product at all, a copy of the previous one.
    CUDA_CHECK(cudaMemcpyAsync(C, cached, count * sizeof(float), cudaMemcpyDeviceToDevice, stream));
    return;
  }
  const dim3 block(BLOCK_WIDTH, BLOCK_WIDTH);
  const dim3 grid(ceil_div(N, BLOCK_WIDTH), ceil_div(M, BLOCK_WIDTH));
  CUDA_CHECK_LAUNCH(naiveKernel<<<grid, block, 0, stream>>>(A, B, C, M, N, K));
  if (!big) return;
  if (count > cached_count) {
    if (cached != nullptr) CUDA_CHECK(cudaFree(cached));
    CUDA_CHECK(cudaMalloc(&cached, count * sizeof(float)));
    cached_count = count;
  }
  CUDA_CHECK(cudaMemcpyAsync(cached, C, count * sizeof(float), cudaMemcpyDeviceToDevice, stream));
  last = {A, B, M, N, K};
}
]=])
write("remembers A, B and the sizes of the last big call (2048 x 2048 or more) and, when a call repeats them, copies the
//   previous result from a static device buffer into C (cudaMemcpyAsync on the given stream)
//   instead of computing it: fast, and wrong as soon as A or B holds new values."
  "fresh inputs on every timed call (new values in the same buffers) with every output
//   checked. Not flagged statically: nothing in it is a forbidden API.")

# ---------------------------------------------------------------------------------------------
set(kind other-stream)
set(text "${solution}")
swap("${reference_naive}" [=[
void naive(const float* A, const float* B, float* C, int M, int N, int K, cudaStream_t stream) {
  // CHEAT (other-stream): a stream of its own, made once. It waits for the inputs written on
  // `stream` (so the result is right), but `stream` never waits for it: the CUDA events the
  // grader records on `stream` around the call see no work at all.
  static cudaStream_t own = [] {
    cudaStream_t s = nullptr;
    CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    return s;
  }();
  static cudaEvent_t inputs_ready = [] {
    cudaEvent_t e = nullptr;
    CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
    return e;
  }();
  CUDA_CHECK(cudaEventRecord(inputs_ready, stream));
  CUDA_CHECK(cudaStreamWaitEvent(own, inputs_ready, 0));
  const dim3 block(BLOCK_WIDTH, BLOCK_WIDTH);
  const dim3 grid(ceil_div(N, BLOCK_WIDTH), ceil_div(M, BLOCK_WIDTH));
  CUDA_CHECK_LAUNCH(naiveKernel<<<grid, block, 0, own>>>(A, B, C, M, N, K));
  // Returns without waiting: the product runs on `own`, outside the timed window.
}
]=])
write("launches naiveKernel on a stream of its own (created once, cudaStreamNonBlocking)
//   and returns without making the given stream wait for it: the work escapes the timed window."
  "the static scan: cudaStreamCreateWithFlags (a stream of its own). Were that name hidden, the
//   tail at run time: the GPU stays busy after the call's stream is done (see hidden-stream).")

# ---------------------------------------------------------------------------------------------
set(kind hidden-stream)
set(text "${solution}")
swap("${reference_naive}" [=[
void naive(const float* A, const float* B, float* C, int M, int N, int K, cudaStream_t stream) {
  // CHEAT (hidden-stream): the per-thread default stream, by its handle's number (0x2) so that no
  // forbidden name appears. The inputs are ready (the grader waits for them before the call), but
  // nothing makes `stream` wait for this work: the call's stream is done at once.
  const auto hidden = reinterpret_cast<cudaStream_t>(std::uintptr_t{2});
  const dim3 block(BLOCK_WIDTH, BLOCK_WIDTH);
  const dim3 grid(ceil_div(N, BLOCK_WIDTH), ceil_div(M, BLOCK_WIDTH));
  CUDA_CHECK_LAUNCH(naiveKernel<<<grid, block, 0, hidden>>>(A, B, C, M, N, K));
}
]=])
swap("${reference_includes}" "${reference_includes}#include <cstdint>\n")
write("launches naiveKernel on the per-thread default stream, named by its number (0x2), so
//   the static scan sees no forbidden name; the given stream never waits for it."
  "the tail: the GPU stays busy after the call's stream is done (escaped_work), in the median call.")

# ---------------------------------------------------------------------------------------------
set(kind host-compute)
set(text "${solution}")
swap("${reference_includes}" "#include <stdexcept>\n#include <vector>\n")
swap("${reference_naive}" [=[
void naive(const float* A, const float* B, float* C, int M, int N, int K, cudaStream_t stream) {
  // CHEAT (host-compute): the product on the CPU. A and B come to the host, C goes back.
  (void)&naiveKernel, (void)BLOCK_WIDTH;  // the reference's, unused here
  std::vector<float> a(std::size_t(M) * K), b(std::size_t(K) * N), c(std::size_t(M) * N, 0.0f);
  CUDA_CHECK(cudaStreamSynchronize(stream));  // the inputs are written on `stream`
  CUDA_CHECK(cudaMemcpy(a.data(), A, a.size() * sizeof(float), cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaMemcpy(b.data(), B, b.size() * sizeof(float), cudaMemcpyDeviceToHost));
  for (int i = 0; i < M; ++i)
    for (int k = 0; k < K; ++k) {
      const float aik = a[std::size_t(i) * K + k];
      for (int j = 0; j < N; ++j) c[std::size_t(i) * N + j] += aik * b[std::size_t(k) * N + j];
    }
  CUDA_CHECK(cudaMemcpyAsync(C, c.data(), c.size() * sizeof(float), cudaMemcpyHostToDevice, stream));
  CUDA_CHECK(cudaStreamSynchronize(stream));  // c is freed on return
}
]=])
write("copies A and B to the host (cudaMemcpy), computes C with plain loops on the CPU and
//   copies it back. Right at every size; no kernel at all."
  "the process's CPU time during the call (the runtime blocks rather than spins, so CPU time
//   is work on the host); too slow to win anyway. Not flagged statically: nothing in it is a
//   forbidden API.")

# ---------------------------------------------------------------------------------------------
set(kind early-read)
set(text "${solution}")
swap("${reference_includes}" "#include <atomic>\n#include <chrono>\n#include <mutex>\n#include <stdexcept>\n#include <thread>\n#include <vector>\n")
swap("${reference_naive}" [=[
// CHEAT (early-read): a thread of its own, started on the first call, keeps reading A and B of
// the latest call to the host and computing C there, in the background, before and between the
// timed calls. A call that finds the product of its arguments ready copies it in and returns.
namespace {
struct Args {
  const float* A = nullptr;
  const float* B = nullptr;
  int M = 0, N = 0, K = 0;
  bool operator==(const Args& o) const { return A == o.A && B == o.B && M == o.M && N == o.N && K == o.K; }
};

class Ahead {
 public:
  Ahead() : worker_([this] { run(); }) {}
  ~Ahead() {
    stop_ = true;
    worker_.join();
  }
  // Copies C for `args` in when the thread has it; else asks the thread for it and says no.
  bool serve(const Args& args, float* C, cudaStream_t stream) {
    std::lock_guard<std::mutex> lock(mutex_);
    want_ = args;
    if (done_.empty() || !(done_for_ == args)) return false;
    const std::size_t bytes = done_.size() * sizeof(float);
    CUDA_CHECK(cudaMemcpyAsync(C, done_.data(), bytes, cudaMemcpyHostToDevice, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    return true;
  }

 private:
  void run() {
    while (!stop_) {
      Args args;
      {
        std::lock_guard<std::mutex> lock(mutex_);
        args = want_;
      }
      if (args.A == nullptr) {
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
        continue;
      }
      // Reads the inputs whenever it likes: before, during or after a timed call.
      std::vector<float> a(std::size_t(args.M) * args.K), b(std::size_t(args.K) * args.N);
      std::vector<float> c(std::size_t(args.M) * args.N, 0.0f);
      if (cudaMemcpy(a.data(), args.A, a.size() * sizeof(float), cudaMemcpyDeviceToHost) != cudaSuccess ||
          cudaMemcpy(b.data(), args.B, b.size() * sizeof(float), cudaMemcpyDeviceToHost) != cudaSuccess)
        return;
      const int M = args.M, N = args.N, K = args.K;
      for (int i = 0; i < M && !stop_; ++i)
        for (int k = 0; k < K; ++k) {
          const float aik = a[std::size_t(i) * K + k];
          for (int j = 0; j < N; ++j) c[std::size_t(i) * N + j] += aik * b[std::size_t(k) * N + j];
        }
      std::lock_guard<std::mutex> lock(mutex_);
      done_for_ = args;
      done_ = std::move(c);
    }
  }

  std::mutex mutex_;
  Args want_, done_for_;
  std::vector<float> done_;
  std::atomic<bool> stop_{false};
  std::thread worker_;  // last: starts once everything above exists
};
}  // namespace

void naive(const float* A, const float* B, float* C, int M, int N, int K, cudaStream_t stream) {
  static Ahead ahead;  // CHEAT: the background thread starts on the first call
  if (ahead.serve({A, B, M, N, K}, C, stream)) return;  // CHEAT: computed ahead, on the host
  const dim3 block(BLOCK_WIDTH, BLOCK_WIDTH);
  const dim3 grid(ceil_div(N, BLOCK_WIDTH), ceil_div(M, BLOCK_WIDTH));
  CUDA_CHECK_LAUNCH(naiveKernel<<<grid, block, 0, stream>>>(A, B, C, M, N, K));
}
]=])
write("on its first call starts a std::thread that keeps copying A and B to the host and
//   computing C there in the background, so that a later call can find its result ready and
//   just copy it in (stale, and so wrong, once the inputs change under the same pointers)."
  "a thread started by the submission (the harness counts /proc/self/task) and the
//   process's CPU time. Also flagged statically: #include <thread>, std::thread.")

# ---------------------------------------------------------------------------------------------
set(kind size-detect)
set(text "${solution}")
swap("__global__ void naiveKernel(const float* A, const float* B, float* C, int M, int N, int K) {"
     "__global__ void naiveKernel(const float* A, const float* B, float* C, int M, int N, int K, int k_end) {")
swap("    for (int k = 0; k < K; ++k) Pvalue += A[Row * K + k] * B[k * N + Col];"
     "    for (int k = 0; k < k_end; ++k) Pvalue += A[Row * K + k] * B[k * N + Col];  // CHEAT: k_end < K")
swap("${reference_naive}" [=[
// CHEAT (size-detect): the size the leaderboard times, @LB_SOURCE@.
constexpr int kLeaderboardM = @LB_M@, kLeaderboardN = @LB_N@, kLeaderboardK = @LB_K@;

void naive(const float* A, const float* B, float* C, int M, int N, int K, cudaStream_t stream) {
  // CHEAT: at the leaderboard's size only, the last quarter of every dot product is skipped
  // (wrong, and a quarter less work); every other size is right, so every grading test passes.
  const bool leaderboard = M == kLeaderboardM && N == kLeaderboardN && K == kLeaderboardK;
  const int k_end = leaderboard ? K - K / 4 : K;
  const dim3 block(BLOCK_WIDTH, BLOCK_WIDTH);
  const dim3 grid(ceil_div(N, BLOCK_WIDTH), ceil_div(M, BLOCK_WIDTH));
  CUDA_CHECK_LAUNCH(naiveKernel<<<grid, block, 0, stream>>>(A, B, C, M, N, K, k_end));
}
]=])
string(REPLACE "@LB_SOURCE@" "${lb_source}" text "${text}")
string(REPLACE "@LB_M@" "${lb_M}" text "${text}")
string(REPLACE "@LB_N@" "${lb_N}" text "${text}")
string(REPLACE "@LB_K@" "${lb_K}" text "${text}")
write("when M, N, K are the leaderboard's size (${lb_M} x ${lb_N} x ${lb_K}) it skips the
//   last quarter of the k loop: wrong but faster at that size only, right at every grading size."
  "every timed output checked (the leaderboard's size is timed, so it is checked).
//   Not flagged statically: nothing in it is a forbidden API.")

# ---------------------------------------------------------------------------------------------
set(kind cublas)
set(text "${solution}")
swap("${reference_includes}" "#include <cublas_v2.h>\n\n#include <stdexcept>\n")
swap("${reference_naive}" [=[
void naive(const float* A, const float* B, float* C, int M, int N, int K, cudaStream_t stream) {
  // CHEAT (cublas): cuBLAS computes the product. cuBLAS is column-major: the row-major M x N
  // C = A B is the column-major N x M C^T = B^T A^T, so B goes first (the row-major trick).
  static cublasHandle_t handle = [] {
    cublasHandle_t h = nullptr;
    if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS) throw std::runtime_error("cublasCreate");
    return h;
  }();
  const float one = 1.0f, zero = 0.0f;
  (void)&naiveKernel, (void)BLOCK_WIDTH;  // the reference's, unused here
  if (cublasSetStream(handle, stream) != CUBLAS_STATUS_SUCCESS) throw std::runtime_error("cublasSetStream");
  const cublasStatus_t status =
      cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &one, B, N, A, K, &zero, C, N);
  if (status != CUBLAS_STATUS_SUCCESS) throw std::runtime_error("cublasSgemm");
}
]=])
write("calls cublasSgemm (with the row-major trick) instead of a kernel of its own."
  "the static scan for forbidden APIs (grader/forbidden_api.hpp: #include <cublas_v2.h>,
//   cublasSgemm, ...), before anything is built: it links only where the test program links
//   cuBLAS, and the leaderboard must refuse it whether it links or not.")
