# The anti-cheat fixtures of the leaderboard (make-cheat-fixtures.cmake), on the CPU. Two modes:
#
#   cmake -DSCAN=<forbidden-api-scan> -DSOLUTION=<reference matmul.cu> -DOUT=<folder> -P cheat-fixtures.cmake
#     The static scan, which the leaderboard runs before it builds anything: the reference is
#     clean; cublas, other-stream and early-read are flagged, each for its own API; cached-output,
#     hidden-stream, host-compute and size-detect are not (nothing in them is a forbidden API: the timing harness
#     must catch them at run time, which a GPU test shows).
#
#   cmake -DNVCC=<nvcc> -DSOURCE_ROOT=<project> -DSOLUTION=... -DOUT=<folder> -P cheat-fixtures.cmake
#     Every fixture still compiles against the lab's header (PTX only, no GPU needed): a fixture
#     that no longer builds would show up as a build failure, not as a caught cheat.
cmake_minimum_required(VERSION 3.25)

file(REMOVE_RECURSE ${OUT})
execute_process(
  COMMAND ${CMAKE_COMMAND} -DSOLUTION=${SOLUTION} -DOUT=${OUT} -P ${CMAKE_CURRENT_LIST_DIR}/make-cheat-fixtures.cmake
  RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "make-cheat-fixtures.cmake failed (${rc})")
endif()

set(kinds cached-output other-stream hidden-stream host-compute early-read size-detect cublas)
file(GLOB made RELATIVE ${OUT} ${OUT}/*)
list(SORT made)
set(expected ${kinds})
list(SORT expected)
if(NOT made STREQUAL expected)
  message(FATAL_ERROR "fixtures made: ${made}; expected: ${expected}")
endif()

set(failures "")

if(DEFINED SCAN)
  # What each flagged fixture must be flagged for (a regex on the scan's output).
  set(flag_cublas "matmul.cu:[0-9]+: #include <cublas_v2.h>: cuBLAS.*matmul.cu:[0-9]+: cublasSgemm: ")
  set(flag_other-stream "matmul.cu:[0-9]+: cudaStreamCreateWithFlags: Work on a stream of your own")
  set(flag_early-read "matmul.cu:[0-9]+: #include <thread>: .*matmul.cu:[0-9]+: std::thread: A thread of your own")
  foreach(kind reference ${kinds})
    if(kind STREQUAL "reference")
      set(file ${SOLUTION})
    else()
      set(file ${OUT}/${kind}/matmul.cu)
    endif()
    execute_process(COMMAND ${SCAN} ${file} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
    message(STATUS "${kind}: exit ${rc}\n${out}${err}")
    if(DEFINED flag_${kind})
      if(NOT rc EQUAL 1)
        list(APPEND failures "${kind}: not flagged (exit ${rc}); it must be")
      elseif(NOT out MATCHES "${flag_${kind}}")
        list(APPEND failures "${kind}: flagged, but not for what it must be (${flag_${kind}})")
      endif()
    elseif(NOT rc EQUAL 0)
      list(APPEND failures "${kind}: exit ${rc}, expected clean (0): ${out}${err}")
    endif()
  endforeach()
endif()

if(DEFINED NVCC)
  foreach(kind reference ${kinds})
    if(kind STREQUAL "reference")
      set(file ${SOLUTION})
    else()
      set(file ${OUT}/${kind}/matmul.cu)
    endif()
    execute_process(
      COMMAND ${NVCC} -std=c++17 -arch=compute_90 -code=compute_90 -c
              -I ${SOURCE_ROOT}/labs/matmul-tiled -I ${SOURCE_ROOT}/common/include
              ${file} -o ${OUT}/${kind}.o
      RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
    message(STATUS "${kind}: nvcc exit ${rc}\n${out}")
    if(NOT rc EQUAL 0)
      list(APPEND failures "${kind}: does not compile")
    endif()
  endforeach()
endif()

if(failures)
  list(JOIN failures "\n  " text)
  message(FATAL_ERROR "cheat fixtures:\n  ${text}")
endif()
