// grader release <dir>: the student workbook, without the solutions.
#include "command.hpp"
#include "release/release.hpp"
#include "release/starters.hpp"

#include <memory>

namespace grader::cli {

Command setup_release(CLI::App& app) {
  auto options = std::make_shared<ReleaseOptions>();
  auto hints = std::make_shared<std::string>();
  auto* release = app.add_subcommand("release", "Write the student workbook (no solutions) into a new folder");
  release->add_option("dir", options->out, "The folder to write (new, or empty)")->required();
  release->add_option("--config", options->course, "The course's config: [hints] per lab, [labs.<lab>] overrides")
      ->check(CLI::ExistingFile);
  release->add_option("--hints", *hints, "One hint level for every lab: full, brief or none")
      ->check(CLI::IsMember({"full", "brief", "none"}));
  release->add_flag("--git", options->git, "Make the folder a git repository with one commit");
  return {release, [options, hints](const Paths& paths) {
            if (!hints->empty()) options->hints = parse_hint_level(*hints);
            return cmd_release(paths, *options);
          }};
}

}  // namespace grader::cli
