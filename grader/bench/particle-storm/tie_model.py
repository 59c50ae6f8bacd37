#!/usr/bin/env python3
"""A model of the reductions students write for maximum(), to check that the tie cases of
storm_steps.cpp ("equal maxima ...") catch a wrong tie-break in each of them.

Only the tied cells matter (every other cell is lower and loses every comparison), so a
reduction is modelled on the positions of the ties alone. Shapes: cells mapped to threads one
per cell (k or k-1 on thread k) or by a grid-stride loop (several grid sizes); a block reduction
that halves its stride (tid vs tid+s), doubles it (tid vs tid+s for tid % 2s == 0) or shuffles
within warps then across them; a second pass over the blocks' candidates on the host or in one
block (a loop, then a tree). Tie-breaks: the right one (lower position), `mine` (a step keeps
its own pair on equal values: `>`), `other` (it takes the other pair: `>=`), `higher`.

For a shape and wrong tie-break that no case catches, it searches random placements of ties for
one where that tie-break gives a wrong answer: if there is one, the cases miss a real bug and it
exits 1 (as it does if the right tie-break ever loses). The uncaught ones today have none: with one
thread per cell (or a grid-stride loop whose grid covers the layer), a stride-doubling tree and a
host pass, the side that keeps its pair always holds the lower position, so `mine` is right there.
Run: python3 grader/bench/particle-storm/tie_model.py (CTest: particle-storm/tie-model)
"""
import random
import sys

M64 = (1 << 64) - 1
BLOCK = 256


def splitmix(state):  # workbook::SplitMix64's first output
    z = (state + 0x9E3779B97F4A7C15) & M64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
    return z ^ (z >> 31)


def derive_seed(seed, stream):  # workbook::derive_seed
    return splitmix(seed ^ ((0xD1B54A32D192ED03 * (stream + 1)) & M64))


def scattered(n):  # the 64 scattered ties, as storm_steps.cpp places them
    x, out = 0x9E3779B97F4A7C15, []
    for i in range(64):
        x = derive_seed(x, i)
        out.append(1 + 2 * (x % (n // 2 - 1)))
    return out


CASES = {  # name: (layer_size, tied positions), storm_steps.cpp's maximum_cases()
    'in one block (cells 10, 12, 500)': (1000, [500, 12, 10]),
    'across blocks': (1 << 20, [900000, 600000, 300001, 1000001]),
    'in one warp': (1000, [29, 3]),
    'in adjacent warps': (1000, [33, 31]),
    'two warps apart': (1000, [40, 2]),
    'across the 256 mark': (5000, [257, 255]),
    'across the 1024 mark': (5000, [1025, 1023]),
    'first and last candidate cells': (100003, [100001, 1]),
    'one grid-stride apart': (1 << 20, [262149, 7]),
    '64 scattered': (1 << 20, scattered(1 << 20)),
}


def combine(rule, mine, other):
    if mine is None:
        return other
    if other is None:
        return mine
    if rule == 'right':
        return min(mine, other)
    if rule == 'higher':
        return max(mine, other)
    return mine if rule == 'mine' else other


def halving(slots, rule, width):
    v, s = dict(slots), width // 2
    while s >= 1:
        for t in range(s):
            r = combine(rule, v.get(t), v.get(t + s))
            if r is not None:
                v[t] = r
        s //= 2
    return v.get(0)


def doubling(slots, rule, width):
    v, s = dict(slots), 1
    while s < width:
        for t in range(0, width, 2 * s):
            r = combine(rule, v.get(t), v.get(t + s))
            if r is not None:
                v[t] = r
        s *= 2
    return v.get(0)


def shuffles(slots, rule, width):
    warps = {}
    for t, p in slots.items():
        warps.setdefault(t // 32, {})[t % 32] = p
    return halving({w: halving(lanes, rule, 32) for w, lanes in warps.items()}, rule, 32)


def second_pass(candidates, rule, where):
    if where == 'host':
        best = None
        for b in sorted(candidates):
            best = combine(rule, best, candidates[b])
        return best
    per = {}  # one block: thread t loops over candidates t, t+256, ..., then a halving tree
    for b in sorted(candidates):
        per[b % BLOCK] = combine(rule, per.get(b % BLOCK), candidates[b])
    return halving(per, rule, BLOCK)


def reduce(ties, n, rule, mapping, grid, block_reduce, where):
    per_block = {}
    for k in sorted(ties):  # ascending: a thread's own loop meets its cells in order
        if mapping == 'grid-stride':
            g = grid or max(1, min(1024, (n + BLOCK - 1) // BLOCK))
            i = k - 1
            b, t = (i // BLOCK) % g, i % BLOCK
        else:
            i = k - (1 if mapping == 'cell k-1' else 0)
            b, t = i // BLOCK, i % BLOCK
        slots = per_block.setdefault(b, {})
        slots[t] = combine(rule, slots.get(t), k)
    return second_pass({b: block_reduce(s, rule, BLOCK) for b, s in per_block.items()}, rule, where)


def main():
    bad = 0
    shapes = [('cell k', None), ('cell k-1', None)] + \
        [('grid-stride', g) for g in (None, 132, 264, 432, 528, 640, 1024, 2048, 4096)]
    for mapping, grid in shapes:
        for name, block_reduce in (('halving', halving), ('doubling', doubling), ('shuffles', shuffles)):
            for where in ('host', 'block'):
                for rule in ('right', 'mine', 'other', 'higher'):
                    caught = [c for c, (n, t) in CASES.items()
                              if reduce(t, n, rule, mapping, grid, block_reduce, where) != min(t)]
                    label = f'{mapping}{"" if grid is None else f" ({grid} blocks)"}, {name} tree, second pass ' \
                            f'on the {where}, tie-break {rule}'
                    if rule == 'right' and caught:
                        print('WRONG MODEL:', label, caught)
                        bad = 1
                    elif rule != 'right' and not caught:
                        witness = find_witness(rule, mapping, grid, block_reduce, where)
                        if witness:
                            print('NOT CAUGHT, though it can be wrong:', label, '- e.g. ties at', witness)
                            bad = 1
                        else:
                            print('not caught, and never wrong in', WITNESS_TRIES, 'random placements:', label)
    print('tie cases:', 'a wrong tie-break escapes them' if bad else 'every wrong tie-break that can be wrong fails one')
    return bad


WITNESS_TRIES = 3000


def find_witness(rule, mapping, grid, block_reduce, where):
    rng = random.Random(1)
    for _ in range(WITNESS_TRIES):
        n = rng.choice([1000, 5000, 100003, 1 << 20])
        ties = sorted(set(rng.randrange(1, n - 1) for _ in range(rng.randint(2, 6))))
        if reduce(ties, n, rule, mapping, grid, block_reduce, where) != ties[0]:
            return ties
    return None


if __name__ == '__main__':
    sys.exit(main())
