// Submissions for `grader batch`: a folder, a .zip or a .tar.gz per student, named by the
// student's id (docs/instructor-guide.md, section 2). Only the lab's editable files are taken from each, by file name,
// wherever they sit inside it; everything else is ignored.
//
// Archives are read with libarchive and never unpacked as a tree: the grader streams through
// the entries and writes only the wanted files, under their plain names, into a folder of its
// own. No name from an archive becomes a path on disk, so nothing can escape; links are not
// followed; and the limits below are counted on the bytes actually decompressed, so a
// "zip bomb" is stopped however its headers lie. An entry whose name tries to climb out of the
// archive (../, an absolute path) gets the whole archive rejected as unsafe.
#pragma once

#include "grader/include_check.hpp"

#include <cstdint>
#include <filesystem>
#include <optional>
#include <utility>
#include <string>
#include <vector>

namespace grader {

struct Submission {
  std::string student;  // the id: the file or folder name without .zip / .tar.gz / .tgz
  std::filesystem::path path;
  enum class Type { Folder, Zip, TarGz } type = Type::Folder;  // TarGz: a tar, compressed or not
  std::string name{};          // the student's name where an LMS download gives it ("Hank Smith")
  std::string submitted_at{};  // when, where an LMS download says (RFC 3339); empty when it does not
  std::string entry{};         // the entry as named in the submissions folder, in UTF-8: what messages name
  std::string lms_id{};        // the id the LMS (or the folder) names it by, before a roster maps it
  // The LMS's own order of its submissions (Canvas's file id, Gradescope's submission number):
  // of two entries for one student, the higher is the newer. -1 where the LMS gives none.
  std::int64_t lms_order = -1;
  // The entry's name (or the LMS's id) is no usable id: `student` was derived from it
  // (grader/student_id.hpp), and a roster may know the student by `name`.
  bool derived_id = false;
  std::vector<std::string> notes{};  // how the entry was chosen or named, for the student's feedback
};

// What a submission holds, as a short hex string: its files' relative paths and bytes (an
// archive's bytes), so that a resumed batch can tell a result kept from an earlier run of the same
// files from one of files that changed since (a newer upload taken, a folder edited). Links are
// not followed; a file that cannot be read counts by its name.
std::string submission_fingerprint(const Submission& submission);

// The archive type and the name without its extension of a submission file: .zip, .tar, .tar.gz,
// .tgz, .tar.xz, .tar.bz2, in any case (.ZIP); nothing for any other file.
std::optional<std::pair<Submission::Type, std::string>> archive_kind(const std::string& file_name);

// The submissions in `folder`, sorted by student id. Hidden entries and other files are
// skipped, with a note for each in `skipped`. An entry whose name is no usable id (`José Núñez/`)
// is graded under an id derived from it (derived_id). Throws if the folder cannot be read, or
// when two entries have one name (alice/ and alice.zip: nothing says which is newer).
std::vector<Submission> discover_submissions(const std::filesystem::path& folder,
                                             std::vector<std::string>* skipped = nullptr);

// True for ids safe as file names: letters, digits, '.', '_', '-', '@', not starting with '.'.
bool valid_student_id(const std::string& id);

struct CollectLimits {
  std::uint64_t max_archive_bytes = 64ull << 20;  // the archive file itself
  std::uint64_t max_total_bytes = 256ull << 20;   // everything decompressed, all entries
  std::uint64_t max_file_bytes = 2ull << 20;      // one wanted file
  std::size_t max_entries = 10000;
};

struct Collected {
  std::vector<std::string> found;    // wanted files written to the destination
  std::vector<std::string> missing;  // wanted files not in the submission
  std::vector<std::string> notes;    // ignored links, which copy was taken when not at the top
  bool rejected = false;             // unsafe or over a limit: nothing is graded
  std::string reason;                // why it was rejected
};

// Whether an archive holds an entry with a wanted name (its names only are read; no data is
// written): of a student's uploads, an archive of screenshots is not their submission. True too
// where the archive cannot be read to the end within `limits` (collect_files then says why).
bool archive_names_wanted(const std::filesystem::path& path, Submission::Type type,
                          const std::vector<std::string>& wanted, const CollectLimits& limits = {});

// Copies the wanted files (by base name) from the submission into `dest` (created, emptied).
// Of several copies, the shallowest is taken, and among those the first by path.
// Then the pre-build check (grader/include_check.hpp) reads every copied file: one that could
// make the compiler read another file gets the submission rejected, with file, line and rule in
// `reason`. A quoted include may name a wanted file or one of `allowed_includes` (the lab's
// headers and common/'s: lab_allowed_includes); with the default, only the wanted files.
Collected collect_files(const Submission& submission, const std::vector<std::string>& wanted,
                        const std::filesystem::path& dest, const CollectLimits& limits = {},
                        const std::vector<std::string>& allowed_includes = {});

}  // namespace grader
