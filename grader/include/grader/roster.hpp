// A course's roster (`grader batch --roster roster.csv`): who is enrolled, so that every student
// has a row in the gradebook, "no submission" where nothing came, and a submission named by an
// LMS user id is graded under the course's own id.
//
// The file is CSV with a header row, as spreadsheets and LMS exports write it: a column `id`
// (required: the id the gradebook uses), and optionally `name`, `lms_id`, `extension` and `email`; other columns are
// ignored, quoted fields may hold commas, a UTF-8 byte-order mark and Windows line ends are fine.
// UTF-8 and Windows-1252 (Excel's plain "CSV") are read alike (grader/text_file.hpp).
#pragma once

#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace grader {

struct RosterEntry {
  std::string id;         // the course's id: the gradebook's first column
  std::string name;       // for the reader ("Hank Smith"); may be empty
  std::string lms_id;     // the LMS's user id, as its downloads name submissions; may be empty
  std::string extension;  // a later due time: "2d", "36h", "90m" or a date-time (course/lateness.hpp)
  std::string email;      // as Gradescope's :email: gives it; may be empty
};

struct Roster {
  std::vector<RosterEntry> students;  // in the file's order
  // The roster id a submission named `name` belongs to: its id, or the id of the student whose
  // lms_id (or email) it is, exactly, else in another letter case where only one student's
  // e-mail, id or LMS id is it; nothing for a name on no row.
  std::optional<std::string> id_of(const std::string& name) const;
  // The id of the one student whose `name` is this one, compared as grader/student_id.hpp's
  // name_key compares ("José Núñez" is "Núñez, Jose"); nothing for none, or for two.
  std::optional<std::string> id_by_name(const std::string& name) const;
  // What `given` (an id_of match) is of its student, for the run's words: "the e-mail", "the LMS
  // id", "the id, in another letter case," or else "the name".
  const char* word_for(const std::string& given) const;
  // Every student whose name is this one (id_by_name's comparison): two or more is ambiguous.
  std::vector<std::string> ids_by_name(const std::string& name) const;
};

struct RosterError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Throws RosterError, naming the file and line: no `id` column, an empty or unusable id (the
// characters a student id may hold: letters, digits, . _ - @), an id or lms_id given twice.
Roster read_roster(const std::filesystem::path& file);

}  // namespace grader
