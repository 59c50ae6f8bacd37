// One student, one entry, the right one: of two or more entries for one student (a folder
// named by the course's id beside one named by the LMS's; two Gradescope submissions; two
// Moodle folders), the newest by the LMS's own submission time, else by its own order of
// submissions (Canvas's file ids, Gradescope's submission numbers). The one taken says so in the
// student's feedback ("took ..., ignored ..."). Where neither decides, nothing is guessed: the
// batch stops before grading (exit 3), naming the entries.
#pragma once

#include "grader/submission.hpp"

#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace grader::course {

struct DuplicateEntries : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// When an entry came, as far as anything says (--times, the LMS's metadata); nothing if unknown.
using EntryTime = std::function<std::optional<std::int64_t>(const Submission&)>;

// The newest of `entries` (one student's, two or more), with a note on the others. Throws
// DuplicateEntries when no rule decides.
Submission newest_entry(std::vector<Submission> entries, const EntryTime& time_of);

// Every student once: entries sharing a `student` reduced by newest_entry. Sorted by student.
std::vector<Submission> one_entry_per_student(std::vector<Submission> all, const EntryTime& time_of);

}  // namespace grader::course
