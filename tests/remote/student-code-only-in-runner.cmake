# The student's code is linked into the runner and nowhere else (docs/architecture.md, "Two
# processes"): whatever a submission defines (a kernel, its own cudaEventElapsedTime, a workbook
# function) cannot replace anything in the test program that keeps the verdict.
#   cmake -DNM=<nm> -DHARNESS=<grade-lab> -DRUNNER=<runner-lab> -DSOURCES="a.cu;b.cu" -P student-code-only-in-runner.cmake
# nvcc names each kernel's host stub after its translation unit (..._<file>_cu_<hash>...), so
# the stubs of the editable files' kernels say where that file's code was linked. The names are
# read mangled (no nm -C): CUDA 12 gives a template kernel's stub the kernel's own name, which
# demangles to 'ns::(anonymous namespace)::kernel<2>(...)', without the file's name.
cmake_minimum_required(VERSION 3.25)
execute_process(COMMAND ${NM} --defined-only ${HARNESS} OUTPUT_VARIABLE harness_symbols COMMAND_ERROR_IS_FATAL ANY)
execute_process(COMMAND ${NM} --defined-only ${RUNNER} OUTPUT_VARIABLE runner_symbols COMMAND_ERROR_IS_FATAL ANY)
set(problems "")
foreach(src IN LISTS SOURCES)
  get_filename_component(stem ${src} NAME_WE)
  set(marker "_${stem}_cu_")
  string(FIND "${harness_symbols}" "${marker}" in_harness)
  string(FIND "${runner_symbols}" "${marker}" in_runner)
  if(NOT in_harness EQUAL -1)
    string(APPEND problems "\n  ${HARNESS} contains code compiled from ${src} (a symbol with '${marker}')")
  endif()
  if(in_runner EQUAL -1)
    string(APPEND problems "\n  ${RUNNER} has no code compiled from ${src} (no symbol with '${marker}'): is the test looking at the right program?")
  endif()
endforeach()
if(problems)
  message(FATAL_ERROR "the student's code is not where it should be:${problems}")
endif()
message(STATUS "${SOURCES}: in the runner only")
