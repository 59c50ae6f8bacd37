#!/usr/bin/env bash
# The attack suite through `grader leaderboard`, on a machine with a GPU:
#   tests/attacks/board-on-gpu.sh [--exercise EX] <build-dir> <work-dir>
#       a board of honest entries and attacks (ENTRIES below) for matmul-tiled; check_board.py
#       checks it: honest ones valid and tied, every attack refused or no faster than the
#       honest copy, the caches at their true (slow) speed.
#   tests/attacks/board-on-gpu.sh --copies N [--lab LAB] <build-dir> <work-dir>
#       a board of N copies of LAB's reference (matmul-tiled or coalescing): all valid and tied.
# ROUNDS (default 3) and JOBS (default 8) from the environment; the board is in
# <work-dir>/board (leaderboard.json, .md, runs/), the submissions in <work-dir>/submissions.
# Exit status: 0 when every rule holds, 1 otherwise (2: the leaderboard itself failed).
set -euo pipefail
cd "$(dirname "$0")/../.."
copies="" lab=matmul-tiled exercise=()
while [[ $# -gt 0 && $1 == --* ]]; do
  case $1 in
    --copies) copies=$2; shift 2 ;;
    --lab) lab=$2; shift 2 ;;
    --exercise) exercise=(--exercise "$2"); shift 2 ;;
    *) echo "unknown option $1" >&2; exit 64 ;;
  esac
done
[[ $# -eq 2 ]] || { echo "usage: $0 [--copies N [--lab LAB]] [--exercise EX] <build-dir> <work-dir>" >&2; exit 64; }
build=$(cd "$1" && pwd)
work=$2
ENTRIES=good,good-copy,cache-pointers,cache-hash,vendor-cublas,escape-rows,prefetch-thread,escape-stream,forge-done,slow-tiled,cg-tiles,tiles-in-helper,dynamic-shared
rm -rf "$work"
mkdir -p "$work"
work=$(cd "$work" && pwd)
if [[ -n $copies ]]; then
  python3 tests/attacks/make_submissions.py "$PWD" "$build" "$work/submissions" --copies "$copies" --lab "$lab"
else
  [[ $lab == matmul-tiled ]] || { echo "the attack board is matmul-tiled's; --lab goes with --copies" >&2; exit 64; }
  python3 tests/attacks/make_submissions.py "$PWD" "$build" "$work/submissions" --only "$ENTRIES"
fi
started=$(date +%s)
"$build/bin/grader" leaderboard "$lab" "$work/submissions" -o "$work/board" --rounds "${ROUNDS:-3}" \
  --jobs "${JOBS:-8}" "${exercise[@]}" || { echo "grader leaderboard failed (status $?)" >&2; exit 2; }
echo "grader leaderboard took $(( $(date +%s) - started )) s"
if [[ -n $copies ]]; then
  python3 tests/attacks/check_board.py "$work/board/leaderboard.json" --copies
else
  python3 tests/attacks/check_board.py "$work/board/leaderboard.json"
fi
