#!/usr/bin/env bash
# Writes the reports the docs show as examples (tests/docs/check_examples.py checks the copies),
# on a machine with a GPU, from a build of the workbook:
#   docs/measurements/reports/regenerate.sh [build-dir [lab...]]   (default build/gpu, every lab)
# For each lab: <lab>-starter.txt, `grader check <lab>` of the starter as shipped (labs/), and
# <lab>-reference.txt, `grader check <lab> --reference`; each with a first line naming the GPU
# and the date, and a fixed seed, so that a regenerated file differs only where the program's
# output (or the machine's times) did. Run it with the working copy's labs/ as shipped.
set -uo pipefail
cd "$(dirname "$0")/../../.."
build=${1:-build/gpu}
shift $(( $# > 0 ? 1 : 0 ))
labs=("$@"); [ ${#labs[@]} -gt 0 ] || labs=(matmul-tiled granularity coalescing kmeans particle-storm)
out=docs/measurements/reports
gpu=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1)
[ -n "$gpu" ] || { echo "regenerate.sh: no GPU here (nvidia-smi)"; exit 4; }
seed=710016935
for lab in "${labs[@]}"; do
  for which in starter reference; do
    file=$out/$lab-$which.txt
    args=(); [ $which = reference ] && args=(--reference)
    { echo "# grader check $lab ${args[*]} --seed $seed: $gpu, $(date -u +%Y-%m-%d)"
      "$build/bin/grader" check "$lab" "${args[@]}" --seed $seed --no-color 2>&1; } > "$file"
    echo "$file: $(tail -2 "$file" | head -1)"
  done
done
