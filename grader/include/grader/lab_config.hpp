// A lab's configuration: labs/<lab>/lab.toml, with any number of override files laid over it
// (a course's points, a GPU model's thresholds). Read at run time: changing a threshold or a
// point value never needs a rebuild.
#pragma once

#include <toml++/toml.h>

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace grader {

class ConfigError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

struct ExerciseConfig {
  std::string name;
  std::string title;
  std::map<std::string, double> points;  // kind ("correctness", "performance", ...) -> points
  double total_points() const;
};

// Instructor-only cases (an override file's [hidden] table, kept out of the students' workbook):
// extra shapes of the correctness cases, in the lab's form ([lab] hidden_shape, e.g. ["M", "N",
// "K"]). Every report names each one "hidden case N", never its inputs.
struct HiddenCases {
  std::vector<std::vector<int>> shapes;
  std::string visibility = "after_published";  // Gradescope: hidden, after_published, visible
};

class LabConfig {
public:
  // Parses lab.toml, then the course's course.toml beside it if there is one (a student release
  // carries its course's settings there: `grader release`), then each override in order; a key in
  // an override replaces the same key below it, tables merge key by key. Throws ConfigError
  // naming the file and line.
  static LabConfig load(const std::filesystem::path& lab_toml,
                        const std::vector<std::filesystem::path>& overrides = {});
  static LabConfig parse(std::string_view text, const std::string& source_name);
  void apply_override(std::string_view text, const std::string& source_name);

  const std::string& name() const { return name_; }
  const std::string& title() const { return title_; }
  const std::vector<std::string>& files() const { return files_; }
  const std::vector<ExerciseConfig>& exercises() const { return exercises_; }
  const ExerciseConfig* exercise(const std::string& name) const;
  double timeout_s() const { return number("lab.timeout_s").value_or(600.0); }
  double total_points() const;

  // Any value by dotted path, e.g. number("exercises.tiled.min_speedup").
  std::optional<double> number(const std::string& path) const;
  double require_number(const std::string& path) const;  // throws ConfigError when absent
  std::vector<int> int_list(const std::string& path) const;
  const toml::table& table() const { return table_; }
  // [hidden] (validated on load: each shape has the lab's form, every value >= 1).
  const HiddenCases& hidden() const { return hidden_; }
  // The Gradescope visibility of every other case: [gradescope] visibility, default "visible".
  const std::string& gradescope_visibility() const { return gradescope_visibility_; }

private:
  void validate(const std::string& source_name);
  toml::table table_;
  std::string name_, title_;
  std::vector<std::string> files_;
  std::vector<ExerciseConfig> exercises_;
  HiddenCases hidden_;
  std::string gradescope_visibility_ = "visible";
};

// Lays `over` onto `base`: tables merge recursively, every other value replaces.
void merge_tables(toml::table& base, const toml::table& over);

}  // namespace grader
