#!/usr/bin/env python3
"""kmeans_sizes.py <results-full.json> <results-small.json>: every timed case of every student at
both sizes (speedup, threshold, verdict), the small size's thresholds that keep the reference's
margin (each threshold scaled by the reference's speedup at the small size over the full one),
and whether each verdict stays the same under them. Exit 1 when a verdict changes."""
import json
import re
import sys


def timed_cases(path):
    """{student: {(exercise, config kind): (speedup, min_speedup, outcome)}}"""
    out = {}
    for st in json.load(open(path))['students']:
        cases = {}
        for e in st.get('report', {}).get('exercises', []):
            for k in e['checks']:
                if k['kind'] != 'performance':
                    continue
                for c in k['cases']:
                    m = c.get('metrics') or {}
                    if 'speedup' not in m or 'min_speedup' not in m:
                        continue
                    dims = re.search(r'\{\d+,(\d+),', c['case'])
                    key = (e['name'], (dims.group(1) + 'd') if dims else c['case'])
                    cases[key] = (m['speedup'], m['min_speedup'], c['outcome'])
        out[st['student']] = cases
    return out


full, small = timed_cases(sys.argv[1]), timed_cases(sys.argv[2])
ref = next((s for s in full if s.startswith('reference')), None)
if ref is None or ref not in small:
    sys.exit('no reference among the students: nothing to scale by')
scale = {k: small[ref][k][0] / full[ref][k][0] for k in full[ref] if k in small[ref]}
print('| student | case | speedup full | threshold | verdict | speedup small | scaled threshold | verdict | same |')
print('|---|---|---:|---:|---|---:|---:|---|---|')
changed = 0
for student in sorted(full):
    for key, (sp, thr, _) in sorted(full[student].items()):
        if key not in small.get(student, {}) or key not in scale:
            continue
        sp2 = small[student][key][0]
        thr2 = thr * scale[key]
        v1, v2 = sp >= thr, sp2 >= thr2
        changed += v1 != v2
        print(f'| {student} | {key[0]} {key[1]} | {sp:.1f} | {thr:.1f} | {"pass" if v1 else "slow"} | {sp2:.1f} | '
              f'{thr2:.1f} | {"pass" if v2 else "slow"} | {"yes" if v1 == v2 else "NO"} |')
print(f'\n{changed} verdicts change; the reference\'s speedup ratio small/full per case: ' +
      ', '.join(f'{k[0]} {k[1]} {v:.2f}' for k, v in sorted(scale.items())))
sys.exit(1 if changed else 0)
