// grader check --sanitize and --profile (grader/src/inspect/): compute-sanitizer's records and
// Nsight Compute's table read back, and each problem said in plain words.
#include "inspect/expected_ranges.hpp"
#include "inspect/inspect.hpp"
#include "inspect/ncu_output.hpp"
#include "inspect/sanitizer_output.hpp"

#include "grader/catch.hpp"
#include "grader/files.hpp"
#include "grader/lab_config.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <toml++/toml.h>
#include <unistd.h>

using namespace grader::inspect;
namespace fs = std::filesystem;

namespace {

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// In the shapes compute-sanitizer prints (CUDA 12 and 13, a build with -lineinfo), with the
// program's own lines between its records.
const char* kMemcheck = R"(========= COMPUTE-SANITIZER
grading matmul-tiled with seed 12345
========= Invalid __global__ write of size 4 bytes
=========     at void tiledKernel<16>(const float *, const float *, float *, int, int, int)+0x4c0 in /home/student/workbook/labs/matmul-tiled/matmul.cu:62
=========     by thread (5,15,0) in block (3,0,0)
=========     Access at 0x7f3c4a1ffc14 is out of bounds
=========     and is 20 bytes after the nearest allocation at 0x7f3c4a000000 of size 4096 bytes
=========     Saved host backtrace up to driver entry point at kernel launch time
=========         Host Frame: cudaLaunchKernel [0x10431d] in inspect-matmul-tiled
=========
========= Invalid __global__ write of size 4 bytes
=========     at void tiledKernel<16>(const float *, const float *, float *, int, int, int)+0x4c0 in /home/student/workbook/labs/matmul-tiled/matmul.cu:62
=========     by thread (6,15,0) in block (3,0,0)
=========     Access at 0x7f3c4a1ffc18 is out of bounds
=========     and is 24 bytes after the nearest allocation at 0x7f3c4a000000 of size 4096 bytes
=========
========= Program hit cudaErrorLaunchFailure (error 719) due to "unspecified launch failure" on CUDA API call to cudaStreamSynchronize.
=========
FAILED: tile 16: 17x17x17 ints
========= ERROR SUMMARY: 3 errors
)";

// racecheck's analysis report: one record per pair of places, with the hazards counted.
const char* kRacecheck = R"(========= COMPUTE-SANITIZER
========= Error: Race reported between Write access at void tiledKernel<16>(const float *, const float *, float *, int, int, int)+0x1f0 in /w/labs/matmul-tiled/matmul.cu:14
=========     and Read access at void tiledKernel<16>(const float *, const float *, float *, int, int, int)+0x2a0 in /w/labs/matmul-tiled/matmul.cu:16 [6144 hazards]
=========     and Read access at void tiledKernel<16>(const float *, const float *, float *, int, int, int)+0x2b0 in /w/labs/matmul-tiled/matmul.cu:16 [2048 hazards]
=========
========= RACECHECK SUMMARY: 1 hazard displayed (1 error, 0 warnings)
)";

}  // namespace

TEST_CASE("memcheck: an out-of-bounds write at its line, merged over threads, with its API error", "[inspect]") {
  const auto out = parse_sanitizer_output("memcheck", kMemcheck);
  REQUIRE(out.hazards.size() == 2);
  const Hazard& h = out.hazards[0];
  CHECK(h.heading == "Invalid __global__ write of size 4 bytes");
  REQUIRE(h.places.size() == 1);
  CHECK(h.places[0].line == 62);
  CHECK(where(h.places[0]) == "matmul.cu:62");
  CHECK(has(h.places[0].function, "tiledKernel<16>"));
  CHECK(h.thread == "(5,15,0)");
  CHECK(h.block == "(3,0,0)");
  CHECK(has(h.address, "20 bytes after the nearest allocation"));
  for (const auto& line : h.lines) CHECK_FALSE(has(line, "Host Frame"));  // backtraces are the grader's
  REQUIRE(out.api_errors.size() == 1);
  CHECK(has(out.api_errors[0], "cudaErrorLaunchFailure"));
  CHECK(out.error_summary == 3);

  const auto merged = distinct(out.hazards);
  REQUIRE(merged.size() == 1);  // the same write by two threads
  CHECK(merged[0].count == 2);
  const std::string why = explain(merged[0]);
  CHECK(has(why, "writes past the end of an array"));
  CHECK(has(why, "Row < M && Col < N"));
}

TEST_CASE("racecheck: the two lines of a race, its hazards counted, a missing barrier named", "[inspect]") {
  const auto out = parse_sanitizer_output("racecheck", kRacecheck);
  REQUIRE(out.hazards.size() == 1);
  const Hazard& h = out.hazards[0];
  CHECK(h.severity == "error");
  REQUIRE(h.places.size() == 2);  // the two reads at line 16 (two instructions) are one place
  CHECK(h.places[0].access == "Write");
  CHECK(h.places[0].line == 14);
  CHECK(h.places[1].access == "Read");
  CHECK(h.places[1].line == 16);
  CHECK(h.count == 8192);
  const std::string why = explain(h);
  CHECK(has(why, "matmul.cu:14 (Write) and matmul.cu:16 (Read)"));
  CHECK(has(why, "__syncthreads()"));
  CHECK(out.notes.size() == 1);                                                          // the summary, not a hazard
  CHECK(title(h) == "shared-memory race: Write at matmul.cu:14, Read at matmul.cu:16");  // each place once
}

TEST_CASE("racecheck: one race at the same lines is one problem, whatever the order and the instance", "[inspect]") {
  // As the H100's racecheck printed a transpose without its barrier: the same two lines in
  // several records, their sides in either order, and (matmul) in each TILE_WIDTH's instance.
  const std::string text =
      std::string(kRacecheck) +
      "========= Error: Race reported between Read access at void tiledKernel<32>(const float *, const float *, "
      "float *, int, int, int)+0x3c0 in /w/labs/matmul-tiled/matmul.cu:16\n"
      "=========     and Write access at void tiledKernel<32>(const float *, const float *, float *, int, int, "
      "int)+0x200 in /w/labs/matmul-tiled/matmul.cu:14 [100 hazards]\n"
      "=========\n"
      "========= Error: Race reported between Write access at void tiledKernel<16>(const float *, const float *, "
      "float *, int, int, int)+0x1e0 in /w/labs/matmul-tiled/matmul.cu:13\n"
      "=========     and Read access at void tiledKernel<16>(const float *, const float *, float *, int, int, "
      "int)+0x2a0 in /w/labs/matmul-tiled/matmul.cu:16 [7 hazards]\n"
      "=========\n";
  const auto out = parse_sanitizer_output("racecheck", text);
  REQUIRE(out.hazards.size() == 3);
  const auto merged = distinct(out.hazards);
  REQUIRE(merged.size() == 2);  // lines 14 and 16, then lines 13 and 16
  CHECK(merged[0].count == 8192 + 100);
  CHECK(title(merged[0]) == "shared-memory race: Write at matmul.cu:14, Read at matmul.cu:16");
  CHECK(merged[1].count == 7);
  CHECK(title(merged[1]) == "shared-memory race: Write at matmul.cu:13, Read at matmul.cu:16");
}

TEST_CASE("racecheck: two threads writing one element at one line", "[inspect]") {
  // Both sides are the same line: one place, and the explanation still says what it is.
  const auto out = parse_sanitizer_output(
      "racecheck",
      "========= Error: Race reported between Write access at void k(float *)+0x100 in /w/labs/x/x.cu:9\n"
      "=========     and Write access at void k(float *)+0x100 in /w/labs/x/x.cu:9 [64 hazards]\n");
  REQUIRE(out.hazards.size() == 1);
  REQUIRE(out.hazards[0].places.size() == 1);
  CHECK(title(out.hazards[0]) == "shared-memory race: Write at x.cu:9");
  CHECK(has(explain(out.hazards[0]), "Two threads write the same shared-memory element at x.cu:9"));
}

TEST_CASE("sanitizer records in the older and the line-less shapes", "[inspect]") {
  // CUDA 11's (and -G's) "at 0x<pc> in <file>:<line>:<function>"; a warning.
  const auto old = parse_sanitizer_output(
      "racecheck",
      "========= Warning: Race reported between Read access at 0x1f20 in /w/labs/coalescing/coalescing.cu:58:"
      "transposeTiledKernel(const float *, float *, int, int)\n"
      "=========     and Write access at 0x14b0 in /w/labs/coalescing/coalescing.cu:55:transposeTiledKernel(const "
      "float *, float *, int, int) [4 hazards]\n");
  REQUIRE(old.hazards.size() == 1);
  CHECK(old.hazards[0].severity == "warning");
  REQUIRE(old.hazards[0].places.size() == 2);
  CHECK(where(old.hazards[0].places[0]) == "coalescing.cu:58");
  CHECK(old.hazards[0].places[1].access == "Write");
  CHECK(old.hazards[0].count == 4);
  // Without -lineinfo: the function only, and the report says how to get lines.
  const auto bare = parse_sanitizer_output("memcheck",
                                           "========= Invalid __global__ read of size 8 bytes\n"
                                           "=========     at compress(const unsigned int *, uint2 *, int)+0x4bd0\n"
                                           "=========     by thread (16,0,0) in block (0,0,0)\n"
                                           "=========     Access at 0x0 is out of bounds\n"
                                           "=========     and is 140229602181120 bytes before the nearest allocation "
                                           "at 0x7f89bfa00000 of size 1020 bytes\n");
  REQUIRE(bare.hazards.size() == 1);
  REQUIRE(bare.hazards[0].places.size() == 1);
  CHECK(bare.hazards[0].places[0].file.empty());
  CHECK(where(bare.hazards[0].places[0]) == "compress (no line: build with -lineinfo)");
  CHECK(has(explain(bare.hazards[0]), "a null pointer, a host pointer"));  // far from any buffer
  const auto near = parse_sanitizer_output(
      "memcheck",
      "========= Invalid __global__ read of size 4 bytes\n"
      "=========     at k(const float *)+0x40 in /w/k.cu:3\n"
      "=========     by thread (0,0,0) in block (0,0,0)\n"
      "=========     Access at 0x7f89bf9ffffc is out of bounds\n"
      "=========     and is 4 bytes before the nearest allocation at 0x7f89bfa00000 of size 1024 bytes\n");
  CHECK(has(explain(near.hazards[0]), "before the start of an array"));
  // A misaligned access says so in its detail line, not its heading.
  const auto misaligned = parse_sanitizer_output("memcheck",
                                                 "========= Invalid __global__ read of size 16 bytes\n"
                                                 "=========     at k(const float4 *)+0x40 in /w/k.cu:7\n"
                                                 "=========     by thread (1,0,0) in block (0,0,0)\n"
                                                 "=========     Access at 0x7f89bfa00004 is misaligned\n");
  CHECK(has(explain(misaligned.hazards[0]), "not a multiple of the access's size"));
  // The tool's own lines are notes, never problems at a line of the student's code.
  const auto notes = parse_sanitizer_output("memcheck",
                                            "========= Error: process didn't terminate successfully\n"
                                            "========= Target application returned an error\n"
                                            "========= Internal Sanitizer Error: The Sanitizer encountered an error\n"
                                            "========= ERROR SUMMARY: 0 errors\n");
  CHECK(notes.hazards.empty());
  CHECK(notes.notes.size() == 4);
  // synccheck: a barrier some threads skip.
  const auto sync = parse_sanitizer_output(
      "synccheck",
      "========= Barrier error detected. Divergent thread(s) in warp\n"
      "=========     at tiledKernel(const float *, const float *, float *, int, int, int)+0x330 in /w/matmul.cu:20\n"
      "=========     by thread (0,0,0) in block (0,0,0)\n");
  REQUIRE(sync.hazards.size() == 1);
  CHECK(has(explain(sync.hazards[0]), "Every thread must reach every barrier"));
  // Nothing found: no hazards, the summary read.
  const auto clean =
      parse_sanitizer_output("memcheck", "========= COMPUTE-SANITIZER\nall good\n========= ERROR SUMMARY: 0 errors\n");
  CHECK(clean.hazards.empty());
  CHECK(clean.api_errors.empty());
  CHECK(clean.error_summary == 0);
}

TEST_CASE("a problem's line is shown from the student's file", "[inspect]") {
  const fs::path dir = fs::temp_directory_path() / ("workbook-inspect-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "matmul.cu") << "line one\n  line two  \nline three\n";
  SourcePlace p;
  p.file = "/somewhere/else/labs/matmul-tiled/matmul.cu";  // as compiled: matched by the file's name
  p.line = 2;
  CHECK(source_line({dir / "matmul.cu"}, p) == "line two");
  p.line = 9;
  CHECK(source_line({dir / "matmul.cu"}, p).empty());
  p.file = "other.cu";
  p.line = 1;
  CHECK(source_line({dir / "matmul.cu"}, p).empty());
  fs::remove_all(dir);
}

TEST_CASE("ncu: a kernel's base name", "[inspect]") {
  CHECK(base_function("coalescing::<unnamed>::addXColsKernel(const float *, const float *, float *, int, int)") ==
        "addXColsKernel");
  CHECK(base_function("void tiledKernel<16>(const float *, const float *, float *, int, int, int)") == "tiledKernel");
  CHECK(base_function("(anonymous namespace)::relaxKernel(float *, const float *, int)") == "relaxKernel");
  CHECK(base_function("updateKernel") == "updateKernel");
  CHECK(base_function("void k<(Mode)1>(float *)") == "k");
}

TEST_CASE("ncu: an H100 run's table read back, and the coalescing metrics computed from it", "[inspect]") {
  // docs/measurements/coalescing-ncu.csv: `ncu --csv` of the coalescing benchmark on an H100.
  const std::string text = grader::read_file(fs::path(WORKBOOK_SOURCE_ROOT) / "docs/measurements/coalescing-ncu.csv");
  const auto launches = parse_ncu_csv(text);
  REQUIRE(launches.size() == 28);
  CHECK(launches[0].function == "addXColsKernel");
  CHECK(launches[0].block == "(32, 8, 1)");
  CHECK(launches[0].metrics.at("dram__bytes_read.sum") == 134224128.0);
  // Times read in nanoseconds whatever unit ncu printed; the lab metric is in ms.
  const double ns = launches[0].metrics.at("gpu__time_duration.sum");
  CHECK(ns > 1e4);
  CHECK(ns < 1e7);
  CHECK(*lab_metrics().at("duration").value(launches[0].metrics) == Approx(ns / 1e6));
  const LabMetric& loads = lab_metrics().at("global_load_sectors_per_request");
  const LabMetric& conflicts = lab_metrics().at("shared_bank_conflicts");
  std::map<std::string, const KernelLaunch*> first;
  for (const auto& l : launches) first.emplace(l.function, &l);
  // Coalesced (x on the columns) against one sector per thread (x on the rows).
  CHECK(*loads.value(first.at("addXColsKernel")->metrics) == Approx(4.0));
  CHECK(*loads.value(first.at("addXRowsKernel")->metrics) == Approx(32.0));
  // The shared-memory tile without and with its padding column: the table has only the loads'
  // conflicts, so the metric that also needs the stores' is not computed (shown as "-").
  CHECK_FALSE(conflicts.value(first.at("transposeTiledKernel")->metrics));
  const double tiled =
      first.at("transposeTiledKernel")->metrics.at("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum");
  const double padded =
      first.at("transposePaddedKernel")->metrics.at("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum");
  CHECK(tiled > 100 * padded);
  CHECK_THROWS(parse_ncu_csv("==PROF== Connected\nno table\n"));
}

TEST_CASE("ncu: its failures in one line with what to do", "[inspect]") {
  const std::string perm =
      "==PROF== Connected to process 12\n==ERROR== ERR_NVGPUCTRPERM - The user does not have permission to access "
      "NVIDIA GPU Performance Counters on the target device 0.\n";
  CHECK(has(ncu_failure(perm), "NVreg_RestrictProfilingToAdminUsers=0"));
  const std::string unknown = "==ERROR== Failed to find metric l1tex__t_bytes_pipe_lsu_mem_local_op_st.sum\n";
  REQUIRE(unknown_metric(unknown));
  CHECK(*unknown_metric(unknown) == "l1tex__t_bytes_pipe_lsu_mem_local_op_st.sum");
  CHECK(ncu_failure("==PROF== Disconnected from process 12\n").empty());
}

TEST_CASE("the kernels a file defines", "[inspect]") {
  const std::string source = R"(
template <int TILE_WIDTH>
__global__ void tiledKernel(const float* A, float* C) {}
__global__ void __launch_bounds__(256) updateKernel(float* layer) {}
static __global__ void relaxKernel(float* layer) {}
__device__ float helper(float x) { return x; }
void naive(const float* A) { tiledKernel<16><<<1, 1>>>(A, nullptr); }
)";
  const auto names = kernels_defined_in(source);
  CHECK(names == std::vector<std::string>{"tiledKernel", "updateKernel", "relaxKernel"});
  // Comments name no kernel; __launch_bounds__ before the return type, and nested in it.
  CHECK(kernels_defined_in("// __global__ kernels run on the device (GPU)\n/* __global__ void old(int) */\n").empty());
  CHECK(kernels_defined_in("__global__ __launch_bounds__(256) void k1(int n) {}\n"
                           "__global__ void __launch_bounds__(BLOCK * (2), 1) k2(int n) {}\n"
                           "namespace s { __global__ void s::k3(int); }\n") ==
        std::vector<std::string>{"k1", "k2", "k3"});
  // Every lab's starter defines the kernels its handout names (what --profile looks for).
  CHECK_FALSE(
      kernels_defined_in(grader::read_file(fs::path(WORKBOOK_SOURCE_ROOT) / "labs/matmul-tiled/matmul.cu")).empty());
}

TEST_CASE("every lab's [profile.metrics] names its exercises and metrics the grader knows", "[inspect]") {
  int named = 0;
  for (const auto& entry : fs::directory_iterator(fs::path(WORKBOOK_SOURCE_ROOT) / "labs")) {
    if (!fs::exists(entry.path() / "lab.toml")) continue;
    const auto config = grader::LabConfig::load(entry.path() / "lab.toml");
    const auto* metrics = config.table().at_path("profile.metrics").as_table();
    INFO(entry.path().filename().string());
    REQUIRE(metrics);
    for (const auto& [exercise, list] : *metrics) {
      INFO(std::string(exercise.str()));
      CHECK(config.exercise(std::string(exercise.str())));
      REQUIRE(list.as_array());
      for (const auto& id : *list.as_array()) {
        CHECK(lab_metrics().count(id.value_or(std::string())) == 1);
        ++named;
      }
    }
  }
  CHECK(named >= 20);
}

TEST_CASE("every lab's [profile.expected] ranges are of its exercises' metrics and kernels", "[inspect]") {
  // What a student's workbook (no solutions/) shows beside each kernel: a range for each metric
  // the exercise profiles but its time, for every kernel the reference's profile showed.
  int ranges = 0;
  for (const auto& entry : fs::directory_iterator(fs::path(WORKBOOK_SOURCE_ROOT) / "labs")) {
    if (!fs::exists(entry.path() / "lab.toml")) continue;
    const auto config = grader::LabConfig::load(entry.path() / "lab.toml");
    INFO(entry.path().filename().string());
    const auto* metrics = config.table().at_path("profile.metrics").as_table();
    const auto* expected = config.table().at_path("profile.expected").as_table();
    REQUIRE(metrics);
    REQUIRE(expected);
    for (const auto& [exercise, list] : *metrics) {
      INFO(std::string(exercise.str()));
      const auto* kernels = (*expected)[exercise].as_table();
      REQUIRE(kernels);
      REQUIRE(kernels->size() >= 1);
      for (const auto& [kernel, values] : *kernels) {
        INFO(std::string(kernel.str()));
        REQUIRE(values.as_table());
        for (const auto& id : *list.as_array()) {
          const auto* range = (*values.as_table())[id.value_or(std::string())].as_array();
          REQUIRE(range);
          REQUIRE(range->size() == 2);
          const double lo = (*range)[0].value<double>().value_or(-1), hi = (*range)[1].value<double>().value_or(-1);
          CHECK(0 <= lo);
          CHECK(lo <= hi);
          ++ranges;
        }
        CHECK(values.as_table()->size() == list.as_array()->size());  // no metric the exercise does not profile
      }
    }
    for (const auto& [exercise, kernels] : *expected) CHECK((*metrics)[exercise]);  // no exercise it does not profile
  }
  CHECK(ranges >= 100);
}

#ifdef WORKBOOK_HAS_SOLUTIONS
TEST_CASE("every [profile.expected] kernel is a __global__ kernel of the lab's starter and reference", "[inspect]") {
  // The ranges are found by the student's kernel's name: a name the starter does not define
  // (misspelt, or renamed in the reference) would never be shown.
  const fs::path root = WORKBOOK_SOURCE_ROOT;
  int kernels_checked = 0;
  for (const auto& entry : fs::directory_iterator(root / "labs")) {
    if (!fs::exists(entry.path() / "lab.toml")) continue;
    const std::string lab = entry.path().filename().string();
    INFO(lab);
    const auto config = grader::LabConfig::load(entry.path() / "lab.toml");
    std::vector<std::string> starter, reference;
    for (const auto& f : config.files()) {
      for (const auto& k : kernels_defined_in(grader::read_file(entry.path() / f))) starter.push_back(k);
      for (const auto& k : kernels_defined_in(grader::read_file(root / "solutions" / lab / f))) reference.push_back(k);
    }
    const auto* expected = config.table().at_path("profile.expected").as_table();
    REQUIRE(expected);
    for (const auto& [exercise, kernels] : *expected)
      for (const auto& [kernel, values] : *kernels.as_table()) {
        const std::string name(kernel.str());
        INFO(name);
        CHECK(std::find(starter.begin(), starter.end(), name) != starter.end());
        CHECK(std::find(reference.begin(), reference.end(), name) != reference.end());
        ++kernels_checked;
      }
  }
  CHECK(kernels_checked >= 25);
}
#endif

TEST_CASE("profile counts read in millions and billions, never 1e+03M", "[inspect]") {
  const LabMetric& conflicts = lab_metrics().at("shared_bank_conflicts");
  const LabMetric& bytes = lab_metrics().at("dram_bytes_read");
  CHECK(metric_text(conflicts, 62753.0) == "62753");
  CHECK(metric_text(conflicts, 66056245.0) == "66.1M");
  CHECK(metric_text(conflicts, 999.96e6) == "1G");
  CHECK(metric_text(bytes, 5376.0) == "5376");
  CHECK(metric_text(bytes, 268461056.0) == "268M");
  CHECK(metric_text(bytes, 1.5e9) == "1.5G");
  CHECK(metric_text(lab_metrics().at("shared_loads_per_fma"), 1.25) == "1.25");
  CHECK(metric_text(conflicts, std::nullopt) == "-");
}

TEST_CASE("a metric far worse than the reference's is pointed at, in its own direction", "[inspect]") {
  const auto launch = [](const std::string& function, std::map<std::string, double> metrics) {
    KernelLaunch k;
    k.function = function;
    k.metrics = std::move(metrics);
    return k;
  };
  // The padded transpose without its padding column, beside the reference's (counts as an H100
  // measured them at 4096 x 4096: docs/measurements/coalescing-ncu.csv).
  const KernelLaunch mine =
      launch("transposePaddedKernel", {{"gpu__time_duration.sum", 500000},  // ns
                                       {"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum", 16500186},
                                       {"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum", 0},
                                       {"sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active", 50}});
  const KernelLaunch theirs =
      launch("transposePaddedKernel", {{"gpu__time_duration.sum", 300000},
                                       {"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum", 62753},
                                       {"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum", 0},
                                       {"sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active", 67}});
  const auto rows = compare_launch({"duration", "shared_bank_conflicts", "fp32_pipe"}, mine, &theirs);
  REQUIRE(rows.size() == 3);
  CHECK_FALSE(rows[0].look_here);  // time under the profiler: shown, never pointed at
  CHECK(*rows[1].yours == 16500186);
  CHECK(*rows[1].reference == 62753);
  CHECK(rows[1].look_here);
  CHECK_FALSE(rows[2].look_here);  // 50% busy against 67%: higher is better, and not 1.5x apart
  const KernelLaunch slow = launch("k", {{"sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active", 30}});
  CHECK(compare_launch({"fp32_pipe"}, slow, &theirs)[0].look_here);  // 30% against 67%
  // 1 conflict against 0 is noise.
  const KernelLaunch one = launch("k", {{"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum", 1},
                                        {"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum", 0}});
  const KernelLaunch none = launch("k", {{"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum", 0},
                                         {"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum", 0}});
  CHECK_FALSE(compare_launch({"shared_bank_conflicts"}, one, &none)[0].look_here);
  // Without the reference (a student's workbook): the range lab.toml gives.
  const auto expected = [](const std::string& id) -> std::optional<std::pair<double, double>> {
    if (id == "shared_bank_conflicts") return std::pair{0.0, 70000.0};
    return std::nullopt;
  };
  const auto alone = compare_launch({"shared_bank_conflicts", "fp32_pipe"}, mine, nullptr, expected);
  CHECK(alone[0].look_here);
  REQUIRE(alone[0].expected);
  CHECK_FALSE(alone[1].expected);
  CHECK_FALSE(alone[1].look_here);
  // A metric the run did not measure is "-", never a finding.
  CHECK_FALSE(compare_launch({"global_atomics"}, mine, &theirs)[0].yours);
  CHECK_FALSE(compare_launch({"global_atomics"}, mine, &theirs)[0].look_here);
  // The reference's kernel beside yours: same name, else the same place.
  const std::vector<KernelLaunch> reference = {launch("transpose_objects", {}),
                                               launch("find_nearest_cluster_privatized", {})};
  CHECK(matching_kernel(launch("transpose_objects", {}), 1, reference) == &reference[0]);
  CHECK(matching_kernel(launch("find_nearest_cluster", {}), 1, reference) == &reference[1]);
  CHECK(matching_kernel(launch("update_centroids", {}), 2, reference) == nullptr);
}

TEST_CASE("the profile in a student's feedback: a table per kernel, the reference beside it, readings", "[inspect]") {
  KernelLaunch mine;
  mine.function = "transposePaddedKernel";
  mine.grid = "(256, 256, 1)";
  mine.block = "(32, 8, 1)";
  mine.metrics = {{"gpu__time_duration.sum", 1.2e6},  // ns: 1.2 ms
                  {"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum", 16500186},
                  {"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum", 0}};
  KernelLaunch theirs = mine;
  theirs.metrics["l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"] = 62753;
  const Profiled yours{{mine}, "", 3.0};
  const Profiled reference{{theirs}, "", 3.0};
  const std::vector<std::string> ids = {"duration", "shared_bank_conflicts"};
  const std::string md = profile_markdown("transpose_padded", ids, yours, &reference);
  CHECK(has(md, "### Why is transpose_padded slow? (Nsight Compute)"));
  CHECK(has(md,
            "**`transposePaddedKernel`** (grid (256, 256, 1), block (32, 8, 1)), beside the reference's "
            "`transposePaddedKernel`"));
  CHECK(has(md, "| shared-memory bank conflicts | 16.5M | 62753 | **look here** |"));
  CHECK(has(md, "| kernel time (ms) | 1.200 | 1.200 |  |"));
  CHECK(has(md, "- *shared-memory bank conflicts*: extra passes"));
  CHECK_FALSE(has(md, "- *kernel time"));  // the time has no reading to give
  // Without the reference (none built, or it failed): "-" in its column, nothing pointed at.
  const std::string alone = profile_markdown("transpose_padded", ids, yours, nullptr);
  CHECK(has(alone, "| shared-memory bank conflicts | 16.5M | - |  |"));
  // A profile that failed says why, once.
  const std::string failed =
      profile_markdown("transpose_padded", ids, Profiled{{}, "ncu stopped at its time limit", 0}, &reference);
  CHECK(has(failed, "Not profiled: ncu stopped at its time limit"));
}

// --expected-ranges: the reference's value / 1.2 to x 1.2, rounded outwards to three significant
// digits, a percentage at most 100; written as the [profile.expected] tables lab.toml reads.
TEST_CASE("expected ranges from the reference's values, as lab.toml's tables", "[inspect]") {
  using Range = std::pair<double, double>;
  CHECK(expected_range(62753, false) == Range{52200, 75400});  // 52294.2 down, 75303.6 up
  CHECK(expected_range(4.0, false) == Range{3.33, 4.8});       // 4.8 stays 4.8
  CHECK(expected_range(0, false) == Range{0, 0});              // no spills: none expected
  CHECK(expected_range(82, true) == Range{68.3, 98.4});
  CHECK(expected_range(91, true) == Range{75.8, 100});  // 109.2 capped
  CHECK(expected_range(66056245, false) == Range{55000000, 79300000});
  CHECK(is_percent_metric("dram_throughput"));
  CHECK_FALSE(is_percent_metric("shared_bank_conflicts"));

  const ReferenceValues values = {
      {"transpose_padded", {{"transposePaddedKernel", {{"shared_bank_conflicts", 62753}, {"dram_throughput", 82}}}}},
      {"add_x_cols", {{"addXColsKernel", {{"global_load_sectors_per_request", 4.0}}}}}};
  const std::string text = expected_tables(values);
  INFO(text);
  CHECK(has(text, "[profile.expected.transpose_padded]"));
  CHECK(has(text, "transposePaddedKernel = {"));
  // Read back as lab.toml is read: integers stay integers, each range two numbers.
  const toml::table parsed = toml::parse(text);
  const auto range = [&](const std::string& path) {
    const auto* a = parsed.at_path(path).as_array();
    REQUIRE(a);
    REQUIRE(a->size() == 2);
    return Range{*(*a)[0].value<double>(), *(*a)[1].value<double>()};
  };
  CHECK(range("profile.expected.transpose_padded.transposePaddedKernel.shared_bank_conflicts") == Range{52200, 75400});
  CHECK(
      parsed.at_path("profile.expected.transpose_padded.transposePaddedKernel.shared_bank_conflicts[0]").is_integer());
  CHECK(range("profile.expected.transpose_padded.transposePaddedKernel.dram_throughput") == Range{68.3, 98.4});
  CHECK(range("profile.expected.add_x_cols.addXColsKernel.global_load_sectors_per_request") == Range{3.33, 4.8});
}
