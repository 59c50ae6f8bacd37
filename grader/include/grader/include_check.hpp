// The pre-build check (issue 12): before any compiler runs, each of a submission's editable files
// is read as the preprocessor reads it, and a file that could make the compiler (or the
// assembler) read another file is refused with the file, the line and the rule. `grader batch`
// then reports the submission `rejected`; `grader check` says so before building, so that a
// student learns the rule before submitting.
//
// How the file is read (as GCC's preprocessor does, which is what nvcc runs on a .cu file):
// backslash-newline continuations are spliced first (also with blanks between the backslash and
// the newline, which GCC accepts), so `#inc\` + newline + `lude` is still an include; "\r\n",
// "\n" and a lone "\r" each end a line; a leading UTF-8 byte-order mark is skipped; `/* */` and
// `//` comments are blanks; string, character and raw string literals, digit separators and
// header names (`"x"` and `<x>` after #include, and inside __has_include(...)) are lexed as
// such; `%:` is `#`. Line numbers are those of the original file (a spliced directive is
// reported at the line its `#` is on). A comment that mentions `#include "/etc/passwd"` or a
// string that holds "#include" is neither code nor a directive, and passes.
//
// The rules (id: what is refused; why):
//
// | rule              | refused                                                              | why |
// |-------------------|----------------------------------------------------------------------|-----|
// | computed-include  | #include / #import whose operand is not a literal "..." or <...>      | `#include MACRO` could name any file |
// |                   | (e.g. `#include P` after `#define P "/x"`); __has_include(MACRO)      | |
// | absolute-path     | an include (any form, <> too), __has_include(_next) path that starts  | names a file outside the submission |
// |                   | with / (or a drive letter)                                            | |
// | climbing-path     | ... a path with a `..` component                                      | climbs out of the submission's folder |
// | backslash-path    | ... a path with a backslash                                           | not a portable name; hides a `..` |
// | unlisted-header   | a quoted include "x" that is not in `allowed_quoted` (the lab's own   | "helper.h" could be anything, e.g. a link |
// |                   | headers, the editable files, the workbook/ common headers)            | to the reference solution |
// | include-next      | #include_next                                                        | walks the include path past the usual headers |
// | embed             | #embed, __has_embed                                                   | reads a file into the program |
// | file-pragma       | #pragma or _Pragma("...") naming include_alias, dependency, include,  | pragmas that read or alias files |
// |                   | include_next, import or embed (#pragma once, unroll ... are fine)     | |
// | computed-pragma   | _Pragma whose operand is not one string literal (_Pragma(#x))         | the pragma it makes cannot be checked |
// | asm-file          | .incbin or .include (any case) in the code or in a string literal     | the assembler reads the file (inline asm) |
// |                   | (adjacent literals joined, escapes decoded), or any identifier or     | |
// |                   | string holding "incbin"                                               | |
// | line-file         | #line with anything but a line number (a file name, a macro), and the | diagnostics and the static checks would lie |
// |                   | GNU form `# 12 "file"`                                                | about where the code came from |
// | trigraph          | ??= or ??/ outside comments                                          | with -trigraphs they make a # or a \ that a |
// |                   |                                                                      | text check does not see |
//
// Angle-bracket includes (<cuda_runtime.h>, <cstdio>, <vector>) are allowed unless a path rule
// refuses them. Conditional compilation is not evaluated: a refused include inside `#if 0` is
// still refused. A `#` followed by include, import, embed or line is checked wherever it stands
// on a line, not only at its start (so a desynchronised reading can only refuse more).
//
// This is the clear reason, not the wall: a text check cannot follow every macro (token pasting
// can spell any word), so what keeps other files out of a submission's reach is the batch build's
// sandbox (issue 12, "hermetic builds"); this check makes the common attempts fail early, with a
// reason a student can act on.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

namespace grader {

struct IncludeViolation {
  std::string file;     // as given to check_includes (the file's name in the submission)
  int line = 0;         // 1-based, in the original file
  std::string rule;     // the short id from the table above, e.g. "absolute-path"
  std::string message;  // plain English: what was found and what is allowed
};

// The violations in one file's text, in the order of their lines. `allowed_quoted` is the
// exact list of names a quoted include may use (the caller builds it: lab_allowed_includes).
std::vector<IncludeViolation> check_includes(const std::string& source, const std::string& file_name,
                                             const std::vector<std::string>& allowed_quoted);

// Every file of `files` (names) that exists in `folder`, checked; missing files are skipped.
std::vector<IncludeViolation> check_include_folder(const std::filesystem::path& folder,
                                                   const std::vector<std::string>& files,
                                                   const std::vector<std::string>& allowed_quoted);

// "matmul.cu:3: #include of an absolute path (\"/work/...\"): a submission may include only ...
// (rule: absolute-path)".
std::string format_violation(const IncludeViolation& violation);
// One violation a line; after `max_shown`, a count of the rest.
std::string format_violations(const std::vector<IncludeViolation>& violations, std::size_t max_shown = 20);

// The quoted includes a lab's editable files may use: the headers in `lab_dir` (.h, .hpp, .cuh,
// .hh, .hxx, .inl) other than the editable files, the editable files themselves, and every
// header under `common_include_dir` by its include name ("workbook/cuda_check.hpp").
std::vector<std::string> lab_allowed_includes(const std::filesystem::path& lab_dir,
                                              const std::vector<std::string>& editable_files,
                                              const std::filesystem::path& common_include_dir);

}  // namespace grader
