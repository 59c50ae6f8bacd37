#!/bin/sh
# build-waits.sh <grader> <build-dir>: holds the build tree's lock (<build>/grader-build.lock) for
# 2 s, as another grader's `cmake --build` would, and starts `grader check coalescing` meanwhile
# (it builds first); prints what it said and how long it waited. CTest's
# cli/build-waits-its-turn expects "another grader is building ... waiting" and a wait of 1 s or
# more. The check then ends however this machine lets it (no GPU: exit 4).
grader=$1 build=$2
flock "$build/grader-build.lock" sleep 3 &
# Until the lock is held (not a fixed sleep: on a busy machine, as under ctest -j, flock may
# start late and the grader take the lock first).
i=0; while flock -n "$build/grader-build.lock" true && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
start=$(date +%s)
"$grader" check coalescing 2>&1 >/dev/null
echo "waited $(( $(date +%s) - start )) s"
wait
