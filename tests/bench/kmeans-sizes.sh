#!/usr/bin/env bash
# Does kmeans keep its verdicts when its speed is graded on a smaller configuration? (issue 33:
# kmeans' timed calls are whole programs on 256 MB of objects, 29 s of a 37 s check on an H200.)
#   tests/bench/kmeans-sizes.sh [build-dir] [work-dir] [small-MB]
# Grades the reference, the shipped starter and the kmeans real-code fixtures (tests/realcode)
# with `grader batch kmeans` twice: at lab.toml's [performance] configurations (256 MB) and at
# small-MB (default 64), the same seed; then kmeans_sizes.py prints, for every timed case, the
# speedup at each size, the threshold it met or missed, and the threshold at the small size that
# keeps the reference's margin (the threshold scaled by the reference's speedup ratio), and says
# whether every verdict stays the same. A benchmark for a GPU machine: it asserts nothing in CI.
set -euo pipefail
cd "$(dirname "$0")/../.."
build=$(cd "${1:-build/gpu}" && pwd)
work=${2:-$build/test-runs/kmeans-sizes}
small=${3:-64}
rm -rf "$work"
mkdir -p "$work/class"
python3 tests/realcode/make_submissions.py "$PWD" "$work/fixtures" kmeans
python3 tests/bench/make_class.py "$PWD" "$work/fixtures" "$work/class" 4 kmeans
toml=labs/kmeans/lab.toml
c2=$(sed -n 's/^config_2d *= *\[ *[0-9]*, *\([^]]*\)\].*/\1/p' $toml)
c16=$(sed -n 's/^config_16d *= *\[ *[0-9]*, *\([^]]*\)\].*/\1/p' $toml)
printf '[performance]\nconfig_2d = [%s, %s]\nconfig_16d = [%s, %s]\n' "$small" "$c2" "$small" "$c16" > "$work/small.toml"
seed=${SEED:-20261127}
for size in full small; do
  extra=(); [ $size = small ] && extra=(--config "$work/small.toml")
  start=$EPOCHREALTIME
  "$build/bin/grader" batch kmeans "$work/class/kmeans" -o "$work/$size" --seed "$seed" --jobs "${JOBS:-8}" \
    "${extra[@]}" > "$work/$size.log" 2>&1 || echo "(grader batch kmeans, $size: exit $?; log: $work/$size.log)"
  echo "$size: $(python3 -c "print(round($EPOCHREALTIME - $start))") s; $(grep -E '^time:' "$work/$size.log" || true)"
done
python3 tests/bench/kmeans_sizes.py "$work/full/results.json" "$work/small/results.json"
