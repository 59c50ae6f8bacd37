// One lab test program's own constants (grader/kit/include/grader/test_program.hpp), from the
// compile definitions cmake/WorkbookLab.cmake gives it. The only file compiled per program.
#include "grader/test_program.hpp"

#ifndef WORKBOOK_LAB_TOML
#error "WORKBOOK_LAB_TOML must name the lab's lab.toml"
#endif
#ifndef WORKBOOK_SOURCE_DIR
#error "WORKBOOK_SOURCE_DIR must name the folder of the sources under test"
#endif
#ifdef WORKBOOK_INSPECT_PROGRAM
#define WORKBOOK_INSPECTING true
#else
#define WORKBOOK_INSPECTING false
#endif
#ifndef WORKBOOK_RUNNER_PROGRAM
#define WORKBOOK_RUNNER_PROGRAM ""  // the code under test is linked into this program
#endif

namespace grading::program {

const char* const lab_toml = WORKBOOK_LAB_TOML;
const char* const source_dir = WORKBOOK_SOURCE_DIR;
const char* const runner = WORKBOOK_RUNNER_PROGRAM;
const bool inspecting = WORKBOOK_INSPECTING;

}  // namespace grading::program
