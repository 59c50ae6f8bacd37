#!/usr/bin/env bash
# Shared-memory traffic and instruction mix of the granularity kernels, measured with Nsight
# Compute on the benchmark's validation launches (one launch of each kernel, cuBLAS excluded):
#   grader/bench/granularity/tune/profile.sh [n] > ncu.csv
# Needs ncu and a build of granularity-bench (build/gpu/bin). The handout's "why" table comes
# from this at n = 2048.
set -euo pipefail
cd "$(dirname "$0")/../../../.."
n=${1:-2048}
metrics=(
  smsp__sass_thread_inst_executed_op_ffma_pred_on.sum
  smsp__inst_executed.sum
  smsp__inst_executed_op_shared_ld.sum
  l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum
  l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum
  sm__warps_active.avg.pct_of_peak_sustained_active
  sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active
  smsp__average_warps_issue_stalled_mio_throttle_per_issue_active.ratio
  smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio
  smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio
  smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio
  dram__bytes_read.sum
  gpu__time_duration.sum
)
list=$(IFS=,; echo "${metrics[*]}")
ncu -k regex:'(tiled|coarsened|register[12]d)Kernel' -c 5 --metrics "$list" --csv build/gpu/bin/granularity-bench "$n"
