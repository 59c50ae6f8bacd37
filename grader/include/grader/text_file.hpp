// A course's own text files (a roster, a file of submission times), as spreadsheets save them:
// UTF-8, UTF-8 with a byte-order mark (Excel's "CSV UTF-8"), or Windows-1252 (Excel's plain
// "CSV" on a Western European Windows, Latin-1's superset). Read into UTF-8, or refused naming
// the file and the line: UTF-16 ("Unicode text"), NUL bytes, a byte no encoding here explains.
#pragma once

#include <filesystem>
#include <stdexcept>
#include <string>

namespace grader {

struct TextFileError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct TextFile {
  std::string text;      // UTF-8, without a byte-order mark
  std::string encoding;  // "UTF-8" or "Windows-1252": as read
};

// `what` starts each message ("roster", "times"). Throws TextFileError: "<what> <file>:<line>: ...".
TextFile read_text_file(const std::filesystem::path& file, const std::string& what);

// The same, on text already read (the file's name only names it in messages).
TextFile decode_text(std::string bytes, const std::filesystem::path& file, const std::string& what);

}  // namespace grader
