#!/usr/bin/env python3
"""check_layout.py <source-root> [--self-test]: the Layout block of docs/architecture.md is the tree.

The block is the first code block after "## Layout". Each line that starts at its first column
names a file or folder from the source root (`labs/<lab>/`: `<lab>` stands for any name); the
lines indented under it describe it. Fails when
  - a name there does not exist in the tree, or
  - a folder of the repository (from `git ls-files`: the folders down to the second level, and
    those of grader/src/) is named neither by itself nor by a folder below it.
Prints each as docs/architecture.md: what, and exits 1 if there is any.
--self-test plants a named folder that is missing and a folder that is not named in a scratch
tree and fails unless both, and only they, are found (the CTest docs/layout-self-test)."""
import fnmatch
import glob
import os
import re
import subprocess
import sys
import tempfile

DOC = 'docs/architecture.md'
DEEPER = ('grader/src/',)  # folders whose own subfolders must be named too


def named(root):
    text = open(os.path.join(root, DOC), encoding='utf-8').read()
    at = text.index('## Layout')
    block = re.search(r'^```[^\n]*\n(.*?)^```', text[at:], re.S | re.M).group(1)
    return [line.split()[0] for line in block.splitlines() if line and not line[0].isspace()]


def tracked_folders(root):
    """The repository's folders that must be named, or None where the tree is not a git checkout."""
    try:
        out = subprocess.run(['git', '-C', root, 'ls-files'], capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    folders = set()
    for path in out.splitlines():
        parts = path.split('/')[:-1]
        for depth in range(1, len(parts) + 1):
            folder = '/'.join(parts[:depth]) + '/'
            if depth <= 2 or (depth == 3 and any(folder.startswith(d) for d in DEEPER)):
                if os.path.isdir(os.path.join(root, folder)):  # a deletion not yet committed is gone
                    folders.add(folder)
    return folders


def check(root, folders):
    problems = []
    names = named(root)
    patterns = [re.sub(r'<[^>/]*>', '*', n) for n in names]
    for name, pattern in zip(names, patterns):
        if '*' in pattern:
            if not glob.glob(os.path.join(root, pattern)):
                problems.append(f'{DOC}: Layout names {name}, and nothing in the tree matches it')
        elif not os.path.exists(os.path.join(root, name)):
            problems.append(f'{DOC}: Layout names {name}, which does not exist')
    for folder in sorted(folders or ()):
        # named by itself (labs/<lab>/ names every lab's folder), or by a folder below it
        if not any(fnmatch.fnmatchcase(folder, p) or p[:len(folder)] == folder
                   for p in patterns if p.endswith('/')):
            problems.append(f'{DOC}: the folder {folder} is not in the Layout block')
    return problems


def self_test():
    with tempfile.TemporaryDirectory() as root:
        for d in ('docs', 'grader/src/cli', 'grader/src/forgotten', 'labs/a', 'labs/b', 'common/include/x'):
            os.makedirs(os.path.join(root, d))
        open(os.path.join(root, DOC), 'w').write(
            'Title, then the block.\n'
            + '\n'.join(['#' + '# Layout', '', '```', 'docs/       guides',
                         '            (grader/src/forgotten/ is described, not named)',
                         'grader/src/cli/  the CLI', 'labs/<lab>/ labs', 'common/include/x/  headers',
                         'grader/gone/ missing', '```', '']))
        folders = {'docs/', 'grader/', 'grader/src/', 'grader/src/cli/', 'grader/src/forgotten/', 'labs/',
                   'labs/a/', 'labs/b/', 'common/', 'common/include/'}
        found = check(root, folders)
    want = ['Layout names grader/gone/, which does not exist', 'the folder grader/src/forgotten/ is not in']
    print('\n'.join(found))
    ok = len(found) == len(want) and all(any(w in f for f in found) for w in want)
    print('self-test: ' + ('the missing folder and the unnamed one were found' if ok else 'FAILED'))
    return 0 if ok else 1


if __name__ == '__main__':
    if len(sys.argv) < 2:
        raise SystemExit(__doc__)
    if '--self-test' in sys.argv:
        sys.exit(self_test())
    root = os.path.abspath(sys.argv[1])
    problems = check(root, tracked_folders(root))
    print('\n'.join(problems))
    print(f'{len(problems)} difference(s) between the Layout block and the tree' if problems
          else 'the Layout block of docs/architecture.md names the tree')
    sys.exit(1 if problems else 0)
