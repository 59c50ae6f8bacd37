// Catch2's implementation and its runner, compiled once for every test program with a main() of
// its own: the labs' test programs (grader/kit/src/test_main.cpp), unit-tests, gpu-tests and
// particle-storm-selftest. Catch2 v2 is one header that compiles its whole implementation
// wherever CATCH_CONFIG_RUNNER is defined, and declares Catch::Session only there: about 30 s of
// one core, which each of those programs used to spend again. Catch2 v3 is a compiled library
// (Catch2::Catch2), and this file only runs its Session.
#define CATCH_CONFIG_RUNNER
#include "grader/catch.hpp"

namespace grader {

int run_catch_session(int argc, char** argv) {
  // Catch2 returns the number of failed assertions (v2) or tests (v3); scripts and the grader
  // want 0 (all passed) or 1 (something failed).
  return Catch::Session().run(argc, argv) == 0 ? 0 : 1;
}

}  // namespace grader
