// Gradescope's "Export Submissions" (`grader batch --from gradescope`): submission_metadata.yml
// and a folder submission_<n>/ per submission. The metadata's keys name folders inside the
// export and nothing else (a key that is a path, ../outside, is refused as an archive's entry
// is); every submitter of a listed submission is graded: by :sid:, else by :email:, else under an
// id derived from their :sid: or :name:; a folder the metadata does not list, and metadata
// that lists nothing, are said, never passed over.
#pragma once

#include "grader/submission.hpp"

#include <filesystem>
#include <string>
#include <vector>

namespace grader::course {

// Every submitter's entry (a student in two submissions: two entries, newest_entry decides).
// Throws std::invalid_argument naming the metadata file: none, unreadable YAML, no submission
// listed, a :created_at: that is not a time, a field that is not text.
std::vector<Submission> discover_gradescope(const std::filesystem::path& folder, std::vector<std::string>* skipped);

// Gradescope's times, "2026-12-01 20:00:00.000000000 -05:00" (Ruby's YAML), as RFC 3339; ""
// for anything else.
std::string gradescope_time(const std::string& text);

}  // namespace grader::course
