#!/bin/sh
# waits-its-turn.sh <lock-file> <command...>: holds <lock-file> for 3 s, as another grader would
# (a running check holds grader-runs/<lab>/run.lock, a build <build>/grader-build.lock), runs the
# command meanwhile with its stdout dropped and its stderr shown, and prints how long it waited.
# CTest's cli/check-waits-its-turn and cli/build-waits-its-turn expect the grader's "waiting for
# it to finish" and a wait of 1 s or more. The command then ends however this machine lets it
# (no GPU: exit 4).
lock=$1
shift
mkdir -p "$(dirname "$lock")"
flock "$lock" sleep 3 &
# Until the lock is held (not a fixed sleep: on a busy machine, as under ctest -j, flock may
# start late and the grader take the lock first).
i=0; while flock -n "$lock" true && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
start=$(date +%s)
"$@" 2>&1 >/dev/null
echo "waited $(( $(date +%s) - start )) s"
wait
