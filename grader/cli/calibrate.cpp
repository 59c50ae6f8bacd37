// grader calibrate [lab...]: this machine measured, its profile written (the thresholds check,
// batch and leaderboard grade with here); --show prints a profile's table.
#include "calibrate/calibrate.hpp"
#include "command.hpp"

#include <memory>

namespace grader::cli {
namespace {

struct CalibrateCommand {
  calibrate::CalibrateOptions calibrate;
  std::string output;
  bool no_build = false;
};

}  // namespace

Command setup_calibrate(CLI::App& app) {
  auto o = std::make_shared<CalibrateCommand>();
  auto* c =
      app.add_subcommand("calibrate",
                         "Measure this machine (GPU ceilings, sequential baselines, the reference solutions) and write "
                         "its profile: the thresholds check, batch and leaderboard grade with here");
  c->add_option("lab", o->calibrate.labs, "Labs (default: every lab)");
  c->add_option("--output", o->output,
                "The profile's folder (default: <cache>/profiles/<machine>; grader/profiles/<name> to ship it)");
  c->add_flag("--no-build", o->no_build, "Do not rebuild the test programs first");
  c->add_flag("--json", o->calibrate.json, "Machine-readable output");
  c->add_option("--show", o->calibrate.show,
                "Print the thresholds a profile gives (a name in grader/profiles/, or a folder), measuring nothing");
  return {c, [o](const Paths& paths) {
            if (!o->output.empty()) o->calibrate.output = std::filesystem::absolute(o->output);
            o->calibrate.build = !o->no_build;
            return calibrate::cmd_calibrate(paths, o->calibrate);
          }};
}

}  // namespace grader::cli
