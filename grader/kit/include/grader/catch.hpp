// Catch2 v2 (Debian 12) and v3 (Ubuntu 24.04 and later) behind one include. The tests use only
// what both have: TEST_CASE, SECTION, CHECK, REQUIRE, INFO, Approx (v3's Catch::Approx, brought
// in by name as v2 has it), and a main() through run_catch_session() below. CMake tells which version it found (WORKBOOK_CATCH2_MAJOR), so a
// stray v3 header on the include path cannot be mixed with a v2 library or the other way round.
#pragma once

#ifndef WORKBOOK_CATCH2_MAJOR
#error "WORKBOOK_CATCH2_MAJOR must be defined by the build (see cmake/WorkbookDependencies.cmake)"
#endif

#if WORKBOOK_CATCH2_MAJOR >= 3
#include <catch2/catch_approx.hpp>
#include <catch2/catch_session.hpp>
#include <catch2/catch_test_macros.hpp>
using Catch::Approx;
#else
#include <catch2/catch.hpp>
#endif

namespace grader {
// Runs the tests named on the command line (Catch2's Session): 0 when all passed, 1 otherwise.
// main() calls it instead of defining CATCH_CONFIG_RUNNER (grader/kit/src/catch_impl.cpp says why;
// link grader_catch).
int run_catch_session(int argc, char** argv);
}  // namespace grader
