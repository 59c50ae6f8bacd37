#!/usr/bin/env python3
"""check_batch.py <results-root> <expected.tsv> [--copies]: compares each lab's `grader batch`
results (<results-root>/<lab>/results.json) with expected.tsv; prints a table; exits 1 on any
difference. With --copies (a class of tests/bench/make_class.py), every student <name>-<n> is
held to <name>'s line, reference-<n> to 100 points and starter-<n> to 0, and a lab's fixtures
that are not in its results are not missing."""
import json
import os
import re
import sys


def points_in(value, spec):
    lo, _, hi = spec.partition('-')
    return float(lo) - 1e-6 <= value <= float(hi or lo) + 1e-6


def details(s):
    texts = [s.get('detail') or ''] + list(s.get('notes') or [])
    report = s.get('report', {})
    texts.append(report.get('run', {}).get('detail') or '')
    for e in report.get('exercises', []):
        for k in e.get('checks', []):
            texts += [c.get('detail') or '' for c in k.get('cases', [])]
    return '\n'.join(texts)


def exercise_points(report, name):
    exercise, _, kind = name.partition('.')
    for e in report.get('exercises', []):
        if e['name'] == exercise:
            if not kind:
                return e['points']
            for k in e.get('checks', []):
                if k['kind'] == kind:
                    return k['points']
    return None


def expectations(expected):
    """(lab, student) -> (status, total, parts, patterns) from expected.tsv."""
    out = {}
    for line in open(expected):
        if line.startswith('#') or not line.strip():
            continue
        cols = line.rstrip('\n').split('\t')
        lab, student, status, total = cols[:4]
        out[(lab, student)] = (status, total, cols[4] if len(cols) > 4 else '-', [p for p in cols[5:] if p])
    return out


def differences(s, status, total, parts, patterns):
    why = []
    report = s['report']
    if s['status'] not in status.split('|'):
        why.append(f"status {s['status']}")
    if not points_in(report['points'], total):
        why.append(f"points {report['points']:.2f}")
    for spec in ([] if parts == '-' else parts.split()):
        name, _, want = spec.partition('=')
        got = exercise_points(report, name)
        if got is None or not points_in(got, want):
            why.append(f'{name} {got if got is None else round(got, 2)} (expected {want})')
    text = details(s)
    for p in patterns:
        found = re.search(p[1:] if p.startswith('!') else p, text) is not None
        if found == p.startswith('!'):
            why.append(('found ' if found else 'no ') + repr(p.lstrip('!')))
    return why


def main():
    root, expected = sys.argv[1], sys.argv[2]
    copies = '--copies' in sys.argv[3:]
    want = expectations(expected)
    rows = []  # (lab, student, expectation or None)
    if copies:
        for lab in sorted(os.listdir(root)):
            path = f'{root}/{lab}/results.json'
            if not os.path.exists(path):
                continue
            for s in json.load(open(path))['students']:
                kind = re.sub(r'-\d+$', '', s['student'])
                fixed = {'reference': ('passed', '100', '-', []), 'starter': ('incomplete', '0', '-', [])}
                rows.append((lab, s['student'], fixed.get(kind) or want.get((lab, kind))))
    else:
        rows = [(lab, student, e) for (lab, student), e in want.items()]
    results = {}
    bad = 0
    print(f"{'lab':15} {'student':28} {'':4} {'status':12} {'points':>6}  expected")
    for lab, student, e in rows:
        if lab not in results:
            path = f'{root}/{lab}/results.json'
            results[lab] = {s['student']: s for s in json.load(open(path))['students']} if os.path.exists(path) else {}
        s = results[lab].get(student)
        if not s:
            print(f'{lab:15} {student:28} MISSING')
            bad += 1
            continue
        if e is None:
            print(f"{lab:15} {student:28} {'-':4} {s['status']:12} {s['report']['points']:6.2f}  (no line in expected.tsv)")
            continue
        why = differences(s, *e)
        bad += bool(why)
        print(f"{lab:15} {student:28} {'DIFF' if why else 'ok':4} {s['status']:12} {s['report']['points']:6.2f}  "
              f"{e[0]} {e[1]}" + (f"  <- {'; '.join(why)}" if why else ''))
    sys.exit(1 if bad else 0)


if __name__ == '__main__':
    main()
