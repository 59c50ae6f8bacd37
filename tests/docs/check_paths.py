#!/usr/bin/env python3
"""check_paths.py <source-root> [--self-test]: every path the project writes down resolves.

Scans the README, docs/ (the measurement logs excepted: they quote other machines' paths), the
handouts, and the comments of lab.toml files and of the project's own sources, for
  - relative Markdown links, [text](path) or [text](path#anchor): the file must exist, relative
    to the file that links it;
  - repository paths written out (docs/architecture.md, grader/src/calibrate/thresholds.hpp,
    labs/kmeans/lab.toml ...): they must exist from the source root. Paths with a placeholder
    (<lab>, *, {a,b}, $VAR) or under a folder the project generates (build/, results/, .deps/)
    are not checked;
  - references to files outside the project (DESIGN.md, course notes, ../shared): none allowed.
Prints each broken one as file:line: what, and exits 1 if there is any.
--self-test plants one of each in a scratch copy of a tiny tree and fails unless all three are
found (the CTest docs/paths-self-test)."""
import os
import re
import sys
import tempfile

ROOTS = ('docs', 'labs', 'grader', 'common', 'tests', 'solutions', 'cmake', '.ci')
SOURCE_SUFFIXES = ('.md', '.toml', '.cpp', '.hpp', '.cu', '.cuh', '.h', '.cmake', '.txt', '.sh', '.py', '.gp', '.json')
SKIP_DIRS = {'.git', 'build', '.deps', '.work', '.cache', 'measurements', 'node_modules', '__pycache__'}
LINK = re.compile(r'\[[^\]]*\]\(([^)\s]+)\)')
PATH = re.compile(r'(?<![\w/.-])((?:' + '|'.join(re.escape(r) for r in ROOTS) + r')/[A-Za-z0-9_.\-/]*[A-Za-z0-9_\-/])')
OUTSIDE = re.compile(r'DESIGN\.md|course-notes|\.\./shared/')
PLACEHOLDER = re.compile(r'[<>*{}$]')


# A header is named as its #include names it (grader/catch.hpp is grader/kit/include/grader/catch.hpp,
# grader/results.hpp is grader/include/grader/results.hpp).
INCLUDE_DIRS = ('', 'grader/include', 'grader/kit/include', 'common/include')


def comment_of(rel, line):
    """The comment on a line of code (// in C++ and CUDA, # in CMake, shell, Python and TOML);
    an #include line is the compiler's to check."""
    if re.match(r'\s*#\s*include\b', line):
        return ''
    if rel.endswith(('.cpp', '.hpp', '.cu', '.cuh', '.h', '.json')):
        at = line.find('//')
        return line[at:] if at >= 0 else ''
    at = line.find('#')
    return line[at:] if at >= 0 else ''


def files(root):
    for top in ['README.md', 'CMakeLists.txt', 'CMakePresets.json']:
        if os.path.exists(os.path.join(root, top)):
            yield top
    for r in ROOTS:
        for dirpath, dirnames, names in os.walk(os.path.join(root, r)):
            dirnames[:] = [d for d in dirnames if d not in SKIP_DIRS]
            for n in names:
                if n.endswith(SOURCE_SUFFIXES) or n == 'CMakeLists.txt' or n == 'run':
                    yield os.path.relpath(os.path.join(dirpath, n), root)


def check(root, self_name=None):
    problems = []
    for rel in files(root):
        if rel == self_name:
            continue  # this file names the patterns it looks for
        try:
            text = open(os.path.join(root, rel), encoding='utf-8').read()
        except (UnicodeDecodeError, OSError):
            continue
        for n, line in enumerate(text.splitlines(), 1):
            if not rel.endswith('.md'):
                line = comment_of(rel, line)  # in code: what its comments and messages say
            if OUTSIDE.search(line):
                problems.append(f'{rel}:{n}: refers to a file outside the project: {OUTSIDE.search(line).group(0)}')
            if rel.endswith('.md'):
                for m in LINK.finditer(line):
                    target = m.group(1).split('#')[0]
                    if not target or re.match(r'^[a-z]+:', target) or PLACEHOLDER.search(target):
                        continue
                    if not os.path.exists(os.path.normpath(os.path.join(root, os.path.dirname(rel), target))):
                        problems.append(f'{rel}:{n}: broken link: {m.group(1)}')
            for m in PATH.finditer(line):
                path = m.group(1).rstrip('/.')
                end = m.end(1)
                if PLACEHOLDER.search(line[end:end + 1]) or PLACEHOLDER.search(path):
                    continue  # labs/<lab>/..., grader/profiles/*: a pattern, not a path
                if not any(os.path.exists(os.path.join(root, base, path)) for base in INCLUDE_DIRS):
                    problems.append(f'{rel}:{n}: no such path in the project: {path}')
    return problems


def self_test():
    with tempfile.TemporaryDirectory() as root:
        os.makedirs(f'{root}/docs')
        open(f'{root}/docs/guide.md', 'w').write(
            'See [the architecture](architecture.md) and [nothing](missing.md#a).\n'
            'The rules are in `grader/src/nowhere.cpp`; see `docs/guide.md`.\n'
            'As DESIGN.md says.\n')
        open(f'{root}/docs/architecture.md', 'w').write('# Architecture\n')
        found = check(root)
        want = ['broken link: missing.md#a', 'no such path in the project: grader/src/nowhere.cpp',
                'refers to a file outside the project: DESIGN.md']
        missed = [w for w in want if not any(w in p for p in found)]
        extra = [p for p in found if not any(w in p for w in want)]
        print('\n'.join(found))
        if missed or extra:
            print(f'self-test FAILED: missed {missed}, extra {extra}')
            return 1
        print('self-test: the planted broken link, path and outside reference were all found')
        return 0


def main():
    if len(sys.argv) < 2:
        raise SystemExit(__doc__)
    if '--self-test' in sys.argv:
        sys.exit(self_test())
    root = os.path.abspath(sys.argv[1])
    problems = check(root, os.path.relpath(os.path.abspath(__file__), root))
    print('\n'.join(problems))
    print(f'{len(problems)} broken path(s)' if problems else 'every path and link resolves')
    sys.exit(1 if problems else 0)


if __name__ == '__main__':
    main()
