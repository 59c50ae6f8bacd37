#!/usr/bin/env bash
# The leaderboard page in a real browser: tests/browser/check-board.sh BUILD_DIR [SCREENSHOT_COPY]
# Writes the demo board (BUILD_DIR/bin/leaderboard-demo-board), loads it in headless Chromium,
# checks the DOM Chromium built from it (the ranked rows, the tiers, the plot, the invalid
# entries, the hostile id as text and not as an element), then takes a 1200x900 screenshot
# (copied to SCREENSHOT_COPY when given, e.g. docs/figures/leaderboard-demo.png).
# Exits 77 (CTest's skip) when there is no Chromium: `apt-get install chromium`, or set CHROMIUM.
set -euo pipefail
build=${1:?usage: check-board.sh BUILD_DIR [SCREENSHOT_COPY]}
copy=${2:-}

browser=${CHROMIUM:-}
if [ -z "$browser" ]; then
  for b in chromium chromium-browser; do
    if command -v "$b" >/dev/null; then browser=$(command -v "$b"); break; fi
  done
fi
if [ -z "$browser" ]; then
  echo "SKIPPED: no chromium binary found (Debian: apt-get install chromium; or set CHROMIUM=/path/to/it)"
  exit 77
fi

out=$build/test-runs/browser
rm -rf "$out"
mkdir -p "$out"
"$build/bin/leaderboard-demo-board" "$out/board.html"

# Its own profile folder, so that nothing from (or into) the user's profile; no sandbox: CI runs
# as root in a container, where Chromium's sandbox cannot start.
flags=(--headless --no-sandbox --disable-gpu --disable-dev-shm-usage --no-first-run
       --user-data-dir="$out/profile")
url="file://$(cd "$out" && pwd)/board.html"
echo "$($browser --version 2>/dev/null || echo "$browser"): $url"
timeout 120 "$browser" "${flags[@]}" --dump-dom "$url" >"$out/dom.html" 2>"$out/chromium.log" ||
  { echo "FAILED: chromium --dump-dom exited with $?"; tail -20 "$out/chromium.log"; exit 1; }

failures=0
count() { { grep -o -- "$1" "$out/dom.html" || true; } | wc -l; }
expect() {  # expect WHAT PATTERN N: the DOM holds PATTERN exactly N times
  local n
  n=$(count "$2")
  if [ "$n" -eq "$3" ]; then
    echo "ok: $1 ($n)"
  else
    echo "FAILED: $1: expected $3, found $n of '$2'"
    failures=$((failures + 1))
  fi
}
# What demo_board.cpp stores: 7 students on the board (bo and chen tied, dima flagged), the
# tiers Ref1 and Ref2, 2 entries never valid (gus, hana).
expect "the ranked table" '<table id="board">' 1
expect "student rows" '<tr class="student' 7
expect "tier rows, highlighted" '<tr class="tier">' 2
expect "tied rows" '<tr class="student tied">' 2
expect "the flagged row" '<tr class="student flagged">' 1
expect "the plot" '<svg id="plot"' 1
expect "one mark per row in the plot" '<circle class="dot"' 9
expect "the invalid table" '<table id="invalid">' 1
expect "the invalid entries' reasons" 'output cached from an earlier call\|does not compile' 2
# The hostile id: in its table cell, and in the plot as the row's label and its tooltip.
expect "the hostile id, as text" '&lt;img src=x onerror=alert(1)&gt;' 3
expect "no element made from the hostile id" '<img' 0
expect "no script" '<script' 0
[ "$failures" -eq 0 ] || { echo "FAILED: $failures DOM checks; the DOM is $out/dom.html"; exit 1; }

timeout 120 "$browser" "${flags[@]}" --screenshot="$out/board.png" --window-size=1200,900 "$url" \
  >>"$out/chromium.log" 2>&1 || { echo "FAILED: chromium --screenshot exited with $?"; tail -20 "$out/chromium.log"; exit 1; }
if [ "$(head -c 8 "$out/board.png" 2>/dev/null | od -An -tx1 | tr -d ' \n')" != "89504e470d0a1a0a" ]; then
  echo "FAILED: no PNG screenshot at $out/board.png"
  exit 1
fi
echo "ok: screenshot $out/board.png ($(wc -c <"$out/board.png") bytes)"
if [ -n "$copy" ]; then
  cp "$out/board.png" "$copy"
  echo "copied to $copy"
fi
