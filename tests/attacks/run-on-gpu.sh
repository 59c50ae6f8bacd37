#!/usr/bin/env bash
# The attack suite (tests/attacks/) through `grader batch`, on a machine with a GPU:
#   tests/attacks/run-on-gpu.sh [build-dir] [work-dir]
# Builds the submissions (make_submissions.py: each fixture added to the shipped starter or the
# reference), grades them in the sandbox with a 10 s call timeout (so the hanging fixture costs
# little), and compares every student's status and points with expected.tsv (check_batch.py).
# BATCH_ARGS: other options of `grader batch` (word-split), to run the attacks under one.
# Exit status: 0 when every attack got what expected.tsv says, 1 otherwise. The same attacks
# through `grader leaderboard`: board-on-gpu.sh.
set -euo pipefail
cd "$(dirname "$0")/../.."
build=$(cd "${1:-build/gpu}" && pwd)
work=${2:-$build/test-runs/attacks}
rm -rf "$work"
mkdir -p "$work"
python3 tests/attacks/make_submissions.py "$PWD" "$build" "$work/submissions"
printf '[lab]\ncall_timeout_s = 10\n' > "$work/short.toml"
"$build/bin/grader" batch matmul-tiled "$work/submissions" -o "$work/results" --jobs "${JOBS:-8}" --config "$work/short.toml" \
  ${BATCH_ARGS:-}
python3 tests/attacks/check_batch.py "$work/results" tests/attacks/expected.tsv
