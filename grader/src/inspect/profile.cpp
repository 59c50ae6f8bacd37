// `grader check <lab> --profile`: the student's kernels at the graded size under Nsight Compute,
// the few metrics each exercise teaches (lab.toml's [profile.metrics]) beside the reference
// solution's, each with a one-line reading.
#include "inspect/inspect.hpp"
#include "inspect/ncu_output.hpp"
#include "inspect/tools.hpp"

#include "check.hpp"
#include "grader/file_lock.hpp"
#include "grader/files.hpp"
#include "grader/lab_config.hpp"
#include "grader/process.hpp"
#include "workbook/device_query.hpp"
#include "workbook/random.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <iostream>
#include <set>

namespace grader::inspect {
namespace fs = std::filesystem;

namespace {

constexpr int kLaunches = 12;  // launches profiled per exercise and side: each kernel's first is shown

// lab.toml: [profile.metrics] <exercise> = ["metric", ...] (ids of lab_metrics()).
std::vector<std::string> metrics_of(const LabConfig& config, const std::string& exercise) {
  std::vector<std::string> ids;
  const auto* list = config.table().at_path("profile.metrics." + exercise).as_array();
  if (!list) return ids;
  for (const auto& node : *list)
    if (const auto id = node.value<std::string>()) {
      if (!lab_metrics().count(*id))
        throw ConfigError(fmt::format("{}: [profile.metrics] {} names '{}', which is not a metric the grader knows",
                                      config.name(), exercise, *id));
      ids.push_back(*id);
    }
  if (std::find(ids.begin(), ids.end(), "duration") == ids.end()) ids.insert(ids.begin(), "duration");
  return ids;
}

// lab.toml: [profile.expected.<exercise>] <metric> = [low, high]: what the reference measured,
// shown where solutions/ is not (a student's workbook).
std::optional<std::pair<double, double>> expected_of(const LabConfig& config, const std::string& exercise,
                                                     const std::string& metric) {
  const auto* range = config.table().at_path("profile.expected." + exercise + "." + metric).as_array();
  if (!range || range->size() != 2) return std::nullopt;
  const auto lo = (*range)[0].value<double>(), hi = (*range)[1].value<double>();
  if (!lo || !hi) return std::nullopt;
  return std::pair{*lo, *hi};
}

std::vector<std::string> kernels_of(const fs::path& dir, const std::vector<std::string>& files) {
  std::vector<std::string> names;
  for (const auto& f : files)
    for (const auto& k : kernels_defined_in(read_file(dir / f)))
      if (std::find(names.begin(), names.end(), k) == names.end()) names.push_back(k);
  return names;
}

struct Side {
  std::vector<KernelLaunch> launches;  // the first launch of each kernel, in order
  std::string failure;                 // one line when ncu could not profile
  double seconds = 0;
};

struct Context {
  fs::path ncu;
  fs::path run_dir;
  std::map<std::string, std::string> env;
  double timeout_s;
};

// Runs ncu on one program for one exercise's performance cases. A metric this ncu does not know
// is dropped (with every lab metric that needs it) and the run made again.
Side profile_side(const Context& c, const fs::path& program, const std::vector<std::string>& kernels,
                  const std::string& filter, std::vector<std::string>& metric_ids, const std::string& tag) {
  Side side;
  if (kernels.empty()) {
    side.failure = "no __global__ kernel in the files";
    return side;
  }
  std::string regex = "regex:^(";
  for (std::size_t i = 0; i < kernels.size(); ++i) regex += (i ? "|" : "") + kernels[i];
  regex += ")$";
  for (int attempt = 0; attempt < 6; ++attempt) {
    std::set<std::string> ncu_metrics;
    for (const auto& id : metric_ids)
      for (const auto& m : lab_metrics().at(id).ncu) ncu_metrics.insert(m);
    std::string list;
    for (const auto& m : ncu_metrics) list += (list.empty() ? "" : ",") + m;
    ProcessOptions p;
    p.argv = {c.ncu.string(), "--csv", "--metrics", list, "--kernel-name-base", "function", "--kernel-name", regex,
              "--launch-count", std::to_string(kLaunches), program.string(), filter};
    p.set_env = c.env;
    p.timeout_s = c.timeout_s;
    const fs::path log = c.run_dir / ("profile-" + tag + ".csv");
    p.output_file = log;
    const ProcessResult r = run_process(p);
    side.seconds += r.seconds;
    const std::string text = read_file(log);
    if (const auto unknown = unknown_metric(text)) {
      const auto before = metric_ids.size();
      metric_ids.erase(std::remove_if(metric_ids.begin(), metric_ids.end(),
                                      [&](const std::string& id) {
                                        const auto& needs = lab_metrics().at(id).ncu;
                                        return std::find(needs.begin(), needs.end(), *unknown) != needs.end();
                                      }),
                       metric_ids.end());
      if (metric_ids.size() < before && !metric_ids.empty()) continue;
    }
    if (r.timed_out) {
      side.failure = fmt::format("ncu stopped after {:.0f} s (log: {})", c.timeout_s, log.string());
      return side;
    }
    if (const std::string why = ncu_failure(text); !why.empty()) {
      side.failure = why;
      return side;
    }
    try {
      for (auto& launch : parse_ncu_csv(text)) {
        const bool seen = std::any_of(side.launches.begin(), side.launches.end(),
                                      [&](const KernelLaunch& k) { return k.function == launch.function; });
        if (!seen) side.launches.push_back(std::move(launch));
      }
    } catch (const std::exception&) {
      side.failure = fmt::format("ncu profiled no kernel of these files ({}); last lines of {}:\n{}", r.describe(),
                                 log.string(), tail_of_file(log, 600));
    }
    return side;
  }
  side.failure = "ncu knows none of the metrics";
  return side;
}

std::string shown(const LabMetric& m, const std::optional<double>& v) {
  if (!v) return "-";
  return fmt::format(fmt::runtime(m.format), *v);
}

}  // namespace

int run_profile(const Paths& paths, const InspectOptions& o) {
  const LabConfig config = load_lab(paths, o.lab, o.overrides);
  if (o.reference && !paths.has_reference(o.lab)) {
    std::cerr << no_reference_message(o.lab) << '\n';
    return 64;
  }
  std::vector<std::string> exercises;
  for (const auto& e : config.exercises())
    if ((o.exercise.empty() || e.name == o.exercise) && config.table().at_path("profile.metrics." + e.name))
      exercises.push_back(e.name);
  if (!o.exercise.empty() && exercises.empty()) {
    std::cerr << fmt::format("grader: {} has no exercise '{}' with metrics to profile ([profile.metrics] in its "
                             "lab.toml; grader list shows the exercises)\n", o.lab, o.exercise);
    return 64;
  }
  if (exercises.empty()) {
    std::cerr << "grader: " << o.lab << "'s lab.toml names no metrics to profile ([profile.metrics])\n";
    return 64;
  }
  const Tool ncu = find_ncu();
  if (ncu.path.empty()) {
    std::cerr << "grader: " << ncu.missing << '\n';
    return kToolUnavailable;
  }
  const std::uint64_t seed = o.seed.value_or(workbook::fresh_seed());
  const fs::path run_dir = paths.run_dir(o.lab);
  fs::create_directories(run_dir);
  const FileLock lock = lock_lab_runs(run_dir, "grader check " + o.lab + " --profile");
  const bool beside = !o.reference && paths.has_reference(o.lab);
  const fs::path yours = inspect_program(paths, o.lab, o.reference);
  const fs::path reference = inspect_program(paths, o.lab, true);

  if (const std::string refused = refused_includes(paths, config, o.lab, o.reference); !refused.empty()) {
    std::cerr << refused << '\n';
    return 2;
  }
  if (o.build) {
    if (!o.json) std::cerr << "building " << yours.filename().string() << (beside ? " and the reference's" : "") << " ...\n";
    for (const auto& program : beside ? std::vector{yours, reference} : std::vector{yours})
      if (const auto errors = build_target(paths, program.filename().string(), run_dir / "inspect-build.log")) {
        std::cerr << "does not compile:\n" << *errors << '\n';
        return 2;
      }
  }
  std::string why;
  if (workbook::device_count(&why) == 0) {
    std::cerr << "no CUDA GPU is usable here: " << why << '\n';
    return 4;
  }
  // One timed call per case: the profiler replays each launch for its counters, so more calls
  // add minutes and no information.
  const fs::path once = run_dir / "profile-timing.toml";
  std::ofstream(once) << "# grader check --profile: one timed call per case\n[timing]\nwarmup = 0\nmin_runs = 1\n"
                         "max_runs = 1\nbudget_s = 0.1\n";
  std::string overrides;
  for (const auto& p : o.overrides) overrides += fs::absolute(p).string() + ":";
  overrides += once.string();
  const fs::path code_dir = o.reference ? paths.solution_dir(o.lab) : paths.lab_dir(o.lab);
  Context c{ncu.path, run_dir,
            {{"WORKBOOK_SEED", std::to_string(seed)},
             {"WORKBOOK_RESULTS", (run_dir / "profile-results.jsonl").string()},
             {"WORKBOOK_CONFIG", (paths.lab_dir(o.lab) / "lab.toml").string()},
             {"WORKBOOK_OVERRIDES", overrides},
             {"WORKBOOK_PHASE_TIMEOUT_S", std::to_string(o.timeout_s > 0 ? o.timeout_s : config.timeout_s())}},
            o.timeout_s > 0 ? o.timeout_s : config.timeout_s()};
  const auto your_kernels = kernels_of(code_dir, config.files());
  const auto reference_kernels = beside ? kernels_of(paths.solution_dir(o.lab), config.files()) : std::vector<std::string>{};

  if (!o.json)
    std::cout << fmt::format("{}: Nsight Compute on {} at the graded size, {}seed {}\nGPU: {}\n", o.lab,
                             o.reference ? "the reference solution" : "your kernels",
                             beside ? "beside the reference solution's, " : "", seed, device_line());
  nlohmann::json report = {{"lab", o.lab}, {"seed", seed}, {"exercises", nlohmann::json::array()}};
  bool look = false, failed = false;
  double seconds = 0;
  for (const auto& exercise : exercises) {
    const std::string filter = "[" + exercise + "][performance]";
    std::vector<std::string> ids = metrics_of(config, exercise);
    auto env = c.env;
    c.env["WORKBOOK_SOURCE_DIR"] = code_dir.string();
    const Side mine = profile_side(c, yours, your_kernels, filter, ids, exercise);
    Side theirs;
    if (beside) {
      c.env["WORKBOOK_SOURCE_DIR"] = paths.solution_dir(o.lab).string();
      theirs = profile_side(c, reference, reference_kernels, filter, ids, exercise + "-reference");
    }
    c.env = env;
    seconds += mine.seconds + theirs.seconds;
    const ExerciseConfig* ex = config.exercise(exercise);
    nlohmann::json jx = {{"exercise", exercise}, {"filter", filter}, {"failure", mine.failure},
                         {"reference_failure", theirs.failure}, {"kernels", nlohmann::json::array()}};
    if (!o.json) std::cout << fmt::format("\n{}: {}   (ncu on \"{}\")\n", exercise, ex ? ex->title : "", filter);
    if (!mine.failure.empty()) {
      failed = true;
      if (!o.json) std::cout << "  " << mine.failure << '\n';
    }
    for (std::size_t k = 0; k < mine.launches.size(); ++k) {
      const KernelLaunch& launch = mine.launches[k];
      const KernelLaunch* match = matching_kernel(launch, k, theirs.launches);
      const auto rows = compare_launch(ids, launch, match, [&](const std::string& id) {
        return beside ? std::nullopt : expected_of(config, exercise, id);
      });
      for (const auto& row : rows) look = look || row.look_here;
      nlohmann::json jk = {{"function", launch.function}, {"kernel", launch.kernel}, {"grid", launch.grid},
                           {"block", launch.block}, {"reference_kernel", match ? match->function : ""},
                           {"metrics", nlohmann::json::object()}};
      for (const auto& row : rows) {
        const LabMetric& m = lab_metrics().at(row.id);
        nlohmann::json jm = {{"label", m.label}, {"reading", m.reading}, {"look_here", row.look_here}};
        jm["yours"] = row.yours ? nlohmann::json(*row.yours) : nlohmann::json();
        jm["reference"] = row.reference ? nlohmann::json(*row.reference) : nlohmann::json();
        if (row.expected) jm["expected"] = {row.expected->first, row.expected->second};
        jk["metrics"][row.id] = jm;
      }
      jx["kernels"].push_back(jk);
      if (o.json) continue;
      const std::string other = match ? match->function + " (reference)"
                                      : beside ? "reference" : "expected (reference, H100)";
      std::cout << fmt::format("  {:<40} {:>16}   {:>16}\n", launch.function + " (yours)", "grid " + launch.grid, "");
      std::cout << fmt::format("  {:<40} {:>16}   {:>16}\n", "", "yours", other.substr(0, 28));
      for (const auto& row : rows) {
        const LabMetric& m = lab_metrics().at(row.id);
        std::string theirs_text = row.reference ? shown(m, row.reference)
                                  : row.expected ? shown(m, row.expected->first) + " to " + shown(m, row.expected->second)
                                                 : "-";
        std::cout << fmt::format("    {:<38} {:>16}   {:>16}{}\n", m.label, shown(m, row.yours), theirs_text,
                                 row.look_here ? "   <- look here" : "");
        if (row.look_here || row.id != "duration")
          std::cout << fmt::format("      {}\n", m.reading);
      }
    }
    if (!theirs.failure.empty() && !o.json) std::cout << "  (the reference could not be profiled: " << theirs.failure << ")\n";
    report["exercises"].push_back(jx);
  }
  report["seconds"] = seconds;
  if (o.json) {
    std::cout << report.dump(2) << std::endl;
  } else {
    std::cout << fmt::format("\nProfiled in {:.0f} s. {}\n", seconds,
                             look ? "\"<- look here\": yours is at least 1.5x worse than the reference's there."
                                  : "No metric is far from the reference's.");
    std::cout << "How to read them: docs/student-guide.md, section 7, and the lab's handout.\n";
  }
  if (failed) return 3;
  return look ? 1 : 0;
}

}  // namespace grader::inspect
