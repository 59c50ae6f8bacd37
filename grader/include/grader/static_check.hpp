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

// The code a kernel runs, as a technique check should read it: the body of every definition of
// `kernel_name` (a template's too), then what it reaches, transitively and by name: the bodies of
// the functions it calls (a __device__ helper before or after it, in a namespace, a member
// function, every overload), the #define of each macro it names, and each namespace-scope
// variable it uses (`extern __shared__ float smem[];`). Comments and strings stripped, one text
// after another; a helper never reached is not in it. Empty when the kernel has no definition.
// (src/core/kernel_code.cpp)
std::string kernel_code(const std::string& source, const std::string& kernel_name);

}  // namespace grader
