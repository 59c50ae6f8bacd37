// Catch2 v2 (Debian 12) and v3 (Ubuntu 24.04 and later) behind one include. The tests use only
// what both have: TEST_CASE, SECTION, CHECK, REQUIRE, INFO, Catch::Session. CMake tells which
// version it found (WORKBOOK_CATCH2_MAJOR), so a stray v3 header on the include path cannot
// be mixed with a v2 library or the other way round.
#pragma once

#ifndef WORKBOOK_CATCH2_MAJOR
#error "WORKBOOK_CATCH2_MAJOR must be defined by the build (see cmake/WorkbookDependencies.cmake)"
#endif

#if WORKBOOK_CATCH2_MAJOR >= 3
#include <catch2/catch_session.hpp>
#include <catch2/catch_test_macros.hpp>
#else
#include <catch2/catch.hpp>
#endif
