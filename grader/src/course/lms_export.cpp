#include "course/lms_export.hpp"

#include "grader/gradebook.hpp"
#include "grader/utf8.hpp"

#include <fmt/format.h>

namespace grader::course {
namespace {

// A name as an LMS import compares it: composed (a Mac's decomposed "Jose\u0301" is "José"),
// without the invisible direction and format marks that Arabic and Hebrew text carries.
std::string shown_name(const std::string& name) {
  std::string out;
  for (const std::uint32_t c : code_points(nfc(to_valid_utf8(name))))
    if (c != 0x200B && !format_character(c)) append_utf8(out, c);  // a zero-width space too
  return out;
}

std::string grade(const GradeRow& r) {
  if (!is_grade(r.status)) return "";  // left blank: the instructor decides (a zero, an excuse)
  return fmt::format("{:.2f}", r.points);
}

}  // namespace

bool is_grade(const std::string& status) {
  // Nothing submitted; built but not run (--build-only: an import from a login node's run must
  // not zero the class); nothing run for want of a GPU; the grader's or Slurm's own failure.
  for (const char* none : {"no submission", "built", "no GPU", "grader error", "slurm failed", "not graded"})
    if (status == none) return false;
  return true;
}

std::string canvas_csv(const std::vector<GradeRow>& rows, const std::string& assignment) {
  std::string out = "Student,ID,SIS User ID,SIS Login ID,Section," + csv_field(assignment) + "\n";
  // Canvas reads the second line as points possible when its Student cell says so; none here.
  for (const auto& r : rows)
    out += csv_field(shown_name(r.name)) + "," + csv_field(r.lms_id) + "," + csv_field(r.id) + ",,," + grade(r) +
           "\n";  // no login, no section
  return out;
}

std::string moodle_csv(const std::vector<GradeRow>& rows, const std::string& assignment) {
  std::string out = "ID number,User id,Full name," + csv_field(assignment) + "\n";
  for (const auto& r : rows)
    out += csv_field(r.id) + "," + csv_field(r.lms_id) + "," + csv_field(shown_name(r.name)) + "," + grade(r) + "\n";
  return out;
}

}  // namespace grader::course
