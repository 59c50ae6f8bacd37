// `grader release <dir>`: the student workbook, without the solutions (docs/instructor-guide.md,
// "Handing the workbook out").
//
// It copies the working copy's files (git's list of them, or the tree without build folders),
// leaves out what `release-exclude.txt` names (the solutions, and every other file that holds an
// answer or is only the instructor's), writes each lab's starters from its marked solution at
// the course's hint level (release/starter.hpp), and the course's overrides of each lab as
// labs/<lab>/course.toml, which the grader lays over lab.toml wherever the release is used.
#pragma once

#include "tree/labs.hpp"
#include "release/starter.hpp"

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace grader {

struct ReleaseOptions {
  std::filesystem::path out;                    // must not exist, or be empty
  std::optional<std::filesystem::path> course;  // course.toml: [hints], [labs.<lab>]
  std::optional<HintLevel> hints;               // overrides the course's default level
  bool git = false;                             // make `out` a git repository with one commit
};

// Whether `path` (relative to the repository, '/'-separated) is left out by one of the patterns
// (release-exclude.txt's lines: a trailing '/' names a folder and all it holds; otherwise a
// glob, '*' not crossing '/', matched against the path and against each folder above it).
bool excluded(const std::string& path, const std::vector<std::string>& patterns);
// release-exclude.txt's patterns (blank lines and # comments dropped).
std::vector<std::string> read_exclude_patterns(const std::filesystem::path& file);

int cmd_release(const Paths& paths, const ReleaseOptions& options);

}  // namespace grader
