// main() of the CPU unit tests.
#include "grader/catch.hpp"

int main(int argc, char** argv) { return grader::run_catch_session(argc, argv); }
