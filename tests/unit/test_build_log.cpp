// The build-failure report on real compiler output: nvcc compiles a broken kernel here (no GPU
// needed) and the extracted message must name the file and line.
#include "grader/build_log.hpp"
#include "grader/catch.hpp"
#include "grader/process.hpp"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

using namespace grader;

TEST_CASE("nvcc's error for a broken kernel is shown with file and line", "[build_log]") {
  const auto dir = std::filesystem::temp_directory_path() / ("workbook-build-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "broken.cu") << "__global__ void k(float* C) {\n"
                                      "  int Row = blockIdx.y\n"  // missing ';' on line 2
                                      "  C[Row] = 1.0f;\n"
                                      "}\n";
  ProcessOptions o;
  o.argv = {WORKBOOK_NVCC, "-c", (dir / "broken.cu").string(), "-o", (dir / "broken.o").string()};
  o.output_file = dir / "build.log";
  const auto r = run_process(o);
  REQUIRE_FALSE(r.ok());
  std::ifstream in(dir / "build.log");
  std::stringstream log;
  log << in.rdbuf();
  const auto errors = compiler_errors(log.str(), dir);
  INFO(log.str());
  CHECK(errors.find("broken.cu(3): error") != std::string::npos);
  CHECK(errors.find(dir.string() + "/") == std::string::npos);  // paths shortened
  std::filesystem::remove_all(dir);
}

TEST_CASE("gcc-style and linker errors are picked out of ninja noise", "[build_log]") {
  const std::string log =
      "[1/3] Building CXX object foo.o\n"
      "FAILED: foo.o\n"
      "/repo/labs/x/x.cpp:12:5: error: 'Pvalue' was not declared in this scope\n"
      "   12 |     Pvalue += 1;\n"
      "      |     ^~~~~~\n"
      "[2/3] Linking\n"
      "/usr/bin/ld: x.o: undefined reference to `matmul::naive(...)'\n"
      "ninja: build stopped: subcommand failed.\n";
  const auto errors = compiler_errors(log, "/repo");
  CHECK(errors.find("labs/x/x.cpp:12:5: error: 'Pvalue' was not declared") != std::string::npos);
  CHECK(errors.find("Pvalue += 1;") != std::string::npos);
  CHECK(errors.find("undefined reference") != std::string::npos);
  CHECK(errors.find("Building CXX") == std::string::npos);
}

TEST_CASE("a log with no recognisable error shows its end", "[build_log]") {
  std::string log;
  for (int i = 0; i < 100; ++i) log += "line " + std::to_string(i) + "\n";
  const auto shown = compiler_errors(log, "/repo", 5);
  CHECK(shown.find("line 99") != std::string::npos);
  CHECK(shown.find("line 50") == std::string::npos);
}
