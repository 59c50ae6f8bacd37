#!/usr/bin/env bash
# The batch grader on a GPU, at class size: N submissions (default 24) of matmul-tiled cycling
# through six kinds: correct, wrong (incorrect), slow (too slow), illegal-address (crashed),
# endless-kernel (timed out) and racy (a missing barrier: incorrect). Every third correct one is
# sent as a .zip, the others as folders. Runs `grader batch`, checks each submission's status,
# prints the gradebook and the time it took.
#   tests/batch/gpu-batch.sh [N] [work-dir] [extra grader batch options...]
set -uo pipefail
cd "$(dirname "$0")/../.."
n=${1:-24}; work=${2:-build/gpu-batch}; shift 2 2>/dev/null || shift $#
grader=${GRADER:-build/gpu/bin/grader}
kinds=(correct wrong slow illegal-address endless-kernel racy)
declare -A expect=([correct]=passed [wrong]=incomplete [slow]=incomplete [illegal-address]=crashed
                   [endless-kernel]="timed out" [racy]=incomplete)
rm -rf "$work"; mkdir -p "$work/submissions"
for i in $(seq 1 "$n"); do
  kind=${kinds[$(( (i - 1) % ${#kinds[@]} ))]}
  id=$(printf "s%03d-%s" "$i" "$kind")
  if [ "$kind" = correct ] && [ $(( i % 3 )) -eq 1 ]; then
    (cd tests/batch/gpu-fixtures/correct && cmake -E tar cf "$OLDPWD/$work/submissions/$id.zip" --format=zip matmul.cu)
  else
    mkdir -p "$work/submissions/$id" && cp "tests/batch/gpu-fixtures/$kind/matmul.cu" "$work/submissions/$id/"
  fi
done
start=$(date +%s)
"$grader" batch matmul-tiled "$work/submissions" -o "$work/results" --timeout 120 "$@" 2>&1 | tee "$work/batch.log"
echo "grader batch: exit ${PIPESTATUS[0]}, $(( $(date +%s) - start )) s for $n submissions"
status=0
while IFS=, read -r student naive tiled total max st rest; do
  [ "$student" = student ] && continue
  kind=${student#*-}
  want=${expect[$kind]}
  if [ "$st" != "$want" ]; then echo "WRONG: $student is '$st', expected '$want'"; status=1; fi
done < "$work/results/gradebook.csv"
column -s, -t < "$work/results/gradebook.csv" | head -40
[ $status -eq 0 ] && echo "all $n submissions got the expected status"
exit $status
