#!/usr/bin/env python3
"""check_measurements.py <source-root> [--self-test]: every file under docs/measurements/ is read
by something in the project.

docs/measurements/ holds only what the project reads: example outputs the docs tests check,
the data the handouts' figures are drawn from, a table a unit test reads, the programs behind
numbers a handout quotes. Its README.md is the index of them. A file there must be named, by its
path from the source root, by a file outside docs/measurements/ (a handout, a guide, a script,
a test, a source comment): written out (docs/measurements/kmeans-sweep.csv), as a Markdown link
relative to the doc (measurements/x.csv from docs/), or by a pattern a script expands
(docs/measurements/$lab-bench.csv, docs/measurements/<lab>-bench.csv, docs/measurements/*.cu).
A folder's name alone (docs/measurements/examples/) reads nothing, nor does the index, nor
release-exclude.txt (being left out of a release is not being read). A one-off run's log does
not belong here: quote its numbers in the doc, with the GPU, the date and the command.
Prints each unread file and exits 1 if there is any.
--self-test plants an unread file beside files read in each of those ways, in a scratch tree,
and fails unless exactly the unread one is found (the CTest docs/measurements-self-test)."""
import fnmatch
import os
import re
import sys
import tempfile

MEASUREMENTS = 'docs/measurements'
INDEX = MEASUREMENTS + '/README.md'
NOT_READERS = {INDEX, 'release-exclude.txt', 'tests/docs/check_measurements.py'}  # this file: its self-test's names
SKIP_DIRS = {'.git', 'build', '.deps', '.work', '.cache', 'node_modules', '__pycache__', 'grader-runs', 'results'}
# A name as it is written: docs/measurements/ then path characters and placeholders.
NAME = re.compile(r'(?<![\w./])((?:docs/)?measurements/[A-Za-z0-9_.\-/<>*$]+)')
PLACEHOLDER = re.compile(r'<[^>/]*>|\$[A-Za-z_]\w*')


def readers(root):
    """(path, text) of every text file outside docs/measurements/ that could name one."""
    for d, dirs, names in os.walk(root):
        rel_d = os.path.relpath(d, root)
        dirs[:] = sorted(x for x in dirs if x not in SKIP_DIRS and not x.startswith('build')
                         and (not x.startswith('.') or x in ('.ci', '.github'))
                         and os.path.join(rel_d, x).replace('\\', '/').lstrip('./') != MEASUREMENTS)
        for n in sorted(names):
            rel = os.path.normpath(os.path.join(rel_d, n)).replace('\\', '/')
            if rel in NOT_READERS:
                continue
            try:
                yield rel, open(os.path.join(root, rel), encoding='utf-8').read()
            except (UnicodeDecodeError, OSError):
                continue


def named(root):
    """The patterns (fnmatch, from the source root) of every file a reader names."""
    patterns = set()
    for rel, text in readers(root):
        for m in NAME.finditer(text):
            name = m.group(1).rstrip('.')
            if not name.startswith('docs/'):  # a link or path relative to the file that has it
                name = os.path.normpath(os.path.join(os.path.dirname(rel), name)).replace('\\', '/')
                if not name.startswith(MEASUREMENTS + '/'):
                    continue
            patterns.add(PLACEHOLDER.sub('*', name))
    return patterns


def unread(root):
    files = []
    for d, dirs, names in os.walk(os.path.join(root, MEASUREMENTS)):
        dirs[:] = [x for x in dirs if x != '__pycache__']
        files += [os.path.relpath(os.path.join(d, n), root).replace('\\', '/') for n in names]
    patterns = named(root)
    return sorted(f for f in files if f != INDEX and not any(
        f == p or ('*' in p and fnmatch.fnmatchcase(f, p) and f.count('/') == p.count('/')) for p in patterns))


def self_test():
    with tempfile.TemporaryDirectory() as root:
        def write(rel, text=''):
            os.makedirs(os.path.dirname(os.path.join(root, rel)), exist_ok=True)
            open(os.path.join(root, rel), 'w').write(text)
        for f in ('examples/a.txt', 'lab-bench.csv', 'exp.cu', 'linked.txt', 'ncu.csv', 'old-run.log',
                  'examples/b.txt', 'sub/x.cu'):
            write(f'{MEASUREMENTS}/{f}', 'x\n')
        write(INDEX, 'old-run.log: docs/measurements/old-run.log\n')
        write('release-exclude.txt', 'docs/measurements/examples/b.txt\n')
        write('docs/guide.md', '<!-- example: docs/measurements/examples/a.txt -->\n'
                               'See [the log](measurements/linked.txt) and docs/measurements/examples/.\n')
        write('grader/plot.sh', 'csv=${2:-docs/measurements/$lab-bench.csv}\n')
        write('tests/unit/test_x.cpp', 'read_file(root / "docs/measurements/ncu.csv");\n')
        write('docs/guide2.md', 'the experiments in `docs/measurements/*.cu`\n')
        found = unread(root)
    want = [f'{MEASUREMENTS}/examples/b.txt', f'{MEASUREMENTS}/old-run.log', f'{MEASUREMENTS}/sub/x.cu']
    print('\n'.join(found))
    ok = found == want
    print('self-test: ' + ('the unread files, and only they, were found' if ok else f'FAILED: wanted {want}'))
    return 0 if ok else 1


if __name__ == '__main__':
    if len(sys.argv) < 2:
        raise SystemExit(__doc__)
    if '--self-test' in sys.argv:
        sys.exit(self_test())
    found = unread(os.path.abspath(sys.argv[1]))
    for f in found:
        print(f'{f}: read by nothing in the project (a test, a script or a doc must name it; a one-off '
              'log leaves the repository, its numbers quoted in the doc with the GPU, date and command)')
    print(f'{len(found)} unread file(s) under {MEASUREMENTS}/' if found
          else f'every file under {MEASUREMENTS}/ is read by the project')
    sys.exit(1 if found else 0)
