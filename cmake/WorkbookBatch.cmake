# Support for `grader batch`: each submission is built in a folder of its own by a small CMake
# project (grader/batch/CMakeLists.txt) that compiles only the submission's files and links them
# with this build's already compiled tests. This file exports those targets and writes the
# settings that project needs to compile exactly as this build does:
#   <build>/batch/WorkbookBatchSettings.cmake   compilers, architectures, build type (before project())
#   <build>/batch/WorkbookBatchTargets.cmake    find_package of the installed dependencies, then the targets
#   <build>/batch/WorkbookExports.cmake         this build's targets (export(TARGETS)), with the
#                                               dependencies FetchContent built here
#
# The libraries (toml++, fmt, nlohmann-json, Catch2) come either as installed packages
# (find_package: a distribution's, or a prefix on CMAKE_PREFIX_PATH such as Spack, conda or
# .deps/usr) or from FetchContent, built inside this build folder (_deps/), whichever
# cmake/WorkbookDependencies.cmake found; each one may come either way.
#  - An installed package is found again by the batch project: find_package with the very
#    <pkg>_DIR this build used (the same prefix, whatever CMAKE_PREFIX_PATH says there).
#  - A fetched library is exported with this build's own targets, into WorkbookExports.cmake: the
#    batch project links the very library this build compiled in _deps/, with its include folders
#    in the fetched sources.
# Why export the fetched targets rather than the alternatives:
#  - FetchContent again in the batch project (the same FETCHCONTENT_SOURCE_DIR_<NAME>s) would
#    compile fmt and Catch2 again for every submission (a class is hundreds of builds), and could
#    compile them differently from what `grader check` links;
#  - installing the fetched libraries into a prefix in the build folder needs their install
#    rules, which several switch off when they are not the top-level project (fmt's FMT_INSTALL,
#    nlohmann_json's JSON_Install, toml++'s), a step after the build, and a second copy to keep
#    in step with the first;
#  - export(TARGETS) needs nothing from a fetched project but its targets, which every one has.
#    What is exported is found by following the link libraries of this build's exported targets
#    (aliases resolved, generator expressions looked into) down to the imported targets: every
#    target built here that they need goes into the export, whatever its name or its project.
# Only an imported target whose package the batch project cannot find again (imported by a Find
# module, say) stops batch grading: it is named in <build>/batch/unsupported.txt, which
# `grader batch` shows and stops at. None of the shipped dependencies is such a target.

get_property(lab_tests GLOBAL PROPERTY WORKBOOK_EXPORTED_TARGETS)
set(batch_dir ${PROJECT_BINARY_DIR}/batch)
set(workbook_batch_exported workbook_common grader_core grader_catch grader_testing grader_remote_wire
                            grader_remote_harness grader_runner ${lab_tests})

# workbook_link_closure(<local-out> <imported-out> <target>...): the targets built in this build
# that <target>... link to, directly or not, themselves included (aliases resolved to the real
# target), and the imported targets where the walk stops (as named, e.g. fmt::fmt).
function(workbook_link_closure local_out imported_out)
  set(queue ${ARGN})
  set(local "")
  set(imported "")
  while(queue)
    list(POP_FRONT queue name)
    if(NOT TARGET "${name}")
      continue()  # a plain library name or flag (m, -pthread), nothing to export
    endif()
    get_target_property(aliased "${name}" ALIASED_TARGET)
    if(aliased)
      set(name "${aliased}")
    endif()
    if(name IN_LIST local OR name IN_LIST imported)
      continue()
    endif()
    get_target_property(is_imported "${name}" IMPORTED)
    if(is_imported)
      list(APPEND imported "${name}")
      continue()
    endif()
    list(APPEND local "${name}")
    # What it links: LINK_LIBRARIES (private ones too: a static library's reach its users as
    # $<LINK_ONLY:...>) and INTERFACE_LINK_LIBRARIES. Generator expressions are opened and every
    # word in them that names a target is followed: exporting a target too many costs nothing.
    get_property(links TARGET "${name}" PROPERTY LINK_LIBRARIES)
    get_property(interface_links TARGET "${name}" PROPERTY INTERFACE_LINK_LIBRARIES)
    foreach(entry IN LISTS links interface_links)
      string(REGEX REPLACE "\\$<[A-Za-z_]+:" ";" entry "${entry}")
      string(REGEX REPLACE "[$<>,]" ";" entry "${entry}")
      foreach(word IN LISTS entry)
        string(REGEX REPLACE "^:+" "" word "${word}")
        if(word AND TARGET "${word}")
          list(APPEND queue "${word}")
        endif()
      endforeach()
    endforeach()
  endwhile()
  set(${local_out} ${local} PARENT_SCOPE)
  set(${imported_out} ${imported} PARENT_SCOPE)
endfunction()

workbook_link_closure(batch_local batch_imported ${workbook_batch_exported})
set(batch_fetched ${batch_local})
list(REMOVE_ITEM batch_fetched ${workbook_batch_exported})

# The packages the batch project finds again: each imported target's namespace names its package
# (fmt::fmt: fmt; CUDA::cudart: CUDAToolkit, found always), found with this build's <pkg>_DIR.
set(batch_packages "")
set(WORKBOOK_BATCH_PROBLEM "")
foreach(target IN LISTS batch_imported)
  string(REGEX MATCH "^([^:]+)::" namespaced "${target}")
  set(pkg "${CMAKE_MATCH_1}")
  if(pkg STREQUAL "CUDA")
    continue()
  elseif(target STREQUAL "Threads::Threads")
    list(APPEND batch_packages Threads)
  elseif(pkg AND ${pkg}_DIR AND EXISTS "${${pkg}_DIR}")
    list(APPEND batch_packages ${pkg})
  else()
    set(WORKBOOK_BATCH_PROBLEM "the tests link ${target}, an imported target the batch project cannot find again "
                               "(not from a CMake package config with a ${pkg}_DIR); build it with FetchContent "
                               "or install it with a CMake package config")
  endif()
endforeach()
list(REMOVE_DUPLICATES batch_packages)

# The batch's builds run in a sandbox with an empty /tmp of their own (bubblewrap, section 4 of
# the instructor guide): a dependency's files under /tmp would not be there.
set(batch_dep_dirs "")
foreach(target IN LISTS batch_fetched)
  get_target_property(dir ${target} SOURCE_DIR)
  list(APPEND batch_dep_dirs "${dir}")
endforeach()
foreach(pkg IN LISTS batch_packages)
  if(DEFINED ${pkg}_DIR)
    list(APPEND batch_dep_dirs "${${pkg}_DIR}")
  endif()
endforeach()
foreach(dir IN LISTS batch_dep_dirs)
  if(dir MATCHES "^/tmp(/|$)")
    message(WARNING "${dir} is under /tmp: grader batch builds each submission in a sandbox with an empty /tmp "
                    "of its own, where it would be missing. Put the libraries' sources or prefix elsewhere "
                    "(e.g. under your home folder) and configure again.")
  endif()
endforeach()

if(WORKBOOK_BATCH_PROBLEM)
  file(WRITE ${batch_dir}/unsupported.txt "${WORKBOOK_BATCH_PROBLEM}\n")
else()
  file(REMOVE ${batch_dir}/unsupported.txt)
  set(fetched_text "none")
  if(batch_fetched)
    list(JOIN batch_fetched ", " fetched_text)
    message(STATUS "grader batch: the submissions' builds link this build's ${fetched_text} (built here, FetchContent)")
  endif()
  export(TARGETS ${workbook_batch_exported} ${batch_fetched}
         NAMESPACE workbook:: FILE ${batch_dir}/WorkbookExports.cmake)

  set(settings "# Written by cmake/WorkbookBatch.cmake: how this build compiles.\n")
  foreach(var CMAKE_CXX_COMPILER CMAKE_CUDA_COMPILER CMAKE_CUDA_HOST_COMPILER CMAKE_CUDA_ARCHITECTURES
              CMAKE_BUILD_TYPE CMAKE_PREFIX_PATH WORKBOOK_DEVICE_DEBUG)
    # Unless the command line gave it (grader batch passes the architectures it wants).
    string(APPEND settings "if(NOT DEFINED ${var})\n  set(${var} \"${${var}}\")\nendif()\n")
  endforeach()
  string(APPEND settings "set(WORKBOOK_SOURCE_ROOT \"${PROJECT_SOURCE_DIR}\")\n")
  file(WRITE ${batch_dir}/WorkbookBatchSettings.cmake "${settings}")

  set(targets "# Written by cmake/WorkbookBatch.cmake: the installed dependencies, then this build's targets\n")
  string(APPEND targets "# (with the dependencies built here by FetchContent: ${fetched_text}).\n")
  string(APPEND targets "find_package(CUDAToolkit REQUIRED)\n")
  foreach(pkg IN LISTS batch_packages)
    if(pkg STREQUAL "Threads")
      string(APPEND targets "find_package(Threads REQUIRED)\n")
    else()
      string(APPEND targets "set(${pkg}_DIR \"${${pkg}_DIR}\")\nfind_package(${pkg} REQUIRED CONFIG)\n")
    endif()
  endforeach()
  string(APPEND targets "include(\"\${CMAKE_CURRENT_LIST_DIR}/WorkbookExports.cmake\")\n")
  file(WRITE ${batch_dir}/WorkbookBatchTargets.cmake "${targets}")
endif()
