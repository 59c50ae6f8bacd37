#!/usr/bin/env python3
"""Builds the real-code fixtures' submission folders:
    make_submissions.py <source-root> <out-dir> [--fixtures <dir>] [lab...]
(--fixtures: another folder of <lab>/<student>.cu.in, such as tests/feedback/fixtures/).

Each fixture (fixtures/<lab>/<student>.cu.in) is a shape real course code takes, written for this
project: a few functions of a lab's reference solution replaced by the fixture's own, or one of
its files replaced whole. The result is <out-dir>/<lab>/<student>/ holding every editable file of
the lab (lab.toml's `files`), as `grader batch` takes them; expected.tsv says what each must get.

A fixture is the text of the fixture's description (comment lines, copied to the top of the file
it changes), then sections that start with a marker line:

    //@@ file <name>       the lab file the next sections change (default: the lab's only file)
    //@@ top               inserted at the top of that file (includes, macros)
    //@@ replace <name>    replaces the reference's top-level definition of function <name>
                           (a line starting in column 0 that names it and opens a body) with the
                           section's text, in the same place
    //@@ whole             the section is the whole file
"""
import os
import re
import sys

# The reference without its starter markers (grader/src/release/starter.hpp): the BEGIN SOLUTION /
# STARTER / END SOLUTION lines and the starter's //| lines.
def solution_text(path):
    return re.sub(r'^[ \t]*//( BEGIN SOLUTION.*| STARTER| END SOLUTION|\|.*)\n', '', open(path).read(), flags=re.M)


HERE = os.path.dirname(os.path.abspath(__file__))


def lab_files(src, lab):
    toml = open(f'{src}/labs/{lab}/lab.toml').read()
    m = re.search(r'^files\s*=\s*\[([^\]]*)\]', toml, re.M)
    return re.findall(r'"([^"]+)"', m.group(1))


def body_end(text, start):
    """Index just past the brace that closes the first body opened at or after `start`, skipping
    comments and string and character literals."""
    depth, i, n = 0, start, len(text)
    while i < n:
        c = text[i]
        if text.startswith('//', i):
            i = text.index('\n', i)
            continue
        if text.startswith('/*', i):
            i = text.index('*/', i) + 2
            continue
        if c in '"\'':
            j = i + 1
            while text[j] != c:
                j += 2 if text[j] == '\\' else 1
            i = j + 1
            continue
        if c == '{':
            depth += 1
        elif c == '}':
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    raise ValueError('unbalanced braces')


def replace_function(text, name, new, where):
    # The definition: a line in column 0 naming `name(` whose body follows (not a declaration).
    for m in re.finditer(r'^[A-Za-z_][^\n;{}]*\b' + re.escape(name) + r'\(', text, re.M):
        end = body_end(text, m.start())
        head = text[m.start():end]
        if '{' in head and ';' not in head[:head.index('{')]:
            return text[:m.start()] + new.strip('\n') + '\n' + text[end:]
    raise SystemExit(f'{where}: no definition of {name}() in the reference')


def parse(path):
    description, sections, current = [], [], None
    for line in open(path).read().splitlines(keepends=True):
        m = re.match(r'//@@\s+(\w+)\s*(\S*)\s*$', line)
        if m:
            current = [m.group(1), m.group(2), '']
            sections.append(current)
        elif current is None:
            description.append(line)
        else:
            current[2] += line
    return ''.join(description), sections


def build(src, lab, fixture, out):
    files = lab_files(src, lab)
    texts = {f: solution_text(f'{src}/solutions/{lab}/{f}') for f in files}
    description, sections = parse(fixture)
    target = files[0] if len(files) == 1 else None
    changed = set()
    for kind, arg, text in sections:
        if kind == 'file':
            if arg not in texts:
                raise SystemExit(f'{fixture}: {lab} has no file {arg}')
            target = arg
            continue
        if target is None:
            raise SystemExit(f'{fixture}: which file? (//@@ file <name> first)')
        if kind == 'top':
            texts[target] = text + texts[target]
        elif kind == 'replace':
            texts[target] = replace_function(texts[target], arg, text, fixture)
        elif kind == 'whole':
            texts[target] = text
        else:
            raise SystemExit(f'{fixture}: unknown section //@@ {kind}')
        changed.add(target)
    student = os.path.basename(fixture)[:-len('.cu.in')]
    folder = f'{out}/{lab}/{student}'
    os.makedirs(folder, exist_ok=True)
    for f, text in texts.items():
        if f in changed:
            text = description + '\n' + text
        open(f'{folder}/{f}', 'w').write(text)
    return [f'{folder}/{f}' for f in sorted(changed)]


def main():
    if len(sys.argv) < 3:
        raise SystemExit(__doc__)
    src, out = os.path.abspath(sys.argv[1]), sys.argv[2]
    rest, fixtures = sys.argv[3:], f'{HERE}/fixtures'
    if rest[:1] == ['--fixtures']:
        fixtures, rest = os.path.abspath(rest[1]), rest[2:]
    labs = rest or sorted(os.listdir(fixtures))
    for lab in labs:
        for name in sorted(os.listdir(f'{fixtures}/{lab}')):
            if name.endswith('.cu.in'):
                for path in build(src, lab, f'{fixtures}/{lab}/{name}', out):
                    print(path)


if __name__ == '__main__':
    main()
