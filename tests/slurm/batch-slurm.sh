#!/usr/bin/env bash
# `grader batch --slurm` against a real one-node Slurm cluster (cluster.sh), as a CTest test:
#   tests/slurm/batch-slurm.sh <grader> <reference matmul.cu> <starter matmul.cu> <work-dir>
# Five matmul-tiled submissions (the reference twice, the starter, one that does not compile, one
# with no file) are graded twice: by a local `grader batch` and through the job array, with the
# same seed, building only (--build-only: the test cluster's node has no GPU, and a batch that runs
# nothing is the way to use one). The two gradebooks must be equal row for row: the submissions
# that compile are "built", build failures and missing files are named all the same. Then a run through
# Slurm, one task at a time, is stopped and its job cancelled after the first task: run again,
# it grades only the rest, and its gradebook is the same again. Last, `grader leaderboard --slurm`:
# its rounds in one job on one node held exclusively.
# Prints "SKIPPED: ..." (CTest: skipped) where Slurm is not installed or its cluster cannot start.
set -uo pipefail
grader=$1 reference=$2 starter=$3 work=$4
here=$(cd "$(dirname "$0")" && pwd)
for tool in slurmctld slurmd munged sbatch squeue scancel; do
  command -v "$tool" >/dev/null || [ -x "/usr/sbin/$tool" ] ||
    { echo "SKIPPED: $tool is not installed here (Debian: apt-get install slurm-wlm munge)"; exit 0; }
done
rm -rf "$work"; mkdir -p "$work"
cluster=$(mktemp -d /tmp/wbslurm.XXXXXX)  # short: the daemons' socket paths must stay under ~100 characters
if ! exports=$("$here/cluster.sh" start "$cluster" 2>"$work/cluster.log"); then
  echo "SKIPPED: the one-node Slurm cluster did not start:"; tail -5 "$work/cluster.log"; exit 0
fi
eval "$exports"
trap '"$here/cluster.sh" stop "$cluster" >/dev/null 2>&1; rm -rf "$cluster"' EXIT
export WORKBOOK_SLURM_POLL_S=1
fail() { echo "FAILED: $*"; exit 1; }

subs="$work/submissions"
mkdir -p "$subs"/{good,good-copy,starter,broken,missing}
cp "$reference" "$subs/good/matmul.cu"; cp "$reference" "$subs/good-copy/matmul.cu"; cp "$starter" "$subs/starter/matmul.cu"
{ cat "$reference"; printf 'int one_more = 1  // a missing semicolon\nint and_another = 2;\n'; } > "$subs/broken/matmul.cu"

local_start=$EPOCHREALTIME
"$grader" batch matmul-tiled "$subs" -o "$work/local" --seed 4242 --timeout 120 --build-only >"$work/local.log" 2>&1 ||
  fail "local grader batch exited with $? ($(tail -3 "$work/local.log"))"
local_seconds=$(awk -v a="$local_start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')
start=$EPOCHREALTIME
"$grader" batch matmul-tiled "$subs" -o "$work/slurm" --seed 4242 --timeout 120 --build-only --slurm --partition gpu --per-task 2 \
  >"$work/slurm.log" 2>&1 || fail "grader batch --slurm exited with $?: $(tail -5 "$work/slurm.log")"
seconds=$(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')
cat "$work/slurm.log"
diff "$work/local/gradebook.csv" "$work/slurm/gradebook.csv" ||
  fail "the gradebook through Slurm differs from the local one (above)"
grep -q '^broken,.*build failed' "$work/slurm/gradebook.csv" || fail "broken is not 'build failed'"
grep -q '^missing,.*missing file' "$work/slurm/gradebook.csv" || fail "missing is not 'missing file'"
grep -q 'submitted job [0-9]*: 3 task(s)' "$work/slurm.log" || fail "not one array of 3 tasks"
echo "through Slurm: 5 submissions in 3 tasks in ${seconds} s (locally: ${local_seconds} s), gradebook equal to the local one"

# With a roster: a folder named by an LMS id is graded under the course's id in its task too, and
# a student with no submission has a row; the same gradebook as a local batch with that roster.
printf 'id,name,lms_id\ngina,Gina Copy,good-copy\nnora,Nora None,\ngood,,\nstarter,,\nbroken,,\nmissing,,\n' > "$work/roster.csv"
"$grader" batch matmul-tiled "$subs" -o "$work/local-roster" --seed 4242 --timeout 120 --build-only --roster "$work/roster.csv" \
  >"$work/local-roster.log" 2>&1 || fail "local grader batch --roster exited with $?"
"$grader" batch matmul-tiled "$subs" -o "$work/slurm-roster" --seed 4242 --timeout 120 --build-only --roster "$work/roster.csv" \
  --slurm --partition gpu --per-task 3 >"$work/slurm-roster.log" 2>&1 ||
  fail "grader batch --slurm --roster exited with $?: $(tail -5 "$work/slurm-roster.log")"
diff "$work/local-roster/gradebook.csv" "$work/slurm-roster/gradebook.csv" || fail "with a roster, the gradebook through Slurm differs"
grep -q '^gina,.*built' "$work/slurm-roster/gradebook.csv" && grep -q '^nora,.*no submission' "$work/slurm-roster/gradebook.csv" ||
  fail "the roster's ids are not in the gradebook through Slurm: $(cat "$work/slurm-roster/gradebook.csv")"
echo "with --roster through Slurm: good-copy graded as gina, nora 'no submission', gradebook equal to the local one"

# Stopped after the first of three tasks (one at a time), its job cancelled; the next run grades
# only what is left.
"$grader" batch matmul-tiled "$subs" -o "$work/resume" --seed 4242 --timeout 120 --build-only --slurm --partition gpu --per-task 2 \
  --max-parallel 1 >"$work/resume-1.log" 2>&1 &
submitter=$!
for _ in $(seq 1 300); do
  [ "$(ls "$work/resume/students" 2>/dev/null | wc -l)" -ge 2 ] && break
  sleep 0.5
done
kill -TERM "$submitter"; wait "$submitter"; status=$?
[ "$status" -eq 130 ] || fail "the interrupted submitter exited with $status, not 130: $(tail -3 "$work/resume-1.log")"
job=$(sed -n 's/.*"job":"\([0-9]*\)".*/\1/p' "$work/resume/slurm/active.json")
[ -n "$job" ] || fail "no active job recorded"
scancel "$job"
for _ in $(seq 1 60); do [ -z "$(squeue -h -j "$job" 2>/dev/null)" ] && break; sleep 0.5; done
graded=$(ls "$work/resume/students" | wc -l)
"$grader" batch matmul-tiled "$subs" -o "$work/resume" --seed 4242 --timeout 120 --build-only --slurm --partition gpu --per-task 2 \
  >"$work/resume-2.log" 2>&1 || fail "the resumed run exited with $?: $(tail -5 "$work/resume-2.log")"
left=$((5 - graded))
grep -q "$left to grade, $graded already graded" "$work/resume-2.log" ||
  fail "the resumed run did not grade only the $left left: $(grep 'to grade' "$work/resume-2.log")"
diff "$work/local/gradebook.csv" "$work/resume/gradebook.csv" || fail "the resumed gradebook differs from the local one"
echo "stopped after $graded of 5 and cancelled (job $job); resumed: graded only the $left left, gradebook equal"

# A task that Slurm ends before it grades (cancelled here while pending, as a node failure or a
# preemption would end it) is retried once, and the class is graded all the same.
"$grader" batch matmul-tiled "$subs" -o "$work/retry" --seed 4242 --timeout 120 --build-only --slurm --partition gpu --per-task 2 \
  --max-parallel 1 >"$work/retry.log" 2>&1 &
submitter=$!
job=""
for _ in $(seq 1 120); do
  job=$(sed -n 's/.*"job":"\([0-9]*\)".*/\1/p' "$work/retry/slurm/active.json" 2>/dev/null)
  [ -n "$job" ] && break
  sleep 0.5
done
[ -n "$job" ] || fail "no job was submitted: $(tail -3 "$work/retry.log")"
scancel "${job}_2"
wait "$submitter" || fail "grader batch --slurm exited with $? after a cancelled task: $(tail -5 "$work/retry.log")"
grep -q "retrying 1 task(s) once: 2" "$work/retry.log" || fail "the cancelled task was not retried: $(cat "$work/retry.log")"
diff "$work/local/gradebook.csv" "$work/retry/gradebook.csv" || fail "the gradebook after a retry differs from the local one"
echo "task 2 of job $job cancelled before it ran: retried once, gradebook equal"

# `grader check --slurm`: the working copy's files graded in one job; the report and the exit
# status come back as a local check gives them (here without a GPU: 4, 'no GPU').
"$grader" check matmul-tiled --no-build --no-color >"$work/check-local.txt" 2>&1; local_status=$?
"$grader" check matmul-tiled --slurm --partition gpu --no-color >"$work/check-slurm.txt" 2>"$work/check-slurm.log"
slurm_status=$?
[ "$slurm_status" -eq "$local_status" ] ||
  fail "check --slurm exited $slurm_status, a local check $local_status: $(cat "$work/check-slurm.txt" "$work/check-slurm.log")"
grep -q "^matmul-tiled: Tiled matrix multiplication" "$work/check-slurm.txt" || fail "no report came back: $(cat "$work/check-slurm.txt")"
grep -q "submitted job" "$work/check-slurm.log" || fail "check --slurm did not say which job"
echo "check --slurm: the report came back, exit $slurm_status as a local check's"
"$grader" check matmul-tiled --slurm --partition nosuch >"$work/bad-partition.txt" 2>&1; status=$?
[ "$status" -eq 64 ] && grep -q "invalid partition specified: nosuch" "$work/bad-partition.txt" ||
  fail "an unknown partition: exit $status, $(cat "$work/bad-partition.txt")"
echo "an unknown partition: one line, exit 64: $(grep -m1 partition "$work/bad-partition.txt")"

# `grader leaderboard --slurm`: the class through the array, then the timed rounds as one job on
# one node held whole (OverSubscribe=NO: --exclusive). This node has no GPU, so that job ends
# without a board and the leaderboard says so (exit 3), with the job's own reason.
mkdir -p "$work/board-subs"/{a,b}; cp "$reference" "$work/board-subs/a/matmul.cu"; cp "$reference" "$work/board-subs/b/matmul.cu"
"$grader" leaderboard matmul-tiled "$work/board-subs" -o "$work/board" --slurm --partition gpu >"$work/board.log" 2>&1; status=$?
[ "$status" -eq 3 ] || fail "leaderboard --slurm exited $status, not 3: $(tail -5 "$work/board.log")"
grep -q "submitted job [0-9]*: 1 task(s)" "$work/board.log" || fail "leaderboard --slurm did not grade through an array: $(cat "$work/board.log")"
rounds=$(sed -n 's/^submitted job \([0-9]*\): the timed rounds.*/\1/p' "$work/board.log")
[ -n "$rounds" ] || fail "no job for the timed rounds: $(cat "$work/board.log")"
shape=$(scontrol show job "$rounds" 2>/dev/null | tr ' ' '\n' | grep -E '^(OverSubscribe|NumNodes)=' | sort | tr '\n' ' ')
[ "$shape" = "NumNodes=1 OverSubscribe=NO " ] || fail "the rounds' job is not one node held exclusively: '$shape'"
grep -q "nothing can be timed" "$work/board.log" && grep -q "ended FAILED without writing the board" "$work/board.log" ||
  fail "the rounds' end on a node without a GPU is not named: $(tail -4 "$work/board.log")"
echo "leaderboard --slurm: graded through an array, rounds in job $rounds ($shape), no GPU there: exit 3, named"
