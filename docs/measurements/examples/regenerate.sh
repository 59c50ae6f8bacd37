#!/usr/bin/env bash
# Writes again the `grader check` reports the docs show as examples (tests/docs/check_examples.py
# checks the copies), on a machine with a GPU, from a build of the workbook:
#   docs/measurements/examples/regenerate.sh [build-dir [lab...]]   (default build/gpu, every lab)
# The reports are the ones an `<!-- example: docs/measurements/examples/<lab>-<which>.txt -->`
# marker names in the README, docs/ or a handout: <lab>-starter.txt, `grader check <lab>` of the
# starter as shipped (labs/), and <lab>-reference.txt, `grader check <lab> --reference`; each with
# a first line naming the GPU and the date, and a fixed seed, so that a regenerated file differs
# only where the program's output (or the machine's times) did. Run it with the working copy's
# labs/ as shipped. (The --sanitize and --profile examples beside them are reports that
# tests/feedback/run-on-gpu.sh writes: copy them from its log folder's reports.)
set -uo pipefail
cd "$(dirname "$0")/../../.."
build=${1:-build/gpu}
shift $(( $# > 0 ? 1 : 0 ))
out=docs/measurements/examples
shown=$(grep -rhoE --include='*.md' "example: $out/[a-z-]+-(starter|reference)\.txt" README.md docs labs |
        sed "s|.*$out/||; s|\.txt$||" | sort -u)
gpu=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1)
[ -n "$gpu" ] || { echo "regenerate.sh: no GPU here (nvidia-smi)"; exit 4; }
seed=710016935
for name in $shown; do
  lab=${name%-*} which=${name##*-}
  [ $# -eq 0 ] || [[ " $* " == *" $lab "* ]] || continue
  file=$out/$name.txt
  args=(); [ "$which" = reference ] && args=(--reference)
  { echo "# grader check $lab ${args[*]} --seed $seed: $gpu, $(date -u +%Y-%m-%d)"
    "$build/bin/grader" check "$lab" "${args[@]}" --seed $seed --no-color 2>&1; } > "$file"
  echo "$file: $(tail -2 "$file" | head -1)"
done
