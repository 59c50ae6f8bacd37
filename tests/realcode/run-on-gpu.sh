#!/usr/bin/env bash
# The real-code fixtures (tests/realcode/) through `grader batch`, on a machine with a GPU:
#   tests/realcode/run-on-gpu.sh [build-dir] [work-dir] [lab...]
# Builds the submissions (make_submissions.py: each fixture spliced into the reference solution),
# grades each lab's folder in the sandbox with a 30 s call timeout, and compares every student's
# status, points and details with expected.tsv (check_batch.py), printing one table row each.
# Needs a build of the grader with the labs (cmake --workflow --preset grade, or the gpu preset).
# Exit status: 0 when every fixture got what expected.tsv says, 1 otherwise.
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build/gpu}
work=${2:-$build/test-runs/realcode}
shift $(( $# > 2 ? 2 : $# ))
labs=("$@")
[ ${#labs[@]} -gt 0 ] || labs=(matmul-tiled coalescing granularity particle-storm kmeans)
rm -rf "$work"
mkdir -p "$work/results"
python3 tests/realcode/make_submissions.py "$PWD" "$work/submissions" "${labs[@]}"
printf '[lab]\ncall_timeout_s = 30\n' > "$work/short.toml"
for lab in "${labs[@]}"; do
  echo "== grader batch $lab"
  "$build/bin/grader" batch "$lab" "$work/submissions/$lab" -o "$work/results/$lab" --config "$work/short.toml" \
    || echo "(grader batch $lab exited with status $?: the table below says which submissions differ)"
done
echo
expected="$work/expected.tsv"
{ grep '^#' tests/realcode/expected.tsv; for lab in "${labs[@]}"; do grep -P "^$lab\t" tests/realcode/expected.tsv; done; } > "$expected"
python3 tests/realcode/check_batch.py "$work/results" "$expected"
