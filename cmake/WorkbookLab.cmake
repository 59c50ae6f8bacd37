# workbook_add_lab(): the build of one lab, the same for all five.
#
#   workbook_add_lab(matmul-tiled
#     SOURCES matmul.cu                 # the editable files, as named in lab.toml
#     TESTS   test_matmul.cpp           # the grader's Catch2 tests (in grader/labs/<lab>/)
#     SUPPORT sequential.cpp)           # CPU reference and baseline code the tests use
#
# It builds the tests twice, once against each copy of the editable files:
#   grade-<lab>      labs/<lab>/       what the student edits; `grader check <lab>` runs it
#   reference-<lab>  solutions/<lab>/  the reference solution; the project's tests run it
# Both compile against the official interface header in labs/<lab>/, and both read
# labs/<lab>/lab.toml at run time (thresholds and points never need a rebuild).
#
# Without solutions/<lab>/ (a student release: release-exclude.txt) only the grade flavour is
# built: no reference-<lab>, no runner-reference-<lab>, and the project's tests that run the
# reference (reference/<lab>, grader-check/<lab>/reference) are not defined. The lab's own
# CMakeLists.txt asks `if(TARGET reference-<lab>-code)` for what it builds from the reference.
function(workbook_add_lab lab)
  cmake_parse_arguments(ARG "" "REMOTE" "SOURCES;TESTS;SUPPORT;RUNNER_SUPPORT" ${ARGN})
  set(lab_dir ${PROJECT_SOURCE_DIR}/labs/${lab})
  set(solution_dir ${PROJECT_SOURCE_DIR}/solutions/${lab})

  # The tests and the CPU support code are compiled once and linked into both programs, and
  # into each submission's program by `grader batch` (exported: see WorkbookBatch.cmake).
  add_library(${lab}-tests OBJECT ${ARG_TESTS} ${ARG_SUPPORT})
  target_include_directories(${lab}-tests PRIVATE ${lab_dir} ${CMAKE_CURRENT_SOURCE_DIR})
  target_link_libraries(${lab}-tests PRIVATE grader_testing)
  set_property(GLOBAL APPEND PROPERTY WORKBOOK_EXPORTED_TARGETS ${lab}-tests)

  # REMOTE remote.cpp: the lab's functions run in a process of their own (grader/remote/): the
  # file defines them in the test program as calls to the runner, and registers the student's
  # real functions in the runner, which is the only program that links the student's code.
  # RUNNER_SUPPORT: grader code the runner needs beside it (particle-storm's copy counter); link
  # options the runner needs go on ${lab}-remote-runner's INTERFACE_LINK_OPTIONS.
  if(ARG_REMOTE)
    add_library(${lab}-remote-harness OBJECT ${ARG_REMOTE})
    target_include_directories(${lab}-remote-harness PRIVATE ${lab_dir} ${CMAKE_CURRENT_SOURCE_DIR})
    target_link_libraries(${lab}-remote-harness PRIVATE grader_remote_harness)
    add_library(${lab}-remote-runner OBJECT ${ARG_REMOTE} ${ARG_RUNNER_SUPPORT})
    target_include_directories(${lab}-remote-runner PRIVATE ${lab_dir} ${CMAKE_CURRENT_SOURCE_DIR})
    target_compile_definitions(${lab}-remote-runner PRIVATE WORKBOOK_RUNNER)
    target_link_libraries(${lab}-remote-runner PRIVATE grader_runner)
    set_property(GLOBAL APPEND PROPERTY WORKBOOK_EXPORTED_TARGETS ${lab}-remote-runner)
  endif()

  set(flavours grade)
  if(EXISTS ${solution_dir})
    list(APPEND flavours reference)
  endif()
  foreach(flavour IN LISTS flavours)
    if(flavour STREQUAL "grade")
      set(code_dir ${lab_dir})
    else()
      set(code_dir ${solution_dir})
    endif()
    set(code_sources "")
    foreach(src IN LISTS ARG_SOURCES)
      list(APPEND code_sources ${code_dir}/${src})
    endforeach()

    add_library(${flavour}-${lab}-code STATIC ${code_sources})
    target_include_directories(${flavour}-${lab}-code PUBLIC ${lab_dir})
    target_link_libraries(${flavour}-${lab}-code PUBLIC workbook::common)

    add_executable(${flavour}-${lab} ${PROJECT_SOURCE_DIR}/grader/kit/src/test_program_info.cpp)
    target_compile_definitions(${flavour}-${lab} PRIVATE
      WORKBOOK_LAB_TOML="${lab_dir}/lab.toml"
      WORKBOOK_SOURCE_DIR="${code_dir}")
    set_target_properties(${flavour}-${lab} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/bin)
    if(ARG_REMOTE)
      # grade-<lab> / reference-<lab> hold the tests only; runner-<lab> / runner-reference-<lab>
      # hold the code under test.
      if(flavour STREQUAL "grade")
        set(runner runner-${lab})
      else()
        set(runner runner-reference-${lab})
      endif()
      add_executable(${runner} $<TARGET_OBJECTS:${lab}-remote-runner>)
      target_link_libraries(${runner} PRIVATE grader_runner ${flavour}-${lab}-code)
      target_link_options(${runner} PRIVATE $<TARGET_PROPERTY:${lab}-remote-runner,INTERFACE_LINK_OPTIONS>)
      set_target_properties(${runner} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/bin)
      target_compile_definitions(${flavour}-${lab} PRIVATE WORKBOOK_RUNNER_PROGRAM="$<TARGET_FILE:${runner}>")
      target_link_libraries(${flavour}-${lab} PRIVATE ${lab}-tests ${lab}-remote-harness grader_test_main grader_testing)
      add_dependencies(${flavour}-${lab} ${runner})

      # inspect-<lab> / inspect-reference-<lab>: the same tests with the code under test linked
      # in, one process, as before the runner existed. Never used for a grade (it keeps nothing
      # from the code it runs); it is what `grader check --sanitize` and `--profile` run under
      # compute-sanitizer and Nsight Compute, which then see each buffer's exact size (the
      # harness rounds buffers up to whole IPC blocks) and every kernel in one process.
      if(flavour STREQUAL "grade")
        set(inspect inspect-${lab})
      else()
        set(inspect inspect-reference-${lab})
      endif()
      add_executable(${inspect} ${PROJECT_SOURCE_DIR}/grader/kit/src/test_program_info.cpp)
      target_compile_definitions(${inspect} PRIVATE
        WORKBOOK_INSPECT_PROGRAM
        WORKBOOK_LAB_TOML="${lab_dir}/lab.toml"
        WORKBOOK_SOURCE_DIR="${code_dir}")
      target_include_directories(${inspect} PRIVATE ${lab_dir} ${CMAKE_CURRENT_SOURCE_DIR})
      set_target_properties(${inspect} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/bin)
      target_link_libraries(${inspect} PRIVATE ${lab}-tests ${flavour}-${lab}-code grader_test_main grader_testing)
    else()
      target_link_libraries(${flavour}-${lab} PRIVATE ${lab}-tests ${flavour}-${lab}-code grader_test_main grader_testing)
    endif()
  endforeach()

  # The project's own tests (label "project"):
  #  - the reference solution passes every correctness and static test of the lab, run directly
  #    (on a GPU; skipped without one);
  #  - `grader check` on the reference reports every check passed, the timed ones included: with
  #    the thresholds `grader check` derives for this machine, where the program run directly has
  #    only lab.toml's, which are an H100's (transpose_tiled's share of the copy is 0.39 on an H200);
  #  - `grader check` on the shipped starter reports its correctness cases incorrect (the
  #    checks bite) and nothing crashed.
  #  (the first two only where solutions/<lab>/ is).
  set(expects starter)
  if(TARGET reference-${lab})
    add_test(NAME reference/${lab} COMMAND reference-${lab} "~[performance]")
    set_tests_properties(reference/${lab} PROPERTIES LABELS "project;gpu" SKIP_RETURN_CODE 77 RUN_SERIAL ON)
    set(expects reference starter)
  endif()
  foreach(expect IN LISTS expects)
    add_test(NAME grader-check/${lab}/${expect}
      COMMAND ${CMAKE_COMMAND} -DGRADER=$<TARGET_FILE:grader> -DLAB=${lab} -DEXPECT=${expect}
              -DOUT=${PROJECT_BINARY_DIR}/test-runs/${lab}-${expect}.json
              -P ${PROJECT_SOURCE_DIR}/cmake/CheckGraderReport.cmake)
    set_tests_properties(grader-check/${lab}/${expect} PROPERTIES
      LABELS "project;gpu" SKIP_REGULAR_EXPRESSION "SKIPPED: no CUDA GPU" RUN_SERIAL ON)
  endforeach()

  # Remote labs: the student's code is in the runner, never in the test program (runs here, no GPU).
  if(ARG_REMOTE)
    add_test(NAME remote/${lab}/student-code-only-in-runner
      COMMAND ${CMAKE_COMMAND} -DNM=${CMAKE_NM} -DHARNESS=$<TARGET_FILE:grade-${lab}>
              -DRUNNER=$<TARGET_FILE:runner-${lab}> "-DSOURCES=${ARG_SOURCES}"
              -P ${PROJECT_SOURCE_DIR}/tests/remote/student-code-only-in-runner.cmake)
    set_tests_properties(remote/${lab}/student-code-only-in-runner PROPERTIES LABELS "project;cpu")
  endif()

  # What a student runs (label "grade", the `grade` workflow): the lab in the working copy.
  add_test(NAME grade/${lab} COMMAND grader check ${lab} --no-build)
  set_tests_properties(grade/${lab} PROPERTIES LABELS "grade" SKIP_RETURN_CODE 4 RUN_SERIAL ON)  # 4: no GPU
endfunction()
