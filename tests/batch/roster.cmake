# grader batch --roster (tests/CMakeLists.txt: batch/roster): every enrolled student has a row,
# "no submission" where nothing came; a folder named by an LMS user id is graded under the
# course's id; a folder on no row is graded all the same and named. No GPU and no build needed:
# the entries hold no matmul.cu (each "missing file"), and --build-only runs nothing.
#   cmake -DGRADER=... -DWORK=... -P roster.cmake
cmake_minimum_required(VERSION 3.25)
file(REMOVE_RECURSE ${WORK})
set(subs ${WORK}/submissions)
foreach(entry alice 12345 zed)
  file(WRITE ${subs}/${entry}/notes.txt "no matmul.cu here\n")
endforeach()
file(WRITE ${WORK}/roster.csv "id,name,lms_id\nalice,\"Liddell, Alice\",111\nbob,Bob Builder,222\nhank.smith,Hank Smith,12345\n")
execute_process(COMMAND ${GRADER} batch matmul-tiled ${subs} -o ${WORK}/results --roster ${WORK}/roster.csv --build-only
                RESULT_VARIABLE rc ERROR_VARIABLE log)
message(STATUS "grader batch --roster (exit ${rc}):\n${log}")
set(problems "")
if(NOT rc EQUAL 0)
  string(APPEND problems "\n  exit ${rc}")
endif()
if(NOT log MATCHES "roster: 12345 is the LMS id of hank.smith: graded as hank.smith")
  string(APPEND problems "\n  the LMS id was not matched to its student")
endif()
if(NOT log MATCHES "not on the roster \\(graded all the same[^)]*\\): zed")
  string(APPEND problems "\n  zed, on no row, was not named")
endif()
file(STRINGS ${WORK}/results/gradebook.csv rows)
set(want "student,naive,tiled,total,max_points,status,naive_outcome,tiled_outcome"
         "alice,0,0,0,100,missing file,missing file,missing file" "bob,0,0,0,100,no submission,no submission,no submission"
         "hank.smith,0,0,0,100,missing file,missing file,missing file" "zed,0,0,0,100,missing file,missing file,missing file")
if(NOT rows STREQUAL want)
  string(APPEND problems "\n  gradebook.csv:\n    ${rows}\n  expected:\n    ${want}")
endif()
file(READ ${WORK}/results/results.json results)
if(NOT results MATCHES "nothing was submitted by Bob Builder")
  string(APPEND problems "\n  results.json does not say bob submitted nothing")
endif()
# A bad roster is a usage error, said before anything starts.
file(WRITE ${WORK}/bad.csv "id\nalice\nalice\n")
execute_process(COMMAND ${GRADER} batch matmul-tiled ${subs} -o ${WORK}/results-bad --roster ${WORK}/bad.csv --build-only
                RESULT_VARIABLE rc ERROR_VARIABLE log)
if(NOT rc EQUAL 64 OR NOT log MATCHES "bad.csv:3: the id alice is on the roster twice" OR EXISTS ${WORK}/results-bad)
  string(APPEND problems "\n  a roster with an id twice: exit ${rc}, ${log}")
endif()
if(problems)
  message(FATAL_ERROR "grader batch --roster:${problems}")
endif()
message(STATUS "every enrolled student has a row; the LMS id and the stranger are handled")
