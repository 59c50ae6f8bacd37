#include "calibrate/calibrate.hpp"

#include "tree/build_tree.hpp"
#include "calibrate/peaks.hpp"
#include "calibrate/profile.hpp"
#include "calibrate/thresholds.hpp"
#include "grader/test_program_env.hpp"
#include "grader/baseline_cache.hpp"
#include "grader/build_log.hpp"
#include "grader/file_lock.hpp"
#include "grader/files.hpp"
#include "grader/process.hpp"
#include "grader/results.hpp"
#include "workbook/device_query.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <toml++/toml.h>

#include <algorithm>
#include <chrono>
#include <iostream>

namespace grader::calibrate {
namespace fs = std::filesystem;

namespace {

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// lab.toml alone: the shipped values, which the rules derive from (a course.toml beside it and
// an instructor's files are laid over the derived values, not derived from).
LabConfig shipped_config(const Paths& paths, const std::string& lab) {
  const fs::path file = paths.lab_dir(lab) / "lab.toml";
  if (!fs::exists(file)) throw UnknownLab(lab, available_labs(paths));
  return LabConfig::parse(read_file(file), file.string());
}

struct LabRun {
  std::string error;  // empty: measured
  Measurement measured;
  bool reference = false;
  double seconds = 0;
};

// Times the reference solution's performance cases (or, in a workbook without solutions/, only
// the sequential baselines), in the lab's test program with lab.toml's own values.
LabRun measure_lab(const Paths& paths, const std::string& lab, const LabConfig& config, bool build) {
  const auto t0 = Clock::now();
  LabRun out;
  out.reference = paths.has_reference(lab);
  const fs::path program = paths.test_program(lab, out.reference);
  const fs::path dir = paths.run_dir(lab);
  fs::create_directories(dir);
  const FileLock lock = lock_lab_runs(dir, "grader calibrate " + lab);  // not timed beside a check
  if (build) {
    if (!build_in_tree(paths, {program.filename().string()}, dir / "calibrate-build.log")) {
      out.error = "does not build: " + compiler_errors(read_file(dir / "calibrate-build.log"), paths.source_root);
      return out;
    }
  }
  const fs::path results = dir / "calibrate-results.jsonl", log = dir / "calibrate.log";
  fs::remove(results);
  ProcessOptions run;
  run.argv = {program.string(), out.reference ? "[performance]" : "[baseline]"};
  TestProgramEnv env;
  env.results = results;
  env.config = paths.lab_dir(lab) / "lab.toml";
  env.source_dir = out.reference ? paths.solution_dir(lab) : paths.lab_dir(lab);
  env.overrides = "";
  env.lab_alone = true;  // not a course.toml's sizes: home measured lab.toml's
  env.phase_timeout_s = config.timeout_s();
  run.set_env = test_program_env(env);
  run.output_file = log;
  run.timeout_s = config.timeout_s();
  const ProcessResult r = run_process(run);
  out.seconds = seconds_since(t0);
  if (r.timed_out || r.failed_to_start || r.signal != 0 || (r.exit_code != 0 && r.exit_code != 1)) {
    out.error = fmt::format("the {} run {}. Last lines of {}:\n{}", out.reference ? "reference's" : "baselines'",
                            r.describe(), log.string(), tail_of_file(log, 1200));
    return out;
  }
  if (out.reference) out.measured.reference = reference_values(rules(config), read_results(results));
  out.measured.baseline_ms = cached_baselines(lab + "/");
  if (out.measured.baseline_ms.empty()) out.error = "no sequential baseline was measured (see " + log.string() + ")";
  return out;
}

// This lab's thresholds here, or why they cannot be derived.
struct Derivation {
  std::vector<Derived> derived;
  std::string why_not;
};
Derivation derive_here(const Paths& paths, const LabConfig& config, const Profile& here, const std::string& lab) {
  Derivation d;
  const std::string home_name = home_profile(config);
  if (home_name.empty()) {
    d.why_not = "lab.toml names no home machine ([calibration] home)";
    return d;
  }
  const auto home = load_profile(shipped_profiles_dir(paths.source_root) / home_name);
  if (!home) {
    d.why_not = fmt::format(
        "the profile of the machine lab.toml's values were set on (grader/profiles/{}) is not "
        "in this workbook yet",
        home_name);
    return d;
  }
  if (!here.labs.count(lab)) {
    d.why_not = fmt::format("this machine's profile has no measurement of {} (grader calibrate {})", lab, lab);
    return d;
  }
  try {
    d.derived = derive(config, home->of_lab(lab), here.of_lab(lab));
  } catch (const std::invalid_argument& e) {
    d.why_not = e.what();
  }
  return d;
}

std::string fmt_value(double v) { return v >= 100 ? fmt::format("{:.0f}", v) : fmt::format("{:.3g}", v); }

void print_table(const std::string& home, const std::string& here, const Derivation& d, const Measurement& measured) {
  if (!d.why_not.empty()) {
    std::cout << "  thresholds as shipped: " << d.why_not << '\n';
    for (const auto& [threshold, value] : measured.reference)
      std::cout << fmt::format("    {:<52} reference here {}\n", threshold, fmt_value(value));
    return;
  }
  std::cout << fmt::format("  {:<52} {:>10} {:>12} {:>10} {:>7}\n", "threshold", home + " (shipped)", here, "reference",
                           "margin");
  for (const auto& t : d.derived) {
    const std::string ref = t.reference_here ? fmt_value(*t.reference_here) : "-";
    const std::string margin = t.reference_here ? fmt::format("{:.2f}", *t.reference_here / t.value) : "-";
    std::cout << fmt::format("  {:<52} {:>10} {:>12} {:>10} {:>7}\n", t.threshold, fmt_value(t.shipped),
                             fmt_value(t.value), ref, margin);
  }
}

nlohmann::json to_json(const Derivation& d) {
  nlohmann::json j = nlohmann::json::array();
  for (const auto& t : d.derived) {
    nlohmann::json row = {{"threshold", t.threshold}, {"shipped", t.shipped}, {"value", t.value}, {"how", t.how}};
    if (t.reference_here) row["reference_here"] = *t.reference_here;
    j.push_back(row);
  }
  return j;
}

// --show: an existing profile's thresholds, measuring nothing.
int show_profile(const Paths& paths, const CalibrateOptions& o) {
  const std::vector<std::string> labs = o.labs.empty() ? available_labs(paths) : o.labs;
  std::vector<LabConfig> configs;
  for (const auto& lab : labs) configs.push_back(shipped_config(paths, lab));  // an unknown lab: exit 64 first
  const fs::path as_given(*o.show);
  std::optional<Profile> profile;
  for (const fs::path& dir :
       {as_given, shipped_profiles_dir(paths.source_root) / as_given, local_profiles_dir() / as_given})
    if (!profile) profile = load_profile(dir);
  if (!profile) {
    std::cerr << "grader calibrate --show: no profile named " << *o.show << " (looked for profile.toml in " << *o.show
              << ", " << (shipped_profiles_dir(paths.source_root) / as_given).string() << " and "
              << (local_profiles_dir() / as_given).string() << ")\n";
    return 64;
  }
  nlohmann::json lab_json = nlohmann::json::object();
  if (!o.json)
    std::cout << fmt::format("profile {} ({}): {}, calibrated {}\n", profile->name,
                             (profile->dir / "profile.toml").string(), profile->machine.describe(),
                             profile->calibrated);
  for (std::size_t i = 0; i < labs.size(); ++i) {
    const std::string& lab = labs[i];
    const LabConfig& config = configs[i];
    const Derivation d = derive_here(paths, config, *profile, lab);
    if (o.json) {
      lab_json[lab] = {{"thresholds", to_json(d)}};
      if (!d.why_not.empty()) lab_json[lab]["as_shipped_because"] = d.why_not;
      continue;
    }
    std::cout << lab << ":\n";
    print_table(home_profile(config), profile->name, d, profile->of_lab(lab));
  }
  if (o.json)
    std::cout << nlohmann::json{{"profile", profile->name},
                                {"machine", profile->machine.describe()},
                                {"labs", lab_json}}
                     .dump(2)
              << std::endl;
  return 0;
}

}  // namespace

int cmd_calibrate(const Paths& paths, const CalibrateOptions& o) {
  if (o.show) return show_profile(paths, o);
  std::string why;
  if (workbook::device_count(&why) == 0) {
    std::cerr << "grader calibrate: no CUDA GPU is usable here: " << why << '\n';
    return 4;
  }
  std::vector<std::string> labs = o.labs.empty() ? available_labs(paths) : o.labs;
  std::vector<LabConfig> configs;
  for (const auto& lab : labs) configs.push_back(shipped_config(paths, lab));  // an unknown lab: exit 64 first

  const Machine machine = this_machine();
  const fs::path dir = o.output.value_or(local_profiles_dir() / machine.name());
  Profile profile;
  if (auto earlier = load_profile(dir); earlier && earlier->machine.same_as(machine))
    profile = *earlier;  // other labs kept
  profile.dir = dir;
  profile.name = dir.filename().string();
  profile.machine = machine;
  profile.calibrated = now_iso();

  const bool talk = !o.json && !o.quiet;
  if (talk) std::cout << "calibrating " << machine.describe() << '\n';
  auto t0 = Clock::now();
  const Peaks peaks = measure_peaks();
  profile.peaks.fp32_tflops = peaks.fp32_tflops;
  profile.peaks.copy_gbs = peaks.copy_gbs;
  profile.peaks.h2d_gbs = peaks.h2d_gbs;
  if (talk)
    std::cout << fmt::format(
        "GPU ceilings: FP32 {:.1f} TFLOP/s, copy {:.0f} GB/s, host-to-device {:.1f} GB/s ({:.1f} s)\n",
        peaks.fp32_tflops, peaks.copy_gbs, peaks.h2d_gbs, seconds_since(t0));

  nlohmann::json lab_json = nlohmann::json::object();
  int status = 0;
  for (std::size_t i = 0; i < labs.size(); ++i) {
    const std::string& lab = labs[i];
    if (talk)
      std::cout << lab << ": "
                << (paths.has_reference(lab) ? "timing the reference solution" : "timing the sequential baselines")
                << " ..." << std::flush;
    const LabRun run = measure_lab(paths, lab, configs[i], o.build);
    if (talk) std::cout << fmt::format(" {:.0f} s\n", run.seconds);
    if (!run.error.empty()) {
      std::cerr << "grader calibrate: " << lab << ": " << run.error << '\n';
      lab_json[lab] = {{"error", run.error}};
      status = 3;
      continue;
    }
    profile.labs[lab] = run.measured;
    const Derivation d = derive_here(paths, configs[i], profile, lab);
    if (talk) print_table(home_profile(configs[i]), "this machine", d, run.measured);
    lab_json[lab] = {{"seconds", run.seconds}, {"reference_timed", run.reference}, {"thresholds", to_json(d)}};
    if (!d.why_not.empty()) lab_json[lab]["as_shipped_because"] = d.why_not;
  }
  save_profile(profile);
  if (o.json) {
    std::cout << nlohmann::json{{"machine", machine.describe()},
                                {"profile", (dir / "profile.toml").string()},
                                {"peaks",
                                 {{"fp32_tflops", peaks.fp32_tflops},
                                  {"copy_gbs", peaks.copy_gbs},
                                  {"h2d_gbs", peaks.h2d_gbs}}},
                                {"labs", lab_json}}
                     .dump(2)
              << std::endl;
  } else if (talk) {
    std::cout << "profile: " << (dir / "profile.toml").string()
              << " (check, batch and leaderboard use it on this machine)\n";
  }
  return status;
}

Applied apply_profile(const Paths& paths, const std::string& lab, int device) {
  Applied a;
  if (workbook::device_count() == 0) return a;  // the run will say: no GPU
  const LabConfig config = shipped_config(paths, lab);
  if (rules(config).empty()) return a;
  const std::string home = home_profile(config);
  a.derivable = !home.empty() && load_profile(shipped_profiles_dir(paths.source_root) / home).has_value();
  const Machine machine = this_machine(device);
  const auto profile = find_profile(machine, paths.source_root);
  if (!profile) {
    a.note = fmt::format("as shipped in lab.toml (set on {}); no profile of this machine yet (grader calibrate)", home);
    return a;
  }
  a.measured = profile->labs.count(lab) > 0;
  const Derivation d = derive_here(paths, config, *profile, lab);
  if (!d.why_not.empty()) {
    a.note = "as shipped in lab.toml: " + d.why_not;
    return a;
  }
  // A course's own values (course.toml beside lab.toml, laid over it by LabConfig::load) win:
  // the derived file, laid after it, leaves out what it sets.
  std::vector<Derived> kept;
  const fs::path course = paths.lab_dir(lab) / "course.toml";
  toml::table course_values;
  if (fs::exists(course)) {
    try {
      course_values = toml::parse(read_file(course), course.string());
    } catch (const toml::parse_error& e) {
      throw ConfigError(course.string() + ": " + std::string(e.description()));
    }
  }
  for (const auto& t : d.derived)
    if (!course_values.at_path(t.threshold)) kept.push_back(t);
  const fs::path file = local_profiles_dir() / machine.name() / "thresholds" / (lab + ".toml");
  fs::create_directories(file.parent_path());
  write_atomically(file,
                   "# Thresholds derived for this machine by grader calibrate's rules (lab.toml [calibration])\n" +
                       override_toml(kept));
  a.override_file = file;
  a.note = fmt::format("derived for this machine from profile {} (calibrated {}), by lab.toml's [calibration] rules",
                       profile->name, profile->calibrated.substr(0, 10));
  return a;
}

}  // namespace grader::calibrate
