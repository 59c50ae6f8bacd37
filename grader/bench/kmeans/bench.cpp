// kmeans benchmark (grader/bench/kmeans/bench.cpp): one iteration of each reference version on
// 16.7M two-dimensional objects with K = 16 (the notes' {256,2,16,10}), beside the time it takes
// to read the objects once at the device's copy bandwidth, measured in the same run.
//
// Each version runs the whole program (10 iterations) a few times after a warm-up run; every
// run is checked against the CPU reference first. An iteration's time comes from the Timeline
// (timeline.h): its kernels, measured with CUDA events, and its transfers and host work.
//
//   kmeans-bench [-s MB] [-n COORDS] [-c CLUSTERS] [-b BLOCK] [--runs N] [--csv FILE]
#include "data.hpp"
#include "kmeans.h"
#include "reference.hpp"
#include "run_one.hpp"
#include "workbook/cuda_check.hpp"
#include "workbook/device_buffer.hpp"
#include "workbook/device_query.hpp"
#include "workbook/stream.hpp"
#include "workbook/timer.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
}

// The device's copy bandwidth, counting the bytes read and written, on a buffer the size of the
// objects: the median time of a device-to-device copy of them.
double copy_ms_of(const std::vector<double>& objects, cudaStream_t stream) {
  const std::size_t bytes = objects.size() * sizeof(double);
  workbook::DeviceBuffer<double> src(objects.size()), dst(objects.size());
  CUDA_CHECK(cudaMemsetAsync(src.data(), 0, bytes, stream));
  workbook::TimingOptions opt;
  opt.min_runs = 20;
  return workbook::time_gpu(
             stream,
             [&] { CUDA_CHECK(cudaMemcpyAsync(dst.data(), src.data(), bytes, cudaMemcpyDeviceToDevice, stream)); }, {},
             {}, opt)
      .ms.median;
}

// A version at a block size, as the table lists it.
struct Entry {
  std::string name;
  kmeans::Version run;
  int block;
};

// The medians over the timed runs of one version: the whole call, and per iteration (Timeline).
struct Medians {
  double program, iteration, kernels, h2d, d2h, host;
};

// Runs the version `runs` + 1 times (run 0 is the warm-up), each checked against the reference.
Medians time_version(const Entry& v, kmeans::Params p, int runs, const std::vector<double>& objects,
                     const kmeans_grading::Problem& problem, const kmeans_grading::Reference& ref,
                     cudaStream_t stream) {
  std::vector<int> membership(p.numObjs);
  std::vector<double> centroids(static_cast<std::size_t>(p.numClusters) * p.numCoords);
  std::vector<double> program, iteration, kernels, h2d, d2h, host;
  p.blockSize = v.block;
  for (int r = 0; r <= runs; ++r) {  // run 0 is the warm-up
    std::fill(membership.begin(), membership.end(), -7);
    std::fill(centroids.begin(), centroids.end(), -1.0);
    const auto run = kmeans_grading::run_one(v.run, objects.data(), p, membership.data(), centroids.data(), stream);
    const auto verdict =
        kmeans_grading::check_result(objects, problem, ref, membership.data(), centroids.data(), run.loops, v.name);
    if (!verdict.ok) throw std::runtime_error(v.name + " disagrees with the reference: " + verdict.detail);
    if (r == 0) continue;
    program.push_back(run.wall_ms);
    iteration.push_back(run.iteration_median([](const kmeans::Breakdown& b) { return b.sum_ms(); }));
    kernels.push_back(run.iteration_median([](const kmeans::Breakdown& b) { return b.kernels_ms; }));
    h2d.push_back(run.iteration_median([](const kmeans::Breakdown& b) { return b.h2d_ms; }));
    d2h.push_back(run.iteration_median([](const kmeans::Breakdown& b) { return b.d2h_ms; }));
    host.push_back(run.iteration_median([](const kmeans::Breakdown& b) { return b.host_ms; }));
  }
  return {median(program), median(iteration), median(kernels), median(h2d), median(d2h), median(host)};
}

}  // namespace

int main(int argc, char** argv) try {
  double size_mb = 256;
  int coords = 2, clusters = 16, block = 256, runs = 3, loops = 10;
  std::string csv;
  CLI::App app{
      "kmeans benchmark: one iteration of each reference version, checked against the CPU reference, "
      "beside the time to read the objects once"};
  app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);  // a repeated option: the last wins
  app.add_option("-s", size_mb, "Size of the objects in MiB: numObjs = MB * 2^20 / (COORDS * 8)")
      ->type_name("MB")
      ->capture_default_str();
  app.add_option("-n", coords, "Coordinates per object")->type_name("COORDS")->capture_default_str();
  app.add_option("-c", clusters, "Clusters")->type_name("CLUSTERS")->capture_default_str();
  app.add_option("-b", block, "Threads per block")->type_name("BLOCK")->capture_default_str();
  app.add_option("--runs", runs, "Timed runs of each version after the warm-up (the median is shown; at least 1)")
      ->capture_default_str();
  app.add_option("--csv", csv, "Also write the results to FILE, one line per version (for grader/plot.sh)")
      ->type_name("FILE");
  CLI11_PARSE(app, argc, argv);
  runs = std::max(1, runs);
  const int numObjs = kmeans_grading::objects_for_size(size_mb, coords);
  const auto device = workbook::query_device(0);
  fmt::print(
      "kmeans benchmark: one iteration on {} objects x {} coords ({} MiB of doubles), {} clusters, blocks of {}\n"
      "GPU: {} (sm_{}{}, {} SMs, {} MHz)\n\n",
      numObjs, coords, size_mb, clusters, block, device.name, device.cc_major, device.cc_minor, device.multiprocessors,
      device.sm_clock_khz / 1000);

  const auto objects = kmeans_grading::make_objects(numObjs, coords, 1);
  kmeans_grading::Problem problem;
  problem.numObjs = numObjs;
  problem.numCoords = coords;
  problem.numClusters = clusters;
  problem.maxLoops = loops;
  const auto ref = kmeans_grading::reference_kmeans(objects, problem);
  workbook::Stream stream;

  // Reading the objects once takes objects' bytes / the copy bandwidth.
  const std::size_t bytes = objects.size() * sizeof(double);
  const double copy_ms = copy_ms_of(objects, stream);
  const double copy_gbs = 2.0 * bytes / (copy_ms * 1e-3) / 1e9;
  const double read_ms = bytes / (copy_gbs * 1e9) * 1e3;
  fmt::print(
      "device-to-device copy of {:.0f} MiB: {:.3f} ms, {:.0f} GB/s (read + write)\n"
      "reading the objects once at that bandwidth: {:.4f} ms\n\n",
      bytes / 1048576.0, copy_ms, copy_gbs, read_ms);

  kmeans::Params p;
  p.numObjs = numObjs;
  p.numCoords = coords;
  p.numClusters = clusters;
  p.maxLoops = loops;
  p.blockSize = block;

  std::ofstream out;
  if (!csv.empty()) {
    out.open(csv);
    out << "version,objects,coords,clusters,block_size,program_ms,iteration_ms,kernels_ms,h2d_ms,d2h_ms,host_ms,"
           "read_ms,copy_gbs,kernels_over_read,gpu\n";
  }
  fmt::print("{:<22} {:>11} {:>13} {:>11} {:>9} {:>9} {:>9} {:>12}\n", "version", "program ms", "iteration ms",
             "kernels ms", "h2d ms", "d2h ms", "host ms", "kernels/read");
  double privatized_kernels = 0, global_kernels = 0, per_block_kernels = 0;
  // The five versions at the block size asked for, then all_gpu_privatized once more with blocks
  // of 512 threads: too many for a private copy per thread to fit in shared memory (with 16
  // clusters and 2 coordinates), so the reference falls back to one private copy per block,
  // the exercise's textbook kernel.
  std::vector<Entry> entries;
  for (const auto& v : kmeans::kVersions) entries.push_back({v.name, v.run, block});
  entries.push_back({"all_gpu_privatized per-block b512", kmeans::all_gpu_privatized, 512});
  for (const auto& v : entries) {
    const Medians m = time_version(v, p, runs, objects, problem, ref, stream);
    const double k = m.kernels;
    if (v.name == "all_gpu_privatized") privatized_kernels = k;
    if (v.name == "all_gpu") global_kernels = k;
    if (v.name == "all_gpu_privatized per-block b512") per_block_kernels = k;
    fmt::print("{:<22} {:>11.2f} {:>13.3f} {:>11.3f} {:>9.3f} {:>9.3f} {:>9.3f} {:>11.2f}x\n", v.name, m.program,
               m.iteration, k, m.h2d, m.d2h, m.host, k / read_ms);
    if (out)
      out << fmt::format("{},{},{},{},{},{:.4f},{:.4f},{:.4f},{:.4f},{:.4f},{:.4f},{:.5f},{:.1f},{:.3f},\"{}\"\n",
                         v.name, numObjs, coords, clusters, v.block, m.program, m.iteration, k, m.h2d, m.d2h, m.host,
                         read_ms, copy_gbs, k / read_ms, device.name);
  }
  fmt::print(
      "\nprogram: the whole call (10 iterations, transfers and allocation included), median of {} runs.\n"
      "iteration, kernels, h2d, d2h, host: the median iteration of each run (Timeline), median over runs.\n\n",
      runs);
  fmt::print(
      "all_gpu_privatized: {:.4f} ms of kernels per iteration = {:.2f}x the time to read the objects once "
      "({:.4f} ms): {}\n",
      privatized_kernels, privatized_kernels / read_ms, read_ms,
      privatized_kernels <= 2 * read_ms ? "within 2x" : "NOT within 2x");
  fmt::print("all_gpu (global atomics): {:.4f} ms, {:.1f}x slower than all_gpu_privatized\n", global_kernels,
             global_kernels / privatized_kernels);
  fmt::print("all_gpu_privatized with one private copy per block (blocks of 512): {:.4f} ms, {:.1f}x the read time\n",
             per_block_kernels, per_block_kernels / read_ms);
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "kmeans-bench: %s\n", e.what());
  return 1;
}
