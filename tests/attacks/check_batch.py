#!/usr/bin/env python3
"""check_batch.py <results-dir> <expected.tsv>: compares grader batch's results.json with the
expected outcomes; prints a table; exits 1 on any difference.

expected.tsv's columns: student, status, points, pattern, timing (the last two may be empty).
- status: one status, or several separated by `|` (`passed|incomplete`: charged or refused).
- points: a range `lo-hi`, or `=other` / `<=other`: the same as another student's points, or at
  most them (a trick against the same code without it: it may gain nothing).
- pattern: a regular expression looked for in the student's detail, notes and feedback file.
- timing: `EXERCISE>=F*other`: every timed case of EXERCISE that this student passed has a median
  at least F times the same case's median of `other` (a trick that makes a timed call look
  faster than the honest copy's gains something even where the points are already full). A case
  refused or failed is no gain, and passes."""
import json, os, re, sys
res = json.load(open(f'{sys.argv[1]}/results.json'))
got = {s['student']: s for s in res['students']}

def timed_medians(student):
    """{(exercise, case): median_ms} of the student's passed performance cases."""
    out = {}
    for ex in got[student]['report'].get('exercises', []):
        for kind in ex.get('checks', []):
            if kind.get('kind') != 'performance': continue
            for c in kind.get('cases', []):
                m = (c.get('metrics') or {}).get('median_ms')
                if c.get('outcome') == 'passed' and isinstance(m, (int, float)):
                    out[(ex['name'], c['case'])] = m
    return out

def timing_ok(student, rule):
    """(ok, words) for a timing rule `ex>=F*other`."""
    m = re.fullmatch(r'(\w+)>=([0-9.]+)\*([\w-]+)', rule)
    if not m: return False, f'bad timing rule {rule!r}'
    ex, factor, other = m.group(1), float(m.group(2)), m.group(3)
    if other not in got: return False, f'{other} missing'
    mine, theirs = timed_medians(student), timed_medians(other)
    words, ok = [], True
    for key, ms in sorted(mine.items()):
        if key[0] != ex or key not in theirs: continue
        ratio = ms / theirs[key]
        words.append(f'{key[1]}: {ms:.4g} ms = {ratio:.3f}x {other}')
        ok = ok and ratio >= factor
    return ok, '; '.join(words) or f'no timed {ex} case passed'

bad = 0
for line in open(sys.argv[2]):
    if line.startswith('#') or not line.strip(): continue
    student, status, points, pattern, timing = (line.rstrip('\n').split('\t') + ['', ''])[:5]
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
    ok = s['status'] in status.split('|') and lo - 1e-6 <= p <= hi + 1e-6 and (not pattern or re.search(pattern, text))
    timed = ''
    if timing:
        t_ok, timed = timing_ok(student, timing)
        ok = ok and t_ok
    bad += not ok
    print(f"{student:18} {'ok  ' if ok else 'DIFF'} {s['status']:12} {p:6.1f}  expected {status} {points}  {detail[:150]!r}")
    if timed: print(f"{'':18}      timing ({timing}): {timed}")
sys.exit(1 if bad else 0)
