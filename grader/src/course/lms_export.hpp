// The grades in the shapes LMS gradebook imports take, written beside gradebook.csv by every
// `grader batch` run (docs/instructor-guide.md, "Grades into Canvas or Moodle"):
//
//   canvas.csv  Canvas, Grades > Import: Student, ID (the Canvas user id), SIS User ID (the
//               course's id), SIS Login ID, Section, then one column headed by the assignment's
//               name as Canvas shows it ("Lab 1: matmul (12345)": --lms-assignment). Canvas
//               matches a row by ID, else by SIS User ID.
//   moodle.csv  Moodle, Grades > Import > CSV file: id number (the course's id), Moodle's user id,
//               full name, then the grade column; map "ID number" (or "User id") to the user, the
//               grade column to the assignment.
//
// The grade is the final one: the points less any late penalty.
#pragma once

#include <string>
#include <vector>

namespace grader::course {

struct GradeRow {
  std::string id;      // the course's id (the gradebook's)
  std::string name;    // from the roster or the LMS download; may be empty
  std::string lms_id;  // the LMS's user id; may be empty
  double points = 0;   // final
  std::string status;  // one that is no grade (is_grade): an empty cell, not a zero the LMS would count
};

// Whether a status is a grade to import: not for "no submission", "built" (--build-only), "no
// GPU", "grader error", "slurm failed", whose grade cells are left empty.
bool is_grade(const std::string& status);

std::string canvas_csv(const std::vector<GradeRow>& rows, const std::string& assignment);
std::string moodle_csv(const std::vector<GradeRow>& rows, const std::string& assignment);

}  // namespace grader::course
