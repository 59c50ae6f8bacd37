// Static checks on a student's source: where a lab requires a technique (the tiled kernel must
// use shared memory), looking for it in the code, not in comments or strings, is the cheap part
// of the proof; the performance cases are the rest.
#pragma once

#include <string>

namespace grader {

// The source with comments removed and the contents of string and character literals blanked;
// line breaks are kept so that positions still match lines.
std::string strip_comments_and_strings(const std::string& source);

// True when `word` occurs in the code (comments and strings excluded) as a whole identifier.
bool code_uses(const std::string& source, const std::string& word);

// The body of the first function or kernel named `name` (from its opening brace to the
// matching close), comments and strings stripped; empty when there is none.
std::string function_body(const std::string& source, const std::string& name);

}  // namespace grader
