// What Nsight Compute measured, read from `ncu --csv` (one row per kernel launch and metric),
// and the metrics the labs teach, each with what its value means.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace grader::inspect {

struct KernelLaunch {
  int id = 0;
  std::string kernel;    // as ncu names it, e.g. "coalescing::<unnamed>::addXColsKernel(const float *, ...)"
  std::string function;  // its base name: "addXColsKernel"
  std::string block, grid;
  std::map<std::string, double> metrics;  // ncu metric name -> value
};

// The launches in `ncu --csv` output (the "==PROF==" lines and the program's own lines before
// the header are skipped). Throws std::runtime_error when there is no table.
std::vector<KernelLaunch> parse_ncu_csv(const std::string& text);

// "coalescing::<unnamed>::addXColsKernel(const float *)" -> "addXColsKernel";
// "void tiledKernel<16>(...)" -> "tiledKernel".
std::string base_function(const std::string& kernel);

// A metric a lab teaches: how it is computed from ncu's metrics and how to read it.
struct LabMetric {
  std::string id;                // the name lab.toml's [profile] uses
  std::string label;             // "global load sectors per request"
  std::vector<std::string> ncu;  // the ncu metrics it needs
  std::function<std::optional<double>(const std::map<std::string, double>&)> value;
  std::string format;  // fmt format of the value, e.g. "{:.1f}"
  bool lower_is_better = true;
  std::string reading;  // one line: what the value means, what good looks like
  double noise = 0;     // a difference from the reference this small is no finding
};

// Every metric the labs may name, by id.
const std::map<std::string, LabMetric>& lab_metrics();

// One metric of one kernel: yours, the reference's kernel's (or, without solutions/, the range
// lab.toml's [profile.expected] gives), and whether yours is far enough from it to point at.
struct MetricRow {
  std::string id;
  std::optional<double> yours, reference;
  std::optional<std::pair<double, double>> expected;
  bool look_here = false;
};

// How much worse than the reference a metric must be to be pointed at ("<- look here").
constexpr double kLookHere = 1.5;

// The rows of `ids` for `mine`, beside `reference` (may be null) or the `expected` ranges. The
// kernel's time is shown, never pointed at: under the profiler it is not the graded time.
std::vector<MetricRow> compare_launch(
    const std::vector<std::string>& ids, const KernelLaunch& mine, const KernelLaunch* reference,
    const std::function<std::optional<std::pair<double, double>>(const std::string&)>& expected = {});

// The reference's kernel to show beside the `index`th of yours: the one of the same name, else
// the one in the same place; null when there is none.
const KernelLaunch* matching_kernel(const KernelLaunch& mine, std::size_t index,
                                    const std::vector<KernelLaunch>& theirs);

// The kernels a source file defines (`__global__` functions), by base name.
std::vector<std::string> kernels_defined_in(const std::string& source);

// The ncu failure, in one line with what to do, when its output shows one it knows: no
// permission to read the counters (ERR_NVGPUCTRPERM), an unknown metric. Empty otherwise.
std::string ncu_failure(const std::string& output);

// The metric ncu said it does not know ("Failed to find metric X"), if any.
std::optional<std::string> unknown_metric(const std::string& output);

}  // namespace grader::inspect
