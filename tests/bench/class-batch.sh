#!/usr/bin/env bash
# A class-like batch per lab, timed (a benchmark, not a test: it asserts nothing about time):
#   tests/bench/class-batch.sh [build-dir] [work-dir] [lab...]
# Each lab's class is the real-code fixtures (tests/realcode), the reference solution and the
# shipped starter, copied round-robin up to SIZE submissions (default 20); `grader batch <lab>`
# grades it with JOBS workers (default 16, as a node of 16 cores would), and the table says where
# the time went, from each batch.json: wall, wall per submission, and the stages summed over the
# submissions (build, correctness, timed, waiting for the GPU); then every copy's grade against
# tests/realcode/expected.tsv (the reference 100, the starter 0). GPU_JOBS, when set, is passed
# as --gpu-jobs (correctness phases per GPU at once), CONFIG as --config (a course's override
# file: another size to time, say), BATCH_ARGS any other options of `grader batch` (word-split:
# "--gpus 0 --early-timed-start", say). Needs a GPU and a build of the grader with
# the labs (the gpu preset).
set -euo pipefail
cd "$(dirname "$0")/../.."
build=$(cd "${1:-build/gpu}" && pwd)
work=${2:-$build/test-runs/class-batch}
shift $(( $# > 2 ? 2 : $# ))
labs=("$@")
[ ${#labs[@]} -gt 0 ] || labs=(matmul-tiled granularity coalescing kmeans particle-storm)
size=${SIZE:-20}
rm -rf "$work"
mkdir -p "$work"
python3 tests/realcode/make_submissions.py "$PWD" "$work/fixtures" "${labs[@]}"
python3 tests/bench/make_class.py "$PWD" "$work/fixtures" "$work/classes" "$size" "${labs[@]}"
for lab in "${labs[@]}"; do
  echo "== grader batch $lab ($size submissions, ${JOBS:-16} at a time)"
  "$build/bin/grader" batch "$lab" "$work/classes/$lab" -o "$work/results/$lab" --jobs "${JOBS:-16}" \
    ${GPU_JOBS:+--gpu-jobs "$GPU_JOBS"} ${CONFIG:+--config "$CONFIG"} ${BATCH_ARGS:-} > "$work/$lab.log" 2>&1 \
    || echo "(grader batch $lab exited with status $?; log: $work/$lab.log)"
  tail -n 3 "$work/$lab.log"
done
python3 tests/bench/class_table.py "$work/results" "${labs[@]}"
# The same grades as a batch of one copy each: every copy against tests/realcode/expected.tsv.
python3 tests/realcode/check_batch.py "$work/results" tests/realcode/expected.tsv --copies \
  || echo "(some copies' grades differ from tests/realcode/expected.tsv: above)"
