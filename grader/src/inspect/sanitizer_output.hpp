// What compute-sanitizer found, read from its text output, and said in plain words.
//
// compute-sanitizer prints each problem as a record of lines that start with "=========": a
// heading ("Invalid __global__ write of size 4 bytes", "Error: Race reported between Write
// access at ..."), then indented details: where (a function and, in a build with -lineinfo, a
// file and line), which thread of which block, the address and the nearest allocation. The
// parser keeps what a student needs and the record's own lines, so a record it cannot explain is
// still shown in the tool's words.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace grader::inspect {

struct SourcePlace {
  std::string function;  // as the tool prints it, e.g. "tiledKernel<16>(const float *, ...)"
  std::string file;      // as compiled (often an absolute path); empty without -lineinfo
  int line = 0;
  std::string access;  // racecheck: "Write" or "Read"; else empty
};

struct Hazard {
  std::string tool;                 // memcheck, racecheck, synccheck, initcheck
  std::string heading;              // the record's first line, without "Error: " / "Warning: "
  std::string severity;             // "error" or "warning"
  std::vector<SourcePlace> places;  // where; a race has two or more
  std::string thread, block;        // "(5,31,0)"; empty when the tool names none
  std::string address;              // "20 bytes after the nearest allocation at 0x... of size 4096 bytes"
  long count = 1;                   // racecheck's "[N hazards]", or records merged by distinct()
  std::vector<std::string> lines;   // the record as printed, less "=========" and host frames
};

struct SanitizerOutput {
  std::vector<Hazard> hazards;
  std::vector<std::string> api_errors;  // "Program hit cudaErrorLaunchFailure ... on CUDA API call to ..."
  std::vector<std::string> notes;       // other tool lines (limits reached, summary lines)
  int error_summary = -1;               // "ERROR SUMMARY: N errors"; -1 when absent
};

// Reads the output of `compute-sanitizer --tool <tool>` (its "=========" lines; the program's own
// lines between them are ignored).
SanitizerOutput parse_sanitizer_output(const std::string& tool, const std::string& text);

// Records of the same problem at the same lines become one, their counts added, in the order first
// seen: the same access by many threads, in several instances of a template, or (a race) with
// its two sides named in either order.
std::vector<Hazard> distinct(const std::vector<Hazard>& hazards);

// The record's title for a list: the tool's heading, or for a race "shared-memory race: Write at
// matmul.cu:14, Read at matmul.cu:16".
std::string title(const Hazard& hazard);

// One or two sentences: what the record means and the usual cause in a lab's kernel.
std::string explain(const Hazard& hazard);

// "matmul.cu:62" (the file's name only), or the function when the tool named no line.
std::string where(const SourcePlace& place);

// The text of line `line` of the student's file whose name matches `place.file` in `sources`
// (trimmed); empty when there is none.
std::string source_line(const std::vector<std::filesystem::path>& sources, const SourcePlace& place);

}  // namespace grader::inspect
