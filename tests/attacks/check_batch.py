#!/usr/bin/env python3
"""check_batch.py <results-dir> <expected.tsv>: compares grader batch's results.json with the
expected outcomes; prints a table; exits 1 on any difference. Points are a range `lo-hi`, or
`=other` / `<=other`: the same as another student's points, or at most them (a trick against the
same code without it: it may gain nothing). The pattern is looked for in the student's detail,
notes and feedback file."""
import json, os, re, sys
res = json.load(open(f'{sys.argv[1]}/results.json'))
got = {s['student']: s for s in res['students']}
bad = 0
for line in open(sys.argv[2]):
    if line.startswith('#') or not line.strip(): continue
    student, status, points, pattern = (line.rstrip('\n').split('\t') + [''])[:4]
    s = got.get(student)
    if not s:
        print(f'{student:18} MISSING'); bad += 1; continue
    p = s['report']['points']
    if points[0] in '=<':
        other = got[points.lstrip('<=')]['report']['points']
        lo, hi = (-1e9 if points.startswith('<=') else other), other
    else:
        lo, hi = map(float, points.split('-'))
    detail = (s.get('detail', '') or '') + ' ' + ' '.join(s.get('notes', []))
    feedback = f'{sys.argv[1]}/feedback/{student}.md'
    text = detail + (open(feedback).read() if os.path.exists(feedback) else '')
    ok = s['status'] == status and lo - 1e-6 <= p <= hi + 1e-6 and (not pattern or re.search(pattern, text))
    bad += not ok
    print(f"{student:18} {'ok  ' if ok else 'DIFF'} {s['status']:12} {p:6.1f}  expected {status} {points}  {detail[:150]!r}")
sys.exit(1 if bad else 0)
