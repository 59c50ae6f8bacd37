#include "grader/roster.hpp"

#include "grader/csv_reader.hpp"
#include "grader/files.hpp"
#include "grader/student_id.hpp"
#include "grader/submission.hpp"
#include "grader/text_file.hpp"

#include <cctype>
#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <sstream>

namespace grader {

namespace {

template <char Sep>
Roster read_rows(const std::filesystem::path& file, std::istream& in) {
  Roster roster;
  std::set<std::string> ids, lms_ids;
  io::CSVReader<5, io::trim_chars<' ', '\t'>, io::double_quote_escape<Sep, '"'>> csv(file.string(), in);
  csv.read_header(io::ignore_extra_column | io::ignore_missing_column, "id", "name", "lms_id", "extension", "email");
  if (!csv.has_column("id"))
    throw RosterError(
        fmt::format("roster {}: its header has no `id` column (the course's student ids)", file.string()));
  RosterEntry e;
  while (csv.read_row(e.id, e.name, e.lms_id, e.extension, e.email)) {
    const unsigned line = csv.get_file_line();
    if (e.id.empty() && e.name.empty() && e.lms_id.empty() && e.extension.empty() && e.email.empty())
      continue;  // a blank line
    if (!valid_student_id(e.id))
      throw RosterError(fmt::format("roster {}:{}: '{}' is not a usable student id (letters, digits, . _ - @)",
                                    file.string(), line, e.id));
    if (!ids.insert(e.id).second)
      throw RosterError(fmt::format("roster {}:{}: the id {} is on the roster twice", file.string(), line, e.id));
    if (!e.lms_id.empty() && !lms_ids.insert(e.lms_id).second)
      throw RosterError(
          fmt::format("roster {}:{}: the lms_id {} is on the roster twice", file.string(), line, e.lms_id));
    roster.students.push_back(e);
  }
  return roster;
}

}  // namespace

namespace {
std::string ascii_lower(std::string text) {
  for (char& ch : text) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return text;
}
}  // namespace

std::optional<std::string> Roster::id_of(const std::string& name) const {
  for (const auto& s : students)
    if (s.id == name) return s.id;
  for (const auto& s : students)
    if (!s.lms_id.empty() && s.lms_id == name) return s.id;
  // An e-mail, and then an id, in another letter case (Ana.Lopez@Uni.EDU, a0123456x): the one
  // student it can be, never a guess between two.
  const std::string lower = ascii_lower(name);
  std::optional<std::string> found;
  int matches = 0;
  for (const auto& s : students)
    if (!s.email.empty() && ascii_lower(s.email) == lower) found = s.id, ++matches;
  if (matches == 1) return found;
  matches = 0;
  for (const auto& s : students)
    if (ascii_lower(s.id) == lower || (!s.lms_id.empty() && ascii_lower(s.lms_id) == lower)) found = s.id, ++matches;
  if (matches == 1) return found;
  return std::nullopt;
}

const char* Roster::word_for(const std::string& given) const {
  const std::string lower = ascii_lower(given);
  for (const auto& e : students) {
    if (!e.email.empty() && ascii_lower(e.email) == lower) return "the e-mail";
    if (!e.lms_id.empty() && ascii_lower(e.lms_id) == lower) return "the LMS id";
    if (ascii_lower(e.id) == lower) return "the id, in another letter case,";
  }
  return "the name";
}

std::vector<std::string> Roster::ids_by_name(const std::string& name) const {
  const std::string key = name_key(name);
  std::vector<std::string> ids;
  if (key.empty()) return ids;
  for (const auto& s : students)
    if (!s.name.empty() && name_key(s.name) == key) ids.push_back(s.id);
  // Two rows whose names differ only in accents (José Pérez, Jose Perez): the one whose accents
  // are the entry's. (Two rows of one name in two orders stay two: nothing tells them apart.)
  if (ids.size() > 1) {
    const auto accented = [](const std::string& text) {  // the words as written, in any order
      std::string t = text;
      for (char& c : t)
        if (c == ',' || c == '_' || c == '.' || c == '-') c = ' ';
      std::istringstream in(t);
      std::vector<std::string> words;
      for (std::string w; in >> w;) words.push_back(w);
      std::sort(words.begin(), words.end());
      std::string key;
      for (const auto& w : words) key += w + ' ';
      return key;
    };
    std::vector<std::string> same;
    for (const auto& s : students)
      if (std::find(ids.begin(), ids.end(), s.id) != ids.end() && accented(s.name) == accented(name))
        same.push_back(s.id);
    if (same.size() == 1) return same;
  }
  return ids;
}

std::optional<std::string> Roster::id_by_name(const std::string& name) const {
  const auto ids = ids_by_name(name);
  if (ids.size() != 1) return std::nullopt;  // none, or two students of that name: not this way
  return ids.front();
}

Roster read_roster(const std::filesystem::path& file) {
  std::string text;
  try {
    text = read_text_file(file, "roster").text;  // UTF-8, with or without a BOM, or Windows-1252
  } catch (const TextFileError& e) {
    throw RosterError(e.what());
  }
  // Blank lines (spreadsheets end with some) become rows of empty fields, which are skipped
  // below: the parser wants every column on every line, and the line numbers stay right.
  std::string lines;
  {
    std::istringstream raw(text);
    std::size_t commas = 0;
    char blank_sep = ',';
    bool header = true;
    for (std::string line; std::getline(raw, line);) {
      const char sep = line.find(',') == std::string::npos && line.find(';') != std::string::npos ? ';' : ',';
      if (header) {
        commas = static_cast<std::size_t>(std::count(line.begin(), line.end(), sep));
        blank_sep = sep;
      } else if (line.find_first_not_of(" \t\r") == std::string::npos)
        line = std::string(commas, blank_sep);
      header = false;
      lines += line + '\n';
    }
  }
  std::istringstream in(lines);
  // Excel in a course whose decimal point is a comma (French, Spanish, Greek ...) separates the
  // fields with ';': a header with ';' and no ',' is read so.
  const std::string header = lines.substr(0, lines.find('\n'));
  const bool semicolons = header.find(';') != std::string::npos && header.find(',') == std::string::npos;
  Roster roster;
  try {
    roster = semicolons ? read_rows<';'>(file, in) : read_rows<','>(file, in);
  } catch (const io::error::base& e) {
    throw RosterError(fmt::format("roster {}: {}", file.string(), e.what()));
  }
  return roster;
}

}  // namespace grader
