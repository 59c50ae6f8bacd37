#include "course/lms.hpp"

#include "course/duplicates.hpp"
#include "course/gradescope.hpp"
#include "grader/files.hpp"
#include "grader/student_id.hpp"
#include "grader/utf8.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <map>
#include <regex>
#include <stdexcept>

namespace fs = std::filesystem;

namespace grader::course {
namespace {

// One file of a student's in an LMS download.
struct Upload {
  std::string given;  // the file name the student gave (Canvas: with its "-1")
  fs::path path;
  std::int64_t order = -1;  // Canvas's file id: the later upload has the higher (saturated)
  std::string file_id;      // its digits, no leading zeros: compared whole, however long
};

// Whether Canvas file id `a` is later than `b` (digit strings without leading zeros).
bool later_file_id(const std::string& a, const std::string& b) {
  return a.size() != b.size() ? a.size() > b.size() : a > b;
}

std::string file_id_digits(const std::string& digits) {
  const auto first = digits.find_first_not_of('0');
  return first == std::string::npos ? "0" : digits.substr(first);
}

// One student's entries in an LMS download, before they become Submissions.
struct Uploads {
  std::string name;  // as the LMS wrote it
  std::vector<Upload> files;
  std::vector<fs::path> folders;   // Moodle's per-student folders
  std::vector<std::string> links;  // the student's entries that are links (not followed)
};

std::int64_t number(const std::string& digits) {
  std::int64_t n = -1;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), n);
  if (ec == std::errc::result_out_of_range) return INT64_MAX;  // more digits than any id: the newest
  return ec == std::errc() && end == digits.data() + digits.size() ? n : -1;
}

// Canvas renames a resubmitted file "matmul-1.cu", "matmul-2.cu": the name the student gave,
// and the number (0 for none). A number too long for one ("screenshot-1764633540123.png") is
// part of the name.
std::pair<std::string, std::int64_t> canvas_original(const std::string& file) {
  static const std::regex numbered(R"(^(.*)-(\d{1,9})(\.[^.]+)$)");
  std::smatch m;
  if (std::regex_match(file, m, numbered)) return {m[1].str() + m[3].str(), number(m[2].str())};
  return {file, 0};
}

// A candidate for a student's submission: a plain file the lab wants, or an archive holding one.
struct Candidate {
  const Upload* upload;
  std::string wanted;  // the lab's file it is ("" for an archive)
  std::int64_t resubmission = 0;
  bool newer_than(const Candidate& o) const {
    return upload->file_id != o.upload->file_id ? later_file_id(upload->file_id, o.upload->file_id)
                                                : resubmission > o.resubmission;
  }
};

std::string ignored_note(const Candidate& taken, const std::vector<Candidate>& all, const std::string& what) {
  std::string ignored;
  for (const auto& c : all)
    if (c.upload != taken.upload && (what.empty() || c.wanted == what || c.wanted.empty()))
      ignored += (ignored.empty() ? "" : ", ") + to_valid_utf8(c.upload->path.filename().string());
  if (ignored.empty()) return "";
  return fmt::format("took {} (the newest upload: Canvas file {}{}), ignored {}",
                     to_valid_utf8(taken.upload->path.filename().string()), taken.upload->file_id,
                     taken.resubmission ? fmt::format(", resubmission {}", taken.resubmission) : "", ignored);
}

// Two uploads that nothing orders (one Canvas file id and resubmission number: two downloads
// merged, a file renamed): nothing is guessed, as for two entries of any layout.
void refuse_tie(const std::string& id, const std::vector<Candidate>& all,
                std::vector<Candidate>::const_iterator newest) {
  if (newest == all.end()) return;
  for (const auto& c : all)
    if (&c != &*newest && !newest->newer_than(c) &&
        (c.wanted == newest->wanted || c.wanted.empty() || newest->wanted.empty()))
      throw DuplicateEntries(fmt::format(
          "two uploads of student '{}' with one Canvas file id ({}): {} and {}, and nothing tells which is newer. "
          "Remove the one not to grade",
          id, newest->upload->file_id, to_valid_utf8(newest->upload->path.filename().string()),
          to_valid_utf8(c.upload->path.filename().string())));
}

// A Canvas student's submission: of the uploads that hold the lab's files, the newest; the
// newest of each file when those are plain files, staged under the lab's names.
Submission canvas_submission(const std::string& id, const Uploads& u, const std::vector<std::string>& wanted,
                             const fs::path& staging) {
  Submission s;
  s.student = id;
  s.name = u.name;
  s.entry = id;
  std::vector<Candidate> all;
  for (const auto& f : u.files) {
    const auto [original, resubmission] = canvas_original(f.given);
    if (std::find(wanted.begin(), wanted.end(), original) != wanted.end())
      all.push_back({&f, original, resubmission});
    else if (const auto kind = archive_kind(f.given); kind && archive_names_wanted(f.path, kind->first, wanted))
      all.push_back({&f, "", 0});
  }
  const auto newest =
      std::max_element(all.begin(), all.end(), [](const Candidate& a, const Candidate& b) { return b.newer_than(a); });
  refuse_tie(id, all, newest);
  if (newest != all.end() && newest->wanted.empty()) {  // an archive, uploaded last
    s.path = newest->upload->path;
    s.type = archive_kind(s.path.filename().string())->first;
    s.lms_order = newest->upload->order;
    if (const auto note = ignored_note(*newest, all, ""); !note.empty()) s.notes.push_back(note);
    return s;
  }
  const fs::path dir = staging / id;
  fs::remove_all(dir);
  fs::create_directories(dir);
  for (const auto& name : wanted) {
    const Candidate* best = nullptr;
    for (const auto& c : all)
      if (c.wanted == name && (!best || c.newer_than(*best))) best = &c;
    if (!best) continue;
    fs::copy_file(best->upload->path, dir / name, fs::copy_options::overwrite_existing);
    s.lms_order = std::max(s.lms_order, best->upload->order);
    if (const auto note = ignored_note(*best, all, name); !note.empty()) s.notes.push_back(note);
  }
  s.path = dir;
  s.type = Submission::Type::Folder;
  return s;
}

// A Moodle student's entries: each folder (itself, unless all it holds is one archive), and the
// files downloaded without folders, staged. More than one: newest_entry decides, or nothing does.
std::vector<Submission> moodle_submissions(const std::string& id, const Uploads& u,
                                           const std::vector<std::string>& wanted, const fs::path& staging) {
  std::vector<Submission> out;
  for (const auto& folder : u.folders) {
    Submission s;
    s.student = id;
    s.name = u.name;
    s.entry = decode_file_name(folder.filename().string());
    std::vector<fs::path> inside;
    for (const auto& e : fs::directory_iterator(folder))
      if (e.is_regular_file() && !e.is_symlink()) inside.push_back(e.path());
    const auto kind = inside.size() == 1 ? archive_kind(inside[0].filename().string()) : std::nullopt;
    s.path = kind ? inside[0] : folder;
    s.type = kind ? kind->first : Submission::Type::Folder;
    out.push_back(std::move(s));
  }
  if (u.files.empty()) return out;
  Submission s;
  s.student = id;
  s.name = u.name;
  const auto archive = std::find_if(u.files.begin(), u.files.end(), [&](const Upload& f) {
    return std::find(wanted.begin(), wanted.end(), f.given) == wanted.end() && archive_kind(f.given);
  });
  auto plain = u.files.end();  // the first of the lab's files, in the lab's order
  for (auto w = wanted.begin(); w != wanted.end() && plain == u.files.end(); ++w)
    plain = std::find_if(u.files.begin(), u.files.end(), [&](const Upload& f) { return f.given == *w; });
  // Named by a file of its own, as it is on disk (what --times keys it by): the first of the
  // lab's files, else the archive, else the first file.
  const Upload& named = plain != u.files.end() ? *plain : archive != u.files.end() ? *archive : u.files.front();
  s.entry = decode_file_name(named.path.filename().string());
  if (plain == u.files.end() && archive != u.files.end()) {
    s.path = archive->path;
    s.type = archive_kind(archive->given)->first;
  } else {
    const fs::path dir = staging / id;
    fs::remove_all(dir);
    fs::create_directories(dir);
    for (const auto& f : u.files)
      if (std::find(wanted.begin(), wanted.end(), f.given) != wanted.end())
        fs::copy_file(f.path, dir / f.given, fs::copy_options::overwrite_existing);
    s.path = dir;
    s.type = Submission::Type::Folder;
  }
  out.push_back(std::move(s));
  return out;
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
  if (layout == LmsLayout::Gradescope) return discover_gradescope(folder, skipped);
  if (!fs::is_directory(folder)) throw std::runtime_error(folder.string() + " is not a folder of submissions");
  static const std::regex canvas(R"(^(.*?)_(LATE_)?(\d+)_(\d+)_(.+)$)");
  static const std::regex moodle(R"(^(.*)_(\d+)_assignsubmission_(file|onlinetext)_(.*)$)");
  std::map<std::string, Uploads> by_id;
  for (const auto& e : fs::directory_iterator(folder)) {
    const std::string entry = decode_file_name(e.path().filename().string());
    if (entry.empty() || entry[0] == '.') continue;
    std::error_code ec;
    std::smatch m;
    if (e.is_symlink(ec)) {  // never followed: it could name anything on the machine
      if (skipped) skipped->push_back(entry + ": a link (links are not followed: copy the submission in instead)");
      // Told to the student too, whose record otherwise shows an older upload without a word.
      if (layout == LmsLayout::Canvas && std::regex_match(entry, m, canvas)) by_id[m[3].str()].links.push_back(entry);
      if (layout == LmsLayout::Moodle && std::regex_match(entry, m, moodle)) by_id[m[2].str()].links.push_back(entry);
      continue;
    }
    if (layout == LmsLayout::Canvas && e.is_directory(ec)) {
      if (skipped) skipped->push_back(entry + ": a folder (a Canvas download holds each submission's files)");
      continue;
    }
    if (layout == LmsLayout::Canvas && e.is_regular_file(ec) && !e.is_symlink(ec) &&
        std::regex_match(entry, m, canvas)) {
      auto& u = by_id[m[3].str()];
      u.name = m[1].str();
      u.files.push_back({m[5].str(), e.path(), number(m[4].str()), file_id_digits(m[4].str())});
    } else if (layout == LmsLayout::Moodle && std::regex_match(entry, m, moodle)) {
      if (m[3].str() == "onlinetext") {
        if (skipped) skipped->push_back(entry + ": online text, not a file (the lab grades files)");
        continue;
      }
      auto& u = by_id[m[2].str()];
      u.name = m[1].str();
      if (e.is_directory(ec) && !e.is_symlink(ec))
        u.folders.push_back(e.path());
      else if (e.is_regular_file(ec) && !e.is_symlink(ec))
        u.files.push_back({m[4].str(), e.path(), -1, ""});
    } else if (skipped) {
      skipped->push_back(entry +
                         (layout == LmsLayout::Canvas
                              ? ": not named as Canvas names submissions (<name>_<user id>_<submission id>_<file>)"
                              : ": not named as Moodle names submissions (<Full Name>_<id>_assignsubmission_file_)"));
    }
  }
  std::vector<Submission> all;
  for (auto& [id, u] : by_id) {
    if (u.files.empty() && u.folders.empty()) continue;  // links only: the run named them
    std::sort(u.files.begin(), u.files.end(), [](const Upload& a, const Upload& b) { return a.path < b.path; });
    std::vector<Submission> mine;
    if (layout == LmsLayout::Canvas)
      mine.push_back(canvas_submission(id, u, wanted, staging));
    else
      mine = moodle_submissions(id, u, wanted, staging);
    for (auto& s : mine) {
      for (const auto& link : u.links)
        s.notes.push_back("not graded: " + link + ", a link (links are not followed: upload the file itself)");
      all.push_back(std::move(s));
    }
  }
  return all;  // sorted by id: a std::map's order (the ids are the LMS's numbers)
}

}  // namespace grader::course
