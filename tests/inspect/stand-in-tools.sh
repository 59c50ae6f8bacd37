#!/usr/bin/env bash
# grader check --sanitize and --profile end to end without a GPU, around stand-in tools that run
# nothing and print what compute-sanitizer and Nsight Compute print (CTest inspect/stand-in-tools):
#   tests/inspect/stand-in-tools.sh <grader> <work-dir>
# What it shows: the grader builds the inspect programs, hands the tools the options and files it
# should, reads what they wrote (a race at two lines of the student's file, with their text; an
# ncu table with 16.5 million bank conflicts against the reference's 62,753; the same against
# lab.toml's [profile.expected] ranges, by kernel name, for a renamed kernel, and with none that
# matches), says it in its words and exits as documented. The tools' real output on planted flaws is checked on a GPU by
# tests/feedback/run-on-gpu.sh.
set -euo pipefail
grader=$1
work=$2
root=$(cd "$(dirname "$0")/../.." && pwd)
rm -rf "$work"
mkdir -p "$work/bin"
fail() { echo "FAILED: $*"; exit 1; }
# check_into <file> [VAR=value ...] <grader> <args>: the grader's output into <file> (and shown),
# its exit status in $status.
check_into() {
  local out=$1
  shift
  set +e
  env "$@" > "$out" 2>&1
  status=$?
  set -e
  cat "$out"
}

# Lines of the shipped starter for the race's two places: where tiledKernel and naiveKernel begin.
write_line=$(grep -n "__global__ void tiledKernel" "$root/labs/matmul-tiled/matmul.cu" | head -1 | cut -d: -f1)
read_line=$(grep -n "__global__ void naiveKernel" "$root/labs/matmul-tiled/matmul.cu" | head -1 | cut -d: -f1)
[ -n "$write_line" ] && [ -n "$read_line" ] || fail "the starter's kernels were not found"

# compute-sanitizer: --log-file F ... --tool T ... <program> <filter>. racecheck finds a race;
# the others find nothing. Every tool "runs" one case (a line in the results file).
cat > "$work/bin/compute-sanitizer" <<STANDIN
#!/usr/bin/env bash
log=; tool=memcheck; args=("\$@")
for ((i = 0; i < \${#args[@]}; i++)); do
  case "\${args[i]}" in --log-file) log=\${args[i+1]};; --tool) tool=\${args[i+1]};; esac
done
echo "\$* FEWER=\${WORKBOOK_FEWER_CASES:-}" >> "$work/sanitizer-calls.txt"
echo '{"exercise":"tiled","kind":"correctness","case":"stand-in","outcome":"passed"}' >> "\$WORKBOOK_RESULTS"
{
  echo "========= COMPUTE-SANITIZER"
  if [ "\$tool" = racecheck ]; then
    echo "========= Error: Race reported between Write access at void tiledKernel<16>(const float *, const float *, float *, int, int, int)+0x1f0 in $root/labs/matmul-tiled/matmul.cu:$write_line"
    echo "=========     and Read access at void tiledKernel<16>(const float *, const float *, float *, int, int, int)+0x2a0 in $root/labs/matmul-tiled/matmul.cu:$read_line [6144 hazards]"
    echo "========="
    echo "========= RACECHECK SUMMARY: 1 hazard displayed (1 error, 0 warnings)"
  elif [ "\$tool" = memcheck ] && [ -n "\${STANDIN_MANY:-}" ]; then
    # As many records as --print-limit lets through: the count is a lower bound.
    for ((t = 0; t < 200; t++)); do
      echo "========= Invalid __global__ write of size 4 bytes"
      echo "=========     at void tiledKernel<16>(const float *, const float *, float *, int, int, int)+0x3a0 in $root/labs/matmul-tiled/matmul.cu:$write_line"
      echo "=========     by thread (\$t,0,0) in block (1,0,0)"
      echo "=========     Access at 0x7f0000002510 is out of bounds"
      echo "=========     and is 16 bytes after the nearest allocation at 0x7f0000000000 of size 9,472 bytes"
      echo "========="
    done
    echo "========= ERROR SUMMARY: 200 errors"
  else
    echo "========= ERROR SUMMARY: 0 errors"
  fi
} > "\$log"
STANDIN

# ncu: the table an H100 gave for transposePaddedKernel, with the tile's padding (the
# reference's program) or without it (the student's).
cat > "$work/bin/ncu" <<STANDIN
#!/usr/bin/env bash
echo "\$*" >> "$work/ncu-calls.txt"
conflicts=16,500,186
case "\$*" in *inspect-reference-coalescing*) conflicts=62,753;; esac
echo "==PROF== Connected to process 4242"
echo "the program's own line"
echo '"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size","Grid Size","Device","CC","Section Name","Metric Name","Metric Unit","Metric Value"'
for m in "gpu__time_duration.sum,usecond,125.0" "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,,\$conflicts" \\
         "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,,0" \\
         "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,sector,4,194,304" "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,,1,048,576"; do
  name=\${m%%,*}; rest=\${m#*,}; unit=\${rest%%,*}; value=\${rest#*,}
  echo "\"0\",\"4242\",\"inspect\",\"127.0.0.1\",\"coalescing::<unnamed>::\${STANDIN_KERNEL:-transposePaddedKernel}(const float *, float *, int, int)\",\"1\",\"7\",\"(32, 8, 1)\",\"(256, 256, 1)\",\"0\",\"9.0\",\"Command line profiler metrics\",\"\$name\",\"\$unit\",\"\$value\""
done
echo "==PROF== Disconnected from process 4242"
STANDIN
chmod +x "$work/bin/compute-sanitizer" "$work/bin/ncu"

# --sanitize: the race at its two lines, with their text; nothing from the other tools; exit 1.
check_into "$work/sanitize.txt" WORKBOOK_COMPUTE_SANITIZER="$work/bin/compute-sanitizer" \
  "$grader" check matmul-tiled --sanitize --exercise tiled --run-without-gpu --seed 7
[ $status = 1 ] || fail "--sanitize exited $status, not 1 (problems found)"
grep -q "racecheck .* 1 problem" "$work/sanitize.txt" || fail "racecheck's problem not counted"
grep -q "memcheck .* nothing found" "$work/sanitize.txt" || fail "memcheck's clean run not said"
grep -q "shared-memory race: Write at matmul.cu:$write_line, Read at matmul.cu:$read_line (6144 times)" "$work/sanitize.txt" \
  || fail "the race's title"
grep -q "__global__ void tiledKernel" "$work/sanitize.txt" || fail "the written line's text"
grep -q "a barrier is missing\|A barrier is missing" "$work/sanitize.txt" || fail "the race's explanation"
grep -q -- "--log-file .*--tool racecheck .*inspect-matmul-tiled \[tiled\]\[correctness\]" "$work/sanitizer-calls.txt" \
  || fail "the racecheck call: $(cat "$work/sanitizer-calls.txt")"
grep -q -- "--tool memcheck .*--padding 256" "$work/sanitizer-calls.txt" || fail "memcheck without its padding"
grep -q "WORKBOOK_SEED=7 WORKBOOK_FEWER_CASES=1 .*--tool racecheck" "$work/sanitize.txt" \
  || fail "the rerun line names the tool that found it, with racecheck's smaller case set"
# Racecheck alone runs the smaller case set (grading::fewer_cases()); memcheck and synccheck all.
grep -q -- "--tool racecheck .* FEWER=1$" "$work/sanitizer-calls.txt" || fail "racecheck without WORKBOOK_FEWER_CASES=1"
grep -q -- "--tool memcheck .* FEWER=$" "$work/sanitizer-calls.txt" || fail "memcheck with the smaller case set"
grep -q "racecheck runs each shape once, without the largest" "$work/sanitize.txt" || fail "the header's note on racecheck"

# A listing cut at --print-limit: the count is "or more".
check_into "$work/many.txt" STANDIN_MANY=1 WORKBOOK_COMPUTE_SANITIZER="$work/bin/compute-sanitizer" \
  "$grader" check matmul-tiled --sanitize --exercise tiled --tool memcheck --run-without-gpu --no-build
[ $status = 1 ] || fail "--sanitize with 200 records exited $status"
grep -q "matmul.cu:$write_line: Invalid __global__ write of size 4 bytes (200 times or more)" "$work/many.txt" \
  || fail "a count at the print limit is not a lower bound"
grep -q "racecheck runs each shape once" "$work/many.txt" && fail "the racecheck note without racecheck"

# --json: the same findings for a script.
set +e
WORKBOOK_COMPUTE_SANITIZER="$work/bin/compute-sanitizer" "$grader" check matmul-tiled --sanitize --exercise tiled \
  --tool racecheck --run-without-gpu --no-build --json > "$work/sanitize.json" 2> "$work/sanitize.err"
status=$?
set -e
[ $status = 1 ] || fail "--sanitize --json exited $status"
python3 - "$work/sanitize.json" <<'PY' || fail "--json"
import json, sys
r = json.load(open(sys.argv[1]))
t = r["tools"][0]
assert t["tool"] == "racecheck" and t["status"] == "found", t
h = t["hazards"][0]
assert h["count"] == 6144 and [p["access"] for p in h["places"]] == ["Write", "Read"], h
assert "__global__ void tiledKernel" in h["places"][0]["source"], h
PY

# --profile: yours beside the reference's, the conflicts pointed at, the time in ms; exit 1.
check_into "$work/profile.txt" WORKBOOK_NCU="$work/bin/ncu" \
  "$grader" check coalescing --profile --exercise transpose_padded --run-without-gpu
[ $status = 1 ] || fail "--profile exited $status, not 1 (a metric far from the reference's)"
grep -Eq "shared-memory bank conflicts +16\.5M +62753 +<- look here" "$work/profile.txt" || fail "the conflicts' row"
grep -Eq "kernel time \(ms\) +0\.125 +0\.125" "$work/profile.txt" || fail "the time, in ms"
grep -Eq "global load sectors per request +4\.0 +4\.0 *$" "$work/profile.txt" || fail "the sectors' row"
grep -Eq -- "--kernel-name regex:\^\([a-zA-Z|]*transposePaddedKernel[a-zA-Z|]*\)\\$ " "$work/ncu-calls.txt" \
  || fail "the kernels' regex: $(cat "$work/ncu-calls.txt")"
grep -q "inspect-reference-coalescing \[transpose_padded\]\[performance\]" "$work/ncu-calls.txt" || fail "the reference's run"
# --profile where there is no reference to run beside (a student's workbook): the ranges of
# lab.toml's [profile.expected.<exercise>.<kernel>], by the kernel's name. The reference's own
# kernels (62,753 conflicts) against a range they are far above: pointed at, exit 1.
cat > "$work/expected.toml" <<'TOML'
[profile.expected.transpose_padded.transposePaddedKernel]
shared_bank_conflicts = [0, 1000]
global_load_sectors_per_request = [3.9, 4.1]
TOML
check_into "$work/expected.txt" WORKBOOK_NCU="$work/bin/ncu" \
  "$grader" check coalescing --profile --exercise transpose_padded --reference --config "$work/expected.toml" \
  --run-without-gpu --no-build
[ $status = 1 ] || fail "--profile against [profile.expected] exited $status, not 1"
grep -Eq "yours +expected" "$work/expected.txt" || fail "the expected column's heading"
grep -Eq "shared-memory bank conflicts +62753 +0 to 1000 +<- look here" "$work/expected.txt" || fail "the conflicts against their range"
grep -Eq "global load sectors per request +4\.0 +3\.9 to 4\.1 *$" "$work/expected.txt" || fail "the sectors in their range"
grep -Eq "kernel time \(ms\) +0\.125 +- *$" "$work/expected.txt" || fail "a metric with no range"

# A kernel the ranges do not name (the student renamed it) takes the exercise's only kernel's
# ranges: lab.toml's own, for transposePaddedKernel.
check_into "$work/renamed.txt" STANDIN_KERNEL=myTranspose WORKBOOK_NCU="$work/bin/ncu" \
  "$grader" check coalescing --profile --exercise transpose_padded --reference --run-without-gpu --no-build
[ $status = 0 ] || fail "--profile of a renamed kernel within its ranges exited $status"
grep -Eq "^  myTranspose \(grid" "$work/renamed.txt" || fail "the renamed kernel's heading"
grep -Eq "shared-memory bank conflicts +62753 +[0-9]+ to [0-9]+ *$" "$work/renamed.txt" || fail "the only kernel's range"
grep -q "No metric is far from its expected range" "$work/renamed.txt" || fail "the verdict against ranges"

# With two kernels in the exercise's ranges, a renamed kernel has none: said, not "no metric is far".
printf '[profile.expected.transpose_padded]\notherKernel = { shared_bank_conflicts = [0, 1] }\n' > "$work/two.toml"
check_into "$work/unmatched.txt" STANDIN_KERNEL=myTranspose WORKBOOK_NCU="$work/bin/ncu" \
  "$grader" check coalescing --profile --exercise transpose_padded --reference --config "$work/two.toml" \
  --run-without-gpu --no-build
[ $status = 0 ] || fail "--profile with no range for the kernel exited $status"
grep -Eq "shared-memory bank conflicts +62753 +- *$" "$work/unmatched.txt" || fail "a range for an unnamed kernel"
grep -q "Nothing to compare them with" "$work/unmatched.txt" || fail "the verdict with nothing compared"
# --expected-ranges: the reference's values as lab.toml's [profile.expected] tables (62,753
# conflicts: 52200 to 75400), for the starter's kernels; read back with --config, they are the
# ranges a student's --profile shows, and the reference sits within them.
check_into "$work/ranges.txt" WORKBOOK_NCU="$work/bin/ncu" \
  "$grader" check coalescing --profile --exercise transpose_padded --reference --expected-ranges --run-without-gpu --no-build
[ $status = 0 ] || fail "--expected-ranges exited $status"
sed -n '/^\[profile\.expected/,$p' "$work/ranges.txt" > "$work/ranges.toml"
grep -q "^\[profile\.expected\.transpose_padded\]" "$work/ranges.toml" || fail "the exercise's table"
grep -Eq "^transposePaddedKernel = \{.*shared_bank_conflicts = \[ *52200, *75400 *\]" "$work/ranges.toml" \
  || fail "the conflicts' range: $(cat "$work/ranges.toml")"
check_into "$work/ranges-read.txt" WORKBOOK_NCU="$work/bin/ncu" \
  "$grader" check coalescing --profile --exercise transpose_padded --reference --config "$work/ranges.toml" \
  --run-without-gpu --no-build
[ $status = 0 ] || fail "the reference against its own ranges exited $status"
grep -Eq "shared-memory bank conflicts +62753 +52200 to 75400 *$" "$work/ranges-read.txt" || fail "the ranges read back"
# Ranges come from the reference only.
check_into "$work/ranges-mine.txt" WORKBOOK_NCU="$work/bin/ncu" \
  "$grader" check coalescing --profile --exercise transpose_padded --expected-ranges --run-without-gpu --no-build
[ $status = 64 ] || fail "--expected-ranges without --reference exited $status, not 64"
grep -q "needs --reference" "$work/ranges-mine.txt" || fail "why --expected-ranges was refused"
echo "stand-in tools: --sanitize and --profile said what they must"
