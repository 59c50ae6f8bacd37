// Where NVIDIA's tools are: compute-sanitizer and Nsight Compute (ncu) come with the CUDA Toolkit
// but are often not on PATH (a toolkit in /usr/local/cuda, a module that sets only nvcc's).
#pragma once

#include <filesystem>
#include <string>

namespace grader::inspect {

struct Tool {
  std::filesystem::path path;  // empty when not found
  std::string missing;         // when not found: one line that says what to do
};

// Looks in this order: the environment variable (WORKBOOK_COMPUTE_SANITIZER, WORKBOOK_NCU), PATH,
// the bin folder of the toolkit the workbook was built with, /usr/local/cuda/bin.
Tool find_compute_sanitizer();
Tool find_ncu();

}  // namespace grader::inspect
