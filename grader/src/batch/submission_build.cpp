// A submission built: by the batch's build template (configured once), or by a CMake configure
// of its own, in the sandbox.
#include "batch/batch_class.hpp"

namespace grader {
namespace batch_detail {

// 2. Build them in their own folder against this build's tests: the batch's template's commands
// (batch/build_template.hpp), or where there is none a configure of its own.
bool Batch::build(Grading& g) {
  const auto t0 = clock::now();
  fs::create_directories(g.build);
  ProcessResult built;
  bool configured = true;
  if (template_) {
    built = build_from_template(g, "runner-or-program", g.dir / "compile.log");
  } else {
    const auto c0 = clock::now();
    built = run_build_step(g, configure_argv(g), g.dir / "build.log");
    g.times.configure_s = seconds_since(c0);
    configured = built.ok();
    if (configured)
      built = run_build_step(g, {paths_.cmake.string(), "--build", g.build.string(), "-j", "2"}, g.dir / "compile.log");
  }
  if (built.ok() && o_.build_only && o_.feedback_profile) build_inspect(g);
  g.times.build_s = seconds_since(t0);
  if (g_interrupted) throw std::runtime_error("interrupted");
  if (built.ok()) return true;
  if (configured) {
    const std::string errors = compiler_errors(read_file(g.dir / "compile.log"), g.src);
    finish(g, "build failed", errors, {RunState::BuildFailed, errors});
  } else {
    const std::string why =
        "configuring the build failed (" + built.describe() + "):\n" + tail_of_file(g.dir / "build.log", 2000);
    finish(g, "grader error", why, {RunState::BuildFailed, why});
  }
  return false;
}

// --build-only --feedback-profile: the program Nsight Compute will profile, built now too (a later
// run on a GPU finds it; a machine without one shows that it builds).
void Batch::build_inspect(Grading& g) {
  const fs::path log = g.dir / "inspect-build.log";
  const ProcessResult built =
      template_ ? build_from_template(g, "inspect", log)
                : run_build_step(
                      g, {paths_.cmake.string(), "--build", g.build.string(), "--target", "inspect", "-j", "2"}, log);
  if (!built.ok())
    g.r.notes.push_back("the program to profile (--feedback-profile) did not build (" + built.describe() + "; " +
                        log.string() + ")");
}

std::vector<std::string> Batch::configure_argv(const Grading& g) const {
  std::vector<std::string> argv = {paths_.cmake.string(),
                                   "-S",
                                   (paths_.source_root / "grader" / "batch").string(),
                                   "-B",
                                   g.build.string(),
                                   "-DSUBMISSION_DIR=" + g.src.string()};
  for (auto& a : configure_args()) argv.push_back(std::move(a));
  return argv;
}

std::vector<std::string> Batch::configure_args() const {
  std::string sources;
  for (const auto& f : config_.files()) sources += (sources.empty() ? "" : ";") + f;
  std::vector<std::string> args = {"-G", "Ninja", "-DWORKBOOK_BUILD_ROOT=" + paths_.build_root.string(),
                                   "-DLAB=" + config_.name(), "-DSOURCES=" + sources};
  // Device code for this machine's GPUs only: it is where the submission runs, and one
  // architecture compiles several times faster than the build's portable list. Without a GPU
  // (nothing will run), the first architecture of the build's list.
  if (!device_.empty())
    args.push_back("-DCMAKE_CUDA_ARCHITECTURES=native");
  else if (!first_architecture_.empty())
    args.push_back("-DCMAKE_CUDA_ARCHITECTURES=" + first_architecture_);
  return args;
}

// A build step in the sandbox: the compiler reads only what any submission could see, never
// another student's work, and writes only the build folder.
ProcessResult Batch::run_build_step(const Grading& g, const std::vector<std::string>& argv, const fs::path& log,
                                    double timeout_s) const {
  std::vector<fs::path> shown = {g.src};
  for (const auto& d : shown_objects())
    if (fs::exists(d)) shown.push_back(d);
  ProcessOptions p;
  p.argv = sandbox_.wrap(argv, {g.build}, hidden_from_submission(), shown, base_folders());
  p.output_file = log;
  p.timeout_s = timeout_s > 0 ? timeout_s : o_.build_timeout_s;
  p.cancel = &g_interrupted;
  p.limits.output_bytes = 1 << 20;
  p.cwd = g.build;
  return run_process(p);
}

// `target`: "runner-or-program" is what the batch project builds by default (the runner, or the
// submission's own test program); else a target's name ("inspect").
ProcessResult Batch::build_from_template(const Grading& g, const std::string& target, const fs::path& log,
                                         double timeout_s) {
  std::string why;
  const std::string name = target != "runner-or-program" ? target : template_target_;
  const auto recipe = template_->recipe(name, g.src, g.build, &why);
  if (!recipe) {
    ProcessResult failed;
    failed.failed_to_start = true;
    failed.start_error = why;
    write_atomically(log, "grader batch could not build from its template: " + why + "\n");
    return failed;
  }
  for (const auto& [from, to] : recipe->copies) {
    fs::create_directories((g.build / to).parent_path());
    fs::copy_file(from, g.build / to, fs::copy_options::overwrite_existing);
  }
  write_atomically(g.build / ("build-" + name + ".sh"), recipe->script);
  return run_build_step(g, {"/bin/sh", (g.build / ("build-" + name + ".sh")).string()}, log, timeout_s);
}

// The template proves itself on the starter (which builds as shipped) before any submission uses
// it: a toolchain whose commands do not survive being run outside Ninja (a response file Ninja
// writes only while it builds, say) falls back to CMake's own build per submission, instead of
// failing every student's link.
bool Batch::template_builds_starter(const fs::path& dir, std::string* why) {
  Submission starter;
  starter.student = "(the starter)";
  Grading g{starter};
  g.dir = dir;
  g.src = dir / "src";
  g.build = dir / "starter-build";
  fs::remove_all(g.build);
  fs::create_directories(g.build);
  // As a submission is built: in the sandbox, with its view.
  const ProcessResult built = build_from_template(g, "runner-or-program", dir / "starter-build.log");
  if (built.ok()) return true;
  *why = "its commands did not build the starter here (" + built.describe() + "; " +
         (dir / "starter-build.log").string() + "):\n" + tail_of_file(dir / "starter-build.log", 1500);
  return false;
}

void Batch::prepare_template() {
  if (o_.configure_each) return;
  // The commands are rewritten by path and their outputs' folders made by a shell: a results
  // folder whose path a shell would split or expand gets CMake's own build per submission.
  const std::string out = fs::absolute(o_.out).string();
  if (out.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789/._+@-") !=
      std::string::npos) {
    std::cerr << "build: a CMake configure per submission (the results folder's path " << out
              << " holds a character a shell command would need quoted)\n";
    return;
  }
  const auto t0 = clock::now();
  BuildTemplate::Options t;
  t.cmake = paths_.cmake;
  t.project = paths_.source_root / "grader" / "batch";
  const std::string suffix = o_.task() ? "-" + o_.task_name : "";
  t.dir = fs::absolute(o_.out) / ("build-template" + suffix);
  t.log = fs::absolute(o_.out) / ("build-template" + suffix + ".log");
  t.configure_args = configure_args();
  for (const auto& f : config_.files()) t.files[f] = read_file(paths_.lab_dir(config_.name()) / f);
  std::string why;
  template_ = BuildTemplate::configure(t, &why);
  for (const char* target : {"runner", "grade-submission"})
    if (template_ && template_target_.empty() && template_->recipe(target, t.dir / "src", t.dir / "probe", nullptr))
      template_target_ = target;
  if (template_ && template_target_.empty()) {
    template_.reset();
    why = "the batch project has neither a runner nor a grade-submission target";
  }
  if (template_ && !template_builds_starter(t.dir, &why)) template_.reset();
  if (template_)
    std::cerr << fmt::format(
        "build: configured once for the batch in {:.1f} s ({}), each submission compiled and "
        "linked by its commands\n",
        seconds_since(t0), t.dir.string());
  else
    std::cerr << "build: a CMake configure per submission (" << why << ")\n";
}

void Batch::read_first_architecture() {
  // set(CMAKE_CUDA_ARCHITECTURES "75-real;80-real;...") in the build's batch settings
  const std::string settings = read_file(paths_.build_root / "batch" / "WorkbookBatchSettings.cmake");
  const auto at = settings.find("set(CMAKE_CUDA_ARCHITECTURES \"");
  if (at != std::string::npos) {
    const auto start = at + std::string("set(CMAKE_CUDA_ARCHITECTURES \"").size();
    first_architecture_ = settings.substr(start, settings.find_first_of(";\"", start) - start);
  }
}

}  // namespace batch_detail
}  // namespace grader
