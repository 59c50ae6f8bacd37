// Thresholds that follow the machine (grader/src/calibrate/thresholds.hpp), on simulated
// machines: a GPU with a quarter of the H100's FP32 rate and a third of its bandwidth, CPUs
// twice as fast and twice as slow. The home numbers are the H100 host's (docs/measurements/):
// kernel times and sequential baselines. A simulated machine runs each kernel slower by its
// bound's factor and each baseline by the CPU's; on every one, with the reference measured there
// or without it (the ceilings alone), the reference must pass with room to spare and a correct
// but slow submission must fail.
#include "calibrate/thresholds.hpp"
#include "grader/files.hpp"
#include "grader/catch.hpp"

#include <algorithm>
#include <string>

using grader::LabConfig;
using grader::calibrate::derive;
using grader::calibrate::Measurement;

namespace {

// lab.toml alone: the shipped values. (load() would also lay a course.toml beside it over them,
// as a student release has; a course's values are laid over the derived ones, not derived from.)
LabConfig lab(const std::string& name) {
  const std::string path = std::string(WORKBOOK_SOURCE_ROOT) + "/labs/" + name + "/lab.toml";
  return LabConfig::parse(grader::read_file(path), path);
}

// One timed case of a lab on the home machine: the reference's kernel time and a slow
// submission's (0: none, for a lenient threshold that only a broken kernel misses), the
// sequential baseline, and what bounds the kernel.
struct Case {
  std::string threshold;
  double reference_ms, slow_ms, baseline_ms;
  bool fp32;  // else bandwidth
};

struct Machine {
  double fp32, bandwidth, cpu;  // rates relative to home: 0.25 = a quarter; cpu 2 = twice as fast
};

const Machine kHome{1, 1, 1};
const Measurement home_peaks() {
  Measurement m;
  m.fp32_tflops = 60.0;  // an H100 SXM's FP32 FMA rate, about
  m.copy_gbs = 2700.0;
  return m;
}

double time_on(const Case& c, double home_ms, const Machine& m) { return home_ms / (c.fp32 ? m.fp32 : m.bandwidth); }
double speedup_on(const Case& c, double home_ms, const Machine& m) {
  return (c.baseline_ms / m.cpu) / time_on(c, home_ms, m);
}

Measurement measure(const std::vector<Case>& cases, const Machine& m, bool with_reference) {
  Measurement out = home_peaks();
  out.fp32_tflops *= m.fp32;
  out.copy_gbs *= m.bandwidth;
  for (const auto& c : cases) {
    out.baseline_ms[c.threshold] = c.baseline_ms / m.cpu;
    if (with_reference) out.reference[c.threshold] = speedup_on(c, c.reference_ms, m);
  }
  return out;
}

void check_lab(const std::string& name, const std::vector<Case>& cases) {
  const LabConfig config = lab(name);
  const Measurement home = measure(cases, kHome, true);
  for (const Machine& m : {Machine{0.25, 1.0 / 3, 2.0}, Machine{0.25, 1.0 / 3, 0.5}, Machine{1, 1, 2.0},
                           Machine{0.25, 1.0 / 3, 1.0}}) {
    for (bool with_reference : {true, false}) {
      const auto derived = derive(config, home, measure(cases, m, with_reference));
      for (const auto& c : cases) {
        INFO(name << " " << c.threshold << " on a GPU at " << m.fp32 << " FP32, " << m.bandwidth
                  << " bandwidth, CPU x" << m.cpu << (with_reference ? ", reference measured" : ", ceilings only"));
        const auto it = std::find_if(derived.begin(), derived.end(), [&](const auto& d) { return d.threshold == c.threshold; });
        REQUIRE(it != derived.end());
        INFO("threshold " << it->value << " (" << it->how << ")");
        const double reference = speedup_on(c, c.reference_ms, m), slow = speedup_on(c, c.slow_ms, m);
        CHECK(reference >= 1.2 * it->value);  // the reference passes, with room
        if (c.slow_ms > 0) CHECK(slow < it->value);  // the slow submission does not
        CHECK(with_reference == it->reference_here.has_value());
      }
    }
  }
}

}  // namespace

TEST_CASE("calibration: matmul-tiled's thresholds follow the machine", "[calibrate]") {
  // naive 0.4425 ms and tiled (the slower tile width) 0.2974 ms at 1024^3 over a 6050.8 ms
  // baseline; the slow submissions: naive with 4 x 4 blocks (3.4 times slower, the realcode
  // shapes' worst) and tiled that launches the naive kernel.
  check_lab("matmul-tiled", {{"exercises.naive.min_speedup", 0.4425, 1.5, 6050.8, true},
                             {"exercises.tiled.min_speedup", 0.2974, 0.4425, 6050.8, true}});
}

TEST_CASE("calibration: coalescing's thresholds follow the machine", "[calibrate]") {
  // add_x_cols 0.083 ms over a 19.8 ms sequential add; add_x_rows submitted as add_x_cols,
  // 0.318 ms. transpose_padded 0.052 ms over 169 ms; transpose_naive as padded, 0.292 ms.
  // The lenient ones (10x) are there to catch a broken kernel only.
  check_lab("coalescing", {{"exercises.add_x_cols.min_speedup", 0.083, 0.318, 19.8, false},
                           {"exercises.add_x_rows.min_speedup", 0.318, 0, 19.8, false},
                           {"exercises.add_per_row.min_speedup", 0.574, 0, 19.8, false},
                           {"exercises.add_per_column.min_speedup", 0.475, 0, 19.8, false},
                           {"exercises.transpose_naive.min_speedup", 0.292, 0, 169.3, false},
                           {"exercises.transpose_tiled.min_speedup", 0.085, 0, 169.3, false},
                           {"exercises.transpose_padded.min_speedup", 0.052, 0.292, 169.3, false}});
}

TEST_CASE("calibration: granularity's thresholds follow the machine", "[calibrate]") {
  // At 1024^3 over a 4815 ms baseline: coarsened (factor 2) 0.206 ms, register_1d 0.129 ms,
  // register_2d 0.107 ms; the slow submission for both register exercises is the tiled kernel
  // (0.2665 ms). (register_1d submitted as register_2d clears register_2d's speedup and is
  // caught by min_speedup_over_tiled, a fixed ratio.) Coarsening gains little on the H100: its
  // threshold only catches a broken kernel.
  check_lab("granularity", {{"exercises.coarsened.min_speedup", 0.206, 0, 4815, true},
                            {"exercises.register_1d.min_speedup", 0.129, 0.2665, 4815, true},
                            {"exercises.register_2d.min_speedup", 0.107, 0.2665, 4815, true}});
}

TEST_CASE("calibration: fixed thresholds stay as shipped; missing measurements and bad rules are named",
          "[calibrate]") {
  const LabConfig config = lab("matmul-tiled");
  Measurement home = home_peaks(), here = home_peaks();
  here.fp32_tflops /= 4;
  for (auto* m : {&home, &here}) {
    m->baseline_ms["exercises.naive.min_speedup"] = 6050.8;
    m->baseline_ms["exercises.tiled.min_speedup"] = 6050.8;
  }
  const auto derived = derive(config, home, here);
  REQUIRE(derived.size() == 3);
  const auto& ratio = derived[2];
  CHECK(ratio.threshold == "exercises.tiled.min_speedup_over_naive");
  CHECK(ratio.value == ratio.shipped);
  CHECK(derived[0].value == Approx(derived[0].shipped / 4));  // a quarter of the FP32 rate
  CHECK(derived[0].how.find("FP32 rate (0.25)") != std::string::npos);
  // The override file: a table per threshold, the value and how it was found.
  const std::string toml = grader::calibrate::override_toml(derived);
  CHECK(toml.find("[exercises.naive]\nmin_speedup = 1625  # shipped x FP32 rate (0.25) x CPU baseline (1.00)") == 0);
  LabConfig laid = config;
  laid.apply_override(toml, "profile.toml");
  CHECK(*laid.number("exercises.naive.min_speedup") == Approx(1625));

  here.baseline_ms.clear();
  CHECK_THROWS_AS(derive(config, home, here), std::invalid_argument);
  const auto rule_error = [&](const std::string& rule) {
    LabConfig bad = config;
    bad.apply_override("[calibration]\n" + rule + "\n", "x.toml");
    try {
      grader::calibrate::rules(bad);
    } catch (const grader::ConfigError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK(rule_error("\"exercises.nope.min_speedup\" = { bound = \"fp32\" }").find("no such threshold") !=
        std::string::npos);
  CHECK(rule_error("\"exercises.naive.min_speedup\" = { bound = \"memory\" }").find("bound must be") !=
        std::string::npos);
}
