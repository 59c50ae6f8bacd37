#!/usr/bin/env bash
# A course's class as each LMS downloads it (tests/CMakeLists.txt: batch/lms-course): the same
# five enrolled students laid out as plain folders, as Canvas's "Download Submissions", as
# Moodle's "Download all submissions" and as Gradescope's "Export Submissions", graded with a
# roster (LMS ids, an extension), a course [deadline] and the submission times (a CSV, or
# Gradescope's metadata). Each layout must give the same gradebook: raw points,
# lateness and final points, a row for the student who sent nothing, a .ZIP read, a name with a
# space, the stranger named; and canvas.csv, moodle.csv, feedback and Gradescope must agree.
# No GPU and no build: alice's, bob's and dave's results are kept ones (as a GPU run wrote them),
# erin's archive and the stranger's entry hold no matmul.cu ("missing file").
#   tests/batch/lms-course.sh <grader> <work-dir>
set -uo pipefail
grader=$1 work=$2
rm -rf "$work"; mkdir -p "$work"
fail() { echo "FAILED: $*"; exit 1; }
cat > "$work/roster.csv" <<'CSV'
id,name,lms_id,extension
alice,"Liddell, Alice",101,
bob,Bob Builder,102,2d
carol,Carol Danvers,103,
dave,Dave Lister,104,
erin,Erin Brockovich,105,
CSV
cat > "$work/course.toml" <<'TOML'
[deadline]
due = 2026-12-01T23:59:00-05:00   # 2026-12-02T04:59:00Z
grace_minutes = 15
penalty_per_day = 10
max_penalty = 50
TOML
# alice on time; bob 30 h late with a 2-day extension; dave 30 h late (2 started days: 20%);
# erin 11 min late, inside the grace. Keyed by LMS id or course id, as an export gives them.
cat > "$work/times.csv" <<'CSV'
id,submitted_at
alice,2026-12-01T20:00:00-05:00
102,2026-12-03T10:59:00Z
dave,2026-12-03 10:59:00Z
105,2026-12-02T05:10:00Z
CSV
printf '// kept: graded on a GPU machine\n' > "$work/matmul.cu"
mkdir -p "$work/zip-content" && printf 'my notes, no code\n' > "$work/zip-content/README.txt"
(cd "$work/zip-content" && cmake -E tar cf "$work/Lab1.ZIP" --format=zip README.txt)

kept() {  # a GPU run's kept result: 100 of 100, every case passed
  local c='"outcome":"passed","metrics":{"median_ms":0.44,"speedup":13985}'
  mkdir -p "$1/students"
  cat > "$1/students/$2.json" <<JSON
{"student":"$2","status":"passed","detail":"","seconds":40,"graded_at":"2026-12-02T01:00:00Z",
 "report":{"lab":"matmul-tiled","seed":777,"device":"NVIDIA H100 80GB HBM3","run":{"state":"completed","detail":""},
  "points":100,"max_points":100,"exercises":[
  {"name":"naive","checks":[{"kind":"correctness","cases":[{"exercise":"naive","kind":"correctness","case":"1x1x1 ints",$c}]},
                            {"kind":"performance","cases":[{"exercise":"naive","kind":"performance","case":"1024x1024x1024",$c}]}]},
  {"name":"tiled","checks":[{"kind":"correctness","cases":[{"exercise":"tiled","kind":"correctness","case":"tile 16: 1x1x1 ints",$c}]},
                            {"kind":"static","cases":[{"exercise":"tiled","kind":"static","case":"tiledKernel declares __shared__ tiles",$c}]},
                            {"kind":"performance","cases":[{"exercise":"tiled","kind":"performance","case":"tile 32: 1024x1024x1024",$c}]}]}]}}
JSON
}

# The three layouts of one class.
f="$work/folders"; mkdir -p "$f/alice" "$f/102" "$f/dave" "$f/199"
cp "$work/matmul.cu" "$f/alice/"; cp "$work/matmul.cu" "$f/102/"; cp "$work/matmul.cu" "$f/dave/"; cp "$work/Lab1.ZIP" "$f/erin.ZIP"
printf 'no code\n' > "$f/199/notes.txt"
c="$work/canvas"; mkdir -p "$c"
cp "$work/matmul.cu" "$c/liddellalice_101_9001_matmul.cu"
printf 'an older version\n' > "$c/builderbob_LATE_102_9002_matmul.cu"
cp "$work/matmul.cu" "$c/builderbob_LATE_102_9012_matmul-1.cu"   # resubmitted: Canvas's -1
cp "$work/matmul.cu" "$c/listerdave_LATE_104_9004_matmul.cu"
cp "$work/Lab1.ZIP" "$c/brockovicherin_105_9005_Lab1.ZIP"
printf 'no code\n' > "$c/strangerzed_199_9009_notes.txt"
m="$work/moodle"
mkdir -p "$m/Alice Liddell_101_assignsubmission_file_" "$m/Alice Liddell_101_assignsubmission_onlinetext_" \
         "$m/Bob Builder_102_assignsubmission_file_" "$m/Dave Lister_104_assignsubmission_file_" \
         "$m/Erin Brockovich_105_assignsubmission_file_" "$m/Zed Stranger_199_assignsubmission_file_"
cp "$work/matmul.cu" "$m/Alice Liddell_101_assignsubmission_file_/"
printf '<p>see the file</p>\n' > "$m/Alice Liddell_101_assignsubmission_onlinetext_/onlinetext.html"
cp "$work/matmul.cu" "$m/Bob Builder_102_assignsubmission_file_/"
cp "$work/matmul.cu" "$m/Dave Lister_104_assignsubmission_file_/"
cp "$work/Lab1.ZIP" "$m/Erin Brockovich_105_assignsubmission_file_/"
printf 'no code\n' > "$m/Zed Stranger_199_assignsubmission_file_/notes.txt"

g="$work/gradescope"
mkdir -p "$g/submission_9001" "$g/submission_9002" "$g/submission_9004" "$g/submission_9005" "$g/submission_9009"
cp "$work/matmul.cu" "$g/submission_9001/"; cp "$work/matmul.cu" "$g/submission_9002/"; cp "$work/matmul.cu" "$g/submission_9004/"
cp "$work/Lab1.ZIP" "$g/submission_9005/"; printf 'no code\n' > "$g/submission_9009/notes.txt"
# Gradescope's own times (Ruby's YAML): this layout is graded without --times.
cat > "$g/submission_metadata.yml" <<'YML'
---
submission_9001:
  :submitters:
  - :name: Alice Liddell
    :sid: alice
    :email: alice@example.edu
  :created_at: 2026-12-01 20:00:00.000000000 -05:00
  :score: 0.0
submission_9002:
  :submitters:
  - :name: Bob Builder
    :sid: bob
  :created_at: 2026-12-03 10:59:00.000000000 +00:00
submission_9004:
  :submitters:
  - :name: Dave Lister
    :sid: dave
  :created_at: 2026-12-03 05:59:00.123456789 -05:00
submission_9005:
  :submitters:
  - :name: Erin Brockovich
    :sid: erin
  :created_at: 2026-12-02 05:10:00.000000000 +00:00
submission_9009:
  :submitters:
  - :name: Zed Stranger
    :sid: '199'
  :created_at: 2026-12-01 12:00:00.000000000 +00:00
YML

want_gradebook="student,naive,tiled,total,max_points,status,naive_outcome,tiled_outcome,submitted_at,late_hours,penalty_percent,final
199,0,0,0,100,missing file,missing file,missing file,,0.00,0,0
alice,40,60,100,100,passed,passed,passed,2026-12-02T01:00:00Z,0.00,0,100
bob,40,60,100,100,passed,passed,passed,2026-12-03T10:59:00Z,0.00,0,100
carol,0,0,0,100,no submission,no submission,no submission,,,0
dave,40,60,100,100,passed,passed,passed,2026-12-03T10:59:00Z,30.00,20,80
erin,0,0,0,100,missing file,missing file,missing file,2026-12-02T05:10:00Z,0.00,0,0"
# The stranger's row (199) is checked apart: its name and LMS id are known only from an LMS download.
want_canvas='Student,ID,SIS User ID,SIS Login ID,Section,Lab 1: matmul (12345)
"Liddell, Alice",101,alice,,,100.00
Bob Builder,102,bob,,,100.00
Carol Danvers,103,carol,,,
Dave Lister,104,dave,,,80.00
Erin Brockovich,105,erin,,,0.00'

for layout in folders canvas moodle gradescope; do
  out="$work/results-$layout"
  kept "$out" alice; kept "$out" bob; kept "$out" dave
  times=(--times "$work/times.csv"); [ "$layout" = gradescope ] && times=()
  "$grader" batch matmul-tiled "$work/$layout" -o "$out" --from "$layout" --roster "$work/roster.csv" \
      --config "$work/course.toml" "${times[@]}" --lms-assignment "Lab 1: matmul (12345)" --build-only \
      >"$out.log" 2>&1 || fail "$layout: grader batch exited $?: $(tail -5 "$out.log")"
  got=$(cat "$out/gradebook.csv")
  want=$want_gradebook  # Gradescope's metadata gives the stranger a time too
  [ "$layout" = gradescope ] && want=${want/missing file,,0.00/missing file,2026-12-01T12:00:00Z,0.00}
  [ "$got" = "$want" ] || fail "$layout: gradebook.csv is
$got
expected
$want"
  [ "$(grep -v ',199,' "$out/canvas.csv")" = "$want_canvas" ] || fail "$layout: canvas.csv is
$(cat "$out/canvas.csv")
expected
$want_canvas"
  case $layout in
    folders) stranger=',,199,,,0.00' ;; canvas) stranger='strangerzed,199,199,,,0.00' ;; *) stranger='Zed Stranger,199,199,,,0.00' ;;
  esac
  grep -qx "$stranger" "$out/canvas.csv" || fail "$layout: the stranger's canvas.csv row is not '$stranger': $(cat "$out/canvas.csv")"
  grep -qx 'dave,104,Dave Lister,80.00' "$out/moodle.csv" || fail "$layout: moodle.csv has no row 'dave,104,Dave Lister,80.00': $(cat "$out/moodle.csv")"
  grep -qx 'carol,103,Carol Danvers,' "$out/moodle.csv" || fail "$layout: carol's moodle.csv grade is not left blank"
  grep -q "not on the roster (graded all the same.*): 199" "$out.log" || fail "$layout: the stranger 199 was not named: $(cat "$out.log")"
  grep -q '2 days late, 20% of the earned points lost (20.00): 80.00 of 100' "$out/feedback/dave.md" ||
    fail "$layout: dave's feedback does not say why 80: $(grep -i late "$out/feedback/dave.md")"
  grep -q 'on time (due 2026-12-04T04:59:00Z (with your extension))' "$out/feedback/bob.md" ||
    fail "$layout: bob's feedback does not name his extension: $(grep -i late "$out/feedback/bob.md")"
  score=$(sed -n 's/^  "score": \([0-9.]*\),*$/\1/p' "$out/gradescope/dave/results.json")
  [ "$score" = "80.0" ] || [ "$score" = "80" ] || fail "$layout: dave's Gradescope score is '$score', not 80"
  echo "$layout: gradebook, canvas.csv, moodle.csv, feedback and Gradescope as expected"
done
grep -q "online text, not a file" "$work/results-moodle.log" || fail "moodle: the online-text folder was not named as skipped"
[ "$(cat "$work/results-canvas/lms/102/matmul.cu")" = "// kept: graded on a GPU machine" ] ||
  fail "canvas: bob's resubmission (matmul-1.cu) was not the one taken"

# A course config without a due date, and a bad time, stop the batch before it starts (exit 64).
printf '[deadline]\ngrace_minutes = 5\n' > "$work/no-due.toml"
"$grader" batch matmul-tiled "$work/folders" -o "$work/bad1" --config "$work/no-due.toml" --build-only >"$work/bad1.log" 2>&1
[ $? -eq 64 ] && grep -q "\[deadline\] due: wanted" "$work/bad1.log" || fail "a [deadline] without due: $(cat "$work/bad1.log")"
printf 'id,submitted_at\nalice,yesterday\n' > "$work/bad-times.csv"
"$grader" batch matmul-tiled "$work/folders" -o "$work/bad2" --config "$work/course.toml" --times "$work/bad-times.csv" \
  --build-only >"$work/bad2.log" 2>&1
[ $? -eq 64 ] && grep -q "bad-times.csv:2: 'yesterday' is not a date-time" "$work/bad2.log" || fail "a bad time: $(cat "$work/bad2.log")"
echo "a [deadline] without due, and a time that is none: exit 64, named"
