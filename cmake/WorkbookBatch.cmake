# Support for `grader batch`: each submission is built in a folder of its own by a small CMake
# project (grader/batch/CMakeLists.txt) that compiles only the submission's files and links them
# with this build's already compiled tests. This file exports those targets and writes the
# settings that project needs to compile exactly as this build does:
#   <build>/batch/WorkbookBatchSettings.cmake   compilers, architectures, build type (before project())
#   <build>/batch/WorkbookBatchTargets.cmake    find_package of the dependencies, then the targets
# Exporting needs every dependency to be an installed package (found by find_package): with a
# dependency fetched by FetchContent, batch grading is switched off and says why.

get_property(lab_tests GLOBAL PROPERTY WORKBOOK_EXPORTED_TARGETS)
set(batch_dir ${PROJECT_BINARY_DIR}/batch)
set(WORKBOOK_BATCH_PROBLEM "")
foreach(dep tomlplusplus::tomlplusplus fmt::fmt nlohmann_json::nlohmann_json Catch2::Catch2)
  get_target_property(imported ${dep} IMPORTED)
  if(NOT imported)
    set(WORKBOOK_BATCH_PROBLEM "${dep} was built from source by FetchContent; install it as a package for grader batch")
  endif()
endforeach()

if(WORKBOOK_BATCH_PROBLEM)
  file(WRITE ${batch_dir}/unsupported.txt "${WORKBOOK_BATCH_PROBLEM}\n")
else()
  file(REMOVE ${batch_dir}/unsupported.txt)
  export(TARGETS workbook_common grader_core grader_testing grader_remote_wire grader_remote_harness grader_runner ${lab_tests}
         NAMESPACE workbook:: FILE ${batch_dir}/WorkbookExports.cmake)

  set(settings "# Written by cmake/WorkbookBatch.cmake: how this build compiles.\n")
  foreach(var CMAKE_CXX_COMPILER CMAKE_CUDA_COMPILER CMAKE_CUDA_HOST_COMPILER CMAKE_CUDA_ARCHITECTURES
              CMAKE_BUILD_TYPE CMAKE_PREFIX_PATH WORKBOOK_DEVICE_DEBUG)
    # Unless the command line gave it (grader batch passes the architectures it wants).
    string(APPEND settings "if(NOT DEFINED ${var})\n  set(${var} \"${${var}}\")\nendif()\n")
  endforeach()
  string(APPEND settings "set(WORKBOOK_SOURCE_ROOT \"${PROJECT_SOURCE_DIR}\")\n")
  file(WRITE ${batch_dir}/WorkbookBatchSettings.cmake "${settings}")

  set(targets "# Written by cmake/WorkbookBatch.cmake: the dependencies, then this build's targets.\n")
  string(APPEND targets "find_package(CUDAToolkit REQUIRED)\n")
  foreach(pkg tomlplusplus fmt nlohmann_json Catch2)
    string(APPEND targets "set(${pkg}_DIR \"${${pkg}_DIR}\")\nfind_package(${pkg} REQUIRED CONFIG)\n")
  endforeach()
  string(APPEND targets "include(\"\${CMAKE_CURRENT_LIST_DIR}/WorkbookExports.cmake\")\n")
  file(WRITE ${batch_dir}/WorkbookBatchTargets.cmake "${targets}")
endif()
