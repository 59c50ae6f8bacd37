// Where things are: the labs of this working copy and the build that grades them.
#pragma once

#include "grader/lab_config.hpp"

#include <filesystem>
#include <string>
#include <vector>

namespace grader {

struct Paths {
  std::filesystem::path source_root;  // the repository
  std::filesystem::path build_root;   // the CMake build the grader belongs to
  std::filesystem::path cmake;        // the cmake that configured it
  std::filesystem::path lab_dir(const std::string& lab) const { return source_root / "labs" / lab; }
  std::filesystem::path solution_dir(const std::string& lab) const { return source_root / "solutions" / lab; }
  // Whether this workbook has the lab's reference solution: a student release has no solutions/.
  bool has_reference(const std::string& lab) const { return std::filesystem::is_directory(solution_dir(lab)); }
  std::filesystem::path test_program(const std::string& lab, bool reference) const {
    return build_root / "bin" / ((reference ? "reference-" : "grade-") + lab);
  }
  std::filesystem::path run_dir(const std::string& lab) const { return build_root / "grader-runs" / lab; }
};

Paths default_paths();  // compiled in by CMake; WORKBOOK_SOURCE_ROOT / WORKBOOK_BUILD_ROOT override

// The one line `grader check <lab> --reference` answers where has_reference(lab) is false.
inline std::string no_reference_message(const std::string& lab) {
  return "grader: no reference solution of " + lab + " in this workbook (solutions/" + lab +
         "/ is not here: a student release has none); `grader check " + lab + "` checks your own code";
}

// The labs present in labs/ (a folder with a lab.toml), sorted by name.
std::vector<std::string> available_labs(const Paths& paths);

class UnknownLab : public std::runtime_error {
public:
  UnknownLab(const std::string& name, const std::vector<std::string>& known);
};

// The lab's configuration with the given overrides; throws UnknownLab for a name not in labs/.
LabConfig load_lab(const Paths& paths, const std::string& lab,
                   const std::vector<std::filesystem::path>& overrides = {});

}  // namespace grader
