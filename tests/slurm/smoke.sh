#!/usr/bin/env bash
# Proves tests/slurm/cluster.sh: starts the cluster, runs the job shapes a
# `grader batch --slurm` needs, checks their final states, stops the cluster.
#   tests/slurm/smoke.sh [state-dir]        (default: a fresh mktemp dir)
# SLURM_TEST_SLOW=1 also checks a --time limit kill (TIMEOUT, ~90 s).
set -euo pipefail
here=$(cd -- "$(dirname -- "$0")" && pwd)
S=${1:-$(mktemp -d /tmp/slurm-smoke.XXXXXX)}
fails=0
ok() { printf 'ok   %s\n' "$*"; }
bad() { printf 'FAIL %s\n' "$*"; fails=$((fails + 1)); }
check() { # description expected actual
    if [[ $2 == "$3" ]]; then ok "$1: $3"; else bad "$1: expected '$2', got '$3'"; fi
}
trap '"$here/cluster.sh" stop "$S" || true' EXIT

t0=$EPOCHREALTIME
eval "$("$here/cluster.sh" start "$S")"
ok "cluster up in $(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN{printf "%.1f", b-a}') s (SLURM_CONF=$SLURM_CONF)"
sinfo

# Final state of a finished job from the job-completion log (sacct -c), the
# only sacct mode that works without slurmdbd. Empty until the job has ended.
final_state() { sacct -c -n -P -j "$1" -o State 2>/dev/null | head -n1; }
final_exit() { sacct -c -n -P -j "$1" -o ExitCode 2>/dev/null | head -n1; }
wait_done() { # jobid... : until none is pending/running (squeue), max 60 s
    local i
    for ((i = 0; i < 300; i++)); do
        [[ -z $(squeue -h -j "$(
            IFS=,
            echo "$*"
        )" -t PD,R,CG,S -o %i 2>/dev/null) ]] && return 0
        sleep 0.2
    done
    return 1
}

# shellcheck disable=SC2016 # $SLURM_* expand inside the job, not here
# 1. plain job on the gpu partition with a (fake) GPU
j1=$(sbatch --parsable -p gpu --gres=gpu:1 -o "$S/out-%j.txt" --wrap 'echo hello; echo gpus=$SLURM_JOB_GPUS; sleep 2')
# 2. job array, at most 2 tasks at once
# shellcheck disable=SC2016
ja=$(sbatch --parsable --array=0-3%2 -o "$S/arr-%A_%a.txt" --wrap 'echo task $SLURM_ARRAY_TASK_ID')
# 3. failing job
jf=$(sbatch --parsable -p debug -o /dev/null --wrap 'exit 3')
squeue
wait_done "$j1" "$ja" "$jf" || bad "jobs did not finish in 60 s"
squeue -t all -o '%.8i %.8A %.4K %.9P %.10T %.16r'

check "gpu job output" "hello" "$(head -n1 "$S/out-$j1.txt")"
check "gpu job SLURM_JOB_GPUS" "gpus=0" "$(sed -n 2p "$S/out-$j1.txt")"
check "gpu job sacct -c state" "COMPLETED" "$(final_state "$j1")"
check "gpu job scontrol state" "COMPLETED" "$(scontrol show job "$j1" | sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p')"
for t in 0 1 2 3; do
    check "array task $t output" "task $t" "$(cat "$S/arr-${ja}_$t.txt" 2>/dev/null)"
done
check "array states via squeue -t all" "COMPLETED COMPLETED COMPLETED COMPLETED" \
    "$(squeue -h -t all -j "$ja" -o %T | sort | xargs)"
check "failing job sacct -c state/exit" "FAILED 3:0" "$(final_state "$jf") $(final_exit "$jf")"

# 4. scancel a running job
jl=$(sbatch --parsable -p debug -o /dev/null --wrap 'sleep 600')
for ((i = 0; i < 100; i++)); do [[ $(squeue -h -j "$jl" -o %T) == RUNNING ]] && break; sleep 0.2; done
check "long job running" "RUNNING" "$(squeue -h -j "$jl" -o %T)"
scancel "$jl"
wait_done "$jl" || true
check "cancelled job squeue state" "CANCELLED" "$(squeue -h -t all -j "$jl" -o %T)"
check "cancelled job sacct -c state" "CANCELLED" "$(final_state "$jl")"

# 5. unknown partition
set +e
err=$(sbatch -p nosuch --wrap true 2>&1)
rc=$?
set -e
check "bad partition exit status" "1" "$rc"
if [[ $err == *"invalid partition specified"* ]]; then ok "bad partition message: ${err//$'\n'/ | }"; else bad "bad partition message: $err"; fi

# 6. sbatch --wait returns the job's exit status
set +e
sbatch --wait -o /dev/null --wrap 'exit 7' >/dev/null
rc=$?
set -e
check "sbatch --wait exit status" "7" "$rc"
check "sbatch --wait success" "0" "$(sbatch --wait -o /dev/null --wrap true >/dev/null; echo $?)"

# 7. sacct without -c is unavailable (no slurmdbd)
set +e
err=$(sacct -j "$j1" 2>&1)
rc=$?
set -e
check "plain sacct (no slurmdbd)" "1 Slurm accounting storage is disabled" "$rc $err"

# 8. optional: time limit (Slurm rounds to whole minutes and checks every ~30 s)
if [[ ${SLURM_TEST_SLOW:-0} == 1 ]]; then
    jt=$(sbatch --parsable -p debug --time=0:01 -o /dev/null --wrap 'sleep 600')
    for ((i = 0; i < 150; i++)); do
        [[ $(squeue -h -t all -j "$jt" -o %T) == TIMEOUT ]] && break
        sleep 1
    done
    check "time limit job state" "TIMEOUT" "$(squeue -h -t all -j "$jt" -o %T)"
    check "time limit job sacct -c" "TIMEOUT" "$(final_state "$jt")"
fi

trap - EXIT
"$here/cluster.sh" stop "$S"
for d in munged slurmctld slurmd; do
    [[ ! -e $S/run/$d.pid ]] || bad "$d pid file left"
done
if ((fails)); then
    echo "smoke: $fails check(s) failed (state dir $S)"
    exit 1
fi
echo "smoke: all checks passed (state dir $S)"
