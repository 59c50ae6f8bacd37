#include "grader/catch.hpp"
#include "grader/static_check.hpp"

#include <algorithm>
#include <fstream>
#include <sstream>

using namespace grader;

namespace {
// Used only by the tests that read solutions/ (absent in a student release).
[[maybe_unused]] std::string read(const std::string& relative) {
  std::ifstream in(std::string(WORKBOOK_SOURCE_ROOT) + "/" + relative);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}
}  // namespace

TEST_CASE("comments and string contents are not code", "[static]") {
  const std::string src = "int a; // __shared__ here\n/* __shared__\n there */ const char* s = \"__shared__\";\n";
  const std::string code = strip_comments_and_strings(src);
  CHECK(code.find("__shared__") == std::string::npos);
  CHECK(code.find("int a;") != std::string::npos);
  CHECK(std::count(code.begin(), code.end(), '\n') == std::count(src.begin(), src.end(), '\n'));
  CHECK_FALSE(code_uses(src, "__shared__"));
  CHECK(code_uses("__shared__ float Mds[16][16];", "__shared__"));
}

TEST_CASE("whole identifiers only", "[static]") {
  CHECK_FALSE(code_uses("int my__shared__x;", "__shared__"));
  CHECK(code_uses("x = y;__shared__ int z;", "__shared__"));
  CHECK_FALSE(code_uses("char c = '\"'; // \"__shared__\n", "__shared__"));
}

TEST_CASE("function_body finds the definition, not a declaration or a launch", "[static]") {
  const std::string src = R"(
template <int T> __global__ void tiledKernel(const float* A, float* C);
void launch() { tiledKernel<16><<<1, 1>>>(nullptr, nullptr); }
template <int T>
__global__ void tiledKernel(const float* A, float* C) {
  __shared__ float Mds[T][T];
  if (A) { C[0] = 1; }
}
void after() { int x; }
)";
  const std::string body = function_body(src, "tiledKernel");
  CHECK(body.find("__shared__ float Mds") != std::string::npos);
  CHECK(body.find("C[0] = 1;") != std::string::npos);
  CHECK(body.find("after") == std::string::npos);
  CHECK(function_body(src, "missingKernel").empty());
}

#ifdef WORKBOOK_HAS_SOLUTIONS  // reads solutions/, which a student release does not have
TEST_CASE("matmul-tiled: the reference's tiledKernel uses shared memory, the starter's does not", "[static]") {
  CHECK(code_uses(function_body(read("solutions/matmul-tiled/matmul.cu"), "tiledKernel"), "__shared__"));
  const std::string starter = function_body(read("labs/matmul-tiled/matmul.cu"), "tiledKernel");
  CHECK_FALSE(starter.empty());
  CHECK_FALSE(code_uses(starter, "__shared__"));  // only mentioned in its TODO comments
}
#endif

TEST_CASE("read as the compiler reads it: digit separators, raw strings, spliced comments", "[static]") {
  // A digit separator is not a quote: the rest of the line is still code.
  CHECK(code_uses("const int N = 1'000'000; __shared__ float Mds[16];", "__shared__"));
  CHECK(code_uses("unsigned m = 0xFF'FF; __shared__ int x;", "__shared__"));
  CHECK_FALSE(code_uses("char c = 'a'; // __shared__", "__shared__"));
  // A raw string ends only at its own delimiter, quotes inside or not.
  CHECK_FALSE(code_uses("auto s = R\"x(\" __shared__ )\" )x\"; int y;", "__shared__"));
  CHECK(code_uses("auto s = R\"(text)\"; __shared__ int z;", "__shared__"));
  // A // comment ending in a backslash goes on to the next line: that line is comment too.
  const std::string spliced = "int a; // note \\\n__shared__ float Mds[16];\nint b;\n";
  CHECK_FALSE(code_uses(spliced, "__shared__"));
  const std::string code = strip_comments_and_strings(spliced);
  CHECK(std::count(code.begin(), code.end(), '\n') == 3);  // lines keep their numbers
  CHECK(code.find("int b;") != std::string::npos);
}
