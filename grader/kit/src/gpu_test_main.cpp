// main() of the project's GPU tests (gpu-tests, the labs' device-reference self-tests): without a
// GPU, a visible skip (exit 77, CTest "Skipped"). Link grader_gpu_test_main.
#include "grader/catch.hpp"
#include "workbook/device_query.hpp"

#include <iostream>

int main(int argc, char** argv) {
  std::string why;
  if (workbook::device_count(&why) == 0) {
    std::cout << "SKIPPED: no CUDA GPU is usable here (" << why << "); these tests need one.\n";
    return 77;
  }
  return grader::run_catch_session(argc, argv);
}
