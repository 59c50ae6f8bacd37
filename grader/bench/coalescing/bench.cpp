// coalescing benchmark (grader/bench/coalescing/bench.cpp): every reference kernel's achieved
// bandwidth as a share of the device-to-device copy bandwidth measured in the same run.
//
//   coalescing-bench [n] [--csv FILE]
//   coalescing-bench [n] --profile      one untimed call of each kernel, for Nsight Compute
//
// Three sections, each printed as a table and written to the CSV (column `section`):
//   n      n x n (default 4096): the copy, the four add mappings and the transposes.
//   16K    16384 x 16384: the copy and the four add mappings, so that one thread per row (or per
//          column) means 16384 threads, as the handout measures (labs/coalescing/README.md).
// Rows marked "(variant)" are kernels of bench_kernels.cu: a reference kernel with one change.
// Kernel names hold no commas, so the CSV splits on every comma (grader/bench/coalescing/plot.gp).
//   sweep  one thread per row / per column with T threads, T = 2^10 .. 2^18, on matrices of
//          2^26 elements (T x 2^26/T for per-row, 2^26/T x T for per-column), each also with
//          its loads bypassing L1: when L1 hides the uncoalesced accesses, and when it cannot.
// Bytes = bytes read + bytes written (add: 3 x 4 x M x N; transpose and copy: 2 x 4 x M x N).
// The copy is cudaMemcpyAsync device to device, counted the same way. Every kernel's output is
// checked against the CPU before it is timed; timing is the grader's (warm-up, L2 flushed
// before every call, median of >= 10 calls).
#include "bench_kernels.hpp"
#include "coalescing.h"
#include "workbook/compare.hpp"
#include "workbook/cuda_check.hpp"
#include "workbook/device_buffer.hpp"
#include "workbook/device_query.hpp"
#include "workbook/random.hpp"
#include "workbook/stream.hpp"
#include "workbook/timer.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <cstddef>
#include <cstdio>
#include <fstream>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using workbook::DeviceBuffer;
using AddFn = void (*)(const float*, const float*, float*, int, int, cudaStream_t);
using TransposeFn = void (*)(const float*, float*, int, int, cudaStream_t);

// Inputs on the host and the device, and the expected sum, for `count` elements. An add is
// elementwise, so the expected C does not depend on the shape the same elements are viewed as.
struct Workspace {
  std::size_t count;
  std::vector<float> hA, hB;
  std::vector<double> sum;
  DeviceBuffer<float> A, B, C;
  explicit Workspace(std::size_t n)
      : count(n), hA(workbook::random_floats(n, 1)), hB(workbook::random_floats(n, 2)), sum(n), A(hA), B(hB), C(n) {
    for (std::size_t i = 0; i < n; ++i) sum[i] = double(hA[i]) + double(hB[i]);
  }
};

struct Row {
  std::string section, kernel;
  int M, N;
  double threads, bytes;
  workbook::Timing t;
};

class Bench {
public:
  Bench(const workbook::DeviceInfo& device, const std::string& csv) : device_(device) {
    options_.min_runs = 10;
    options_.budget_s = 1.0;
    if (!csv.empty()) {
      out_.open(csv);
      if (!out_) throw std::runtime_error("cannot write " + csv);
      out_ << "section,kernel,M,N,threads,median_ms,min_ms,cv,gbs,percent_of_copy,gpu\n";
    }
  }

  void section(const std::string& name, const std::string& title) {
    section_ = name;
    fmt::print("\n{}\n{:<40} {:>7} {:>7} {:>9} {:>10} {:>10} {:>6} {:>8} {:>8}\n", title, "kernel", "M", "N", "threads",
               "median ms", "min ms", "cv %", "GB/s", "% copy");
  }

  // The copy bandwidth every later row of the section is a share of.
  void copy(Workspace& w, int M, int N) {
    const std::size_t bytes = std::size_t(M) * N * sizeof(float);
    const auto t = workbook::time_gpu(
        stream_, [&] { CUDA_CHECK(cudaMemcpyAsync(w.C.data(), w.A.data(), bytes, cudaMemcpyDeviceToDevice, stream_)); },
        {}, {}, options_);
    copy_gbs_ = 2.0 * bytes / (t.ms.median * 1e-3) / 1e9;
    emit({section_, "copy (cudaMemcpyAsync D2D)", M, N, 0, 2.0 * bytes, t});
  }

  void add(Workspace& w, const std::string& name, int M, int N, double threads, const std::function<void()>& launch) {
    w.C.poison(stream_);
    launch();
    stream_.synchronize();
    const auto cmp = workbook::compare(w.C.download(), w.sum, M, N, {0, 1e-7});
    if (!cmp.ok()) throw std::runtime_error(name + fmt::format(" ({}x{}) is wrong: ", M, N) + cmp.describe("C"));
    emit({section_, name, M, N, threads, 3.0 * 4.0 * M * N, workbook::time_gpu(stream_, launch, {}, {}, options_)});
  }

  void transpose(Workspace& w, const std::string& name, int M, int N, const std::function<void()>& launch) {
    std::vector<double> expected(std::size_t(M) * N);
    for (int r = 0; r < M; ++r)
      for (int c = 0; c < N; ++c) expected[std::size_t(c) * M + r] = w.hA[std::size_t(r) * N + c];
    w.C.poison(stream_);
    launch();
    stream_.synchronize();
    const auto cmp = workbook::compare(w.C.download(), expected, N, M, workbook::Tolerance::exact());
    if (!cmp.ok()) throw std::runtime_error(name + " is wrong: " + cmp.describe("out"));
    emit({section_, name, M, N, M * double(N) / 4, 2.0 * 4.0 * M * N,
          workbook::time_gpu(stream_, launch, {}, {}, options_)});
  }

  cudaStream_t stream() const { return stream_; }

private:
  void emit(const Row& r) {
    const double gbs = r.bytes / (r.t.ms.median * 1e-3) / 1e9;
    const double pct = 100.0 * gbs / copy_gbs_;
    fmt::print("{:<40} {:>7} {:>7} {:>9} {:>10.4f} {:>10.4f} {:>6.2f} {:>8.0f} {:>7.1f}%\n", r.kernel, r.M, r.N,
               r.threads > 0 ? fmt::format("{:.0f}", r.threads) : "-", r.t.ms.median, r.t.ms.min, 100 * r.t.ms.cv, gbs,
               pct);
    std::fflush(stdout);
    if (out_)
      out_ << fmt::format("{},\"{}\",{},{},{:.0f},{:.5f},{:.5f},{:.4f},{:.1f},{:.2f},\"{}\"\n", r.section, r.kernel,
                          r.M, r.N, r.threads, r.t.ms.median, r.t.ms.min, r.t.ms.cv, gbs, pct, device_.name);
  }

  workbook::DeviceInfo device_;
  workbook::Stream stream_;
  workbook::TimingOptions options_;
  std::ofstream out_;
  std::string section_;
  double copy_gbs_ = 0;
};

void add_mappings(Bench& b, Workspace& w, int M, int N) {
  const cudaStream_t s = b.stream();
  const auto run = [&](AddFn f) { return [&w, f, M, N, s] { f(w.A.data(), w.B.data(), w.C.data(), M, N, s); }; };
  const double elements = double(M) * N;
  b.add(w, "add_x_cols", M, N, elements, run(coalescing::add_x_cols));
  b.add(w, "add_x_cols 4 per thread (variant)", M, N, elements / 4, run(coalescing_bench::add_x_cols_4_per_thread));
  if (N % 4 == 0) b.add(w, "add_x_cols float4 (variant)", M, N, elements / 4, run(coalescing_bench::add_x_cols_float4));
  b.add(w, "add_x_rows", M, N, elements, run(coalescing::add_x_rows));
  b.add(w, "add_per_row", M, N, M, run(coalescing::add_per_row));
  b.add(w, "add_per_row no L1 (variant)", M, N, M, run(coalescing_bench::add_per_row_no_l1));
  b.add(w, "add_per_column", M, N, N, run(coalescing::add_per_column));
  b.add(w, "add_per_column no L1 (variant)", M, N, N, run(coalescing_bench::add_per_column_no_l1));
}

// The sweep: T threads, one per row (T x L) or one per column (L x T), T * L = 2^26.
constexpr int kSweepLog2 = 26;

// One untimed call of each kernel, for a profiler:
//   ncu --csv --metrics $(grader/bench/coalescing/ncu_table.py --metrics) coalescing-bench --profile
// ncu_table.py names each launch's shape by its position: keep the order of the two in step.
void profile(int n) {
  workbook::Stream s;
  const AddFn adds[] = {coalescing::add_x_cols,
                        coalescing_bench::add_x_cols_4_per_thread,
                        coalescing_bench::add_x_cols_float4,
                        coalescing::add_x_rows,
                        coalescing::add_per_row,
                        coalescing_bench::add_per_row_no_l1,
                        coalescing::add_per_column,
                        coalescing_bench::add_per_column_no_l1};
  for (int m : {n, 16384}) {
    Workspace w(std::size_t(m) * m);
    for (AddFn f : adds) f(w.A.data(), w.B.data(), w.C.data(), m, m, s);
    if (m == n)
      for (TransposeFn f : {coalescing::transpose_naive, coalescing_bench::transpose_naive_strided_reads,
                            coalescing::transpose_tiled, coalescing::transpose_padded})
        f(w.A.data(), w.C.data(), m, m, s);
    s.synchronize();
  }
  Workspace w(std::size_t(1) << kSweepLog2);
  for (int t_log2 : {14, 18}) {
    const int T = 1 << t_log2, L = 1 << (kSweepLog2 - t_log2);
    coalescing::add_per_row(w.A.data(), w.B.data(), w.C.data(), T, L, s);
    coalescing_bench::add_per_row_no_l1(w.A.data(), w.B.data(), w.C.data(), T, L, s);
    coalescing::add_per_column(w.A.data(), w.B.data(), w.C.data(), L, T, s);
    coalescing_bench::add_per_column_no_l1(w.A.data(), w.B.data(), w.C.data(), L, T, s);
  }
  s.synchronize();
}

}  // namespace

int main(int argc, char** argv) try {
  int n = 4096;
  std::string csv;
  bool profile_only = false;
  CLI::App app{
      "coalescing benchmark: every reference kernel's bandwidth as a share of the device-to-device copy, "
      "each validated against the CPU, then timed"};
  app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);  // a repeated option: the last wins
  app.add_option("n", n, "Size of the first section's n x n matrices")->capture_default_str();
  app.add_option("--csv", csv, "Also write the results to FILE, one line per kernel (for grader/plot.sh)")
      ->type_name("FILE");
  app.add_flag("--profile", profile_only, "Only one untimed call of each kernel, for Nsight Compute (ncu_table.py)");
  CLI11_PARSE(app, argc, argv);
  if (profile_only) {
    profile(n);
    return 0;
  }
  const auto device = workbook::query_device(0);
  fmt::print(
      "coalescing benchmark: bandwidth as a share of the device-to-device copy, float32\n"
      "GPU: {} (sm_{}{}, {} SMs, {} MHz, L2 {} MiB, theoretical peak {:.0f} GB/s)\n",
      device.name, device.cc_major, device.cc_minor, device.multiprocessors, device.sm_clock_khz / 1000,
      device.l2_bytes >> 20, device.peak_bandwidth_gbs());
  Bench b(device, csv);
  const cudaStream_t s = b.stream();

  {  // n x n: every exercise, and the variants
    Workspace w(std::size_t(n) * n);
    b.section("n", fmt::format("n = {}: {} x {} matrices", n, n, n));
    b.copy(w, n, n);
    add_mappings(b, w, n, n);
    const auto run = [&](TransposeFn f) { return [&w, f, n, s] { f(w.A.data(), w.C.data(), n, n, s); }; };
    b.transpose(w, "transpose_naive", n, n, run(coalescing::transpose_naive));
    b.transpose(w, "transpose_naive strided reads (variant)", n, n,
                run(coalescing_bench::transpose_naive_strided_reads));
    b.transpose(w, "transpose_tiled", n, n, run(coalescing::transpose_tiled));
    b.transpose(w, "transpose_padded", n, n, run(coalescing::transpose_padded));
  }
  {  // 16K threads for one thread per row / per column
    const int m = 16384;
    Workspace w(std::size_t(m) * m);
    b.section("16K", fmt::format("{} x {}: one thread per row or per column is {} threads", m, m, m));
    b.copy(w, m, m);
    add_mappings(b, w, m, m);
  }
  {  // the sweep: T threads, 2^26 elements
    Workspace w(std::size_t(1) << kSweepLog2);
    b.section("sweep", "one thread per row / per column, T threads, 2^26 elements (256 MiB per matrix)");
    b.copy(w, 1 << (kSweepLog2 / 2), 1 << (kSweepLog2 / 2));
    for (int t_log2 = 10; t_log2 <= 18; ++t_log2) {
      const int T = 1 << t_log2, L = 1 << (kSweepLog2 - t_log2);
      const auto f = [&w, s](AddFn fn, int M, int N) {
        return [&w, s, fn, M, N] { fn(w.A.data(), w.B.data(), w.C.data(), M, N, s); };
      };
      b.add(w, "per_row", T, L, T, f(coalescing::add_per_row, T, L));
      b.add(w, "per_row no L1", T, L, T, f(coalescing_bench::add_per_row_no_l1, T, L));
      b.add(w, "per_column", L, T, T, f(coalescing::add_per_column, L, T));
      b.add(w, "per_column no L1", L, T, T, f(coalescing_bench::add_per_column_no_l1, L, T));
    }
  }
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "coalescing-bench: %s\n", e.what());
  return 1;
}
