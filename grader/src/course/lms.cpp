#include "course/lms.hpp"

#include "course/lateness.hpp"
#include "grader/files.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <map>
#include <regex>
#include <stdexcept>

namespace fs = std::filesystem;

namespace grader::course {
namespace {

// One student's entries in an LMS download, before they become a Submission.
struct Uploads {
  std::string name;                                   // as the LMS wrote it
  std::vector<std::pair<std::string, fs::path>> files;  // (file name the student gave, path)
  std::vector<fs::path> folders;                       // Moodle's per-student folders
};

// Canvas renames a resubmitted file "matmul-1.cu", "matmul-2.cu": the name the student gave,
// and the number (0 for none).
std::pair<std::string, int> canvas_original(const std::string& file) {
  static const std::regex numbered(R"(^(.*)-(\d+)(\.[^.]+)$)");
  std::smatch m;
  if (std::regex_match(file, m, numbered)) return {m[1].str() + m[3].str(), std::stoi(m[2].str())};
  return {file, 0};
}

// The Submission of one student: their folder (Moodle), or the wanted files staged under the
// lab's names, or the archive they uploaded when no plain wanted file came.
Submission to_submission(const std::string& id, const Uploads& u, const std::vector<std::string>& wanted,
                         const fs::path& staging, bool canvas_numbers) {
  Submission s;
  s.student = id;
  s.name = u.name;
  if (!u.folders.empty() && u.files.empty()) {
    // A Moodle folder: itself, unless all it holds is one archive.
    std::vector<fs::path> inside;
    for (const auto& e : fs::directory_iterator(u.folders.front()))
      if (e.is_regular_file()) inside.push_back(e.path());
    const auto kind = inside.size() == 1 ? archive_kind(inside[0].filename().string()) : std::nullopt;
    s.path = kind ? inside[0] : u.folders.front();
    s.type = kind ? kind->first : Submission::Type::Folder;
    return s;
  }
  // Plain files the lab wants, the highest resubmission number of each.
  std::map<std::string, std::pair<int, fs::path>> chosen;
  std::vector<fs::path> archives;
  for (const auto& [given, path] : u.files) {
    const auto [original, number] = canvas_numbers ? canvas_original(given) : std::make_pair(given, 0);
    if (std::find(wanted.begin(), wanted.end(), original) != wanted.end()) {
      auto& c = chosen[original];
      if (c.second.empty() || number > c.first) c = {number, path};
    } else if (archive_kind(given)) {
      archives.push_back(path);
    }
  }
  if (chosen.empty() && !archives.empty()) {
    std::sort(archives.begin(), archives.end());
    s.path = archives.back();  // of several, the last by name (Canvas: the highest submission id)
    s.type = archive_kind(s.path.filename().string())->first;
    return s;
  }
  const fs::path dir = staging / id;
  fs::remove_all(dir);
  fs::create_directories(dir);
  for (const auto& [original, c] : chosen) fs::copy_file(c.second, dir / original, fs::copy_options::overwrite_existing);
  s.path = dir;
  s.type = Submission::Type::Folder;
  return s;
}

// Gradescope's times, "2026-12-01 20:00:00.000000000 -05:00" (Ruby's YAML), as RFC 3339.
std::string gradescope_time(const std::string& text) {
  static const std::regex ruby(R"(^(\d{4}-\d\d-\d\d)[ T](\d\d:\d\d:\d\d)(\.\d+)? ?(Z|[+-]\d\d):?(\d\d)?$)");
  std::smatch m;
  if (!std::regex_match(text, m, ruby)) return "";
  const std::string offset = m[4].str() == "Z" ? "Z" : m[4].str() + ":" + (m[5].matched ? m[5].str() : "00");
  const std::string rfc = m[1].str() + "T" + m[2].str() + offset;
  return parse_time(rfc) ? rfc : "";
}

std::vector<Submission> discover_gradescope(const fs::path& folder, std::vector<std::string>* skipped) {
  const fs::path metadata = folder / "submission_metadata.yml";
  if (!fs::exists(metadata))
    throw std::invalid_argument(folder.string() + " has no submission_metadata.yml: not a Gradescope export "
                                "(unzip \"Export Submissions\" and give the folder that holds it)");
  YAML::Node root;
  try {
    root = YAML::LoadFile(metadata.string());
  } catch (const YAML::Exception& e) {
    throw std::invalid_argument(metadata.string() + ": " + e.what());
  }
  std::vector<Submission> all;
  for (const auto& entry : root) {
    const std::string key = entry.first.as<std::string>();
    const YAML::Node sub = entry.second;
    if (!fs::is_directory(folder / key)) {
      if (skipped) skipped->push_back(key + ": in submission_metadata.yml, but no folder of that name");
      continue;
    }
    const std::string at = sub[":created_at"] ? gradescope_time(sub[":created_at"].as<std::string>()) : "";
    if (!sub[":submitters"] || !sub[":submitters"].IsSequence() || sub[":submitters"].size() == 0) {
      if (skipped) skipped->push_back(key + ": no submitters in submission_metadata.yml");
      continue;
    }
    for (const auto& who : sub[":submitters"]) {
      Submission s;
      const auto field = [&](const char* k) { return who[k] ? who[k].as<std::string>() : std::string(); };
      s.student = !field(":sid").empty() ? field(":sid") : field(":email");
      s.name = field(":name");
      s.path = folder / key;
      s.type = Submission::Type::Folder;
      s.submitted_at = at;
      // A folder holding only an archive the student uploaded: the archive.
      std::vector<fs::path> inside;
      for (const auto& e : fs::directory_iterator(s.path))
        if (e.is_regular_file()) inside.push_back(e.path());
      if (const auto kind = inside.size() == 1 ? archive_kind(inside[0].filename().string()) : std::nullopt) {
        s.path = inside[0];
        s.type = kind->first;
      }
      if (s.student.empty()) {
        if (skipped) skipped->push_back(key + ": a submitter with neither :sid: nor :email:");
        continue;
      }
      all.push_back(std::move(s));
    }
  }
  std::sort(all.begin(), all.end(), [](const Submission& a, const Submission& b) { return a.student < b.student; });
  return all;
}

}  // namespace

LmsLayout parse_lms_layout(const std::string& name) {
  if (name == "folders") return LmsLayout::Folders;
  if (name == "canvas") return LmsLayout::Canvas;
  if (name == "moodle") return LmsLayout::Moodle;
  if (name == "gradescope") return LmsLayout::Gradescope;
  throw std::invalid_argument("--from " + name + ": one of folders, canvas, moodle, gradescope");
}

std::vector<Submission> discover_lms(LmsLayout layout, const fs::path& folder, const std::vector<std::string>& wanted,
                                     const fs::path& staging, std::vector<std::string>* skipped) {
  if (layout == LmsLayout::Folders) return discover_submissions(folder, skipped);
  if (layout == LmsLayout::Gradescope) {
    // Its ids are what the course typed into Gradescope: only those usable as file names.
    auto all = discover_gradescope(folder, skipped);
    std::vector<Submission> usable;
    for (auto& s : all) {
      if (valid_student_id(s.student)) usable.push_back(std::move(s));
      else if (skipped) skipped->push_back(s.path.filename().string() + ": '" + s.student + "' is not a usable student id (letters, digits, . _ - @)");
    }
    return usable;
  }
  if (!fs::is_directory(folder)) throw std::runtime_error(folder.string() + " is not a folder of submissions");
  static const std::regex canvas(R"(^(.*?)_(LATE_)?(\d+)_(\d+)_(.+)$)");
  static const std::regex moodle(R"(^(.*)_(\d+)_assignsubmission_(file|onlinetext)_(.*)$)");
  std::map<std::string, Uploads> by_id;
  for (const auto& e : fs::directory_iterator(folder)) {
    const std::string entry = e.path().filename().string();
    if (entry.empty() || entry[0] == '.') continue;
    std::smatch m;
    if (layout == LmsLayout::Canvas && e.is_regular_file() && std::regex_match(entry, m, canvas)) {
      auto& u = by_id[m[3].str()];
      u.name = m[1].str();
      u.files.emplace_back(m[5].str(), e.path());
    } else if (layout == LmsLayout::Moodle && std::regex_match(entry, m, moodle)) {
      if (m[3].str() == "onlinetext") {
        if (skipped) skipped->push_back(entry + ": online text, not a file (the lab grades files)");
        continue;
      }
      auto& u = by_id[m[2].str()];
      u.name = m[1].str();
      if (e.is_directory() && !e.is_symlink()) u.folders.push_back(e.path());
      else if (e.is_regular_file()) u.files.emplace_back(m[4].str(), e.path());
    } else if (skipped) {
      skipped->push_back(entry + (layout == LmsLayout::Canvas
                                      ? ": not named as Canvas names submissions (<name>_<user id>_<submission id>_<file>)"
                                      : ": not named as Moodle names submissions (<Full Name>_<id>_assignsubmission_file_)"));
    }
  }
  std::vector<Submission> all;
  for (const auto& [id, u] : by_id) all.push_back(to_submission(id, u, wanted, staging, layout == LmsLayout::Canvas));
  return all;  // sorted by id: a std::map's order (the ids are the LMS's numbers)
}

}  // namespace grader::course
