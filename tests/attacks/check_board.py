#!/usr/bin/env python3
"""check_board.py <leaderboard.json> [options]: checks a board of the attack suite (board-on-gpu.sh)
from `grader leaderboard`'s machine-readable output; prints a table; exits 1 on any failed rule.

Attack-suite mode (the default):
- honest entries (--honest) and the reference tier: status "valid", and their medians within
  --honest-tol of each other (max/min - 1);
- slow-tiled (the caches' control, an honest tiled kernel launched 20 times per call): valid,
  ranked behind `good` (not tied with it);
- caches (--caches): refused, or ranked at their true slow speed: a median at least
  (1 - --tol) x slow-tiled's, behind `good`;
- every other entry (an attack): refused (listed under "invalid"), or ranked no faster than the
  honest copy: a median at least (1 - --tol) x the faster of good / good-copy, and a rank no better
  than theirs (a tie is no better). "flagged" marks noise only: a flagged attack is held to the
  same rule.
Copies mode (--copies): every row (the copies ref-1 .. ref-N and the reference) valid, all of them
one tie group (one rank), and max/min median <= --max-ratio."""
import argparse, json, sys

ap = argparse.ArgumentParser()
ap.add_argument('board')
ap.add_argument('--copies', action='store_true', help='a board of copies of the reference: all valid and tied')
ap.add_argument('--max-ratio', type=float, default=1.10, help='copies: largest max/min median (default 1.10)')
ap.add_argument('--honest', default='good,good-copy,cg-tiles,tiles-in-helper,dynamic-shared')
ap.add_argument('--caches', default='cache-pointers,cache-hash')
ap.add_argument('--slow', default='slow-tiled', help="the caches' honest control")
ap.add_argument('--honest-tol', type=float, default=0.03, help='honest medians: largest max/min - 1 (default 0.03)')
ap.add_argument('--tol', type=float, default=0.01,
                help='an attack may be this fraction faster than the honest copy and pass (noise; default 0.01)')
a = ap.parse_args()

board = json.load(open(a.board))
rows = {r['entry']: r for r in board['rows']}
invalid = {r['entry']: r for r in board['invalid']}
print(f"{board['lab']} / {board['exercise']}: {len(rows)} ranked (tiers included), {len(invalid)} invalid")
for r in sorted(board['rows'], key=lambda r: r['median_ms']):
    rank = 'ref' if r['tier'] else f"{r['rank']}{'=' if r['tied'] else ''}"
    print(f"  {rank:>4} {r['entry']:18} {r['median_ms']:9.4f} ms [{r['low_ms']:.4f}, {r['high_ms']:.4f}]"
          f"  cv {100 * r['cv']:.2f}%  {r['status']}  {r['reason'][:100]}")
for r in board['invalid']:
    print(f"   --- {r['entry']:18} invalid: {r['reason'][:200]}")
print()

failures = []
def fail(entry, why):
    failures.append(f'{entry}: {why}')

def median(entry):
    return rows[entry]['median_ms']

if a.copies:
    students = [r for r in board['rows'] if not r['tier']]
    for name, r in invalid.items(): fail(name, f"invalid: {r['reason']}")
    for r in board['rows']:
        if r['status'] != 'valid': fail(r['entry'], f"status {r['status']} ({r['reason']})")
    if len({r['rank'] for r in students}) > 1:
        fail('copies', 'not one tie group: ranks ' + ', '.join(f"{r['entry']} {r['rank']}" for r in students))
    meds = [r['median_ms'] for r in board['rows']]
    if not students: fail('copies', 'no copy ranked')
    elif max(meds) / min(meds) > a.max_ratio:
        fail('copies', f'max/min median {max(meds) / min(meds):.4f} > {a.max_ratio}')
    else:
        print(f'copies: {len(students)} ranked, max/min median {max(meds) / min(meds):.4f} (limit {a.max_ratio})')
else:
    honest = a.honest.split(',')
    caches = set(a.caches.split(','))
    for name in honest + [a.slow]:
        if name not in rows: fail(name, 'honest entry not ranked: ' + invalid.get(name, {}).get('reason', 'missing from the board'))
        elif rows[name]['status'] != 'valid': fail(name, f"honest entry {rows[name]['status']}: {rows[name]['reason']}")
    ref = [r for r in board['rows'] if r['tier'] and r['entry'] == 'reference']
    if not ref: fail('reference', 'the reference tier is not ranked')
    elif ref[0]['status'] != 'valid': fail('reference', f"status {ref[0]['status']}")
    ranked_honest = [n for n in honest if n in rows] + (['reference'] if ref else [])
    if ranked_honest:
        meds = {n: median(n) for n in ranked_honest}
        spread = max(meds.values()) / min(meds.values()) - 1
        print(f"honest spread: {100 * spread:.2f}% (limit {100 * a.honest_tol:.1f}%): "
              + ', '.join(f'{n} {m:.4f}' for n, m in meds.items()))
        if spread > a.honest_tol: fail('honest', f'medians {100 * spread:.2f}% apart (limit {100 * a.honest_tol:.1f}%)')
    copies = [n for n in ('good', 'good-copy') if n in rows]
    if not copies:
        fail('good', 'no honest copy ranked: nothing to compare the attacks with')
    else:
        fastest = min(median(n) for n in copies)
        best_rank = min(rows[n]['rank'] for n in copies)
        good = rows.get('good')
        def behind_good(name):
            r = rows[name]
            return good is None or (r['rank'] > good['rank'] and r['median_ms'] > good['median_ms'])
        if a.slow in rows and not behind_good(a.slow): fail(a.slow, 'ranked with or ahead of good: it is 20 times the work')
        known = set(honest) | {a.slow}
        for name in sorted((set(rows) | set(invalid)) - known - {'reference'}):
            if name in rows and rows[name]['tier']: continue  # a course tier of the reference's run
            if name in invalid:
                print(f'{name:18} refused: {invalid[name]["reason"][:160]}')
                continue
            r = rows[name]
            if name in caches:
                slow = median(a.slow) if a.slow in rows else None
                if slow is not None and r['median_ms'] < (1 - a.tol) * slow:
                    fail(name, f"a cache ranked at {r['median_ms']:.4f} ms, faster than its slow control {slow:.4f} ms")
                if not behind_good(name): fail(name, f"a cache ranked with or ahead of good (rank {r['rank']})")
            else:
                if r['median_ms'] < (1 - a.tol) * fastest:
                    fail(name, f"ranked at {r['median_ms']:.4f} ms, {100 * (1 - r['median_ms'] / fastest):.1f}% "
                               f"faster than the honest copy ({fastest:.4f} ms)")
                if r['rank'] < best_rank:
                    fail(name, f"ranked {r['rank']}, ahead of the honest copy ({best_rank})")
            if all(not f.startswith(name + ":") for f in failures):
                print(f"{name:18} ranked {r['rank']}{'=' if r['tied'] else ''} at {r['median_ms']:.4f} ms ({r['status']}): no gain")

print()
for f in failures: print('FAIL', f)
print('board: ' + ('ok' if not failures else f'{len(failures)} failed'))
sys.exit(1 if failures else 0)
