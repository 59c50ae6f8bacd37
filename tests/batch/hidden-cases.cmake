# Instructor-only cases through `grader batch`, on a GPU (tests/CMakeLists.txt):
#   cmake -DGRADER=... -DSOLUTION=solutions/matmul-tiled/matmul.cu -DWORK=<folder> -P hidden-cases.cmake
# Two submissions of matmul-tiled, graded with an override file that adds one hidden shape
# (999 x 333 x 77) and makes its Gradescope visibility "hidden":
#   honest      the reference: every case passes, the hidden ones too (100);
#   flawed      the reference with one flaw that only the hidden shape meets (a product with
#               N == 333 is left unwritten, in both kernels): it fails exactly the hidden cases,
#               one per exercise and tile width, each named "hidden case 1" and said to have
#               written nothing. (Its name holds no digit: the check below looks for 333 and 999.)
# Neither student's feedback nor Gradescope output may show the hidden shape (no "333", no "999").
# Without a GPU `grader batch` refuses to start (exit 4) and this prints a line CTest reports as a skip.
cmake_minimum_required(VERSION 3.25)
include(${CMAKE_CURRENT_LIST_DIR}/../../cmake/WorkbookSolutionText.cmake)
file(REMOVE_RECURSE ${WORK})
workbook_solution_text(${SOLUTION} solution)
file(WRITE ${WORK}/submissions/honest/matmul.cu "${solution}")
# Each kernel's store is guarded by this test (the naive kernel's and the tiled kernel's alike).
set(edge "Row < M && Col < N")
string(FIND "${solution}" "${edge})" at)
if(at EQUAL -1)
  message(FATAL_ERROR "the reference no longer contains: ${edge}")
endif()
string(REPLACE "${edge})" "${edge} && N != 333)  /* FLAW: this shape is left unwritten */" wrong "${solution}")
file(WRITE ${WORK}/submissions/flawed/matmul.cu "${wrong}")
file(WRITE ${WORK}/hidden.toml "[hidden]\nshapes = [[999, 333, 77]]\nvisibility = \"hidden\"\n")

execute_process(COMMAND ${GRADER} batch matmul-tiled ${WORK}/submissions -o ${WORK}/results
                        --config ${WORK}/hidden.toml --timeout 300
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(rc EQUAL 4 AND err MATCHES "no CUDA GPU is usable here")
  message("SKIPPED: no CUDA GPU (grader batch refused to start: exit 4)")
  return()
endif()
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "grader batch exited with ${rc}:\n${out}${err}")
endif()
file(READ ${WORK}/results/gradebook.csv gradebook)
message("${gradebook}")

set(problems "")
if(NOT gradebook MATCHES "\nhonest,40,60,100,100,passed")
  list(APPEND problems "honest: not 100 and passed")
endif()
file(READ ${WORK}/results/feedback/flawed.md feedback)
file(READ ${WORK}/results/gradescope/flawed/results.json gradescope)
foreach(name "hidden case 1 +incorrect" "tile 16: hidden case 1" "tile 32: hidden case 1" "nothing was written to the output \\(an instructor's hidden case")
  if(NOT feedback MATCHES "${name}")
    list(APPEND problems "flawed's feedback does not show '${name}'")
  endif()
endforeach()
foreach(text feedback gradescope)
  # 333 or 999 as a number of its own (not a digit run of a seed, a time or a score)
  if(${text} MATCHES "(^|[^0-9.])(333|999)([^0-9.]|$)")
    list(APPEND problems "flawed's ${text} shows the hidden shape")
  endif()
endforeach()
string(JSON tests LENGTH "${gradescope}" tests)
math(EXPR last "${tests} - 1")
set(hidden_tests 0)
foreach(i RANGE ${last})
  string(JSON name GET "${gradescope}" tests ${i} name)
  string(JSON visibility GET "${gradescope}" tests ${i} visibility)
  if(name MATCHES "hidden case")
    math(EXPR hidden_tests "${hidden_tests} + 1")
    string(JSON score GET "${gradescope}" tests ${i} score)
    if(NOT visibility STREQUAL "hidden" OR NOT score EQUAL 0)
      list(APPEND problems "Gradescope test '${name}': visibility ${visibility}, score ${score}")
    endif()
  elseif(NOT visibility STREQUAL "visible")
    list(APPEND problems "Gradescope test '${name}': visibility ${visibility}, expected visible")
  endif()
endforeach()
if(NOT hidden_tests EQUAL 3)  # naive, tiled with tile 16, tiled with tile 32
  list(APPEND problems "${hidden_tests} hidden-case tests in Gradescope's output, expected 3")
endif()
if(problems)
  string(REPLACE ";" "\n  " problems "${problems}")
  message(FATAL_ERROR "hidden cases:\n  ${problems}\nfeedback:\n${feedback}")
endif()
message("the hidden shape was graded (honest 100, flawed failed exactly its hidden cases) and shown nowhere")
