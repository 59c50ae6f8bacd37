#!/usr/bin/env bash
# `grader check --sanitize` and `--profile` on planted flaws, on a machine with a GPU,
# compute-sanitizer and Nsight Compute (ncu), and a plain `grader check`'s words on a failed
# allocation the code never checked:
#   tests/feedback/run-on-gpu.sh [build-dir] [log-dir]
# Each flaw is a real-code fixture (tests/feedback/fixtures/, tests/realcode/fixtures/) spliced
# into the reference solution and copied over the lab's files in labs/ for the run (they are put
# back at the end, whatever happens). Each line of CASES says what the report must show; the
# reference must show nothing in the same mode. Prints one row per run: the case, the mode, its
# exit status, its time, and whether the report showed what it must. Writes each report to the
# log folder. Exit status: 0 when every run showed what it must, 1 otherwise.
set -uo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build/gpu}
logs=${2:-$build/test-runs/feedback}
grader="$build/bin/grader"
work=$(mktemp -d /var/tmp/workbook-feedback.XXXXXX)
mkdir -p "$logs"

# lab | fixture ("reference": the solution as is) | mode and its options | exit | regex the report must match
CASES=(
  "matmul-tiled|reference|--sanitize --exercise tiled|0|compute-sanitizer found nothing"
  "matmul-tiled|tiled-no-second-barrier|--sanitize --exercise tiled --tool racecheck|1|shared-memory race: .*matmul\.cu:[0-9]+.*__syncthreads"
  "matmul-tiled|tiled-last-tile-out-of-bounds|--sanitize --exercise tiled --tool memcheck|1|matmul\.cu:[0-9]+: Invalid __global__ write.*past the end"
  "coalescing|racy-transpose-no-barrier|--sanitize --exercise transpose_tiled --tool racecheck|1|shared-memory race: .*coalescing\.cu:[0-9]+"
  "coalescing|reference|--profile --exercise transpose_padded|0|shared-memory bank conflicts"
  "coalescing|transpose-padded-without-padding|--profile --exercise transpose_padded|1|shared-memory bank conflicts +[0-9.]+[MG]? +[0-9.]+[MG]? +<- look here"
  "coalescing|slow-add-x-cols-is-rows|--profile --exercise add_x_cols|1|global load sectors per request +(2[0-9]|3[0-2])\.[0-9] +4\.0 +<- look here"
  "matmul-tiled|reference|--profile --exercise tiled|0|shared-memory loads per FMA"
  "kmeans|slow-privatized-is-all-gpu|--profile --exercise all_gpu_privatized|1|global atomic instructions \\(warp-wide\\) +[0-9.]+[MG]? +[0-9.]+[MG]? +<- look here"
  "particle-storm|slow-update-ref1|--profile --exercise update|1|SFU \\(XU\\) instructions \\(warp-wide\\) +[0-9.]+[MG]? +[0-9.]+[MG]? +<- look here"
  "matmul-tiled|tiled-unchecked-malloc||1|in this call, 1 device allocation in your code failed: out of memory \\(cudaErrorMemoryAllocation\\), the last of 1048576.0 GiB"
)

# The fixtures, spliced into the references.
python3 tests/realcode/make_submissions.py "$PWD" "$work/fixtures" --fixtures tests/feedback/fixtures > /dev/null
python3 tests/realcode/make_submissions.py "$PWD" "$work/fixtures" > /dev/null

# labs/ as it was, put back at the end. Put back with a fresh time (plain cp, never cp -p): with
# its old time the build would keep the last planted flaw's objects, and a later `grader check`
# of the starter would grade the flaw (it did: the GPU starter tests then found it correct).
for lab in matmul-tiled coalescing kmeans particle-storm; do
  mkdir -p "$work/saved/$lab" && cp labs/$lab/*.cu "$work/saved/$lab/"
done
restore() {
  local saved
  for saved in matmul-tiled coalescing kmeans particle-storm; do cp "$work/saved/$saved/"*.cu labs/$saved/; done
}
trap 'restore; rm -rf "$work"' EXIT

failed=0
printf '%-16s %-34s %-60s %5s %8s  %s\n' lab case mode exit seconds shown
for line in "${CASES[@]}"; do
  IFS='|' read -r lab fixture options want regex <<< "$line"
  restore
  if [ "$fixture" = reference ]; then
    for f in solutions/$lab/*.cu; do
      python3 - "$f" "labs/$lab/$(basename "$f")" <<'EOF'
import re, sys
text = open(sys.argv[1]).read()
open(sys.argv[2], 'w').write(re.sub(r'^[ \t]*//( BEGIN SOLUTION.*| STARTER| END SOLUTION|\|.*)\n', '', text, flags=re.M))
EOF
    done
  else
    cp "$work/fixtures/$lab/$fixture/"*.cu labs/$lab/
  fi
  name="$lab-$fixture-$(echo "$options" | tr -c 'a-z0-9_' '-' | sed 's/-\+/-/g; s/^-//; s/-$//')"
  start=$(date +%s.%N)
  # shellcheck disable=SC2086
  "$grader" check "$lab" $options --seed 4242 > "$logs/$name.txt" 2>&1
  status=$?
  seconds=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN{printf "%.1f", b-a}')
  shown=no
  tr '\n' ' ' < "$logs/$name.txt" | grep -Eq -- "$regex" && shown=yes
  ok=yes
  [ "$status" = "$want" ] && [ $shown = yes ] || { ok=no; failed=1; }
  printf '%-16s %-34s %-60s %5s %8s  %s%s\n' "$lab" "$fixture" "$options" "$status" "$seconds" "$shown" \
    "$([ $ok = no ] && echo "   FAILED: wanted exit $want and /$regex/")"
done
exit $failed
