#!/usr/bin/env python3
"""check_examples.py <source-root> [--self-test]: every example output the docs show is a copy
of a file that a GPU run wrote under docs/measurements/.

An example is a fenced code block right after a marker line
    <!-- example: docs/measurements/examples/matmul-tiled-starter.txt -->
in the README, docs/ or a handout. Its lines (indentation of the block removed) must appear in
that file in order and next to each other, except that a line "..." in the example skips any
number of the file's lines. So an example may show an excerpt, and it cannot drift: when the
program's output changes, `docs/measurements/examples/regenerate.sh` (one command on a GPU)
writes the files again, and this check names every example that no longer matches them.
Prints each stale or broken example as file:line: what, and exits 1 if there is any.
--self-test plants a stale example and a missing file in a scratch tree and fails unless both
are found (the CTest docs/examples-self-test)."""
import os
import re
import sys
import tempfile

MARKER = re.compile(r'^\s*<!--\s*example:\s*(\S+)\s*-->\s*$')
FENCE = re.compile(r'^(\s*)(```+|~~~+)')
SKIP_DIRS = {'.git', 'build', '.deps', '.work', 'measurements', 'node_modules'}


def documents(root):
    yield os.path.join(root, 'README.md')
    for top in ('docs', 'labs'):
        for d, dirs, files in os.walk(os.path.join(root, top)):
            dirs[:] = sorted(x for x in dirs if x not in SKIP_DIRS)
            for f in sorted(files):
                if f.endswith('.md'):
                    yield os.path.join(d, f)


def examples(path):
    """(line number of the marker, the file it names, the block's lines) for each marked block."""
    lines = open(path, encoding='utf-8').read().split('\n')
    i = 0
    while i < len(lines):
        m = MARKER.match(lines[i])
        if not m:
            i += 1
            continue
        at, target, j = i + 1, m.group(1), i + 1
        while j < len(lines) and not lines[j].strip():
            j += 1
        f = FENCE.match(lines[j]) if j < len(lines) else None
        if not f:
            yield at, target, None
            i = j
            continue
        indent, fence = f.group(1), f.group(2)
        body, k = [], j + 1
        while k < len(lines) and not lines[k].strip().startswith(fence[:3]):
            body.append(lines[k][len(indent):] if lines[k].startswith(indent) else lines[k].lstrip())
            k += 1
        yield at, target, body
        i = k + 1


def matches(example, text):
    """Whether the example's lines are in text in order, adjacent except across '...' lines."""
    have = text.split('\n')
    runs, run = [], []
    for line in example:
        if line.strip() == '...':
            if run:
                runs.append(run)
            run = []
        else:
            run.append(line.rstrip())
    if run:
        runs.append(run)
    have = [h.rstrip() for h in have]
    start = 0
    for r in runs:
        found = next((s for s in range(start, len(have) - len(r) + 1) if have[s:s + len(r)] == r), None)
        if found is None:
            return False, r[0]
        start = found + len(r)
    return True, None


def check(root):
    problems = []
    for doc in documents(root):
        if not os.path.exists(doc):
            continue
        rel = os.path.relpath(doc, root)
        for line, target, body in examples(doc):
            full = os.path.join(root, target)
            if not target.startswith('docs/measurements/'):
                problems.append(f'{rel}:{line}: {target}: an example copies a file under docs/measurements/')
            elif not os.path.isfile(full):
                problems.append(f'{rel}:{line}: {target} does not exist')
            elif body is None:
                problems.append(f'{rel}:{line}: the marker is not followed by a code block')
            else:
                ok, first = matches(body, open(full, encoding='utf-8').read())
                if not ok:
                    problems.append(f'{rel}:{line}: the example differs from {target} (from the line "{first[:70]}"); '
                                    'copy it again from that file (docs/measurements/examples/regenerate.sh rewrites them)')
    return problems


def self_test():
    with tempfile.TemporaryDirectory() as root:
        os.makedirs(f'{root}/docs/measurements')
        open(f'{root}/docs/measurements/run.txt', 'w').write('header\nTotal: 0 / 100\nline a\nline b\nend\n')
        open(f'{root}/README.md', 'w').write(
            '<!-- example: docs/measurements/run.txt -->\n```\nheader\n...\nline a\nline b\n```\n'   # right
            '<!-- example: docs/measurements/run.txt -->\n```\nTotal: 5 / 100\n```\n'              # stale
            '<!-- example: docs/measurements/gone.txt -->\n```\nx\n```\n')                          # missing
        found = check(root)
    want = ['README.md:8: the example differs', 'README.md:12: docs/measurements/gone.txt does not exist']
    ok = len(found) == 2 and all(any(f.startswith(w) for f in found) for w in want)
    print('\n'.join(found))
    print('self-test: ' + ('the stale example and the missing file were found' if ok else 'FAILED'))
    return 0 if ok else 1


if __name__ == '__main__':
    if '--self-test' in sys.argv:
        sys.exit(self_test())
    problems = check(os.path.abspath(sys.argv[1]))
    for p in problems:
        print(p)
    print(f'{len(problems)} stale or broken example(s)' if problems else 'every marked example matches its file')
    sys.exit(1 if problems else 0)
