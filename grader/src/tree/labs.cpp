#include "tree/labs.hpp"

#include <toml++/toml.h>

#include <algorithm>
#include <cstdint>
#include <utility>
#include <cstdlib>

namespace grader {
namespace fs = std::filesystem;

Paths default_paths() {
  Paths p;
  const char* src = std::getenv("WORKBOOK_SOURCE_ROOT");
  const char* build = std::getenv("WORKBOOK_BUILD_ROOT");
  p.source_root = src && *src ? src : WORKBOOK_SOURCE_ROOT;
  p.build_root = build && *build ? build : WORKBOOK_BUILD_ROOT;
  p.cmake = WORKBOOK_CMAKE_COMMAND;
  return p;
}

std::vector<std::string> available_labs(const Paths& paths) {
  std::vector<std::string> labs;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(paths.source_root / "labs", ec))
    if (entry.is_directory() && fs::exists(entry.path() / "lab.toml")) labs.push_back(entry.path().filename().string());
  // The course's order ([lab] course_order), then by name; a lab without one comes last.
  const auto order = [&](const std::string& lab) {
    try {
      return toml::parse_file((paths.source_root / "labs" / lab / "lab.toml").string())["lab"]["course_order"].value_or(
          std::int64_t{1000});
    } catch (const toml::parse_error&) {
      return std::int64_t{1000};  // load_lab names the problem when the lab is used
    }
  };
  std::vector<std::pair<std::int64_t, std::string>> keyed;
  for (const auto& lab : labs) keyed.emplace_back(order(lab), lab);
  std::sort(keyed.begin(), keyed.end());
  for (std::size_t i = 0; i < labs.size(); ++i) labs[i] = keyed[i].second;
  return labs;
}

namespace {
std::string unknown_message(const std::string& name, const std::vector<std::string>& known) {
  std::string msg = "no lab named '" + name + "'. The labs are:";
  for (const auto& k : known) msg += "\n  " + k;
  if (known.empty()) msg += " (none found: is this a CUDA Workbook working copy?)";
  return msg;
}
}  // namespace

UnknownLab::UnknownLab(const std::string& name, const std::vector<std::string>& known)
    : std::runtime_error(unknown_message(name, known)) {}

LabConfig load_lab(const Paths& paths, const std::string& lab, const std::vector<fs::path>& overrides) {
  const auto known = available_labs(paths);
  if (std::find(known.begin(), known.end(), lab) == known.end()) throw UnknownLab(lab, known);
  return LabConfig::load(paths.lab_dir(lab) / "lab.toml", overrides);
}

}  // namespace grader
