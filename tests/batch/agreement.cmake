# Every output of `grader batch` says what the gradebook says, after a resume with a changed
# course config (tests/CMakeLists.txt: batch/outputs-agree). No GPU needed: the student's result
# is one a GPU run kept (students/alice.json, written here as a batch writes it), so the resumed
# run only scores it again with the new points and renders every output from it.
#   cmake -DGRADER=... -DWORK=... -P agreement.cmake
cmake_minimum_required(VERSION 3.25)
file(REMOVE_RECURSE ${WORK})
set(subs ${WORK}/submissions)
set(out ${WORK}/results)
file(WRITE ${subs}/alice/matmul.cu "// graded on a GPU machine; kept\n")
# One case per check, every one passed: 100 of 100 with lab.toml's points.
function(case_json var exercise kind name)
  set(${var} "{\"exercise\":\"${exercise}\",\"kind\":\"${kind}\",\"case\":\"${name}\",\"outcome\":\"passed\",\"metrics\":{\"median_ms\":0.44,\"speedup\":13985}}" PARENT_SCOPE)
endfunction()
case_json(nc naive correctness "1x1x1 ints")
case_json(np naive performance "1024x1024x1024")
case_json(tc tiled correctness "tile 16: 1x1x1 ints")
case_json(ts tiled static "tiledKernel declares __shared__ tiles")
# tiled's timed case missed lab.toml's 14000x by a hair (13985x): too slow, 0 of its 25 points.
# The result keeps the measurement and the thresholds it was judged by, so a course that lowers
# the threshold later gets it judged again.
set(tp "{\"exercise\":\"tiled\",\"kind\":\"performance\",\"case\":\"tile 32: 1024x1024x1024\",\"outcome\":\"too slow\",
  \"detail\":\"median 0.44 ms is 13985x the sequential baseline; needs 14000x\",\"thresholds\":[\"exercises.tiled.min_speedup\"],
  \"metrics\":{\"median_ms\":0.44,\"speedup\":13985,\"min_speedup\":14000}}")
file(WRITE ${out}/students/alice.json "{\"student\":\"alice\",\"status\":\"passed\",\"detail\":\"\",\"seconds\":40,
  \"graded_at\":\"2026-11-26T01:00:00Z\",\"thresholds\":{\"exercises.naive.min_speedup\":6500,\"exercises.tiled.min_speedup\":14000,\"exercises.tiled.min_speedup_over_naive\":1.2},\"report\":{\"lab\":\"matmul-tiled\",\"seed\":777,\"device\":\"NVIDIA H100 80GB HBM3\",
  \"run\":{\"state\":\"completed\",\"detail\":\"\"},\"points\":100,\"max_points\":100,\"exercises\":[
  {\"name\":\"naive\",\"checks\":[{\"kind\":\"correctness\",\"cases\":[${nc}]},{\"kind\":\"performance\",\"cases\":[${np}]}]},
  {\"name\":\"tiled\",\"checks\":[{\"kind\":\"correctness\",\"cases\":[${tc}]},{\"kind\":\"static\",\"cases\":[${ts}]},
   {\"kind\":\"performance\",\"cases\":[${tp}]}]}]}}\n")

# What each output says of alice's total: the gradebook row, results.json, the feedback file and
# Gradescope's score (the sum of its tests).
function(totals var)
  file(STRINGS ${out}/gradebook.csv row REGEX "^alice,")
  string(REPLACE "," ";" row "${row}")
  list(GET row 3 book)
  file(READ ${out}/results.json results)
  string(JSON from_results GET "${results}" students 0 report points)
  file(READ ${out}/feedback/alice.md feedback)
  string(REGEX MATCH "Total: ([0-9.]+) / ([0-9.]+)" _ "${feedback}")
  set(from_feedback "${CMAKE_MATCH_1}/${CMAKE_MATCH_2}")
  file(READ ${out}/gradescope/alice/results.json gradescope)
  string(JSON from_gradescope GET "${gradescope}" score)
  set(${var} "gradebook ${book}, results.json ${from_results}, feedback ${from_feedback}, gradescope ${from_gradescope}" PARENT_SCOPE)
endfunction()

# Runs the batch again (alice is kept, not graded) and checks what every output says of her.
function(run_and_compare label points)
  execute_process(COMMAND ${GRADER} batch matmul-tiled ${subs} -o ${out} --seed 777 --run-without-gpu ${ARGN}
                  RESULT_VARIABLE rc ERROR_VARIABLE log)
  if(NOT rc EQUAL 0 OR NOT log MATCHES "1 already graded")
    message(FATAL_ERROR "${label}: alice was not kept (exit ${rc}):\n${log}")
  endif()
  set(log "${log}" PARENT_SCOPE)
  totals(said)
  if(NOT said MATCHES "^gradebook ${points}, results.json ${points}(\\.0)?, feedback ${points}/[0-9]+, gradescope ${points}(\\.0)?$")
    message(FATAL_ERROR "${label}: the outputs disagree: ${said}")
  endif()
  message(STATUS "${label}: ${said}")
endfunction()

run_and_compare("with lab.toml's points" 75)
# The course changes naive's points (40 -> 30): the kept result is scored again, and every output
# follows, not only the gradebook.
file(WRITE ${WORK}/course.toml "[exercises.naive]\npoints = { correctness = 20, performance = 10 }\n")
run_and_compare("after a resume with naive at 30 points" 65 --config ${WORK}/course.toml)
# The course lowers tiled's threshold to 13000x: the kept timed case is judged again from its
# measurement (13985x) and passes; its 25 points come back in every output.
file(APPEND ${WORK}/course.toml "[exercises.tiled]\nmin_speedup = 13000.0\n")
run_and_compare("after a resume with tiled's threshold at 13000x" 90 --config ${WORK}/course.toml)
if(NOT log MATCHES "alice: 1 timed case judged again by changed thresholds")
  message(FATAL_ERROR "the re-judged case was not named:\n${log}")
endif()
