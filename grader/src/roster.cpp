#include "grader/roster.hpp"

#include "grader/csv_reader.hpp"
#include "grader/files.hpp"
#include "grader/submission.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <sstream>

namespace grader {

std::optional<std::string> Roster::id_of(const std::string& name) const {
  for (const auto& s : students)
    if (s.id == name) return s.id;
  for (const auto& s : students)
    if (!s.lms_id.empty() && s.lms_id == name) return s.id;
  return std::nullopt;
}

Roster read_roster(const std::filesystem::path& file) {
  std::string text;
  try {
    text = read_file(file);
  } catch (const std::exception& e) {
    throw RosterError(fmt::format("roster {}: {}", file.string(), e.what()));
  }
  if (text.rfind("\xEF\xBB\xBF", 0) == 0) text.erase(0, 3);  // Excel's UTF-8 byte-order mark
  // Blank lines (spreadsheets end with some) become rows of empty fields, which are skipped
  // below: the parser wants every column on every line, and the line numbers stay right.
  std::string lines;
  {
    std::istringstream raw(text);
    std::size_t commas = 0;
    bool header = true;
    for (std::string line; std::getline(raw, line);) {
      if (header) commas = static_cast<std::size_t>(std::count(line.begin(), line.end(), ','));
      else if (line.find_first_not_of(" \t\r") == std::string::npos) line = std::string(commas, ',');
      header = false;
      lines += line + '\n';
    }
  }
  std::istringstream in(lines);
  Roster roster;
  std::set<std::string> ids, lms_ids;
  try {
    io::CSVReader<4, io::trim_chars<' ', '\t'>, io::double_quote_escape<',', '"'>> csv(file.string(), in);
    csv.read_header(io::ignore_extra_column | io::ignore_missing_column, "id", "name", "lms_id", "extension");
    if (!csv.has_column("id"))
      throw RosterError(fmt::format("roster {}: its header has no `id` column (the course's student ids)", file.string()));
    RosterEntry e;
    while (csv.read_row(e.id, e.name, e.lms_id, e.extension)) {
      const unsigned line = csv.get_file_line();
      if (e.id.empty() && e.name.empty() && e.lms_id.empty() && e.extension.empty()) continue;  // a blank line
      if (!valid_student_id(e.id))
        throw RosterError(fmt::format("roster {}:{}: '{}' is not a usable student id (letters, digits, . _ - @)",
                                      file.string(), line, e.id));
      if (!ids.insert(e.id).second)
        throw RosterError(fmt::format("roster {}:{}: the id {} is on the roster twice", file.string(), line, e.id));
      if (!e.lms_id.empty() && !lms_ids.insert(e.lms_id).second)
        throw RosterError(fmt::format("roster {}:{}: the lms_id {} is on the roster twice", file.string(), line, e.lms_id));
      roster.students.push_back(e);
    }
  } catch (const io::error::base& e) {
    throw RosterError(fmt::format("roster {}: {}", file.string(), e.what()));
  }
  return roster;
}

}  // namespace grader
