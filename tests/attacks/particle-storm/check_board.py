#!/usr/bin/env python3
"""check_board.py <leaderboard-out-dir>: what `grader leaderboard particle-storm` must make of the
attack submissions (make_submissions.py). Exits 1 on any difference.
  - good, good-copy and the reference: timed (a row, not invalid);
  - sparse-layer: no time (refused at grading, its resident program cases being wrong, or invalid
    with the layer check's message);
  - cache-storms: fresh storms every call leave its cache nothing to hit: refused, or timed no
    faster than the slower honest copy less 3% (their medians tie on an H100 within a few %)."""
import json, sys
board = json.load(open(f'{sys.argv[1]}/leaderboard.json'))
rows = {r['entry']: r for r in board.get('rows', [])}
invalid = {r['entry']: r.get('reason', '') for r in board.get('invalid', [])}
for e, r in rows.items(): print(f"row      {e:14} {r.get('status', ''):8} {r.get('median_ms')}")
for e, why in invalid.items(): print(f"invalid  {e:14} {why[:200]}")
bad = []
for honest in ('good', 'good-copy', 'reference'):
    if honest not in rows: bad.append(f'{honest}: no time ({invalid.get(honest, "missing")})')
if 'sparse-layer' in rows:
    bad.append('sparse-layer: ranked')
elif 'sparse-layer' not in invalid:
    bad.append('sparse-layer: not listed as invalid')
elif not any(w in invalid['sparse-layer'] for w in ('cells of the layer were wrong', 'not correct on every grading case')):
    bad.append('sparse-layer: invalid for another reason: ' + invalid['sparse-layer'])
if 'cache-storms' in rows and all(h in rows for h in ('good', 'good-copy')):
    slower = max(rows['good']['median_ms'], rows['good-copy']['median_ms'])
    if rows['cache-storms']['median_ms'] < 0.97 * slower:
        bad.append(f"cache-storms: {rows['cache-storms']['median_ms']} ms, faster than the honest copies ({slower} ms)")
elif 'cache-storms' not in invalid:
    bad.append('cache-storms: missing')
for b in bad: print('PROBLEM', b)
print('board: ok' if not bad else 'board: FAILED')
sys.exit(1 if bad else 0)
