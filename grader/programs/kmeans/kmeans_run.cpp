// kmeans-run: runs k-means versions on one configuration, with the course notes' options, and
// prints the time of every iteration and the bottleneck breakdown (host-to-device, kernels,
// device-to-host, host compute). Built twice: kmeans-run from your labs/kmeans/*.cu,
// kmeans-run-reference from the reference solution.
//
//   kmeans-run [-v VERSION] [-s MB] [-n COORDS] [-c CLUSTERS] [-l LOOPS] [-t THRESHOLD] [-b BLOCK]
//              [--check] [--seed N] [--repeat N] [--sweep] [--csv FILE [--append]]
//
//   -v  naive | transpose | shared | all_gpu | all_gpu_privatized | sequential | all (default all)
//   -s  size of the objects in MiB (default 256): numObjs = size * 2^20 / (coords * 8)
//   -n  coordinates per object (default 2)      -c  clusters (default 16)
//   -l  most iterations (default 10)            -t  threshold on delta (default 0.001)
//   -b  threads per block (default 256)
//   --check    compare every result with the CPU reference (as the grader does)
//   --repeat   runs of each version (default 1; the table shows the median)
//   --sweep    every GPU version at block sizes 32, 64, ..., 1024, and the sequential program
//   --csv      write one line per version and block size to FILE (for grader/plot.sh kmeans);
//              with --append, add them to the end of FILE (a sweep over several configurations)
#include "data.hpp"
#include "kmeans.h"
#include "reference.hpp"
#include "run_one.hpp"
#include "sequential.hpp"
#include "workbook/cuda_check.hpp"
#include "workbook/device_query.hpp"
#include "workbook/stream.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using kmeans_grading::Run;

struct Options {
  std::string version = "all";
  double size_mb = 256;
  int coords = 2, clusters = 16, loops = 10, block = 256;
  double threshold = 0.001;
  bool check = false, sweep = false, append = false;
  int repeat = 1;
  std::uint64_t seed = 1;
  std::string csv;
};

constexpr int kUsageError = 64;  // a bad command line (the grader's status for one too)

[[noreturn]] void usage(const char* why) {
  std::fprintf(stderr, "kmeans-run: %s\nRun with --help for more information.\n", why);
  std::exit(kUsageError);
}

// Validators of -s, -n, -c, -l and -b. CLI11 runs them on the text, before converting it to the
// option's type (which reports a value of the wrong type, e.g. -n 2.5, itself).
CLI::Validator positive() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        char* end = nullptr;
        const double v = std::strtod(text.c_str(), &end);
        if (text.empty() || *end != '\0' || !(v > 0)) return "must be positive, found '" + text + "'";
        return {};
      },
      "", "POSITIVE");
}

CLI::Validator block_size() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        char* end = nullptr;
        errno = 0;
        const long long v = std::strtoll(text.c_str(), &end, 10);
        if (text.empty() || *end != '\0' || errno != 0 || v < 32 || v > 1024 || v % 32)
          return "must be a multiple of 32 from 32 to 1024, found '" + text + "'";
        return {};
      },
      "", "BLOCK");
}

Options parse(int argc, char** argv) {
  Options o;
  CLI::App app{
      "kmeans-run: runs k-means versions on one configuration and prints where the time goes (h2d, "
      "kernels, d2h, host)"};
  app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);  // a repeated option: the last wins
  app.footer(
      "VERSION: naive transpose shared all_gpu all_gpu_privatized sequential all\n"
      "Exit status: 0 done, 1 a result was wrong (with --check) or the run failed, 64 usage error.");
  app.add_option("-v", o.version,
                 "Version to run: one of VERSION below, or all (every version and the sequential "
                 "program)")
      ->type_name("VERSION")
      ->capture_default_str();
  app.add_option("-s", o.size_mb, "Size of the objects in MiB: numObjs = MB * 2^20 / (COORDS * 8)")
      ->type_name("MB")
      ->capture_default_str()
      ->check(positive());
  app.add_option("-n", o.coords, "Coordinates per object")
      ->type_name("COORDS")
      ->capture_default_str()
      ->check(positive());
  app.add_option("-c", o.clusters, "Clusters")->type_name("CLUSTERS")->capture_default_str()->check(positive());
  app.add_option("-l", o.loops, "Most iterations")->type_name("LOOPS")->capture_default_str()->check(positive());
  app.add_option("-t", o.threshold,
                 "Threshold on delta, the share of objects that changed cluster in an iteration: "
                 "the loop stops once delta <= THRESHOLD")
      ->type_name("THRESHOLD")
      ->capture_default_str();
  app.add_option("-b", o.block, "Threads per block: a multiple of 32 from 32 to 1024")
      ->type_name("BLOCK")
      ->capture_default_str()
      ->check(block_size());
  app.add_flag("--check", o.check, "Compare every result with the CPU reference (as the grader does)");
  app.add_option("--seed", o.seed, "Seed of the random objects")->capture_default_str();
  app.add_option("--repeat", o.repeat, "Runs of each version (the table shows the median; at least 1)")
      ->capture_default_str();
  app.add_flag("--sweep", o.sweep, "Every GPU version at block sizes 32, 64, ..., 1024, and the sequential program");
  app.add_option("--csv", o.csv, "Write one line per version and block size to FILE (for grader/plot.sh kmeans)")
      ->type_name("FILE");
  app.add_flag("--append", o.append,
               "With --csv, add the lines to the end of FILE (a sweep over several configurations)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int status = app.exit(e);  // prints the help (status 0) or the error
    std::exit(status == 0 ? 0 : kUsageError);
  }
  o.repeat = std::max(1, o.repeat);
  return o;
}

struct Row {
  std::string version;
  int block = 0;
  Run run;  // the median run (by wall time)
  std::string verdict;
};

std::string config_name(const Options& o) {
  return fmt::format("{{{},{},{},{}}}", o.size_mb, o.coords, o.clusters, o.loops);
}

void print_iterations(const Row& row) {
  fmt::print("  {:>4} {:>10} {:>11} {:>10} {:>10} {:>10}\n", "iter", "h2d ms", "kernels ms", "d2h ms", "host ms",
             "total ms");
  int n = 0;
  for (const auto& b : row.run.iterations)
    fmt::print("  {:>4} {:>10.3f} {:>11.3f} {:>10.3f} {:>10.3f} {:>10.3f}\n", ++n, b.h2d_ms, b.kernels_ms, b.d2h_ms,
               b.host_ms, b.sum_ms());
  const auto& o = row.run.outside;
  fmt::print("  {:>4} {:>10.3f} {:>11.3f} {:>10.3f} {:>10.3f} {:>10.3f}   (outside the iterations: setup, results)\n",
             "-", o.h2d_ms, o.kernels_ms, o.d2h_ms, o.host_ms, o.sum_ms());
}

void print_breakdown_header() {
  fmt::print("{:<20} {:>6} {:>6} {:>10} {:>9} {:>11} {:>9} {:>9} {:>9} {:>11}  {}\n", "version", "block", "loops",
             "total ms", "h2d ms", "kernels ms", "d2h ms", "host ms", "other ms", "ms/iter", "check");
}
void print_breakdown(const Row& row) {
  const auto& t = row.run.total;
  fmt::print("{:<20} {:>6} {:>6} {:>10.2f} {:>9.2f} {:>11.3f} {:>9.2f} {:>9.2f} {:>9.2f} {:>11.3f}  {}\n", row.version,
             row.block ? std::to_string(row.block) : "-", row.run.loops, row.run.wall_ms, t.h2d_ms, t.kernels_ms,
             t.d2h_ms, t.host_ms, row.run.other_ms(),
             row.run.iteration_median([](const kmeans::Breakdown& b) { return b.sum_ms(); }), row.verdict);
}

// The table of every row; the sequential program's time (0 where it did not run).
double print_table(const std::vector<Row>& rows) {
  print_breakdown_header();
  double sequential_ms = 0;
  for (const Row& row : rows) {
    print_breakdown(row);
    if (row.block == 0) sequential_ms = row.run.wall_ms;
  }
  fmt::print(
      "\ntotal: the whole call, wall clock. h2d/kernels/d2h/host: the Timeline's parts, summed over the run.\n"
      "other: total minus the parts (allocation, frees, work outside the Timeline). ms/iter: median iteration.\n");
  return sequential_ms;
}

// --csv: one line per row (with --append, after the file's lines; the header only in a new file).
void write_csv(const Options& o, const std::vector<Row>& rows, double sequential_ms, const std::string& gpu) {
  const bool header = !o.append || !std::ifstream(o.csv).good();
  std::ofstream out(o.csv, o.append ? std::ios::app : std::ios::trunc);
  if (header)
    out << "version,size_mb,coords,clusters,max_loops,block_size,loops,total_ms,h2d_ms,kernels_ms,d2h_ms,host_ms,"
           "other_ms,iteration_ms,iteration_kernels_ms,speedup,gpu\n";
  for (const Row& row : rows) {
    const auto& t = row.run.total;
    out << fmt::format("{},{},{},{},{},{},{},{:.4f},{:.4f},{:.4f},{:.4f},{:.4f},{:.4f},{:.4f},{:.4f},{:.3f},\"{}\"\n",
                       row.version, o.size_mb, o.coords, o.clusters, o.loops, row.block, row.run.loops, row.run.wall_ms,
                       t.h2d_ms, t.kernels_ms, t.d2h_ms, t.host_ms, row.run.other_ms(),
                       row.run.iteration_median([](const kmeans::Breakdown& b) { return b.sum_ms(); }),
                       row.run.iteration_median([](const kmeans::Breakdown& b) { return b.kernels_ms; }),
                       sequential_ms > 0 ? sequential_ms / row.run.wall_ms : 0.0, gpu);
  }
  fmt::print("wrote {}\n", o.csv);
}

}  // namespace

int main(int argc, char** argv) try {
  const Options o = parse(argc, argv);
  const int numObjs = kmeans_grading::objects_for_size(o.size_mb, o.coords);
  if (numObjs < o.clusters) usage("fewer objects than clusters: raise -s or lower -c");
  const auto device = workbook::query_device(0);
  fmt::print("kmeans {}: {} objects x {} coords ({} MiB), {} clusters, at most {} loops, threshold {}\nGPU: {}\n\n",
             config_name(o), numObjs, o.coords, o.size_mb, o.clusters, o.loops, o.threshold, device.name);

  const auto objects = kmeans_grading::make_objects(numObjs, o.coords, o.seed);
  kmeans_grading::Problem problem;
  problem.numObjs = numObjs;
  problem.numCoords = o.coords;
  problem.numClusters = o.clusters;
  problem.threshold = o.threshold;
  problem.maxLoops = o.loops;
  std::optional<kmeans_grading::Reference> ref;
  if (o.check) ref = kmeans_grading::reference_kmeans(objects, problem);

  std::vector<int> membership(numObjs);
  std::vector<double> clusters(static_cast<std::size_t>(o.clusters) * o.coords);
  workbook::Stream stream;
  CUDA_CHECK(cudaFree(nullptr));  // create the CUDA context now, not inside the first timed run

  auto verdict = [&](const Run& run) -> std::string {
    if (!ref) return "";
    const auto v = kmeans_grading::check_result(objects, problem, *ref, membership.data(), clusters.data(), run.loops,
                                                "kmeans-run");
    return v.ok ? "ok" : "WRONG: " + v.detail;
  };

  // Each version's runs; the median run (by wall time) represents it.
  auto measure = [&](const kmeans::NamedVersion* v, int block) {
    Row row;
    row.version = v ? v->name : "sequential";
    row.block = v ? block : 0;
    std::vector<Run> runs;
    for (int r = 0; r < o.repeat; ++r) {
      std::fill(membership.begin(), membership.end(), static_cast<int>(0xABABABABu));
      std::fill(clusters.begin(), clusters.end(), -1.0);
      if (v) {
        kmeans::Params p;
        p.numObjs = numObjs;
        p.numCoords = o.coords;
        p.numClusters = o.clusters;
        p.threshold = o.threshold;
        p.maxLoops = o.loops;
        p.blockSize = block;
        runs.push_back(kmeans_grading::run_one(v->run, objects.data(), p, membership.data(), clusters.data(), stream));
      } else {
        Run run;
        const auto t0 = std::chrono::steady_clock::now();
        run.loops = kmeans_grading::sequential(objects.data(), numObjs, o.coords, o.clusters, o.threshold, o.loops,
                                               membership.data(), clusters.data());
        run.wall_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
        run.total.host_ms = run.wall_ms;
        runs.push_back(run);
      }
      const std::string check = verdict(runs.back());
      if (row.verdict.empty() || check != "ok") row.verdict = check;
    }
    std::sort(runs.begin(), runs.end(), [](const Run& a, const Run& b) { return a.wall_ms < b.wall_ms; });
    row.run = runs[runs.size() / 2];
    return row;
  };

  std::vector<const kmeans::NamedVersion*> versions;
  bool with_sequential = o.sweep || o.version == "sequential" || o.version == "all";
  for (const auto& v : kmeans::kVersions)
    if (o.sweep || o.version == "all" || o.version == v.name) versions.push_back(&v);
  if (versions.empty() && !with_sequential) usage(("unknown version " + o.version).c_str());
  if (o.version == "sequential" && !o.sweep) versions.clear();

  std::vector<int> blocks = {o.block};
  if (o.sweep) blocks = {32, 64, 128, 256, 512, 1024};

  std::vector<Row> rows;
  if (with_sequential) {
    fmt::print("sequential (one CPU thread) ...\n");
    rows.push_back(measure(nullptr, 0));
  }
  for (const auto* v : versions) {
    measure(v, blocks.front());  // warm-up: load the kernels, touch the memory; not recorded
    for (int block : blocks) {
      rows.push_back(measure(v, block));
      if (!o.sweep && versions.size() == 1) {
        fmt::print("{} (block {}), the median of {} run(s):\n", v->name, block, o.repeat);
        print_iterations(rows.back());
        fmt::print("\n");
      }
    }
  }

  const double sequential_ms = print_table(rows);
  if (!o.csv.empty()) write_csv(o, rows, sequential_ms, device.name);
  for (const Row& row : rows)
    if (row.verdict.rfind("WRONG", 0) == 0) return 1;
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "kmeans-run: %s\n", e.what());
  return 1;
}
