// Thresholds that follow the machine (grader/src/calibrate/thresholds.hpp), on simulated
// machines: a GPU with a quarter of the H100's FP32 rate and a third of its bandwidth (and of its
// host-to-device bandwidth), CPUs twice as fast and twice as slow. The home numbers are the H100 host's (as the handouts quote them):
// kernel times and sequential baselines. A simulated machine runs each kernel slower by its
// bound's factor and each baseline by the CPU's; on every one, with the reference measured there
// or without it (the ceilings alone), the reference must pass with room to spare and a correct
// but slow submission must fail.
#include "calibrate/profile.hpp"
#include "calibrate/thresholds.hpp"
#include "grader/files.hpp"
#include "grader/catch.hpp"

#include <algorithm>
#include <cstdlib>
#include <unistd.h>
#include <filesystem>
#include <string>

using grader::LabConfig;
using grader::calibrate::Bound;
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
  Bound bound;
};
constexpr Bound kFp32 = Bound::Fp32, kBandwidth = Bound::Bandwidth, kTransfer = Bound::Transfer;

struct Machine {
  double fp32, bandwidth, h2d, cpu;  // rates relative to home: 0.25 = a quarter; cpu 2 = twice as fast
};

const Machine kHome{1, 1, 1, 1};
const Measurement home_peaks() {
  Measurement m;
  m.fp32_tflops = 60.0;  // an H100 SXM's FP32 FMA rate, about
  m.copy_gbs = 2700.0;
  m.h2d_gbs = 12.0;  // pageable memory over PCIe
  return m;
}

double time_on(const Case& c, double home_ms, const Machine& m) {
  return home_ms / (c.bound == kFp32 ? m.fp32 : c.bound == kBandwidth ? m.bandwidth : m.h2d);
}
double speedup_on(const Case& c, double home_ms, const Machine& m) {
  return (c.baseline_ms / m.cpu) / time_on(c, home_ms, m);
}

Measurement measure(const std::vector<Case>& cases, const Machine& m, bool with_reference) {
  Measurement out = home_peaks();
  out.fp32_tflops *= m.fp32;
  out.copy_gbs *= m.bandwidth;
  out.h2d_gbs *= m.h2d;
  for (const auto& c : cases) {
    out.baseline_ms[c.threshold] = c.baseline_ms / m.cpu;
    if (with_reference) out.reference[c.threshold] = speedup_on(c, c.reference_ms, m);
  }
  return out;
}

void check_lab(const std::string& name, const std::vector<Case>& cases) {
  const LabConfig config = lab(name);
  const Measurement home = measure(cases, kHome, true);
  for (const Machine& m : {Machine{0.25, 1.0 / 3, 1.0 / 3, 2.0}, Machine{0.25, 1.0 / 3, 1.0 / 3, 0.5},
                           Machine{1, 1, 1, 2.0}, Machine{0.25, 1.0 / 3, 1.0 / 3, 1.0}}) {
    for (bool with_reference : {true, false}) {
      const auto derived = derive(config, home, measure(cases, m, with_reference));
      for (const auto& c : cases) {
        INFO(name << " " << c.threshold << " on a GPU at " << m.fp32 << " FP32, " << m.bandwidth << " bandwidth, "
                  << m.h2d << " host-to-device, CPU x" << m.cpu
                  << (with_reference ? ", reference measured" : ", ceilings only"));
        const auto it =
            std::find_if(derived.begin(), derived.end(), [&](const auto& d) { return d.threshold == c.threshold; });
        REQUIRE(it != derived.end());
        INFO("threshold " << it->value << " (" << it->how << ")");
        const double reference = speedup_on(c, c.reference_ms, m), slow = speedup_on(c, c.slow_ms, m);
        CHECK(reference >= 1.2 * it->value);         // the reference passes, with room
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
  check_lab("matmul-tiled", {{"exercises.naive.min_speedup", 0.4425, 1.5, 6050.8, kFp32},
                             {"exercises.tiled.min_speedup", 0.2974, 0.4425, 6050.8, kFp32}});
}

TEST_CASE("calibration: coalescing's thresholds follow the machine", "[calibrate]") {
  // add_x_cols 0.083 ms over a 19.8 ms sequential add; add_x_rows submitted as add_x_cols,
  // 0.318 ms. transpose_padded 0.052 ms over 169 ms; transpose_naive as padded, 0.292 ms.
  // The lenient ones (10x) are there to catch a broken kernel only.
  check_lab("coalescing", {{"exercises.add_x_cols.min_speedup", 0.083, 0.318, 19.8, kBandwidth},
                           {"exercises.add_x_rows.min_speedup", 0.318, 0, 19.8, kBandwidth},
                           {"exercises.add_per_row.min_speedup", 0.574, 0, 19.8, kBandwidth},
                           {"exercises.add_per_column.min_speedup", 0.475, 0, 19.8, kBandwidth},
                           {"exercises.transpose_naive.min_speedup", 0.292, 0, 169.3, kBandwidth},
                           {"exercises.transpose_tiled.min_speedup", 0.085, 0, 169.3, kBandwidth},
                           {"exercises.transpose_padded.min_speedup", 0.052, 0.292, 169.3, kBandwidth}});
}

TEST_CASE("calibration: granularity's thresholds follow the machine", "[calibrate]") {
  // At 1024^3 over a 4815 ms baseline: coarsened (factor 2) 0.206 ms, register_1d 0.129 ms,
  // register_2d 0.107 ms; the slow submission for both register exercises is the tiled kernel
  // (0.2665 ms). (register_1d submitted as register_2d clears register_2d's speedup and is
  // caught by min_speedup_over_tiled, a fixed ratio.) Coarsening gains little on the H100: its
  // threshold only catches a broken kernel.
  check_lab("granularity", {{"exercises.coarsened.min_speedup", 0.206, 0, 4815, kFp32},
                            {"exercises.register_1d.min_speedup", 0.129, 0.2665, 4815, kFp32},
                            {"exercises.register_2d.min_speedup", 0.107, 0.2665, 4815, kFp32}});
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

TEST_CASE("calibration: kmeans' thresholds follow the machine", "[calibrate]") {
  // The reference's whole programs on the H100 (a student release's checks, 2026-11-25), over
  // sequential baselines of 5113 ms ({256,2,16,10}) and 4250 ms ({256,16,16,10}); most of each
  // call is the copy of 256 MB of objects from the host. The slow submission: all_gpu submitted
  // as all_gpu_privatized (178.4 and 66.2 ms).
  check_lab("kmeans", {{"exercises.naive.min_speedup_2d", 512.5, 0, 5113, kTransfer},
                       {"exercises.naive.min_speedup_16d", 327.3, 0, 4250, kTransfer},
                       {"exercises.transpose.min_speedup_2d", 515.8, 0, 5113, kTransfer},
                       {"exercises.transpose.min_speedup_16d", 330.4, 0, 4250, kTransfer},
                       {"exercises.shared.min_speedup_2d", 513.9, 0, 5113, kTransfer},
                       {"exercises.shared.min_speedup_16d", 313.1, 0, 4250, kTransfer},
                       {"exercises.all_gpu.min_speedup_2d", 178.4, 0, 5113, kTransfer},
                       {"exercises.all_gpu.min_speedup_16d", 66.2, 0, 4250, kTransfer},
                       {"exercises.all_gpu_privatized.min_speedup_2d", 36.8, 178.4, 5113, kTransfer},
                       {"exercises.all_gpu_privatized.min_speedup_16d", 34.0, 66.2, 4250, kTransfer}});
}

TEST_CASE("calibration: particle-storm's thresholds follow the machine", "[calibrate]") {
  // lab.toml's second H100 host: the update of one storm 0.625 ms over an 11.2 s sequential
  // update; whole programs over a 22.5 s sequential program: Ref1 7.75 ms (the Ref1 tier's
  // threshold holds for the slower of its row and the reference's: Ref1's), the reference
  // 1.99 ms. The slow submission: Ref1's update submitted as the fast one, the whole program then
  // Ref1's (7.75 ms), which must miss the Ref2 tier.
  check_lab("particle-storm", {{"exercises.update.min_speedup", 0.625, 0, 11200, kFp32},
                               {"exercises.resident.min_speedup_ref1", 7.75, 0, 22500, kFp32},
                               {"exercises.resident.min_speedup_ref2", 1.99, 7.75, 22500, kFp32}});
}

TEST_CASE("calibration: the CPU's speed from the sequential baselines both machines measured", "[calibrate]") {
  // Keyed by what they measure (the baseline cache's keys), not by threshold: the geometric mean
  // of this machine's times over home's, over the keys both have.
  const LabConfig config = lab("matmul-tiled");
  Measurement home = home_peaks(), here = home_peaks();
  home.baseline_ms = {{"matmul-tiled/sequential/1024x1024x1024", 6000}, {"matmul-tiled/other", 100}};
  here.baseline_ms = {
      {"matmul-tiled/sequential/1024x1024x1024", 24000}, {"matmul-tiled/other", 100}, {"matmul-tiled/only-here", 1}};
  const auto derived = derive(config, home, here);
  CHECK(derived[0].value == Approx(6500 * 2));  // sqrt(4 x 1): twice as slow
  CHECK(derived[0].how.find("CPU baseline (2.00)") != std::string::npos);
}

TEST_CASE("calibration: the reference's value of a threshold is the lowest of the timed cases it judged",
          "[calibrate]") {
  const auto rules = grader::calibrate::rules(lab("kmeans"));
  CHECK(std::none_of(rules.begin(), rules.end(), [](const auto& r) { return r.threshold == "home"; }));
  CHECK(grader::calibrate::home_profile(lab("kmeans")) == "h100");
  const auto rule = std::find_if(rules.begin(), rules.end(),
                                 [](const auto& r) { return r.threshold == "exercises.all_gpu.min_speedup_2d"; });
  REQUIRE(rule != rules.end());
  CHECK(rule->metric == "speedup");  // stated: min_speedup_2d's metric is each configuration's speedup
  CHECK(grader::calibrate::rules(lab("matmul-tiled"))[0].metric == "speedup");  // min_speedup -> speedup

  const auto timed = [](const std::string& threshold, double speedup, grader::Outcome outcome) {
    grader::CaseResult c;
    c.exercise = "all_gpu";
    c.kind = "performance";
    c.outcome = outcome;
    c.metrics = {{"speedup", speedup}, {"median_ms", 1.0}};
    c.thresholds = {threshold};
    return c;
  };
  const std::vector<grader::CaseResult> cases = {
      timed("exercises.all_gpu.min_speedup_2d", 30, grader::Outcome::Passed),
      timed("exercises.all_gpu.min_speedup_2d", 25, grader::Outcome::TooSlow),   // still a measurement
      timed("exercises.all_gpu.min_speedup_2d", 5, grader::Outcome::Incorrect),  // not a timing of a right answer
      timed("exercises.all_gpu.min_speedup_16d", 60, grader::Outcome::Passed),
      timed("exercises.all_gpu_privatized.min_speedup_over_all_gpu", 2, grader::Outcome::Passed)};  // fixed
  const auto values = grader::calibrate::reference_values(rules, cases);
  CHECK(values.at("exercises.all_gpu.min_speedup_2d") == 25);
  CHECK(values.at("exercises.all_gpu.min_speedup_16d") == 60);
  CHECK(values.count("exercises.all_gpu_privatized.min_speedup_over_all_gpu") == 0);
  CHECK(values.count("exercises.naive.min_speedup_2d") == 0);  // not timed: no value
  // The thresholds a case was judged by travel through the results file.
  const auto back = grader::case_from_json(grader::to_json(cases[0]));
  CHECK(back.thresholds == cases[0].thresholds);
  CHECK(grader::to_json(grader::CaseResult{}).contains("thresholds") == false);
}

TEST_CASE("machine profiles: written, read back, found for the same machine only", "[calibrate]") {
  namespace fs = std::filesystem;
  using grader::calibrate::Profile;
  const fs::path root = fs::temp_directory_path() / ("workbook-profiles-" + std::to_string(::getpid()));
  fs::remove_all(root);
  Profile p;
  p.machine = {"NVIDIA H100 80GB HBM3", 132, "9.0", "13.0", "13.0", "Intel(R) Xeon(R) Platinum 8480+"};
  CHECK(p.machine.name() == "nvidia-h100-80gb-hbm3-132sm-cuda13-0-intel-r-xeon-r-platinum-8480");
  p.name = "h100";
  p.dir = root / "source" / "grader" / "profiles" / "h100";
  p.calibrated = "2026-11-25T23:00:00Z";
  p.peaks = home_peaks();
  p.labs["matmul-tiled"].reference["exercises.naive.min_speedup"] = 10138;
  p.labs["matmul-tiled"].baseline_ms["matmul-tiled/sequential/1024x1024x1024"] = 4415.5;
  grader::calibrate::save_profile(p);

  const auto back = grader::calibrate::load_profile(p.dir);
  REQUIRE(back);
  CHECK(back->name == "h100");
  CHECK(back->machine.same_as(p.machine));
  CHECK(back->calibrated == p.calibrated);
  const Measurement m = back->of_lab("matmul-tiled");
  CHECK(m.fp32_tflops == 60);
  CHECK(m.h2d_gbs == 12);
  CHECK(m.reference.at("exercises.naive.min_speedup") == 10138);
  CHECK(m.baseline_ms.at("matmul-tiled/sequential/1024x1024x1024") == 4415.5);
  CHECK(back->of_lab("kmeans").reference.empty());

  // Found among the shipped profiles for the same machine (the driver's version aside), not for
  // another GPU, SM count, CUDA version or CPU.
  ::setenv("WORKBOOK_CACHE_DIR", (root / "cache").c_str(), 1);
  auto same = p.machine;
  same.driver = "13.1";
  CHECK(grader::calibrate::find_profile(same, root / "source")->name == "h100");
  std::vector<grader::calibrate::Machine> others(4, p.machine);
  others[0].gpu = "NVIDIA H200";
  others[1].sms = 114;
  others[2].cuda = "12.6";
  others[3].cpu = "AMD EPYC 9654";
  for (const auto& other : others) CHECK_FALSE(grader::calibrate::find_profile(other, root / "source"));
  // This machine's own profile, calibrated here, comes first.
  Profile own = p;
  own.dir = grader::calibrate::local_profiles_dir() / p.machine.name();
  own.labs["matmul-tiled"].reference["exercises.naive.min_speedup"] = 9000;
  grader::calibrate::save_profile(own);
  const auto found = grader::calibrate::find_profile(p.machine, root / "source");
  CHECK(found->name == p.machine.name());
  CHECK(found->of_lab("matmul-tiled").reference.at("exercises.naive.min_speedup") == 9000);
  ::unsetenv("WORKBOOK_CACHE_DIR");
  fs::remove_all(root);
}

TEST_CASE("calibration: a share of the copy bandwidth follows what bounds the kernel, with no CPU in it",
          "[calibrate]") {
  // The H200 beside the H100 (both measured 2026-11-26): the same FP32 rate (63.2 and 62.9
  // TFLOP/s), 1.42x the copy bandwidth (4234 and 2979 GB/s), a CPU twice as slow here.
  // transpose_tiled's bank conflicts bind it to the SMs: 0.59 of the copy on the H100, 0.396 on
  // the H200. transpose_padded is bound by memory: 0.97 on either; naive reaches 0.17.
  const LabConfig config = lab("coalescing");
  Measurement home = home_peaks(), here = home_peaks();
  here.copy_gbs *= 4234.0 / 2979.0;
  here.fp32_tflops *= 63.2 / 62.9;
  home.baseline_ms["coalescing/sequential-transpose/8192x8192"] = 923;
  here.baseline_ms["coalescing/sequential-transpose/8192x8192"] = 1846;
  const auto value_of = [](const std::vector<grader::calibrate::Derived>& derived, const std::string& threshold) {
    const auto it =
        std::find_if(derived.begin(), derived.end(), [&](const auto& d) { return d.threshold == threshold; });
    REQUIRE(it != derived.end());
    INFO(it->how);
    return it->value;
  };
  const auto derived = derive(config, home, here);  // ceilings only: a student's workbook
  const double tiled = value_of(derived, "exercises.transpose_tiled.min_copy_fraction");
  CHECK(tiled == Approx(0.40 * (63.2 / 62.9) / (4234.0 / 2979.0)));
  CHECK(0.396 >= 1.3 * tiled);  // the reference's tiled transpose passes, with room
  CHECK(0.17 < tiled);          // a naive transpose submitted as tiled does not
  const double padded = value_of(derived, "exercises.transpose_padded.min_copy_fraction");
  CHECK(padded == Approx(0.70));  // bound by memory: the same share anywhere
  CHECK(0.396 < padded);          // the tiled transpose submitted as padded fails
  CHECK(value_of(derived, "exercises.add_x_cols.min_copy_fraction") == Approx(0.65));
  // The CPU is in the speedups, not in the shares.
  CHECK(value_of(derived, "exercises.transpose_padded.min_speedup") == Approx(1000 * (4234.0 / 2979.0) * 2));

  // With the reference measured on both machines, a share keeps its margin, like a speedup.
  home.reference["exercises.transpose_tiled.min_copy_fraction"] = 0.59;
  here.reference["exercises.transpose_tiled.min_copy_fraction"] = 0.396;
  CHECK(value_of(derive(config, home, here), "exercises.transpose_tiled.min_copy_fraction") ==
        Approx(0.396 / (0.59 / 0.40)));
}

TEST_CASE("calibration: a derived threshold leaves the reference at least min_margin", "[calibrate]") {
  // kmeans on the H100 host of 2026-11-26: the reference's all_gpu_privatized reached 82.4x on
  // {256,16,16,10} against a shipped 70x, a margin of 1.18 that one noisy run at home left.
  LabConfig config = lab("kmeans");
  CHECK(grader::calibrate::min_margin(config) == Approx(1.3));
  Measurement home = home_peaks(), here = home_peaks();
  home.reference["exercises.all_gpu_privatized.min_speedup_16d"] = 82.4;
  here.reference["exercises.all_gpu_privatized.min_speedup_16d"] = 78.2;  // the H200's
  home.reference["exercises.all_gpu_privatized.min_speedup_2d"] = 165;    // a margin of 2.5 is kept
  here.reference["exercises.all_gpu_privatized.min_speedup_2d"] = 102;
  home.baseline_ms["kmeans/sequential/{256,2,16,10}"] = here.baseline_ms["kmeans/sequential/{256,2,16,10}"] = 9000;
  const auto derived = derive(config, home, here);
  const auto find = [&](const std::string& threshold) {
    return *std::find_if(derived.begin(), derived.end(), [&](const auto& d) { return d.threshold == threshold; });
  };
  const auto thin = find("exercises.all_gpu_privatized.min_speedup_16d");
  CHECK(thin.value == Approx(78.2 / 1.3));
  CHECK(thin.how.find("min_margin (1.30; shipped 1.18)") != std::string::npos);
  CHECK(find("exercises.all_gpu_privatized.min_speedup_2d").value == Approx(102 / (165.0 / 65)));

  config.apply_override("[calibration]\nmin_margin = 0.5\n", "course.toml");
  CHECK_THROWS_AS(grader::calibrate::min_margin(config), grader::ConfigError);
  LabConfig bad = lab("coalescing");
  bad.apply_override(
      "[calibration]\n\"exercises.add_x_cols.min_copy_fraction\" = { bound = \"bandwidth\", over = \"gpu\" }\n",
      "x.toml");
  CHECK_THROWS_AS(grader::calibrate::rules(bad), grader::ConfigError);
}
