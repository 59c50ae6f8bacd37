#!/usr/bin/env python3
"""make_class.py <source-root> <fixtures-dir> <out-dir> <size> <lab...>: a class of <size>
submissions per lab, from the real-code fixtures (<fixtures-dir>/<lab>/<student>/, as
tests/realcode/make_submissions.py writes them), the reference solution (without its starter
markers) and the shipped starter, copied round-robin: <out-dir>/<lab>/<name>-<n>/."""
import os
import re
import shutil
import sys

src, fixtures, out, size = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])


def solution_text(path):
    return re.sub(r'^[ \t]*//( BEGIN SOLUTION.*| STARTER| END SOLUTION|\|.*)\n', '', open(path).read(), flags=re.M)


def lab_files(lab):
    toml = open(f'{src}/labs/{lab}/lab.toml').read()
    return re.findall(r'"([^"]+)"', re.search(r'^files\s*=\s*\[([^\]]*)\]', toml, re.M).group(1))


for lab in sys.argv[5:]:
    kinds = {}  # name -> {file: text}
    kinds['reference'] = {f: solution_text(f'{src}/solutions/{lab}/{f}') for f in lab_files(lab)}
    kinds['starter'] = {f: open(f'{src}/labs/{lab}/{f}').read() for f in lab_files(lab)}
    lab_fixtures = f'{fixtures}/{lab}'
    for student in sorted(os.listdir(lab_fixtures)) if os.path.isdir(lab_fixtures) else []:
        kinds[student] = {f: open(f'{lab_fixtures}/{student}/{f}').read() for f in os.listdir(f'{lab_fixtures}/{student}')}
    names = sorted(kinds)
    for n in range(size):
        name = names[n % len(names)]
        folder = f'{out}/{lab}/{name}-{n // len(names) + 1}'
        os.makedirs(folder, exist_ok=True)
        for f, text in kinds[name].items():
            open(f'{folder}/{f}', 'w').write(text)
    print(f'{lab}: {size} submissions from {len(names)} kinds ({", ".join(names)})')
