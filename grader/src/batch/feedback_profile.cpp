// --feedback-profile: Nsight Compute's view of a submission's correct but slow exercises,
// beside the reference's.
#include "batch/batch_class.hpp"

namespace grader {
namespace batch_detail {

namespace {

// An exercise whose every other check passed and whose timed cases were too slow.
bool correct_but_slow(const ExerciseReport& e) {
  bool slow = false;
  for (const auto& k : e.kinds)
    for (const auto& c : k.cases) {
      if (c.outcome == Outcome::TooSlow)
        slow = true;
      else if (!c.passed() && k.kind != "performance")
        return false;
    }
  return slow;
}

}  // namespace

const inspect::Profiled* Batch::reference_profile(const std::string& exercise) {
  std::lock_guard<std::mutex> lock(reference_profiles_mutex_);
  if (const auto it = reference_profiles_.find(exercise); it != reference_profiles_.end()) return &it->second;
  const fs::path program = inspect::inspect_program(paths_, config_.name(), true);
  if (!paths_.has_reference(config_.name()) || !fs::exists(program)) return nullptr;
  const fs::path timing = o_.out / "profile-timing.toml";
  write_atomically(timing, inspect::kOneCallPerCase);
  std::string overrides = overrides_env();
  overrides += (overrides.empty() ? "" : ":") + fs::absolute(timing).string();
  // The reference is the project's own code: run as it is, not in the sandbox, the GPU alone.
  const inspect::RunTool direct = [&](const std::vector<std::string>& argv, const fs::path& log) {
    ProcessOptions p;
    p.argv = argv;
    TestProgramEnv env = test_env(paths_.solution_dir(config_.name()));
    env.overrides = overrides;
    p.set_env = test_program_env(env);
    p.output_file = log;
    p.timeout_s = o_.feedback_profile_s;
    p.cancel = &g_interrupted;
    return run_alone(p, "");
  };
  std::vector<std::string> ids = inspect::profile_metric_ids(config_, exercise);
  inspect::Profiled profiled = inspect::profile_kernels(
      ncu_.path, direct, program, inspect::kernels_of(paths_.solution_dir(config_.name()), config_.files()),
      "[" + exercise + "][performance]", ids, o_.out / ("profile-reference-" + exercise + ".csv"));
  return &reference_profiles_.emplace(exercise, std::move(profiled)).first->second;
}

std::string Batch::profile_feedback(Grading& g, const LabReport& report) {
  const fs::path& dir = g.dir;
  std::vector<std::string> slow;
  for (const auto& e : report.exercises)
    if (correct_but_slow(e) && !inspect::profile_metric_ids(config_, e.name).empty()) slow.push_back(e.name);
  if (slow.empty()) return {};
  const auto t0 = std::chrono::steady_clock::now();
  const auto left = [&] {
    return o_.feedback_profile_s - std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  };
  const fs::path src = dir / "src", build = dir / "build", run = dir / "run";
  const std::vector<fs::path> hidden = hidden_from_submission();
  std::vector<fs::path> shown = {src};
  for (const auto& d : shown_objects())
    if (fs::exists(d)) shown.push_back(d);

  // The submission's code with the tests in one process, built in the sandbox like its runner.
  const fs::path log = dir / "inspect-build.log";
  const ProcessResult built =
      template_
          ? build_from_template(g, "inspect", log, std::max(10.0, left()))
          : run_build_step(g, {paths_.cmake.string(), "--build", build.string(), "--target", "inspect", "-j", "2"}, log,
                           std::max(10.0, left()));
  if (!built.ok())
    return fmt::format("Not profiled: the program to profile did not build ({}; {}).\n", built.describe(),
                       log.string());
  fs::create_directories(run);
  const fs::path timing = run / "profile-timing.toml";
  write_atomically(timing, inspect::kOneCallPerCase);
  std::string overrides = overrides_env(g.model);
  overrides += (overrides.empty() ? "" : ":") + timing.string();

  std::string md;
  for (const auto& exercise : slow) {
    const double budget = left();
    if (budget < 10) {
      md += fmt::format("### {}\n\nNot profiled: this submission's profiling time ({:.0f} s) was spent.\n\n", exercise,
                        o_.feedback_profile_s);
      continue;
    }
    // ncu runs the submission's code: in the sandbox, as its tests do, and alone on the GPU.
    const inspect::RunTool sandboxed = [&](const std::vector<std::string>& argv, const fs::path& log) {
      SandboxedRun sr;
      sr.argv = argv;
      sr.run_dir = run;
      sr.readable = {src, build};
      for (const auto& path : o_.overrides) sr.readable.push_back(fs::absolute(path));
      sr.hidden = hidden;
      sr.base = base_folders();
      TestProgramEnv env = test_env(src);
      env.cache_dir = cache_dir();
      env.overrides = overrides;
      sr.env = test_program_env(env);
      sr.log = log;
      sr.timeout_s = budget;
      sr.limits.memory_bytes = o_.memory_bytes;
      sr.limits.max_processes = o_.max_processes;
      sr.limits.output_bytes = 16 << 20;
      ProcessOptions p = sandboxed_process(sandbox_, sr);
      p.cancel = &g_interrupted;
      return run_alone(p, g.model);
    };
    std::vector<std::string> ids = inspect::profile_metric_ids(config_, exercise);
    const inspect::Profiled mine =
        inspect::profile_kernels(ncu_.path, sandboxed, build / "inspect", inspect::kernels_of(src, config_.files()),
                                 "[" + exercise + "][performance]", ids, run / ("profile-" + exercise + ".csv"));
    if (mine.failure.find("ERR_NVGPUCTRPERM") != std::string::npos) {
      if (!profile_refused_.exchange(true))
        std::cerr << "\nfeedback profiles: stopped: " << mine.failure << " (in the sandbox, as the submissions run)\n";
      return {};
    }
    md += inspect::profile_markdown(exercise, ids, mine, mine.failure.empty() ? reference_profile(exercise) : nullptr);
    md += "\n";
  }
  return md;
}

}  // namespace batch_detail
}  // namespace grader
