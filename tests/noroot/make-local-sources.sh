#!/usr/bin/env bash
# Local source trees of Catch2, CLI11, nlohmann-json, toml++ and fmt for FetchContent
# (FETCHCONTENT_SOURCE_DIR_<NAME>), made without network from the headers that Debian's packages
# install (catch2, libcli11-dev, nlohmann-json3-dev, libtomlplusplus-dev, libfmt-dev):
#   tests/noroot/make-local-sources.sh <dest>     -> <dest>/Catch2, CLI11, nlohmann_json, tomlplusplus, fmt
# Each tree has the upstream project's layout for its headers and a CMakeLists.txt that defines the
# targets the upstream project defines, as it defines them: built in the including build, not
# IMPORTED, reached through the same ALIAS names. What differs from upstream, and why:
#  - fmt upstream compiles src/format.cc and src/os.cc into its STATIC library; Debian ships no
#    sources, so this STATIC fmt compiles one file of its own and makes fmt header-only for its
#    users (FMT_HEADER_ONLY, as upstream's fmt-header-only target does). It is still a static
#    library built in _deps/, which is what the export of fetched targets has to get right.
#  - Catch2 is v2 (Debian 12's catch2 2.13), whose upstream CMakeLists also defines an INTERFACE
#    Catch2 over single_include/; FetchContent fetches v3 by default.
# Exits 1, saying what is missing, where a package's headers are not installed.
set -euo pipefail
dest=$1
need() {
  [ -e "$1" ] || { echo "no $1 (Debian: apt-get install catch2 libcli11-dev nlohmann-json3-dev libtomlplusplus-dev libfmt-dev)"; exit 1; }
}
for f in /usr/include/catch2/catch.hpp /usr/include/CLI/CLI.hpp /usr/include/nlohmann/json.hpp \
         /usr/include/toml++/toml.h /usr/include/fmt/format.h; do
  need "$f"
done
rm -rf "$dest"
mkdir -p "$dest"/Catch2/single_include "$dest"/CLI11/include "$dest"/nlohmann_json/include \
         "$dest"/tomlplusplus/include "$dest"/fmt/include "$dest"/fmt/src
cp -a /usr/include/catch2 "$dest/Catch2/single_include/"
cp -a /usr/include/CLI "$dest/CLI11/include/"
cp -a /usr/include/nlohmann "$dest/nlohmann_json/include/"
cp -a /usr/include/toml++ "$dest/tomlplusplus/include/"
cp -a /usr/include/fmt "$dest/fmt/include/"

# A header-only library's tree with the targets its upstream CMakeLists.txt defines (none
# imported): <folder> <project and target> <include dir in the tree> <what it is>.
header_only() {
  cat > "$dest/$1/CMakeLists.txt" <<EOF
# $4 as its upstream CMakeLists.txt defines it (tests/noroot/make-local-sources.sh).
cmake_minimum_required(VERSION 3.5)
project($2 LANGUAGES CXX)
add_library($2 INTERFACE)
add_library($2::$2 ALIAS $2)
target_include_directories($2 INTERFACE \$<BUILD_INTERFACE:\${CMAKE_CURRENT_SOURCE_DIR}/$3>)
target_compile_features($2 INTERFACE cxx_std_11)
EOF
}
header_only Catch2 Catch2 single_include "Catch2 v2"
header_only CLI11 CLI11 include "CLI11 (header-only)"
header_only nlohmann_json nlohmann_json include "nlohmann-json"
cat > "$dest/tomlplusplus/CMakeLists.txt" <<'EOF'
# toml++ (header-only) as its upstream CMakeLists.txt defines it (tests/noroot/make-local-sources.sh).
cmake_minimum_required(VERSION 3.14)
project(tomlplusplus LANGUAGES CXX)
add_library(tomlplusplus_tomlplusplus INTERFACE)
add_library(tomlplusplus::tomlplusplus ALIAS tomlplusplus_tomlplusplus)
set_target_properties(tomlplusplus_tomlplusplus PROPERTIES EXPORT_NAME tomlplusplus)
target_include_directories(tomlplusplus_tomlplusplus INTERFACE $<BUILD_INTERFACE:${CMAKE_CURRENT_SOURCE_DIR}/include>)
target_compile_features(tomlplusplus_tomlplusplus INTERFACE cxx_std_17)
EOF
cat > "$dest/fmt/CMakeLists.txt" <<'EOF'
# fmt: a STATIC fmt reached as fmt::fmt, as upstream's, whose users see fmt header-only (Debian
# ships no src/format.cc to compile; tests/noroot/make-local-sources.sh).
cmake_minimum_required(VERSION 3.8)
project(FMT LANGUAGES CXX)
add_library(fmt STATIC src/fmt.cc)
add_library(fmt::fmt ALIAS fmt)
target_include_directories(fmt PUBLIC $<BUILD_INTERFACE:${CMAKE_CURRENT_SOURCE_DIR}/include>)
target_compile_definitions(fmt PUBLIC FMT_HEADER_ONLY=1)
target_compile_features(fmt PUBLIC cxx_std_11)
set_target_properties(fmt PROPERTIES POSITION_INDEPENDENT_CODE ON)
EOF
cat > "$dest/fmt/src/fmt.cc" <<'EOF'
// The one file of this stand-in's static library (tests/noroot/make-local-sources.sh).
#include <fmt/format.h>
namespace fmt_local_sources {
std::string version() { return fmt::format("{}", FMT_VERSION); }
}  // namespace fmt_local_sources
EOF
echo "sources: $dest/{Catch2,CLI11,nlohmann_json,tomlplusplus,fmt}, made from the installed headers"
