// How a lab's thresholds follow the machine (issue: grade on any NVIDIA GPU). The shipped
// thresholds in lab.toml were set on one machine, the *home* machine (an H100 host); the
// [calibration] table of lab.toml says, for each threshold, which timed case it judges and what
// bounds that case's kernel, and derive() turns the home machine's measurements and this
// machine's into this machine's values:
//
//   - where the reference solution was measured here (an instructor's workbook, solutions/
//     present), the threshold keeps the margin it had at home, or [calibration] min_margin if
//     that is larger:
//         here = reference here / max(reference at home / shipped, min_margin);
//   - where it was not (a student's workbook), it follows the measured ceiling:
//         here = shipped x (this GPU's peak / home's) x (this CPU's baseline time / home's),
//     the peak being the FP32 rate, the copy bandwidth or the host-to-device bandwidth, whichever
//     bounds the timed call: a speedup over the sequential baseline is the baseline's time over
//     the call's. A share of this GPU's copy bandwidth (over = "copy") has no CPU in it:
//         here = shipped x (this GPU's peak / home's) / (this GPU's copy bandwidth / home's),
//     1 for a kernel bound by memory, less on a GPU whose memory outgrew its SMs;
//   - a threshold that compares two kernels of one machine bound alike (tiled over naive) stays
//     as shipped.
//
// Thresholds stay speedups over the sequential baseline in every report; what changes is where
// their values come from. An instructor's override files are laid over the result, so they win.
#pragma once

#include "grader/lab_config.hpp"
#include "grader/results.hpp"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace grader::calibrate {

// fp32: the SMs (arithmetic, shared memory and L1 scale with SM count x clock); bandwidth: device
// memory; transfer: host-to-device copies from pageable memory (a whole program that moves its
// input each call); fixed: a ratio between two timings of one machine.
enum class Bound { Fp32, Bandwidth, Transfer, Fixed };

struct Rule {
  std::string threshold;  // a dotted path in lab.toml: "exercises.naive.min_speedup"
  std::string judges;     // the timed case it judges, for the reader: "naive at performance.size"
  std::string metric;     // the judged cases' metric it bounds: "speedup" for min_speedup
  Bound bound = Bound::Fixed;
  // What the metric is measured against: the sequential baseline on the CPU (a speedup, the
  // default), or this GPU's own copy kernel (a share of the copy bandwidth: no CPU in it, and a
  // kernel bound by the SMs reaches a smaller share of a GPU whose memory is faster).
  bool over_copy = false;
};

// The [calibration] table: `"<threshold path>" = { judges = "...", bound = "fp32" | "bandwidth"
// | "transfer" | "fixed", metric = "...", over = "baseline" | "copy" }` (metric defaults to the
// threshold's name without its "min_": min_speedup_2d bounds speedup_2d... unless given; over
// defaults to "baseline"), `home = "<profile>"`, the machine the shipped values were set on, and
// `min_margin`, the least margin a derived threshold leaves the reference where it was timed. Throws ConfigError for a rule whose threshold lab.toml does not
// have, or an unknown bound.
std::vector<Rule> rules(const LabConfig& config);
std::string home_profile(const LabConfig& config);  // "" when [calibration] names none
// [calibration] min_margin: one run at home may have left the reference a thin margin over a
// shipped value (a noisy host); derived thresholds leave it at least this much.
constexpr double kDefaultMinMargin = 1.3;
double min_margin(const LabConfig& config);

// What one machine measured. `reference` is keyed by threshold path: the reference solution's
// value of the judged metric (a speedup; the lowest of the cases the threshold judges).
// `baseline_ms` holds sequential baselines' times in ms, keyed by what they measure (the
// baseline cache's keys, or threshold paths): the CPU's speed is the geometric mean, over the keys
// both machines have, of home's time over this one's.
struct Measurement {
  double fp32_tflops = 0;  // the GPU's measured FP32 rate
  double copy_gbs = 0;     // its measured copy bandwidth (bytes read and written)
  double h2d_gbs = 0;      // host-to-device copies from pageable memory
  std::map<std::string, double> reference;
  std::map<std::string, double> baseline_ms;
};

// The reference's value of each rule's metric in a run of its timed cases: the lowest over the
// cases that recorded the rule's threshold (CaseResult::thresholds) and were timed (passed or too
// slow). A threshold "for each tile width" holds for the slower one. Fixed rules are left out.
std::map<std::string, double> reference_values(const std::vector<Rule>& rules, const std::vector<CaseResult>& cases);

struct Derived {
  std::string threshold;
  double shipped = 0;                    // lab.toml's value (the home machine's)
  double value = 0;                      // this machine's
  std::optional<double> reference_here;  // the reference's value here, where measured
  std::string how;                       // one line: which rule, with its numbers
};

// One derived value per rule, in the order of [calibration]. `config` is lab.toml alone (the
// shipped values): a course's settings and an instructor's overrides are laid over the result. Throws std::invalid_argument when a
// measurement the rule needs is missing (no peak, no baseline at home or here).
std::vector<Derived> derive(const LabConfig& config, const Measurement& home, const Measurement& here);

// The derived values as an override file, laid over lab.toml on this machine.
std::string override_toml(const std::vector<Derived>& derived);

}  // namespace grader::calibrate
