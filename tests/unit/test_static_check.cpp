#include "grader/catch.hpp"
#include "grader/static_check.hpp"

#include <algorithm>
#include <fstream>
#include <sstream>

using namespace grader;

namespace {
std::string read(const std::string& relative) {
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

TEST_CASE("matmul-tiled: the reference's tiledKernel uses shared memory, the starter's does not", "[static]") {
  CHECK(code_uses(function_body(read("solutions/matmul-tiled/matmul.cu"), "tiledKernel"), "__shared__"));
  const std::string starter = function_body(read("labs/matmul-tiled/matmul.cu"), "tiledKernel");
  CHECK_FALSE(starter.empty());
  CHECK_FALSE(code_uses(starter, "__shared__"));  // only mentioned in its TODO comments
}
