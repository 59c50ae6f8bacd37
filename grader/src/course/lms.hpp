// Submissions as an LMS downloads them (`grader batch --from canvas|moodle|folders`), read where
// they are: nothing is renamed in the instructor's folder.
//
//   folders  one folder or archive per student, named by the student's id (the default)
//   canvas   "Download Submissions": one folder of files named
//            <name>_[LATE_]<user id>_<file id>_<file name>, a resubmitted file's name with
//            "-1", "-2", ... before its extension (matmul-1.cu is matmul.cu); of a student's
//            uploads, the newest by file id, then by that number (two downloads merged in one
//            folder give the newer file), said in the student's notes
//   moodle   "Download all submissions": a folder per student, <Full Name>_<id>_assignsubmission_file_,
//            or (without "Download submissions in folders") files named <Full Name>_<id>_assignsubmission_file_<file name>
//   gradescope  "Export Submissions": submission_metadata.yml and a folder submission_<n>/ per
//            submission; the metadata names its submitters (a group: each of them) by :sid:
//            (else :email:) and says when it came (:created_at:, the submission's time):
//            course/gradescope.hpp
//
// A student's id is the LMS's (Canvas user id, Moodle participant id); a roster's `lms_id` column
// maps it to the course's id (grader/roster.hpp). An archive a student uploaded (.zip, .tar.gz,
// .ZIP ...) is their submission when it holds a file the lab wants and is their newest such
// upload (Canvas), or when they uploaded no plain file the lab wants (Moodle). Names that are not
// UTF-8 are decoded (grader/student_id.hpp). A student with two entries (two Moodle folders, two
// Gradescope submissions) gets two Submissions: course/duplicates.hpp decides.
#pragma once

#include "grader/submission.hpp"

#include <filesystem>
#include <string>
#include <vector>

namespace grader::course {

enum class LmsLayout { Folders, Canvas, Moodle, Gradescope };
LmsLayout parse_lms_layout(const std::string& name);  // throws std::invalid_argument

// The submissions in `folder`, as `layout` lays them out. Canvas's files are copied, under the
// names the lab wants, into `staging/<id>/` (inside the results folder). `wanted`: the lab's
// editable files. Entries that belong to no student are noted in `skipped`.
std::vector<Submission> discover_lms(LmsLayout layout, const std::filesystem::path& folder,
                                     const std::vector<std::string>& wanted, const std::filesystem::path& staging,
                                     std::vector<std::string>* skipped);

}  // namespace grader::course
