// Small file and time helpers the grader's parts share.
#pragma once

#include <filesystem>
#include <string>

namespace grader {

// The whole file, bytes as they are; empty when it cannot be read.
std::string read_file(const std::filesystem::path& path);

// Writes through a temporary file and a rename (creating the folder): a reader, or a crash,
// never sees half a file. Throws std::runtime_error when it cannot write.
void write_atomically(const std::filesystem::path& path, const std::string& text);

// The current time, UTC, ISO 8601 to the second: "2026-11-21T02:57:07Z".
std::string now_iso();

}  // namespace grader
