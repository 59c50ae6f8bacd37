// Starters generated from marked solutions (grader/src/release/starter.hpp).
#include "grader/catch.hpp"
#include "release/starter.hpp"

using grader::HintLevel;

namespace {
const std::string kMarked =
    "// BEGIN SOLUTION\n"
    "// demo: reference solution.\n"
    "// STARTER\n"
    "//| // demo: YOUR CODE.\n"
    "// END SOLUTION\n"
    "__global__ void k(float* C) {\n"
    "  // BEGIN SOLUTION naive\n"
    "  C[threadIdx.x] = 1.0f;\n"
    "  // STARTER\n"
    "  //| // TODO(naive): write one element\n"
    "  //| //   of C. Then return.\n"
    "  //|\n"
    "  //| (void)C;\n"
    "  // END SOLUTION\n"
    "}\n";
}  // namespace

TEST_CASE("a marked solution gives the starter at each hint level", "[starter]") {
  CHECK(grader::generate_starter(kMarked, HintLevel::Full, "demo.cu") ==
        "// demo: YOUR CODE.\n"
        "__global__ void k(float* C) {\n"
        "  // TODO(naive): write one element\n"
        "  //   of C. Then return.\n"
        "\n"
        "  (void)C;\n"
        "}\n");
  CHECK(grader::generate_starter(kMarked, HintLevel::Brief, "demo.cu") ==
        "// demo: YOUR CODE.\n"
        "__global__ void k(float* C) {\n"
        "  // TODO(naive): write one element of C. See README.md, exercise naive.\n"
        "  (void)C;\n"
        "}\n");
  CHECK(grader::generate_starter(kMarked, HintLevel::None, "demo.cu") ==
        "// demo: YOUR CODE.\n"
        "__global__ void k(float* C) {\n"
        "  (void)C;\n"
        "}\n");
  // Text outside the markers, a file without markers and the final newline pass unchanged.
  CHECK(grader::generate_starter("int x;\n", HintLevel::None, "x.cu") == "int x;\n");
  CHECK(grader::generate_starter("int x;", HintLevel::Full, "x.cu") == "int x;");
}

TEST_CASE("misplaced markers are errors naming the file and line", "[starter]") {
  const auto error = [](const std::string& text) {
    try {
      grader::generate_starter(text, HintLevel::Full, "s.cu");
    } catch (const grader::MarkerError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK(error("int x;\n// END SOLUTION\n") == "s.cu:2: END SOLUTION without BEGIN SOLUTION");
  CHECK(error("// BEGIN SOLUTION naive\nint x;\n") == "s.cu:1: BEGIN SOLUTION without END SOLUTION");
  CHECK(error("// BEGIN SOLUTION\n// BEGIN SOLUTION\n") == "s.cu:2: BEGIN SOLUTION inside the region opened on line 1");
  CHECK(error("// STARTER\n") == "s.cu:1: STARTER outside a BEGIN SOLUTION ... END SOLUTION region");
  CHECK(error("//| int x;\n") == "s.cu:1: a //| line outside a STARTER part");
  CHECK(error("// BEGIN SOLUTION\n// STARTER\nint y;\n// END SOLUTION\n") ==
        "s.cu:3: a starter line must start with //| (region opened on line 1)");
}

TEST_CASE("first_difference names the first line that differs", "[starter]") {
  CHECK(grader::first_difference("a\nb\n", "a\nb\n").line == 0);
  const auto d = grader::first_difference("a\nb\nc\n", "a\nB\nc\n");
  CHECK(d.line == 2);
  CHECK(d.expected == "b");
  CHECK(d.found == "B");
  CHECK(grader::first_difference("a\nb", "a").found == "(end of file)");
}
