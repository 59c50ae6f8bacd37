#!/usr/bin/env python3
"""compile_fixtures.py <source-root> <nvcc> <work-dir> [--fixtures <dir>]: builds the real-code fixtures' submissions
(make_submissions.py) and compiles every file a fixture changed against its lab's header and
common/'s (PTX for compute_90 only: no GPU needed), as CTest's realcode/fixtures-compile. A fixture
that no longer compiles would show up in a GPU run as "build failed", not as the shape it stands
for. Exits 1 if any does not compile."""
import concurrent.futures
import os
import shutil
import subprocess
import sys

src, nvcc, work = os.path.abspath(sys.argv[1]), sys.argv[2], sys.argv[3]
fixtures = sys.argv[4:6]  # ["--fixtures", <dir>] (tests/feedback/fixtures/), or nothing
shutil.rmtree(work, ignore_errors=True)
made = subprocess.run([sys.executable, f'{os.path.dirname(os.path.abspath(__file__))}/make_submissions.py', src,
                       f'{work}/submissions'] + fixtures, check=True, capture_output=True, text=True).stdout.split()


def compile_one(path):
    lab = os.path.relpath(path, f'{work}/submissions').split(os.sep)[0]
    out = path + '.o'
    r = subprocess.run([nvcc, '-std=c++17', '-arch=compute_90', '-code=compute_90', '-c', '-I', f'{src}/labs/{lab}',
                        '-I', f'{src}/common/include', path, '-o', out], capture_output=True, text=True)
    return path, r.returncode, r.stdout + r.stderr


failed = 0
with concurrent.futures.ThreadPoolExecutor(max_workers=min(4, os.cpu_count() or 1)) as pool:
    for path, rc, output in pool.map(compile_one, made):
        print(f"{'ok  ' if rc == 0 else 'FAIL'} {os.path.relpath(path, work)}")
        if rc != 0:
            failed += 1
            print(output)
print(f'{len(made) - failed} of {len(made)} fixture files compile')
sys.exit(1 if failed else 0)
