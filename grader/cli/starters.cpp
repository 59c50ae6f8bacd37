// grader starters [lab...] [--write]: the starters checked (or written) against what the marked
// solutions generate.
#include "command.hpp"
#include "release/starters.hpp"

#include <memory>

namespace grader::cli {

Command setup_starters(CLI::App& app) {
  auto options = std::make_shared<StartersOptions>();
  auto hints = std::make_shared<std::string>("full");
  auto* starters = app.add_subcommand(
      "starters", "Check (or --write) that each lab's starters are what its marked solutions generate");
  starters->add_option("lab", options->labs, "Labs (default: every lab with solutions/<lab>/)");
  starters->add_flag("--write", options->write, "Write labs/<lab>/<file> from solutions/<lab>/<file>");
  starters->add_option("--hints", *hints, "How much of the TODO text: full, brief or none")
      ->check(CLI::IsMember({"full", "brief", "none"}))
      ->capture_default_str();
  return {starters, [options, hints](const Paths& paths) {
            options->hints = *parse_hint_level(*hints);
            return cmd_starters(paths, *options);
          }};
}

}  // namespace grader::cli
