// Starters generated from the reference solutions: each lab is written once.
//
// A file in solutions/<lab>/ is the source of the starter in labs/<lab>/. Each region that the
// two differ in is marked in the solution (the markers are comments, so the solution compiles as
// it is):
//
//       // BEGIN SOLUTION naive           <- a region the student writes (named after its exercise)
//       const dim3 grid(ceil_div(N, BLOCK_WIDTH), ceil_div(M, BLOCK_WIDTH));
//       // STARTER                        <- what the starter has instead, each line after "//|"
//       //| // TODO(naive): enough blocks to cover all of C ...
//       //| const dim3 grid(1, 1);
//       // END SOLUTION
//
// The solution's lines of a region are left out of the starter and its "//|" lines put in, each
// at the indentation of its "//|" (one space after "//|" is dropped; "//|" alone is an empty
// line). A region without a name (BEGIN SOLUTION alone) is text that differs but teaches nothing
// (the file's opening comment): it is copied in full at every hint level. A named region's
// starter text is cut down by the hint level:
//
//   full   every line (the step-by-step TODOs)
//   brief  its first TODO line, to the end of the first sentence, pointing to the handout; then
//          its code (the stub that keeps the starter compiling, e.g. `return dim3(1, 1);`)
//   none   its code only
#pragma once

#include <optional>
#include <stdexcept>
#include <string>

namespace grader {

enum class HintLevel { Full, Brief, None };
std::optional<HintLevel> parse_hint_level(const std::string& text);  // "full", "brief", "none"
const char* to_string(HintLevel level);

// A marker out of place, with the file and line: "solutions/<lab>/<file>.cu:12: END SOLUTION without BEGIN".
struct MarkerError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The starter text of a marked solution file (`file` names it in errors).
std::string generate_starter(const std::string& marked, HintLevel level, const std::string& file);

// Where two texts first differ, line by line (1-based; 0 when they are equal). A text that ends
// earlier reads as an empty line past its end, marked "(end of file)".
struct FirstDifference {
  int line = 0;
  std::string expected, found;
};
FirstDifference first_difference(const std::string& expected, const std::string& found);

}  // namespace grader
