// grader: the CUDA Workbook's command line.
//
//   grader list                      the labs, their exercises and points, in the course's order
//   grader device                    what the GPU is (like the CUDA samples' deviceQuery)
//   grader check <lab>               rebuild your code for <lab>, test it, report
//   grader check <lab> --sanitize    why is it wrong: compute-sanitizer, problems at their lines
//   grader check <lab> --profile     why is it slow: Nsight Compute, beside the reference
//   grader batch <lab> <dir> -o <out> grade a folder of submissions (instructors)
//   grader leaderboard <lab> <dir> -o <out>   rank them by speed (contests)
//   grader starters [lab...] [--write]   the starters, generated from the marked solutions
//   grader release <dir>             the student workbook, without the solutions
//   grader calibrate [lab...]        measure this machine: the thresholds it grades with
//
// Each subcommand is a file of this folder (command.hpp). Exit status: 0 all passed; 1 some
// check failed; 2 the code does not compile; 3 the tests crashed or timed out; 4 no GPU; 64 a
// usage error (unknown lab, bad option).
#include "command.hpp"

#include "grader/lab_config.hpp"

#include <iostream>
#include <stdexcept>

namespace {

constexpr const char* kFooter =
    "Exit status of check: 0 all passed, 1 some check failed, 2 does not compile, 3 crashed or timed\n"
    "out, 4 no GPU, 64 usage error. Of batch and leaderboard: 0 every submission graded (whatever\n"
    "their grades), 3 the grader could not go on, 4 no GPU (leaderboard), 64 usage error, 130\n"
    "interrupted (run it again to resume). Of calibrate: 0 done, 3 a lab could not be measured, 4 no GPU.\n"
    "Of check --sanitize and --profile: 0 nothing found, 1 problems found, 2 does not compile, 3 a tool\n"
    "run did not finish, 4 no GPU, 5 the tool is missing or not permitted.\n"
    "Docs: docs/student-guide.md, docs/instructor-guide.md";

// Runs the parsed subcommand; an error becomes its exit status and one line.
int run(const grader::cli::Run& command) try {
  return command(grader::default_paths());
} catch (const grader::UnknownLab& e) {
  std::cerr << "grader: " << e.what() << '\n';
  return grader::cli::kUsageError;
} catch (const grader::ConfigError& e) {
  std::cerr << "grader: configuration error: " << e.what() << '\n';
  return grader::cli::kUsageError;
} catch (const std::invalid_argument& e) {
  std::cerr << "grader: " << e.what() << '\n';
  return grader::cli::kUsageError;
} catch (const std::exception& e) {
  std::cerr << "grader: " << e.what() << '\n';
  return 3;
}

}  // namespace

int main(int argc, char** argv) {
  namespace cli = grader::cli;
  CLI::App app{"CUDA Workbook grader: checks your lab kernels for correctness and speed"};
  app.require_subcommand(1);
  app.footer(kFooter);
  const cli::Command commands[] = {cli::setup_list(app),    cli::setup_device(app),      cli::setup_check(app),
                                   cli::setup_batch(app),   cli::setup_leaderboard(app), cli::setup_starters(app),
                                   cli::setup_release(app), cli::setup_calibrate(app)};
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return cli::kUsageError;
  }
  for (const auto& command : commands)
    if (command.app->parsed()) return run(command.run);
  return cli::kUsageError;
}
