// `grader check <lab> --sanitize`: the lab's correctness cases under compute-sanitizer, each
// problem shown at its line of the student's file, in plain words.
#include "inspect/inspect.hpp"
#include "inspect/sanitizer_output.hpp"
#include "inspect/tools.hpp"

#include "check/check.hpp"
#include "grader/test_program_env.hpp"
#include "grader/file_lock.hpp"
#include "grader/files.hpp"
#include "grader/lab_config.hpp"
#include "grader/process.hpp"
#include "workbook/device_query.hpp"
#include "workbook/random.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <iostream>
#include <map>

namespace grader::inspect {
namespace fs = std::filesystem;

namespace {

// What each tool looks for, in the words of the report.
const std::map<std::string, std::string>& tool_purpose() {
  static const std::map<std::string, std::string> purpose = {
      {"memcheck", "out-of-bounds and misaligned accesses"},
      {"racecheck", "shared-memory races between threads of a block"},
      {"synccheck", "__syncthreads() not reached by every thread"},
      {"initcheck", "reads of device memory nothing wrote"},
  };
  return purpose;
}

// How many records one tool run prints at most: past it, the counts are lower bounds.
constexpr std::size_t kPrintLimit = 200;

// Options of each tool: backtraces off (the student's line is what matters, and the host frames
// are the grader's), a bound on how many records one run prints.
std::vector<std::string> tool_arguments(const std::string& tool) {
  std::vector<std::string> a = {"--tool", tool, "--show-backtrace", "no", "--print-limit", std::to_string(kPrintLimit)};
  // Padding after each allocation: a write just past the end of one buffer would otherwise land
  // in the next and go unseen.
  if (tool == "memcheck") a.insert(a.end(), {"--padding", "256"});
  return a;
}

constexpr int kShown = 5;  // distinct problems shown per tool; --json has them all

struct ToolRun {
  std::string tool;
  double seconds = 0;
  std::string status;  // "clean", "found", "timed_out", "failed"
  std::string detail;  // for timed_out / failed
  SanitizerOutput output;
  std::vector<Hazard> distinct_hazards;
};

nlohmann::json to_json(const ToolRun& run, const std::vector<fs::path>& sources) {
  nlohmann::json hazards = nlohmann::json::array();
  for (const auto& h : run.distinct_hazards) {
    nlohmann::json places = nlohmann::json::array();
    for (const auto& p : h.places)
      places.push_back({{"function", p.function},
                        {"file", p.file},
                        {"line", p.line},
                        {"access", p.access},
                        {"source", source_line(sources, p)}});
    hazards.push_back({{"heading", h.heading},
                       {"severity", h.severity},
                       {"count", h.count},
                       {"places", places},
                       {"thread", h.thread},
                       {"block", h.block},
                       {"address", h.address},
                       {"explanation", explain(h)},
                       {"lines", h.lines}});
  }
  return {{"tool", run.tool},
          {"purpose", tool_purpose().at(run.tool)},
          {"seconds", run.seconds},
          {"status", run.status},
          {"detail", run.detail},
          {"hazards", hazards},
          {"api_errors", run.output.api_errors},
          {"notes", run.output.notes},
          {"counts_are_lower_bounds", run.output.hazards.size() >= kPrintLimit}};
}

std::string render(const ToolRun& run, const std::vector<fs::path>& sources) {
  std::string out;
  const std::size_t found = run.distinct_hazards.size();
  std::string verdict;
  const std::size_t api = run.output.api_errors.size();
  if (run.status == "timed_out" || run.status == "failed")
    verdict = run.detail;
  else if (found == 0 && api == 0)
    verdict = "nothing found";
  else if (found == 0)
    verdict = fmt::format("{} failed CUDA call{}", api, api == 1 ? "" : "s");
  else
    verdict = fmt::format("{} problem{}", found, found == 1 ? "" : "s");
  out += fmt::format("  {:<10} {:<50} {:>7.1f} s   {}\n", run.tool, tool_purpose().at(run.tool), run.seconds, verdict);
  // The tool stopped listing at kPrintLimit records: a count is then "or more".
  const bool capped = run.output.hazards.size() >= kPrintLimit;
  int shown = 0;
  for (const auto& h : run.distinct_hazards) {
    if (shown == kShown) {
      out += fmt::format("      ... and {} more (--json lists them all)\n", found - kShown);
      break;
    }
    ++shown;
    const std::string at = h.places.empty() ? std::string("(no place named)") : where(h.places.front());
    std::string times = h.count > 1 || capped ? fmt::format(" ({} times{})", h.count, capped ? " or more" : "") : "";
    out += fmt::format("    {}. {}: {}{}\n", shown, at, title(h), times);
    for (const auto& p : h.places) {
      const std::string text = source_line(sources, p);
      if (!text.empty()) out += fmt::format("         {:>4} | {}\n", p.line, text);
    }
    out += fmt::format("       {}\n", explain(h));
  }
  if (found == 0 && !run.output.api_errors.empty())
    for (const auto& e : run.output.api_errors) out += "      " + e + "\n";
  if (found == 0 && run.status == "found" && !run.detail.empty()) out += "      " + run.detail + "\n";
  return out;
}

}  // namespace

std::vector<std::string> default_sanitizer_tools() { return {"memcheck", "racecheck", "synccheck"}; }

fs::path inspect_program(const Paths& paths, const std::string& lab, bool reference) {
  return paths.build_root / "bin" / ((reference ? "inspect-reference-" : "inspect-") + lab);
}

namespace {

// One tool over the program's cases: its records read, and what became of the run
// ("clean", "found", "timed_out", "failed", with why).
ToolRun run_tool(const fs::path& sanitizer, const std::string& tool, const fs::path& program, const std::string& filter,
                 const TestProgramEnv& env, double timeout, const fs::path& run_dir) {
  ToolRun run;
  run.tool = tool;
  ProcessOptions p;
  // The tool's records in a file of their own (--log-file), the program's output in another:
  // on one pipe, a line the program had not finished would break a record's line.
  const fs::path log = run_dir / ("sanitize-" + tool + ".log");
  const fs::path records = run_dir / ("sanitize-" + tool + ".records");
  p.argv = {sanitizer.string(), "--log-file", records.string()};
  for (const auto& a : tool_arguments(tool)) p.argv.push_back(a);
  p.argv.push_back(program.string());
  p.argv.push_back(filter);
  TestProgramEnv run_env = env;
  run_env.fewer_cases = tool == "racecheck";  // grading::fewer_cases()
  p.set_env = test_program_env(run_env);
  p.timeout_s = timeout;
  p.output_file = log;
  const fs::path results = run_dir / "sanitize-results.jsonl";
  fs::remove(results);
  fs::remove(records);
  const ProcessResult r = run_process(p);
  run.seconds = r.seconds;
  const std::string text = read_file(records);
  run.output = parse_sanitizer_output(tool, text);
  run.distinct_hazards = distinct(run.output.hazards);
  const bool spoke = text.find("=========") != std::string::npos;
  const bool internal = std::any_of(run.output.notes.begin(), run.output.notes.end(), [](const std::string& n) {
    return n.find("Internal Sanitizer Error") != std::string::npos;
  });
  // The program's own ending: 0 or 1 (Catch2: some case failed) or 70 (it stopped after a
  // CUDA fault, which the tool's records explain) are normal; anything else is not.
  const bool program_failed = r.signal != 0 || (r.exit_code != 0 && r.exit_code != 1 && r.exit_code != 70);
  const bool cases_ran = !read_file(results).empty();
  const bool found_something = !run.distinct_hazards.empty() || !run.output.api_errors.empty();
  if (r.timed_out) {
    run.status = "timed_out";
    run.detail =
        fmt::format("stopped after {:.0f} s: narrow it with --exercise or --filter (log: {})", timeout, log.string());
  } else if (!spoke || r.failed_to_start || internal) {
    run.status = "failed";
    run.detail = fmt::format("compute-sanitizer did not run the program ({}). Last lines of {}:\n{}", r.describe(),
                             records.string(), tail_of_file(records, 800) + tail_of_file(log, 800));
  } else if (found_something) {
    run.status = "found";
  } else if (run.output.error_summary > 0) {
    // It counted errors that no record here explains: its own words, whole.
    run.status = "found";
    run.detail = fmt::format("{} errors the grader could not read; the tool's words: {}", run.output.error_summary,
                             records.string());
  } else if (program_failed) {
    run.status = "failed";
    run.detail = fmt::format("the program ended abnormally ({}), nothing found before. Last lines of {}:\n{}",
                             r.describe(), log.string(), tail_of_file(log, 800));
  } else if (!cases_ran) {
    run.status = "failed";
    run.detail = fmt::format("no case ran: \"{}\" selects no test of {} (--list-tests shows them)", filter,
                             program.filename().string());
  } else {
    run.status = "clean";
  }
  return run;
}

// The exit status of options that cannot be run (said on stderr); nullopt when they can.
std::optional<int> refused(const Paths& paths, const LabConfig& config, const InspectOptions& o) {
  if (o.reference && !paths.has_reference(o.lab)) {
    std::cerr << no_reference_message(o.lab) << '\n';
    return 64;
  }
  if (!o.exercise.empty() && !config.exercise(o.exercise)) {
    std::cerr << fmt::format("grader: {} has no exercise '{}' (grader list shows them)\n", o.lab, o.exercise);
    return 64;
  }
  return std::nullopt;
}

// The test program's environment under the tools: its sources, the run's override files.
TestProgramEnv sanitize_env(const Paths& paths, const InspectOptions& o, std::uint64_t seed, const fs::path& run_dir,
                            const fs::path& code_dir, double timeout) {
  TestProgramEnv env;
  env.seed = seed;
  env.results = run_dir / "sanitize-results.jsonl";
  env.config = paths.lab_dir(o.lab) / "lab.toml";
  env.source_dir = code_dir;
  env.overrides = override_list(o.overrides);
  env.phase_timeout_s = timeout;
  return env;
}

// The command that runs again the tool that found something (else the first), on the same inputs.
std::string run_again(const std::vector<ToolRun>& runs, const std::vector<std::string>& tools, std::uint64_t seed,
                      const fs::path& sanitizer, const fs::path& program, const std::string& filter) {
  std::string shown_tool = tools.front();
  for (const auto& r : runs)
    if (r.status == "found") {
      shown_tool = r.tool;
      break;
    }
  std::string options;
  for (const auto& a : tool_arguments(shown_tool)) options += a + " ";
  return fmt::format("WORKBOOK_SEED={}{} {} {}{} \"{}\"", seed,
                     shown_tool == "racecheck" ? " WORKBOOK_FEWER_CASES=1" : "", sanitizer.string(), options,
                     program.string(), filter);
}

}  // namespace

int run_sanitize(const Paths& paths, const InspectOptions& o) {
  const LabConfig config = load_lab(paths, o.lab, o.overrides);  // throws for an unknown lab
  if (const auto stop = refused(paths, config, o)) return *stop;
  const std::vector<std::string> tools = o.tools.empty() ? default_sanitizer_tools() : o.tools;
  const Tool sanitizer = find_compute_sanitizer();
  if (sanitizer.path.empty()) {
    std::cerr << "grader: " << sanitizer.missing << '\n';
    return kToolUnavailable;
  }
  // The correctness cases: small, and where a wrong result shows. (Under the tools a program runs
  // 10 to 100 times slower, so the timed cases are left out unless a filter asks for them.)
  const std::string filter = !o.filter.empty()     ? o.filter
                             : !o.exercise.empty() ? "[" + o.exercise + "][correctness]"
                                                   : "[correctness]";
  const std::uint64_t seed = o.seed.value_or(workbook::fresh_seed());
  const fs::path run_dir = paths.run_dir(o.lab);
  fs::create_directories(run_dir);
  const FileLock lock = lock_lab_runs(run_dir, "grader check " + o.lab + " --sanitize");
  const fs::path program = inspect_program(paths, o.lab, o.reference);
  const fs::path code_dir = o.reference ? paths.solution_dir(o.lab) : paths.lab_dir(o.lab);
  std::vector<fs::path> sources;
  for (const auto& f : config.files()) sources.push_back(code_dir / f);

  std::string device;
  if (const auto stop = ready_to_run(paths, config, o, {program}, run_dir, device)) return *stop;
  const double timeout = o.timeout_s > 0 ? o.timeout_s : config.timeout_s();
  const TestProgramEnv env = sanitize_env(paths, o, seed, run_dir, code_dir, timeout);
  if (!o.json)
    std::cout << fmt::format("{}: compute-sanitizer on the cases \"{}\" of {}, seed {}{}\nGPU: {}\n\n", o.lab, filter,
                             o.reference ? "the reference solution" : "your code", seed,
                             std::find(tools.begin(), tools.end(), "racecheck") != tools.end()
                                 ? "\n(racecheck runs each shape once, without the largest: on those it takes minutes)"
                                 : "",
                             device);

  std::vector<ToolRun> runs;
  bool found = false, unfinished = false;
  for (const auto& tool : tools) {
    ToolRun run = run_tool(sanitizer.path, tool, program, filter, env, timeout, run_dir);
    found = found || run.status == "found";
    unfinished = unfinished || run.status == "timed_out" || run.status == "failed";
    if (!o.json) std::cout << render(run, sources) << std::flush;
    runs.push_back(std::move(run));
  }
  if (o.json) {
    nlohmann::json all = nlohmann::json::array();
    for (const auto& r : runs) all.push_back(to_json(r, sources));
    std::cout << nlohmann::json{{"lab", o.lab},
                                {"filter", filter},
                                {"seed", seed},
                                {"program", program.string()},
                                {"tools", all}}
                     .dump(2)
              << std::endl;
  } else {
    std::cout << "\n"
              << (found        ? "Each problem above is at a line of your code: fix the first, then run this again."
                  : unfinished ? "Not every tool finished: nothing can be said of what they did not run."
                               : "compute-sanitizer found nothing in these cases.")
              << "\nRun a tool yourself (the same inputs): "
              << run_again(runs, tools, seed, sanitizer.path, program, filter) << "\n";
  }
  if (unfinished) return 3;
  return found ? 1 : 0;
}

}  // namespace grader::inspect
