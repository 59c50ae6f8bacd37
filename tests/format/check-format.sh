#!/usr/bin/env bash
# The C++ and CUDA sources of grader/ and common/ against .clang-format:
#   tests/format/check-format.sh <source-root>
# Exit 0 when every file is formatted, 1 naming the first lines that are not (and the command that
# formats them), 77 (a visible skip) without clang-format or outside a git working copy.
set -uo pipefail
root=$(cd "${1:-.}" && pwd)
if [ "${2:-}" = --self-test ]; then
  # A copy of .clang-format and one file written badly in a scratch working copy: must fail.
  command -v clang-format >/dev/null || { echo "SKIPPED: clang-format is not installed"; exit 77; }
  scratch=$(mktemp -d); trap 'rm -rf "$scratch"' EXIT
  mkdir -p "$scratch/grader"
  cp "$root/.clang-format" "$scratch/"
  printf 'int  f( int a ){return a;}\n' > "$scratch/grader/bad.cpp"
  git -C "$scratch" init -q && git -C "$scratch" add -A
  if "$0" "$scratch" >/dev/null; then echo "the self-test's unformatted file passed"; exit 1; fi
  echo "an unformatted file is caught"; exit 0
fi
cd "$root"
tool=$(command -v clang-format || true)
[ -n "$tool" ] || { echo "SKIPPED: clang-format is not installed (Debian: apt-get install clang-format)"; exit 77; }
files=$(git ls-files 'grader/*.cpp' 'grader/*.hpp' 'grader/*.cu' 'grader/*.cuh' 'common/*.cpp' 'common/*.hpp' \
        'common/*.cu' 2>/dev/null) || { echo "SKIPPED: not a git working copy: no list of sources"; exit 77; }
bad=0
for f in $files; do
  if ! "$tool" --style=file --dry-run --Werror "$f" 2>/tmp/format-$$.txt; then
    bad=$((bad + 1))
    [ $bad -le 5 ] && head -n 6 /tmp/format-$$.txt
  fi
done
rm -f /tmp/format-$$.txt
if [ $bad -gt 0 ]; then
  echo "$bad file(s) not formatted; to format them: clang-format -i \$(git ls-files 'grader/*.[ch]pp' 'grader/*.cu' 'grader/*.cuh' 'common/*.[ch]pp' 'common/*.cu')"
  exit 1
fi
echo "$(echo $files | wc -w) files formatted ($("$tool" --version))"
