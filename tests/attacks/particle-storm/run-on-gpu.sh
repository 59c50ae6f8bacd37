#!/usr/bin/env bash
# particle-storm's attack suite (issue 32: whole answers checked), on a machine with a GPU:
#   tests/attacks/particle-storm/run-on-gpu.sh [build-dir] [work-dir]
# Builds the submissions (make_submissions.py: the reference, twice, and each attack made from
# it), grades them with `grader batch particle-storm` and compares every student's status and
# points with expected.tsv (../check_batch.py); then runs `grader leaderboard particle-storm` on
# the same folder and checks the board (check_board.py). Exit status 0 when both agree.
# ROUNDS and CALLS (default 2 and 5) shorten or lengthen the leaderboard; JOBS the batch.
set -euo pipefail
cd "$(dirname "$0")/../../.."
build=$(cd "${1:-build/gpu}" && pwd)
work=${2:-$build/test-runs/attacks-particle-storm}
rm -rf "$work"
mkdir -p "$work"
python3 tests/attacks/particle-storm/make_submissions.py "$PWD" "$work/submissions"
status=0
"$build/bin/grader" batch particle-storm "$work/submissions" -o "$work/results" --jobs "${JOBS:-4}"
python3 tests/attacks/check_batch.py "$work/results" tests/attacks/particle-storm/expected.tsv || status=1
"$build/bin/grader" leaderboard particle-storm "$work/submissions" -o "$work/board" \
  --rounds "${ROUNDS:-2}" --calls "${CALLS:-5}" || true  # exits 1 when any entry is invalid: expected here
python3 tests/attacks/particle-storm/check_board.py "$work/board" || status=1
exit $status
