#!/usr/bin/env bash
# The batch grader on a GPU, at class size: N submissions (default 24) of matmul-tiled. The
# first 24 cycle through six kinds: correct, wrong (incorrect), slow (too slow),
# illegal-address and endless-kernel (their exercise's calls charged), and racy (a missing barrier:
# incorrect); beyond 24, the kinds other than endless-kernel (a class has few of those, and each
# holds a GPU slot until its timeout). Every third correct one is sent as a .zip. Runs `grader batch`, checks each submission's status,
# prints the gradebook and the time it took.
#   [TIMEOUT=s] [RESUME=1] tests/batch/gpu-batch.sh [N] [work-dir] [extra grader batch options...]
# RESUME=1 keeps the submissions and results of an interrupted run and grades only what is left.
set -uo pipefail
cd "$(dirname "$0")/../.."
n=${1:-24}; work=${2:-build/gpu-batch}; shift 2 2>/dev/null || shift $#
grader=${GRADER:-build/gpu/bin/grader}
kinds=(correct wrong slow illegal-address endless-kernel racy)
# The code runs in a process of its own (grader/remote/): a fault or a never-ending kernel costs
# its own exercise's calls, the other exercise is graded, so both end `incomplete`.
declare -A expect=([correct]=passed [wrong]=incomplete [slow]=incomplete [illegal-address]=incomplete
                   [endless-kernel]=incomplete [racy]=incomplete)
if [ -n "${RESUME:-}" ] && [ -d "$work/submissions" ]; then
  work=$(cd "$work" && pwd)
else
rm -rf "$work"; mkdir -p "$work/submissions"
work=$(cd "$work" && pwd)
# "correct" is the reference solution itself; the others are the reference with one bug each,
# made by make-gpu-fixtures.cmake.
cmake -DSOLUTION=solutions/matmul-tiled/matmul.cu -DOUT="$work/fixtures" -P tests/batch/make-gpu-fixtures.cmake || exit 1
fixture() { if [ "$1" = correct ]; then echo solutions/matmul-tiled/matmul.cu; else echo "$work/fixtures/$1/matmul.cu"; fi; }
later=(correct wrong slow illegal-address racy)
for i in $(seq 1 "$n"); do
  if [ "$i" -le 24 ]; then kind=${kinds[$(( (i - 1) % ${#kinds[@]} ))]}; else kind=${later[$(( i % ${#later[@]} ))]}; fi
  id=$(printf "s%03d-%s" "$i" "$kind")
  if [ "$kind" = correct ] && [ $(( i % 3 )) -eq 1 ]; then
    (cd solutions/matmul-tiled && cmake -E tar cf "$work/submissions/$id.zip" --format=zip matmul.cu)
  else
    mkdir -p "$work/submissions/$id" && cp "$(fixture "$kind")" "$work/submissions/$id/"
  fi
done
fi
start=$(date +%s)
"$grader" batch matmul-tiled "$work/submissions" -o "$work/results" --timeout "${TIMEOUT:-120}" "$@" 2>&1 | tee "$work/batch.log"
batch_status=${PIPESTATUS[0]}
echo "grader batch: exit $batch_status, $(( $(date +%s) - start )) s for $n submissions"
[ -f "$work/results/gradebook.csv" ] || { echo "FAILED: no gradebook.csv"; exit 1; }
status=0
[ "$(( $(wc -l < "$work/results/gradebook.csv") - 1 ))" -eq "$n" ] || { echo "FAILED: the gradebook does not have $n rows"; status=1; }
while IFS=, read -r student naive tiled total max st rest; do
  [ "$student" = student ] && continue
  kind=${student#*-}
  want=${expect[$kind]}
  if [ "$st" != "$want" ]; then echo "WRONG: $student is '$st', expected '$want'"; status=1; fi
done < "$work/results/gradebook.csv"
head -30 "$work/results/gradebook.csv"
[ $status -eq 0 ] && echo "all $n submissions got the expected status"
exit $status
