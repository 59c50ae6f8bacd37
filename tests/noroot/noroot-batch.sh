#!/usr/bin/env bash
# `grader batch` without root (issue 19, "Clusters without root"), as a CTest test:
#   tests/noroot/noroot-batch.sh fetchcontent|prefix <source-root> <main-build> <work-dir>
# A fresh build of the workbook is configured and built by an unprivileged user, without network,
# in the way an instructor on a cluster without root makes one, and `grader batch --build-only`
# grades three matmul-tiled submissions with it as that user: the reference (it must be "built"),
# the reference with a missing semicolon ("build failed", the compiler's error on its line) and a
# folder without matmul.cu ("missing file"). Where the libraries come from is the mode:
#   fetchcontent  Catch2, CLI11, nlohmann-json, toml++ and fmt from FetchContent, pointed at
#                 local source trees with FETCHCONTENT_SOURCE_DIR_<NAME> (with it set, CMake uses
#                 those sources and never tries find_package). Without network, the trees are
#                 made here from the headers Debian's packages installed (catch2, libcli11-dev,
#                 nlohmann-json3-dev, libtomlplusplus-dev, libfmt-dev), each with a CMakeLists.txt
#                 that defines the targets as the upstream project does (non-IMPORTED: Catch2 v2's
#                 INTERFACE Catch2, fmt's STATIC fmt, toml++'s tomlplusplus_tomlplusplus, ...;
#                 tests/noroot/make-local-sources.sh). That tests our build logic with fetched,
#                 non-imported targets, not the upstream projects' own CMake code: set
#                 WORKBOOK_NOROOT_UPSTREAM=<folder> to use unpacked upstream release trees there
#                 instead (Catch2/ CLI11/ nlohmann_json/ tomlplusplus/ fmt/).
#   prefix        the libraries as packages from a user prefix on CMAKE_PREFIX_PATH, laid out as
#                 the presets' .deps/usr prefix is (Debian's packages unpacked, dpkg -x; here
#                 copied from the installed packages, as there is no network): the batch project
#                 must find them there too.
# Run as root (as CI is), the test makes the build and the batch as the user nobody (setpriv),
# in a folder nobody owns; where root may (unshare --mount), it first hides the system's copies
# of the five libraries (their headers and CMake package files, under empty tmpfs mounts), so that
# nothing can come from them. Run as another user, it runs as that user.
# Prints "SKIPPED: ..." (CTest: skipped) where a prerequisite is missing.
set -uo pipefail
mode=$1 source=$2 main_build=$3 work=$4
here=$(cd "$(dirname "$0")" && pwd)
skip() { echo "SKIPPED: $*"; exit 0; }
fail() { echo "FAILED: $*"; exit 1; }
cache_value() { sed -n "s|^$1:[A-Z]*=||p" "$main_build/CMakeCache.txt" | head -1; }
libs="Catch2 CLI11 nlohmann_json tomlplusplus fmt"
prefix_packages="catch2 libcli11-dev nlohmann-json3-dev libtomlplusplus-dev libfmt-dev"  # (+ the packages of their .so's)

case "$mode" in fetchcontent|prefix) ;; *) echo "usage: $0 fetchcontent|prefix <source-root> <main-build> <work-dir>"; exit 64 ;; esac

if [ "${NOROOT_PHASE:-}" = "" ]; then
  # ---- Preparing, as whoever runs the test --------------------------------------------------
  cmake=$(cache_value CMAKE_COMMAND) nvcc=$(cache_value CMAKE_CUDA_COMPILER)
  cxx=$(cache_value CMAKE_CXX_COMPILER) ninja=$(cache_value CMAKE_MAKE_PROGRAM)
  [ -x "$cmake" ] && [ -x "$nvcc" ] && [ -x "$ninja" ] || fail "no cmake, nvcc or ninja in $main_build/CMakeCache.txt"
  as_user=()
  if [ "$(id -u)" -eq 0 ]; then
    command -v setpriv >/dev/null || skip "setpriv (util-linux) is not installed: cannot become an unprivileged user"
    getent passwd nobody >/dev/null || skip "there is no user nobody to build and grade as"
    as_user=(setpriv --reuid="$(id -u nobody)" --regid="$(id -g nobody)" --clear-groups --)
  fi
  # The work folder must be reachable by that user: under a folder it cannot enter (a checkout
  # in /root), the work goes to /var/tmp instead (not /tmp: the batch's sandbox has its own).
  # Nor under /tmp (a clone there, as CI may make): each submission's build gets an empty /tmp
  # of its own, so a prefix or a source tree there would vanish from it.
  rm -rf "$work"; mkdir -p "$work"
  case $(cd "$work" && pwd -P)/ in
    /tmp/*) why="$work is under /tmp, which the batch's sandbox replaces" ;;
    *) why="" ;;
  esac
  if [ -z "$why" ] && [ ${#as_user[@]} -gt 0 ] && ! "${as_user[@]}" test -x "$work"; then why="nobody cannot enter $work"; fi
  if [ -n "$why" ]; then
    echo "note: $why: working in /var/tmp/workbook-noroot-$mode instead"
    rm -rf "$work"; work=/var/tmp/workbook-noroot-$mode
    rm -rf "$work"; mkdir -p "$work"; chmod 755 "$work"
  fi
  # The workbook's sources, copied: the user builds from a tree it can read, as it would from
  # its own clone (everything but dot-folders and the build folders).
  mkdir -p "$work/source"
  for entry in "$source"/*; do
    case "$(basename "$entry")" in build) continue ;; esac
    [ "$(cd "$entry" 2>/dev/null && pwd -P)" = "$(cd "$main_build" && pwd -P)" ] && continue
    cp -a "$entry" "$work/source/" || fail "could not copy $entry"
  done
  if [ "$mode" = fetchcontent ]; then
    if [ -n "${WORKBOOK_NOROOT_UPSTREAM:-}" ]; then
      for lib in $libs; do
        [ -f "$WORKBOOK_NOROOT_UPSTREAM/$lib/CMakeLists.txt" ] || fail "no $WORKBOOK_NOROOT_UPSTREAM/$lib/CMakeLists.txt"
      done
      cp -a "$WORKBOOK_NOROOT_UPSTREAM" "$work/deps-src"
      echo "sources: the upstream trees in $WORKBOOK_NOROOT_UPSTREAM"
    else
      "$here/make-local-sources.sh" "$work/deps-src" || skip "no local sources of the libraries (above)"
    fi
  else
    command -v dpkg >/dev/null || skip "dpkg is not here: the user prefix is made from Debian's installed packages"
    packages="$prefix_packages"
    for p in $prefix_packages; do
      dpkg -s "$p" >/dev/null 2>&1 || skip "$p is not installed (Debian: apt-get install $prefix_packages)"
      # the shared libraries the -dev package's links name (libfmt9, libtomlplusplus3)
      for link in $(dpkg -L "$p" | grep '\.so$'); do
        packages="$packages $(dpkg -S "$(readlink -f "$link")" | cut -d: -f1)"
      done
    done
    # As .deps/usr is made (dpkg -x of each package): every file of each package.
    mkdir -p "$work/prefix"
    for p in $packages; do
      dpkg -L "$p" | while read -r f; do
        if [ -f "$f" ] || [ -L "$f" ]; then (cd / && cp -a --parents "${f#/}" "$work/prefix/") || exit 1; fi
      done || fail "could not copy package $p into $work/prefix"
    done
    echo "prefix: $work/prefix/usr, the files of $(echo $packages | tr ' ' ',')"
  fi
  # Three submissions: the reference, a broken copy, one without the file.
  good="$source/solutions/matmul-tiled/matmul.cu"
  [ -f "$good" ] || good="$source/labs/matmul-tiled/matmul.cu"  # a student release: the starter builds too
  mkdir -p "$work/submissions/good" "$work/submissions/broken" "$work/submissions/missing" "$work/home"
  cp "$good" "$work/submissions/good/matmul.cu"
  { cat "$good"; printf 'int one_more = 1  // a missing semicolon\nint and_another = 2;\n'; } > "$work/submissions/broken/matmul.cu"
  echo "this student sent no matmul.cu" > "$work/submissions/missing/README.txt"
  export NOROOT_CMAKE=$cmake NOROOT_NVCC=$nvcc NOROOT_CXX=$cxx NOROOT_NINJA=$ninja NOROOT_WORK=$work
  if [ ${#as_user[@]} -eq 0 ]; then
    NOROOT_PHASE=user exec "$0" "$@"
  fi
  chown -R nobody "$work" || fail "could not hand $work to nobody"
  # The system's copies of the libraries, hidden where root may make a mount namespace.
  hide=""
  for d in /usr/include/catch2 /usr/include/CLI /usr/include/nlohmann /usr/include/toml++ /usr/include/fmt \
           /usr/lib/cmake/* /usr/lib/*/cmake/* /usr/lib64/cmake/* /usr/share/cmake/*; do
    case "$(basename "$d")" in Catch2|CLI11|nlohmann_json|tomlplusplus|fmt|catch2|CLI|nlohmann|toml++) ;; *) continue ;; esac
    [ -d "$d" ] && hide="$hide:$d"
  done
  if unshare --mount --propagation private true 2>/dev/null; then
    NOROOT_PHASE=hide NOROOT_HIDE=$hide NOROOT_AS_USER="${as_user[*]}" exec unshare --mount --propagation private -- "$0" "$@"
  fi
  echo "note: no mount namespace here (unshare --mount): the system's copies of the libraries stay visible"
  NOROOT_PHASE=user exec "${as_user[@]}" env HOME="$work/home" USER=nobody "$0" "$@"
fi

if [ "$NOROOT_PHASE" = "hide" ]; then
  # ---- Root, in a mount namespace of its own: hide, then become nobody ----------------------
  IFS=: read -r -a dirs <<< "${NOROOT_HIDE#:}"
  for d in "${dirs[@]}"; do
    [ -n "$d" ] && { mount -t tmpfs -o ro,size=4k,mode=755 none "$d" || fail "could not hide $d"; }
  done
  echo "hidden from the build (empty mounts over the system's copies):${NOROOT_HIDE//:/ }"
  read -r -a as_user <<< "$NOROOT_AS_USER"
  NOROOT_PHASE=user exec "${as_user[@]}" env HOME="$NOROOT_WORK/home" USER=nobody "$0" "$@"
fi

# ---- The unprivileged user: configure, build, grade, check ---------------------------------
work=$NOROOT_WORK
[ "$(id -u)" -ne 0 ] || fail "still root"
echo "as $(id -un 2>/dev/null || id -u) (uid $(id -u), $(grep CapEff /proc/self/status | tr -d '\t'))"
unset CMAKE_PREFIX_PATH WORKBOOK_SOURCE_ROOT WORKBOOK_BUILD_ROOT
build=$work/build
# No CMAKE_BUILD_TYPE: built without optimisation, about twice as fast to compile (the grader's
# batch.cpp: 7 s at -O0, 15 s at -O3). What is tested is where the libraries come from and that
# the batch builds and sorts the submissions, not the code's speed; an instructor builds Release.
args=(-S "$work/source" -B "$build" -G Ninja -DCMAKE_MAKE_PROGRAM="$NOROOT_NINJA" -DCMAKE_BUILD_TYPE=
      -DCMAKE_CXX_COMPILER="$NOROOT_CXX" -DCMAKE_CUDA_COMPILER="$NOROOT_NVCC" -DCMAKE_CUDA_ARCHITECTURES=90-real
      -DWORKBOOK_LABS=matmul-tiled -DWORKBOOK_BUILD_TESTS=OFF -DWORKBOOK_BUILD_BENCHMARKS=OFF
      -DFETCHCONTENT_FULLY_DISCONNECTED=ON)
if [ "$mode" = fetchcontent ]; then
  for lib in $libs; do
    upper=$(echo "$lib" | tr '[:lower:]' '[:upper:]')
    args+=("-DFETCHCONTENT_SOURCE_DIR_$upper=$work/deps-src/$lib")
  done
else
  args+=("-DCMAKE_PREFIX_PATH=$work/prefix/usr")
fi
start=$SECONDS
"$NOROOT_CMAKE" "${args[@]}" >"$work/configure.log" 2>&1 || fail "configure failed: $(tail -30 "$work/configure.log")"
configured=$((SECONDS - start))
summary=$(grep -E "^-- Catch2" "$work/configure.log")
echo "$summary"
if [ "$mode" = fetchcontent ]; then
  # "-- Catch2 2.13.10 (fetched), CLI11 (fetched), ..., SQLite 3.40.1": the five, fetched
  fetched=0
  IFS=',' read -r -a parts <<< "${summary#-- }"
  for part in "${parts[@]}"; do
    case "$part" in *SQLite*) ;; *"(fetched)") fetched=$((fetched + 1)) ;; *) fail "not fetched: $part" ;; esac
  done
  [ "$fetched" -eq 5 ] || fail "$fetched of the 5 libraries were fetched: $summary"
  grep -q "add_library(workbook::fmt " "$build/batch/WorkbookExports.cmake" ||
    fail "the fetched fmt is not exported to the batch project: $(grep -o 'add_library([^ ]*' "$build/batch/WorkbookExports.cmake" | tr '\n' ' ')"
else
  for pkg in Catch2 nlohmann_json tomlplusplus fmt; do
    dir=$(sed -n "s|^${pkg}_DIR:PATH=||p" "$build/CMakeCache.txt")
    case "$dir" in "$work/prefix/usr/"*) ;; *) fail "${pkg}_DIR is '$dir', not in the prefix $work/prefix/usr" ;; esac
    grep -qF "set(${pkg}_DIR \"$dir\")" "$build/batch/WorkbookBatchTargets.cmake" || fail "the batch project is not given ${pkg}_DIR"
  done
fi
[ ! -e "$build/batch/unsupported.txt" ] || fail "batch refused by the build: $(cat "$build/batch/unsupported.txt")"
# The grader and what `grader batch --build-only` of matmul-tiled links (the runner's objects and
# libraries), not the other labs; with fetched libraries, matmul-tiled's test program too (the
# fetched Catch2 compiled and linked: the one program a batch on a GPU runs besides the runners).
targets=(grader grader_runner matmul-tiled-remote-runner)
[ "$mode" = fetchcontent ] && targets=(grader grade-matmul-tiled)
start=$SECONDS
"$NOROOT_CMAKE" --build "$build" --target "${targets[@]}" >"$work/build.log" 2>&1 ||
  fail "the build failed: $(grep -m5 -B2 -A5 'error' "$work/build.log" || tail -30 "$work/build.log")"
built=$((SECONDS - start))

start=$SECONDS
"$build/bin/grader" batch matmul-tiled "$work/submissions" -o "$work/results" --build-only --seed 4242 --timeout 120 \
  >"$work/batch.log" 2>&1 || fail "grader batch exited with $?: $(tail -20 "$work/batch.log")"
graded=$((SECONDS - start))
grep -iE "sandbox|bubblewrap|unshare" "$work/batch.log" | head -2
book=$work/results/gradebook.csv
cat "$book"
field() { grep -qE "^$1,([^,]*,)*$2(,|\$)" "$book"; }
field good built || fail "the reference is not 'built': $(cat "$work/results/work/good/build.log" "$work/results/work/good/compile.log" 2>/dev/null | tail -30)"
field broken "build failed" || fail "the broken submission is not 'build failed'"
grep -qE "matmul\.cu.*error|error.*matmul\.cu" "$work/results/work/broken/compile.log" ||
  fail "the broken submission did not fail on its own error: $(tail -20 "$work/results/work/broken/compile.log")"
field missing "missing file" || fail "the submission without matmul.cu is not 'missing file'"
# The reference's build used this build's libraries: the fetched ones built in its _deps/, or the
# prefix's packages.
# Its link line is in its own build.ninja (a configure of its own) or in the script the batch's
# build template wrote for it (build-<target>.sh: the template's commands, its folders swapped).
sub=$work/results/work/good/build
commands=$(ls "$sub"/build.ninja "$sub"/build-*.sh 2>/dev/null || true)
[ -n "$commands" ] || fail "the submission's build left neither build.ninja nor a build script in $sub"
if [ "$mode" = fetchcontent ]; then
  grep -q "$build/_deps/fmt-build/" $commands || fail "the submission did not link the fetched fmt of $build/_deps"
else
  grep -qE "$work/prefix/usr/lib/[^ ]*libfmt\.so" $commands ||
    fail "the submission did not link the prefix's libfmt: $(grep -ohE '[^ ]*libfmt[^ ]*' $commands | sort -u)"
fi
echo "without root ($mode): configured in ${configured} s, built in ${built} s, graded 3 submissions in ${graded} s"
