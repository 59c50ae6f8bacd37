#!/usr/bin/env python3
"""Summarises Nsight Compute metrics of the coalescing kernels, one line per kernel launch.

    ncu --csv --metrics $(grader/bench/coalescing/ncu_table.py --metrics) \\
        build/gpu/bin/coalescing-bench --profile > docs/measurements/coalescing-ncu.csv
    grader/bench/coalescing/ncu_table.py docs/measurements/coalescing-ncu.csv

Columns: the kernel, the matrix shape it ran on (the order of bench.cpp's profile()), its
time under the profiler (caches flushed before each launch), DRAM bytes read + written, global
load and store sectors per request (4 = a warp's 32 floats in 4 sectors of 32 bytes: coalesced;
32 = one sector per thread), the L1 hit rate of global loads, the bytes L1 asked L2 to read and
write, shared-memory bank conflicts, and achieved occupancy (active warps / the SM's maximum).
"""
import csv
import io
import sys

METRICS = [
    "gpu__time_duration.sum",
    "dram__bytes_read.sum",
    "dram__bytes_write.sum",
    "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
    "l1tex__t_sector_pipe_lsu_mem_global_op_ld_hit_rate.pct",
    "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
    "lts__t_sectors_srcunit_tex_op_read.sum",
    "lts__t_sectors_srcunit_tex_op_write.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
    "sm__warps_active.avg.pct_of_peak_sustained_active",
]

# The launches of `coalescing-bench --profile` (bench.cpp, profile()), in order: n x n for
# n = 4096, then 16384 x 16384, then the sweep's T = 2^14 and T = 2^18 (2^26 elements).
_ADDS = 8
CASES = (["4096x4096"] * (_ADDS + 4) + ["16384x16384"] * _ADDS
         + ["16384x4096", "16384x4096", "4096x16384", "4096x16384"]
         + ["262144x256", "262144x256", "256x262144", "256x262144"])

if len(sys.argv) > 1 and sys.argv[1] == "--metrics":
    print(",".join(METRICS))
    sys.exit(0)

lines = open(sys.argv[1]).read().splitlines()
start = next(i for i, line in enumerate(lines) if line.startswith('"ID"'))
launches = {}
for r in csv.DictReader(io.StringIO("\n".join(lines[start:]))):
    key = (int(r["ID"]), r["Kernel Name"].split("(")[0].split("::")[-1], r["Grid Size"].replace(" ", ""))
    launches.setdefault(key, {})[r["Metric Name"]] = float(r["Metric Value"].replace(",", ""))

print(f"{'kernel':<27} {'M x N':<12} {'time us':>8} {'DRAM MB':>8} {'ld sec/req':>10} {'L1 hit':>7} "
      f"{'L2 rd MB':>8} {'st sec/req':>10} {'L2 wr MB':>8} {'bank confl':>10} {'occupancy':>9}")
for (launch, kernel, grid), m in sorted(launches.items()):
    shape = CASES[launch] if launch < len(CASES) else grid
    ld = m["l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"] / max(1, m["l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"])
    st = m["l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"] / max(1, m["l1tex__t_requests_pipe_lsu_mem_global_op_st.sum"])
    dram = (m["dram__bytes_read.sum"] + m["dram__bytes_write.sum"]) / 1e6
    print(f"{kernel:<27} {shape:<12} {m['gpu__time_duration.sum'] / 1e3:>8.1f} {dram:>8.0f} {ld:>10.1f} "
          f"{m['l1tex__t_sector_pipe_lsu_mem_global_op_ld_hit_rate.pct']:>6.1f}% "
          f"{m['lts__t_sectors_srcunit_tex_op_read.sum'] * 32 / 1e6:>8.0f} {st:>10.1f} "
          f"{m['lts__t_sectors_srcunit_tex_op_write.sum'] * 32 / 1e6:>8.0f} "
          f"{m['l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum']:>10.0f} "
          f"{m['sm__warps_active.avg.pct_of_peak_sustained_active']:>8.1f}%")
