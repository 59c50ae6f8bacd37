// `grader starters`: the starters in labs/<lab>/ from the marked solutions (starter.hpp).
#pragma once

#include "tree/labs.hpp"
#include "release/starter.hpp"

#include <filesystem>
#include <string>
#include <vector>

namespace grader {

struct StartersOptions {
  std::vector<std::string> labs;  // empty: every lab that has solutions/<lab>/
  bool write = false;             // write labs/<lab>/<file> (else: check that it is up to date)
  HintLevel hints = HintLevel::Full;
};

// One editable file of a lab: its marked solution and the starter it generates.
struct StarterFile {
  std::string lab;
  std::filesystem::path solution;  // solutions/<lab>/<file>
  std::filesystem::path starter;   // labs/<lab>/<file>
};
// The editable files (lab.toml's files) that have a marked solution.
std::vector<StarterFile> starter_files(const Paths& paths, const std::vector<std::string>& labs);

// Checks (exit 0 when every starter is what its solution generates, 1 when one differs, naming
// the file and the first differing line) or writes them (exit 0). Malformed markers: exit 1.
int cmd_starters(const Paths& paths, const StartersOptions& options);

}  // namespace grader
