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
  std::string name{};   // the student's name where an LMS download gives it ("Hank Smith")
  std::string submitted_at{};  // when, where an LMS download says (RFC 3339); empty when it does not
};

// The archive type and the name without its extension of a submission file: .zip, .tar, .tar.gz,
// .tgz, .tar.xz, .tar.bz2, in any case (.ZIP); nothing for any other file.
std::optional<std::pair<Submission::Type, std::string>> archive_kind(const std::string& file_name);

// The submissions in `folder`, sorted by student id. Hidden entries and other files are
// skipped, with a note for each in `skipped`. Throws if the folder cannot be read.
std::vector<Submission> discover_submissions(const std::filesystem::path& folder,
                                             std::vector<std::string>* skipped = nullptr);

// True for ids safe as file names: letters, digits, '.', '_', '-', '@', not starting with '.'.
bool valid_student_id(const std::string& id);

struct CollectLimits {
  std::uint64_t max_archive_bytes = 64ull << 20;   // the archive file itself
  std::uint64_t max_total_bytes = 256ull << 20;    // everything decompressed, all entries
  std::uint64_t max_file_bytes = 2ull << 20;       // one wanted file
  std::size_t max_entries = 10000;
};

struct Collected {
  std::vector<std::string> found;    // wanted files written to the destination
  std::vector<std::string> missing;  // wanted files not in the submission
  std::vector<std::string> notes;    // ignored links, which copy was taken when not at the top
  bool rejected = false;             // unsafe or over a limit: nothing is graded
  std::string reason;                // why it was rejected
};

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
