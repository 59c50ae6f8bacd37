# The batch grader on hostile submissions, as a CTest test (tests/CMakeLists.txt):
#   cmake -DGRADER=... -DMAKE_ARCHIVES=... -DFIXTURES=... -DSOLUTION=... -DSTARTER=... -DWORK=... -P batch-test.cmake
# Builds a folder of submissions (folders, a .zip, .tar.gz files and hostile archives) from the
# reference solution, the shipped starter and tests/batch/fixtures: each <name>.cu.in there is
# what a misbehaving submission adds to the starter (code that runs as the program starts), runs `grader batch` on it, and checks the outcome of every submission, the
# gradebook, the per-student files, that nothing was written outside the sandbox, and that a
# second run resumes (keeps every result) and --regrade redoes only the students named.
# Without a GPU the well-behaved submissions are reported as "no GPU"; with one they are graded.
# Without solutions/ (a student release) the shipped starter stands in for the reference: the
# well-behaved submissions are then graded as the starter is, and the attempts to include the
# reference name a path that is not there (the pre-build check refuses them all the same).
cmake_minimum_required(VERSION 3.25)

set(subs ${WORK}/submissions)
set(out ${WORK}/results)
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${subs})
get_filename_component(home "$ENV{HOME}" ABSOLUTE)
file(REMOVE ${home}/ESCAPED-writes-outside /tmp/ESCAPED-absolute.cu)

if(EXISTS ${SOLUTION})
  set(good_source ${SOLUTION})
else()
  set(good_source ${STARTER})
  message(STATUS "no ${SOLUTION}: the starter stands in for the reference")
endif()
file(READ ${good_source} solution)
file(READ ${STARTER} starter)
file(WRITE ${subs}/good/matmul.cu "${solution}")
file(COPY ${FIXTURES}/missing DESTINATION ${subs})
# A compile error: one missing semicolon in the reference (at the end, where it has no such line).
string(REPLACE "+ threadIdx.y;" "+ threadIdx.y  // a missing semicolon" broken "${solution}")
if(broken STREQUAL solution)
  string(APPEND broken "int one_more = 1  // a missing semicolon\nint and_another = 2;\n")
endif()
file(WRITE ${subs}/broken/matmul.cu "${broken}")
set(SUBMISSIONS ${subs})
set(RESULTS ${out})
set(HOME ${home})
foreach(name loops segfault forkbomb network allocates writes-outside writes-big)
  configure_file(${FIXTURES}/${name}.cu.in ${WORK}/${name}.cu @ONLY)  # fills in @SUBMISSIONS@ ...
  file(READ ${WORK}/${name}.cu misbehaviour)
  file(WRITE ${subs}/${name}/matmul.cu "${starter}${misbehaviour}")
endforeach()
# Attempts to make the compiler read the reference (issue 12), refused by the pre-build check
# before anything is built: the reference by absolute path, by a relative path that climbs out of
# the folder batch builds in, through a macro (each the whole matmul.cu), and a #line with a file
# name before the starter.
file(RELATIVE_PATH CLIMB ${out}/work/include-climbs/src ${SOLUTION})
foreach(name include-absolute include-climbs include-macro line-trick)
  configure_file(${FIXTURES}/${name}.cu.in ${WORK}/${name}.cu @ONLY)  # fills in @SOLUTION@, @CLIMB@
  file(READ ${WORK}/${name}.cu attempt)
  if(name STREQUAL "line-trick")
    string(APPEND attempt "${starter}")
  endif()
  file(WRITE ${subs}/${name}/matmul.cu "${attempt}")
endforeach()
execute_process(COMMAND ${CMAKE_COMMAND} -E tar cf ${subs}/good-zip.zip --format=zip matmul.cu
                WORKING_DIRECTORY ${subs}/good COMMAND_ERROR_IS_FATAL ANY)
file(WRITE ${WORK}/packed/nested/deep/er/matmul.cu "${solution}")
execute_process(COMMAND ${CMAKE_COMMAND} -E tar czf ${subs}/nested-tgz.tar.gz nested
                WORKING_DIRECTORY ${WORK}/packed COMMAND_ERROR_IS_FATAL ANY)
execute_process(COMMAND ${MAKE_ARCHIVES} ${subs} ${good_source} COMMAND_ERROR_IS_FATAL ANY)

set(batch_args batch matmul-tiled ${subs} -o ${out} --jobs 4 --timeout 30 --memory-limit 1 --max-processes 32 --seed 12345)
# Without a usable GPU, `grader batch` refuses at once (exit 4), before building anything. The
# project's CPU test then runs the submissions anyway (--run-without-gpu, hidden): their start-up
# code is what tests the sandbox here, and each reports "no GPU" after it.
string(TIMESTAMP t0 "%s%f")
execute_process(COMMAND ${GRADER} ${batch_args} RESULT_VARIABLE rc ERROR_VARIABLE log OUTPUT_VARIABLE stdout)
string(TIMESTAMP t1 "%s%f")
if(rc EQUAL 4)
  math(EXPR refused_ms "(${t1} - ${t0}) / 1000")
  if(refused_ms GREATER 1000 OR EXISTS ${out} OR NOT log MATCHES "no CUDA GPU is usable here.*--build-only")
    message(FATAL_ERROR "without a GPU, grader batch took ${refused_ms} ms to refuse, or wrote ${out}, or did not "
                        "say why and what to do:\n${log}")
  endif()
  message(STATUS "no GPU: grader batch refused in ${refused_ms} ms (exit 4), nothing written")
  list(APPEND batch_args --run-without-gpu)
  execute_process(COMMAND ${GRADER} ${batch_args} RESULT_VARIABLE rc ERROR_VARIABLE log OUTPUT_VARIABLE stdout)
endif()
message(STATUS "grader batch (exit ${rc}):\n${log}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "grader batch exited with ${rc}")
endif()

file(READ ${out}/results.json results)
string(JSON device GET "${results}" run device)
string(JSON protection GET "${results}" run protection)
if(device STREQUAL "")
  set(ran_good "no GPU")
  set(ran_starter "no GPU")
elseif(good_source STREQUAL STARTER)
  set(ran_good "incomplete")
  set(ran_starter "incomplete")
else()
  set(ran_good "passed")
  set(ran_starter "incomplete")
endif()

# student -> expected status, and a pattern its detail (or notes) must match
set(expect_good "${ran_good}" "")
set(expect_good-zip "${ran_good}" "")
set(expect_nested-tgz "${ran_good}" "took nested/deep/er/matmul.cu")
set(expect_writes-outside "${ran_starter}" "")
set(expect_network "${ran_starter}" "")
set(expect_missing "missing file" "missing file: matmul.cu")
set(expect_links "missing file" "is a link: links are not followed")
set(expect_broken "build failed" "matmul.cu\\([0-9]+\\): error")
set(expect_escape "rejected" "unsafe archive")
set(expect_absolute "rejected" "unsafe archive")
set(expect_bomb "rejected" "unpacks to more than|over the limit")
set(expect_loops "timed out" "timed out")
set(expect_segfault "crashed" "SIGSEGV")
set(expect_forkbomb "crashed" "too many processes")
set(expect_allocates "crashed" "memory limit")
set(expect_writes-big "crashed" "SIGXFSZ")
set(expect_include-absolute "rejected" "matmul.cu:[0-9]+: #include of an absolute path.*rule: absolute-path")
set(expect_include-climbs "rejected" "matmul.cu:[0-9]+: #include of a path that climbs out.*rule: climbing-path")
set(expect_include-macro "rejected" "matmul.cu:[0-9]+: #include of REFERENCE.*rule: computed-include")
set(expect_line-trick "rejected" "matmul.cu:[0-9]+: #line .*rule: line-file")
set(all_students absolute allocates bomb broken escape forkbomb good good-zip include-absolute include-climbs include-macro
    line-trick links loops missing nested-tgz network segfault writes-big writes-outside)

set(problems "")
string(JSON n LENGTH "${results}" students)
math(EXPR last "${n} - 1")
set(seen "")
foreach(i RANGE ${last})
  string(JSON id GET "${results}" students ${i} student)
  string(JSON status GET "${results}" students ${i} status)
  string(JSON detail GET "${results}" students ${i} detail)
  string(JSON notes GET "${results}" students ${i} notes)
  list(APPEND seen ${id})
  if(NOT DEFINED expect_${id})
    string(APPEND problems "\n  unexpected student ${id}")
    continue()
  endif()
  list(GET expect_${id} 0 want_status)
  list(GET expect_${id} 1 want_detail)
  if(NOT status STREQUAL want_status)
    string(APPEND problems "\n  ${id}: status '${status}', expected '${want_status}' (${detail})")
  elseif(NOT want_detail STREQUAL "" AND NOT "${detail} ${notes}" MATCHES "${want_detail}")
    string(APPEND problems "\n  ${id}: detail does not match '${want_detail}': ${detail} ${notes}")
  endif()
  message(STATUS "${id}: ${status}")
  foreach(f feedback/${id}.md gradescope/${id}/results.json students/${id}.json)
    if(NOT EXISTS ${out}/${f})
      string(APPEND problems "\n  ${id}: ${f} is missing")
    endif()
  endforeach()
endforeach()
list(SORT seen)
if(NOT seen STREQUAL all_students)
  string(APPEND problems "\n  students in results.json: ${seen}; expected ${all_students}")
endif()

# The gradebook: a header and one row per student.
list(LENGTH all_students n_students)
math(EXPR n_lines "${n_students} + 1")
math(EXPR n_kept "${n_students} - 2")
file(STRINGS ${out}/gradebook.csv rows)
list(LENGTH rows n_rows)
list(GET rows 0 header)
if(NOT header STREQUAL "student,naive,tiled,total,max_points,status,naive_outcome,tiled_outcome" OR NOT n_rows EQUAL n_lines)
  string(APPEND problems "\n  gradebook.csv: header '${header}', ${n_rows} lines (expected ${n_lines})")
endif()

# similarity/: the editable files of every student who has them, and the starter as base code,
# in the layout JPlag and MOSS take.
file(READ ${out}/similarity/submissions/good/matmul.cu similar_good)
if(NOT similar_good STREQUAL solution OR NOT EXISTS ${out}/similarity/base/matmul.cu
   OR NOT EXISTS ${out}/similarity/submissions/nested-tgz/matmul.cu OR EXISTS ${out}/similarity/submissions/missing)
  string(APPEND problems "\n  similarity/ is not one folder per student with its matmul.cu, beside base/")
endif()

# Nothing escaped. Only bubblewrap promises a read-only machine; say so when it was not there.
if(protection MATCHES "^bubblewrap")
  foreach(f ${subs}/ESCAPED-writes-outside ${out}/ESCAPED-writes-outside ${home}/ESCAPED-writes-outside
            ${WORK}/ESCAPED-archive.cu /tmp/ESCAPED-absolute.cu)
    if(EXISTS ${f})
      string(APPEND problems "\n  a submission wrote ${f}")
    endif()
  endforeach()
  file(READ ${out}/work/network/run/checks.log network_log)
  if(NOT network_log MATCHES "FIXTURE: interfaces: lo\n" OR NOT network_log MATCHES "1.1.1.1:53: Network is unreachable")
    string(APPEND problems "\n  the network fixture was not cut off: ${network_log}")
  endif()
else()
  message(WARNING "bubblewrap is not in force here (${protection}): the read-only and no-network checks are not made")
endif()

# A second run resumes: every result is kept and nothing is graded again, except the "no GPU"
# rows (they say nothing of the work; without a GPU here, the five well-behaved ones).
set(n_no_gpu 0)
if(ran_good STREQUAL "no GPU")
  set(n_no_gpu 5)
endif()
math(EXPR n_resumed "${n_students} - ${n_no_gpu}")
execute_process(COMMAND ${GRADER} ${batch_args} RESULT_VARIABLE rc ERROR_VARIABLE log2)
if(NOT rc EQUAL 0 OR NOT log2 MATCHES "${n_resumed} already graded" OR NOT log2 MATCHES "graded ${n_no_gpu} submission")
  string(APPEND problems "\n  a second run did not resume with ${n_resumed} kept (exit ${rc}):\n${log2}")
endif()
# --regrade redoes only the students named (and the "no GPU" rows).
math(EXPR n_kept "${n_kept} - ${n_no_gpu}")
math(EXPR n_regraded "2 + ${n_no_gpu}")
execute_process(COMMAND ${GRADER} ${batch_args} --regrade missing,broken RESULT_VARIABLE rc ERROR_VARIABLE log3)
if(NOT rc EQUAL 0 OR NOT log3 MATCHES "${n_kept} already graded" OR NOT log3 MATCHES "graded ${n_regraded} submissions")
  string(APPEND problems "\n  --regrade missing,broken did not regrade exactly those two (exit ${rc}):\n${log3}")
endif()

# --build-only builds and runs nothing, GPU or not: "built", kept by another --build-only run
# and graded by a run without it.
file(MAKE_DIRECTORY ${WORK}/build-only/good ${WORK}/build-only/missing)
file(WRITE ${WORK}/build-only/good/matmul.cu "${solution}")
# With --feedback-profile, --build-only builds the program Nsight Compute profiles too (the tests
# and the submission in one process), from the batch's build template.
set(build_only_args batch matmul-tiled ${WORK}/build-only -o ${WORK}/build-only-results --seed 12345 --build-only
                    --feedback-profile)
execute_process(COMMAND ${GRADER} ${build_only_args} RESULT_VARIABLE rc ERROR_VARIABLE log4)
file(READ ${WORK}/build-only-results/gradebook.csv built_book)
file(READ ${WORK}/build-only-results/feedback/good.md built_feedback)
if(NOT rc EQUAL 0 OR NOT built_book MATCHES "\ngood,0,0,0,100,built," OR NOT built_book MATCHES "\nmissing,0,0,0,100,missing file,"
   OR NOT built_feedback MATCHES "--build-only")
  string(APPEND problems "\n  --build-only (exit ${rc}) did not record good as built:\n${built_book}\n${log4}")
endif()
if(NOT EXISTS ${WORK}/build-only-results/work/good/build/inspect OR NOT log4 MATCHES "build: configured once")
  string(APPEND problems "\n  the submission's inspect program did not build from the template:\n${log4}")
endif()
# A configure per submission (--configure-each, the template's fallback) builds the same, and its
# build folder still builds the inspect program on demand against the exported targets.
set(each_args batch matmul-tiled ${WORK}/build-only -o ${WORK}/configure-each-results --seed 12345 --build-only
              --configure-each)
execute_process(COMMAND ${GRADER} ${each_args} RESULT_VARIABLE rc ERROR_VARIABLE log_each)
execute_process(COMMAND ${CMAKE_COMMAND} --build ${WORK}/configure-each-results/work/good/build --target inspect
                RESULT_VARIABLE rc_inspect OUTPUT_VARIABLE inspect_log ERROR_VARIABLE inspect_log)
if(NOT rc EQUAL 0 OR NOT rc_inspect EQUAL 0 OR NOT EXISTS ${WORK}/configure-each-results/work/good/build/inspect
   OR NOT log_each MATCHES "configure [0-9.]+ s")
  string(APPEND problems "\n  --configure-each (exit ${rc}) or its inspect program (exit ${rc_inspect}) failed:\n${log_each}\n${inspect_log}")
endif()
execute_process(COMMAND ${GRADER} ${build_only_args} RESULT_VARIABLE rc ERROR_VARIABLE log5)
if(NOT rc EQUAL 0 OR NOT log5 MATCHES "2 already graded")
  string(APPEND problems "\n  a second --build-only run did not keep both (exit ${rc}):\n${log5}")
endif()

if(problems)
  message(FATAL_ERROR "grader batch gave wrong outcomes:${problems}")
endif()
message(STATUS "all ${n_students} submissions got the right outcome; protection: ${protection}")
