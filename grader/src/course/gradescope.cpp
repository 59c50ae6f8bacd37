#include "course/gradescope.hpp"

#include "course/lateness.hpp"
#include "grader/student_id.hpp"
#include "grader/utf8.hpp"

#include <yaml-cpp/yaml.h>

#include <charconv>
#include <regex>
#include <set>
#include <stdexcept>

namespace fs = std::filesystem;

namespace grader::course {
namespace {

// A name of one folder inside the export: no separator, no "." or "..", nothing hidden.
bool plain_folder_name(const std::string& key) {
  return !key.empty() && key[0] != '.' && key.find_first_of(std::string("/\\:\0", 4)) == std::string::npos;
}

std::int64_t submission_number(const std::string& key) {
  const auto digits = key.find_first_of("0123456789");
  std::int64_t n = -1;
  if (digits == std::string::npos) return -1;
  const auto [end, ec] = std::from_chars(key.data() + digits, key.data() + key.size(), n);
  return ec == std::errc() && end == key.data() + key.size() ? n : -1;
}

// A scalar field as text ("" when absent); a map or a list where text belongs is refused.
std::string text(const YAML::Node& node, const char* key, const std::string& where) {
  const YAML::Node v = node[key];
  if (!v || v.IsNull()) return "";
  if (!v.IsScalar()) throw std::invalid_argument(where + ": " + key + ": not a text value");
  return to_valid_utf8(v.Scalar());
}

// The folder itself, or the one archive it holds (what the student uploaded).
void take_contents(Submission& s) {
  std::vector<fs::path> inside;
  for (const auto& e : fs::directory_iterator(s.path))
    if (e.is_regular_file() && !e.is_symlink()) inside.push_back(e.path());
  if (const auto kind = inside.size() == 1 ? archive_kind(inside[0].filename().string()) : std::nullopt) {
    s.path = inside[0];
    s.type = kind->first;
  }
}

// The submitter's id: :sid:, else :email:, else one derived from :sid: or :name:.
bool name_submitter(Submission& s, const std::string& sid, const std::string& email) {
  if (valid_student_id(sid)) {
    s.student = sid;
    return true;
  }
  const std::string why = sid.empty() ? "no :sid:" : "its :sid: '" + sid + "' is no usable id";
  if (valid_student_id(email)) {
    s.student = email;
    if (!sid.empty()) s.notes.push_back("Gradescope: " + why + ": graded as " + email + " (the :email:)");
    return true;
  }
  const std::string from = !sid.empty() ? sid : !email.empty() ? email : s.name;
  if (from.empty()) return false;
  s.student = derive_student_id(from);
  s.derived_id = true;
  s.notes.push_back("Gradescope: " + why + ": graded as " + s.student);
  return true;
}

YAML::Node load_metadata(const fs::path& folder, const fs::path& metadata) {
  if (!fs::exists(metadata))
    throw std::invalid_argument(folder.string() +
                                " has no submission_metadata.yml: not a Gradescope export "
                                "(unzip \"Export Submissions\" and give the folder that holds it)");
  YAML::Node root;
  try {
    root = YAML::LoadFile(metadata.string());
  } catch (const YAML::Exception& e) {
    throw std::invalid_argument(metadata.string() + ": " + e.what());
  }
  if (!root.IsMap() || root.size() == 0)
    throw std::invalid_argument(metadata.string() +
                                ": lists no submission (empty, or not Gradescope's map of "
                                "submission_<n>: ...): export the submissions again");
  return root;
}

}  // namespace

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
  const YAML::Node root = load_metadata(folder, metadata);
  const auto skip = [&](const std::string& why) {
    if (skipped) skipped->push_back(why);
  };
  std::vector<Submission> all;
  std::set<std::string> listed;
  for (const auto& entry : root) {
    if (!entry.first.IsScalar()) throw std::invalid_argument(metadata.string() + ": a key that is not a folder's name");
    const std::string key = to_valid_utf8(entry.first.Scalar());
    const std::string where = metadata.string() + ": " + key;
    listed.insert(key);
    const YAML::Node sub = entry.second;
    std::error_code ec;
    if (!plain_folder_name(key)) {
      skip(key + ": in submission_metadata.yml, but not the name of a folder inside the export: refused");
      continue;
    }
    if (!fs::is_directory(folder / key, ec) || fs::is_symlink(folder / key, ec)) {
      skip(key + ": in submission_metadata.yml, but no folder of that name");
      continue;
    }
    if (!sub.IsMap()) throw std::invalid_argument(where + ": not a map of :submitters: and :created_at:");
    const std::string created = text(sub, ":created_at", where);
    const std::string at = gradescope_time(created);
    if (!created.empty() && at.empty())
      throw std::invalid_argument(where + ": :created_at: '" + created +
                                  "' is not a time as Gradescope writes one (2026-12-01 20:00:00.000000000 -05:00)");
    const YAML::Node submitters = sub[":submitters"];
    if (!submitters || !submitters.IsSequence() || submitters.size() == 0) {
      skip(key + ": no submitters in submission_metadata.yml: not graded");
      continue;
    }
    for (const auto& who : submitters) {
      if (!who.IsMap()) throw std::invalid_argument(where + ": :submitters: holds something other than a submitter");
      Submission s;
      s.name = text(who, ":name", where);
      s.path = folder / key;
      s.entry = key;
      s.type = Submission::Type::Folder;
      s.submitted_at = at;
      s.lms_order = submission_number(key);
      if (!name_submitter(s, text(who, ":sid", where), text(who, ":email", where))) {
        skip(key + ": a submitter with neither :sid:, :email: nor :name:: not graded");
        continue;
      }
      take_contents(s);
      all.push_back(std::move(s));
    }
  }
  for (const auto& e : fs::directory_iterator(folder)) {
    const std::string name = decode_file_name(e.path().filename().string());
    std::error_code ec;
    if (e.is_directory(ec) && !listed.count(name) && name[0] != '.')
      skip(name + ": a submission folder that submission_metadata.yml does not list: not graded (whose is it?)");
  }
  return all;
}

}  // namespace grader::course
