#!/usr/bin/env bash
# One student's GPU memory costs no one else (issue 32), with stand-ins, on any machine: a
# "victim" whose program says it ran out of GPU memory (fixtures/oom-victim.cu.in) while a "hog"
# (fixtures/oom-hog.cu.in) runs beside it, and a stand-in for nvidia-smi that reports the hog's
# runner holding 70000 MiB. The victim's checks must run again alone (batch.json, its run folder,
# its feedback), the hog's feedback must say what it held, the bystander must run once, and
# batch.json must say where each one's time went.
#   tests/batch/oom-rerun.sh <grader> <work-dir>
set -uo pipefail
grader=$1; work=$2
root=$(cd "$(dirname "$0")/../.." && pwd)
rm -rf "$work"; mkdir -p "$work/subs"/{hog,victim,bystander}
work=$(cd "$work" && pwd)
for n in hog victim bystander; do cp "$root/labs/matmul-tiled/matmul.cu" "$work/subs/$n/"; done
cat "$root/tests/batch/fixtures/oom-hog.cu.in" >> "$work/subs/hog/matmul.cu"
cat "$root/tests/batch/fixtures/oom-victim.cu.in" >> "$work/subs/victim/matmul.cu"
apps="for p in \$(pgrep -f $work/out/work/hog/build/runner); do echo \"\$p, 70000\"; done"
"$grader" batch matmul-tiled "$work/subs" -o "$work/out" --run-without-gpu --gpu-jobs 4 -j 4 --seed 1 --timeout 120 \
  --gpu-apps-command "$apps" > "$work/batch.log" 2>&1
rc=$?
fail() { echo "FAILED: $*"; cat "$work/batch.log"; exit 1; }
[ $rc -eq 0 ] || fail "grader batch exited $rc"
python3 - "$work/out/batch.json" <<'PY' || fail "batch.json"
import json, sys
meta = json.load(open(sys.argv[1]))
s = meta["students"]
assert s["victim"].get("checks_ran_again_alone"), s["victim"]
assert s["victim"].get("gpu_memory_held_by") == "hog", s["victim"]
assert "checks_ran_again_alone" not in s["bystander"] and "checks_ran_again_alone" not in s["hog"]
for sid, e in s.items():
    t = e["time"]
    assert t["build_s"] > 0 and t["correctness_s"] > 0 and t["total_s"] >= t["build_s"], (sid, t)
assert s["victim"]["time"]["rerun_alone_s"] > 0
assert meta["time"]["submissions"] == 3 and meta["time"]["wall_s"] > 0
PY
[ -f "$work/out/work/victim/run/checks-alone.log" ] || fail "the victim's checks did not run again alone"
[ ! -f "$work/out/work/bystander/run/checks-alone.log" ] || fail "the bystander's checks ran twice"
grep -q "ran out of GPU memory while other submissions shared the GPU" "$work/out/feedback/victim.md" || fail "victim's feedback"
grep -q "held up to 68.4 GiB" "$work/out/feedback/hog.md" || fail "the hog's feedback does not say what it held"
grep -q "^time: wall .* run again alone" "$work/batch.log" || fail "no time: line with the run again alone"
echo "the victim ran again alone, the hog was told, every stage timed"
