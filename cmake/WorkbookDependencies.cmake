# Third-party libraries. Each is looked up with find_package first (Debian/Ubuntu packages,
# or a prefix given in CMAKE_PREFIX_PATH such as the offline .deps/usr); only when none is
# found is it fetched from GitHub (FetchContent's FIND_PACKAGE_ARGS, CMake >= 3.24).
include(FetchContent)

FetchContent_Declare(Catch2
  GIT_REPOSITORY https://github.com/catchorg/Catch2.git
  GIT_TAG v3.7.1
  GIT_SHALLOW TRUE
  FIND_PACKAGE_ARGS)
FetchContent_Declare(CLI11
  GIT_REPOSITORY https://github.com/CLIUtils/CLI11.git
  GIT_TAG v2.4.2
  GIT_SHALLOW TRUE
  FIND_PACKAGE_ARGS)
FetchContent_Declare(nlohmann_json
  URL https://github.com/nlohmann/json/releases/download/v3.11.3/json.tar.xz
  FIND_PACKAGE_ARGS 3.10)
FetchContent_Declare(tomlplusplus
  GIT_REPOSITORY https://github.com/marzer/tomlplusplus.git
  GIT_TAG v3.4.0
  GIT_SHALLOW TRUE
  FIND_PACKAGE_ARGS 3)
FetchContent_Declare(fmt
  GIT_REPOSITORY https://github.com/fmtlib/fmt.git
  GIT_TAG 10.2.1
  GIT_SHALLOW TRUE
  FIND_PACKAGE_ARGS 8)

FetchContent_MakeAvailable(Catch2 CLI11 nlohmann_json tomlplusplus fmt)

# libarchive reads the .zip and .tar.gz submissions of `grader batch` (CMake's FindLibArchive).
find_package(LibArchive 3.3)
if(NOT LibArchive_FOUND)
  message(STATUS "libarchive not found: fetching and building it")
  set(ENABLE_TEST OFF CACHE BOOL "" FORCE)
  set(ENABLE_TAR OFF CACHE BOOL "" FORCE)
  set(ENABLE_CPIO OFF CACHE BOOL "" FORCE)
  set(ENABLE_CAT OFF CACHE BOOL "" FORCE)
  set(ENABLE_UNZIP OFF CACHE BOOL "" FORCE)
  set(ENABLE_INSTALL OFF CACHE BOOL "" FORCE)
  FetchContent_Declare(libarchive
    GIT_REPOSITORY https://github.com/libarchive/libarchive.git
    GIT_TAG v3.7.4
    GIT_SHALLOW TRUE)
  FetchContent_MakeAvailable(libarchive)
  add_library(LibArchive::LibArchive ALIAS archive_static)
  target_include_directories(archive_static INTERFACE ${libarchive_SOURCE_DIR}/libarchive)
endif()

# SQLite keeps the leaderboard's history (CMake's FindSQLite3, target SQLite::SQLite3). Without
# it, the official amalgamation (one C file) is fetched and built as a small static library
# under the same target name.
find_package(SQLite3)
if(NOT SQLite3_FOUND)
  message(STATUS "SQLite3 not found: fetching the amalgamation and building it")
  enable_language(C)
  FetchContent_Declare(sqlite3
    URL https://www.sqlite.org/2024/sqlite-amalgamation-3460100.zip
    DOWNLOAD_EXTRACT_TIMESTAMP TRUE)
  FetchContent_MakeAvailable(sqlite3)  # no CMakeLists.txt in it: this only downloads
  add_library(workbook_sqlite3 STATIC ${sqlite3_SOURCE_DIR}/sqlite3.c)
  target_include_directories(workbook_sqlite3 SYSTEM PUBLIC ${sqlite3_SOURCE_DIR})
  # No loadable extensions (no libdl); double-quoted strings are identifiers only.
  target_compile_definitions(workbook_sqlite3 PRIVATE SQLITE_OMIT_LOAD_EXTENSION SQLITE_DQS=0)
  set_target_properties(workbook_sqlite3 PROPERTIES POSITION_INDEPENDENT_CODE ON)
  find_package(Threads REQUIRED)
  target_link_libraries(workbook_sqlite3 PUBLIC Threads::Threads m)
  add_library(SQLite::SQLite3 ALIAS workbook_sqlite3)
  set(SQLite3_VERSION "3.46.1")
endif()
# CMake 4.1's FindSQLite3 names its target SQLite3::SQLite3 and warns at every use of the old
# SQLite::SQLite3: the new name where it exists.
if(TARGET SQLite3::SQLite3)
  set(WORKBOOK_SQLITE_TARGET SQLite3::SQLite3)
else()
  set(WORKBOOK_SQLITE_TARGET SQLite::SQLite3)
endif()

# Ben Strasser's fast-cpp-csv-parser reads a course's roster (grader batch --roster): one header,
# <libfccp/csv.h> as Debian's libfccp-dev installs it (or under CMAKE_PREFIX_PATH's include/);
# fetched where it is not found, and laid out the same way.
find_path(WORKBOOK_FCCP_INCLUDE_DIR libfccp/csv.h)
if(NOT WORKBOOK_FCCP_INCLUDE_DIR)
  message(STATUS "libfccp (fast-cpp-csv-parser) not found: fetching it")
  FetchContent_Declare(fccp
    GIT_REPOSITORY https://github.com/ben-strasser/fast-cpp-csv-parser.git
    GIT_TAG 574a9fe4d323ba63416877a4a5fe59088d37aa34  # master, 2025-02-02 (no release tags)
    SOURCE_SUBDIR none)  # a header, no CMakeLists.txt: download only
  FetchContent_MakeAvailable(fccp)
  file(COPY ${fccp_SOURCE_DIR}/csv.h DESTINATION ${CMAKE_BINARY_DIR}/_deps/fccp-include/libfccp)
  set(WORKBOOK_FCCP_INCLUDE_DIR ${CMAKE_BINARY_DIR}/_deps/fccp-include)
endif()
add_library(workbook_csv INTERFACE)
target_include_directories(workbook_csv SYSTEM INTERFACE ${WORKBOOK_FCCP_INCLUDE_DIR})
add_library(workbook::csv ALIAS workbook_csv)

# yaml-cpp reads a Gradescope export's submission_metadata.yml (grader batch --from gradescope).
# Debian 12's 0.7 names its target yaml-cpp; 0.8 adds yaml-cpp::yaml-cpp: the old name is in both.
find_package(yaml-cpp 0.6 QUIET)
if(NOT TARGET yaml-cpp)
  message(STATUS "yaml-cpp not found: fetching it")
  set(YAML_CPP_BUILD_TESTS OFF CACHE BOOL "" FORCE)
  set(YAML_CPP_BUILD_TOOLS OFF CACHE BOOL "" FORCE)
  set(YAML_BUILD_SHARED_LIBS OFF CACHE BOOL "" FORCE)
  FetchContent_Declare(yaml-cpp
    GIT_REPOSITORY https://github.com/jbeder/yaml-cpp.git
    GIT_TAG 0.8.0
    GIT_SHALLOW TRUE)
  FetchContent_MakeAvailable(yaml-cpp)
endif()

# One name for Catch2 whichever major version was found; our own main() lives in grader/.
if(TARGET Catch2::Catch2)
  set(WORKBOOK_CATCH2_TARGET Catch2::Catch2)
else()
  message(FATAL_ERROR "Catch2 was found but defines no Catch2::Catch2 target")
endif()
# A fetched Catch2 sets no Catch2_VERSION (find_package does): it is read from the sources, so
# that grader/catch.hpp includes the headers of the major version that is there (v3's
# src/catch2/catch_version_macros.hpp, v2's single_include/catch2/catch.hpp).
get_target_property(workbook_catch2_imported Catch2::Catch2 IMPORTED)
if(NOT workbook_catch2_imported AND NOT Catch2_VERSION)
  FetchContent_GetProperties(Catch2 SOURCE_DIR workbook_catch2_source)
  foreach(header src/catch2/catch_version_macros.hpp single_include/catch2/catch.hpp include/catch.hpp)
    if(EXISTS ${workbook_catch2_source}/${header})
      file(STRINGS ${workbook_catch2_source}/${header} workbook_catch2_defines
           REGEX "^#define CATCH_VERSION_(MAJOR|MINOR|PATCH) +[0-9]+")
      foreach(part MAJOR MINOR PATCH)
        string(REGEX MATCH "CATCH_VERSION_${part} +([0-9]+)" workbook_catch2_define "${workbook_catch2_defines}")
        set(Catch2_VERSION_${part} ${CMAKE_MATCH_1})
      endforeach()
      set(Catch2_VERSION ${Catch2_VERSION_MAJOR}.${Catch2_VERSION_MINOR}.${Catch2_VERSION_PATCH})
      break()
    endif()
  endforeach()
endif()
# Where each library came from: a version (an installed package) or "fetched" (FetchContent).
set(workbook_dependency_summary "")
foreach(workbook_dep Catch2 CLI11 nlohmann_json tomlplusplus fmt)
  get_target_property(workbook_dep_imported ${workbook_dep}::${workbook_dep} IMPORTED)
  string(REPLACE "tomlplusplus" "toml++" workbook_dep_entry "${workbook_dep} ${${workbook_dep}_VERSION}")
  string(STRIP "${workbook_dep_entry}" workbook_dep_entry)
  if(NOT workbook_dep_imported)
    string(APPEND workbook_dep_entry " (fetched)")
  endif()
  string(APPEND workbook_dependency_summary "${workbook_dep_entry}, ")
endforeach()
message(STATUS "${workbook_dependency_summary}SQLite ${SQLite3_VERSION}")
unset(workbook_dep_entry)
unset(workbook_dep_imported)
