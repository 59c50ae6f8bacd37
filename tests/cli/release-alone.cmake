# A student release works alone: `grader release` into a new folder, then, in that folder only,
# configure (portable preset), build and run the CPU tests; the release holds no file of
# solutions/ and no link out of itself, and `grader starters` has nothing to check there.
# One lab is built (-DWORKBOOK_LABS), as PTX for one architecture, to keep CI short: what is
# tested is that the release configures, builds and passes its tests alone, not the device code.
# The class-grading tests are left out (slurm/, batch/: a Slurm cluster started and stopped,
# sandboxes of hostile builds, course corpora; over 200 s together on CI's two cores): they are
# the instructors' tools, use nothing a release removes, and the instructors' tree runs them.
#   cmake -DGRADER=... -DWORK=<scratch> [-DLABS=matmul-tiled] -P release-alone.cmake
if(NOT DEFINED LABS)
  set(LABS matmul-tiled)
endif()
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
# Hidden cases in the course file, which goes to the students: refused, with what to do instead.
file(WRITE ${WORK}/leaky.toml "[labs.matmul-tiled.hidden]\nshapes = [[999, 333, 77]]\n")
execute_process(COMMAND ${GRADER} release ${WORK}/leaky --config ${WORK}/leaky.toml
                RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(status EQUAL 0 OR NOT err MATCHES "hidden cases would be handed to the students" OR EXISTS ${WORK}/leaky/labs)
  message(FATAL_ERROR "a course file with [labs.matmul-tiled.hidden] was not refused (exit ${status}):\n${out}${err}")
endif()
file(WRITE ${WORK}/course.toml "[hints]\ndefault = \"full\"\n\n[labs.matmul-tiled.exercises.naive]\nmin_speedup = 1.0\n")
execute_process(COMMAND ${GRADER} release ${WORK}/release --config ${WORK}/course.toml RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "grader release failed (${status})")
endif()
set(release ${WORK}/release)
if(EXISTS ${release}/solutions)
  message(FATAL_ERROR "the release holds solutions/")
endif()
file(GLOB_RECURSE all LIST_DIRECTORIES false ${release}/*)
foreach(f IN LISTS all)
  if(IS_SYMLINK ${f})
    file(READ_SYMLINK ${f} target)
    message(FATAL_ERROR "${f} is a link (to ${target})")
  endif()
endforeach()
if(NOT EXISTS ${release}/labs/matmul-tiled/course.toml)
  message(FATAL_ERROR "the course's settings did not reach labs/matmul-tiled/course.toml")
endif()
# The project's own path must not appear in what the release's build reads.
execute_process(COMMAND grep -rlF "${SOURCE}" ${release} --include=CMakeLists.txt --include=*.cmake
                        --include=CMakePresets.json --include=*.toml
                OUTPUT_VARIABLE leaks)
if(leaks)
  message(FATAL_ERROR "files of the release name the workbook it came from:\n${leaks}")
endif()
# The release alone: its own source root, its own build.
unset(ENV{WORKBOOK_SOURCE_ROOT})
unset(ENV{WORKBOOK_BUILD_ROOT})
foreach(step
    "${CMAKE_COMMAND};--preset;portable;-DWORKBOOK_LABS=${LABS};-DWORKBOOK_BUILD_BENCHMARKS=OFF;-DCMAKE_CUDA_ARCHITECTURES=90-virtual"
    "${CMAKE_COMMAND};--build;build/portable;-j2"
    "${CMAKE_CTEST_COMMAND};--test-dir;build/portable;-L;cpu;-E;^(slurm|batch)/;--output-on-failure")
  execute_process(COMMAND ${step} WORKING_DIRECTORY ${release} RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT status EQUAL 0)
    string(LENGTH "${out}" n)
    if(n GREATER 6000)
      math(EXPR from "${n} - 6000")
      string(SUBSTRING "${out}" ${from} -1 out)
    endif()
    message(FATAL_ERROR "in the release: ${step} failed (${status}):\n${out}")
  endif()
  # A student's first build is quiet: no warning from the project's CMake files, its starters or
  # its tests (code that only the instructors' tree uses is where they hide).
  string(REGEX MATCHALL "[^\n]*[Ww]arning[^\n]*" warnings "${out}")
  if(warnings)
    list(JOIN warnings "\n" warnings)
    message(FATAL_ERROR "in the release: ${step} warned:\n${warnings}")
  endif()
endforeach()
string(REGEX MATCH "[0-9]+% tests passed[^\n]*" summary "${out}")
message(STATUS "the release builds and its CPU tests pass alone: ${summary}")
execute_process(COMMAND ${release}/build/portable/bin/grader starters RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(status EQUAL 0 OR NOT err MATCHES "no marked solutions here")
  message(FATAL_ERROR "grader starters in a release should find no solutions:\n${out}${err}")
endif()
