// main() of the CPU unit tests.
#define CATCH_CONFIG_RUNNER
#include "grader/catch.hpp"

int main(int argc, char** argv) { return Catch::Session().run(argc, argv) == 0 ? 0 : 1; }
