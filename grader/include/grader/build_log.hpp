// Reading a failed build's log: a student needs the compiler's first errors, with file and
// line, not three screens of CMake and Ninja.
#pragma once

#include <filesystem>
#include <string>

namespace grader {

// The first error lines of a build log (gcc/clang "file:line:col: error:", nvcc
// "file(line): error:", linker "undefined reference"), each with the few lines of context the
// compiler prints after it, indented, with `source_root/` removed from paths. When no line looks
// like an error, the last `max_lines` lines of the log.
std::string compiler_errors(const std::string& log, const std::filesystem::path& source_root,
                            std::size_t max_lines = 30);

}  // namespace grader
