#!/usr/bin/env bash
# One student's GPU memory costs no one else (issue 32), on a GPU: a submission that holds nearly
# all of the GPU's memory (fixtures/gpu-hog.cu.in added to the reference) graded beside COPIES
# (default 3) copies of the reference on one GPU, correctness phases sharing it (--gpu-jobs 4).
# Every copy must get full points (a copy whose tests ran out of memory beside the hog runs them
# again alone: batch.json says "checks_ran_again_alone"); the hog's feedback should name what it
# held (where nvidia-smi shows the GPU's processes: a WARNING otherwise, not a failure).
#   tests/batch/gpu-memory-hog.sh [work-dir] [extra grader batch options, e.g. --gpus 0]
set -uo pipefail
cd "$(dirname "$0")/../.."
work=${1:-build/gpu-memory-hog}; shift 1 2>/dev/null || shift $#
grader=${GRADER:-build/gpu/bin/grader}
copies=${COPIES:-3}
rm -rf "$work"; mkdir -p "$work/submissions"
work=$(cd "$work" && pwd)
# The reference without its starter markers (grader/src/release/starter.hpp).
reference=$(sed -E '/^[[:space:]]*\/\/( BEGIN SOLUTION.*| STARTER| END SOLUTION|\|.*)$/d' solutions/matmul-tiled/matmul.cu)
mkdir -p "$work/submissions/hog"
{ printf '%s\n' "$reference"; cat tests/batch/fixtures/gpu-hog.cu.in; } > "$work/submissions/hog/matmul.cu"
for i in $(seq 1 "$copies"); do
  mkdir -p "$work/submissions/copy$i" && printf '%s\n' "$reference" > "$work/submissions/copy$i/matmul.cu"
done
"$grader" batch matmul-tiled "$work/submissions" -o "$work/results" --gpu-jobs 4 -j 4 "$@" 2>&1 | tee "$work/batch.log"
echo "grader batch: exit ${PIPESTATUS[0]}"
status=0
while IFS=, read -r student naive tiled total max st rest; do
  [ "$student" = student ] && continue
  case "$student" in
    copy*) if [ "$total" != "$max" ]; then
             echo "FAILED: $student got $total of $max beside the hog; its feedback:"
             head -c 3000 "$work/results/feedback/$student.md"; status=1
           fi ;;
  esac
done < "$work/results/gradebook.csv"
cat "$work/results/gradebook.csv"
python3 - "$work/results/batch.json" <<'PY'
import json, sys
meta = json.load(open(sys.argv[1]))
for sid, e in sorted(meta.get("students", {}).items()):
    print(sid, "GPU", [g["ordinal"] for g in e.get("gpus", [])], "ran again alone:" , e.get("checks_ran_again_alone", "no"),
          "memory held by:", e.get("gpu_memory_held_by", "-"))
PY
if grep -q "held up to" "$work/results/feedback/hog.md"; then echo "the hog's feedback names what it held"
else echo "WARNING: the hog's feedback does not name what it held (does nvidia-smi show this machine's processes?)"; fi
grep -h "^time:" "$work/batch.log"
[ $status -eq 0 ] && echo "every copy kept its points beside the hog"
exit $status
