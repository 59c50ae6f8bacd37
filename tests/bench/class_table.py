#!/usr/bin/env python3
"""class_table.py <results-dir> <lab...>: the class-batch benchmark's table, from each lab's
batch.json ("time": the batch's wall, the calibration before any submission, and the stages
summed over the submissions)."""
import json
import sys

print('| lab | submissions | batch wall | of it calibration | wall per submission | build (sum) | correctness (sum) | timed (sum) | waiting for the GPU (sum) | points |')
print('|---|---:|---:|---:|---:|---:|---:|---:|---:|---|')
for lab in sys.argv[2:]:
    try:
        batch = json.load(open(f'{sys.argv[1]}/{lab}/batch.json'))
        results = json.load(open(f'{sys.argv[1]}/{lab}/results.json'))
    except (OSError, ValueError) as e:
        print(f'| {lab} | (no result: {e}) |')
        continue
    t = batch.get('time', {})
    n = t.get('submissions') or len(results.get('students', []))
    wall = t.get('wall_s', 0)
    s = t.get('stages', t)
    points = sorted(round(st['report']['points'], 1) for st in results.get('students', []) if 'report' in st)
    print(f"| {lab} | {n} | {wall:.0f} s | {t.get('calibration_s', 0):.1f} s | {wall / max(n, 1):.1f} s | {s.get('build_s', 0):.0f} s | "
          f"{s.get('correctness_s', 0):.0f} s | {s.get('timed_s', 0):.0f} s | {s.get('gpu_wait_s', 0):.0f} s | "
          f"{min(points) if points else '-'}-{max(points) if points else '-'} |")
