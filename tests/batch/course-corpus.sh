#!/usr/bin/env bash
# A corpus of messy course input (tests/CMakeLists.txt: batch/course-corpus; issue 34): the files
# a course in Arequipa, Athens or Lyon has, as Canvas, Moodle and Gradescope write them, rosters
# saved by Excel, zips made on Windows, names with accents. Each case is graded with
# --build-only (no GPU) and checked against its expected gradebook rows, exit status and words.
# A submission's matmul.cu is an `#error "taken: <which>"` line: the build fails at once, and the
# compiler's error in the gradebook's detail says which file was taken.
#   tests/batch/course-corpus.sh <grader> <make-archives> <work-dir> [case...]
set -uo pipefail
grader=$1 make_archives=$2 work=$3
shift 3
only=("$@")
header='student,naive,tiled,total,max_points,status,naive_outcome,tiled_outcome'
late_header="$header,submitted_at,late_hours,penalty_percent,final"
failures=0 ran=0

fail() { echo "FAILED: $case: $*"; failures=$((failures + 1)); }
taken() { mkdir -p "$(dirname "$1")"; printf '#error "taken: %s"\n' "$2" > "$1"; }
row() { echo "$1,0,0,0,100,$2,$2,$2${3:-}"; }  # a submission that never ran: its status in every outcome

# batch <rc> [args...]: grades $in into $out, the log in $log; the exit status must be <rc>.
batch() {
  local want=$1
  shift
  "$grader" batch matmul-tiled "$in" -o "$out" --build-only --seed 7 --jobs "${jobs:-2}" "$@" >"$log" 2>&1
  local rc=$?
  [ "$rc" = "$want" ] || fail "grader batch exited $rc, not $want: $(tail -5 "$log")"
}
rows() {  # the gradebook, exactly
  local want
  want=$(printf '%s\n' "$@")
  [ "$(cat "$out/gradebook.csv" 2>/dev/null)" = "$want" ] || fail "gradebook.csv is
$(cat "$out/gradebook.csv" 2>/dev/null)
expected
$want"
}
says() { grep -qF -- "$2" "$1" 2>/dev/null || fail "$(basename "$1") does not say '$2': $(tail -c 600 "$1" 2>/dev/null)"; }
never() { ! grep -qF -- "$2" "$1" 2>/dev/null || fail "$(basename "$1") says '$2'"; }
utf8() {  # every file the batch wrote is valid UTF-8
  local f
  for f in "$out"/gradebook.csv "$out"/results.json "$out"/canvas.csv "$out"/moodle.csv "$out"/feedback/*.md "$out"/students/*.json; do
    [ -f "$f" ] || continue
    iconv -f UTF-8 -t UTF-8 "$f" >/dev/null 2>&1 || fail "$f is not valid UTF-8"
  done
}
kept() {  # students/<id>.json as an earlier run wrote it, with <status> (nothing run)
  mkdir -p "$out/students"
  printf '{"student":"%s","status":"%s","detail":"%s","graded_at":"2026-12-01T00:00:00Z","report":{"lab":"matmul-tiled","seed":7,"run":{"state":"not graded","detail":""},"points":0,"max_points":100,"exercises":[]}}\n' \
    "$1" "$2" "$2" > "$out/students/$1.json"
}
deadline() { printf '[deadline]\ndue = %s\n' "$1" > "$work/$case/course.toml"; }

# ---- the cases: each sets up $in (and $out where a run is kept), runs, and checks -------------

case_latin1_source() {  # a Latin-1 .cu whose compile error quotes an accented line; the class goes on
  mkdir -p "$in/ana" "$in/bob" "$in/cy"
  printf '// c\xe1lculo del \xedndice\nint \xedndice = "\xedndice";\n' > "$in/ana/matmul.cu"
  printf 'no code\n' > "$in/bob/notes.txt"
  taken "$in/cy/matmul.cu" "cy, after ana"
  batch 0
  rows "$header" "$(row ana 'build failed')" "$(row bob 'missing file')" "$(row cy 'build failed')"
  utf8
  says "$out/results.json" $'int \xc3\xadndice = '  # the compiler's line, decoded, not dropped
  says "$out/feedback/cy.md" "taken: cy, after ana"
}

case_windows_zip() {  # Windows Explorer's zip (CP437 names), and the folder unzipping it leaves
  mkdir -p "$in"
  "$make_archives" --raw-zip "$in/ana.zip" c $'Jos\x82 N\xa3\xa4ez/matmul.cu' '#error "taken: windows zip"' \
    c $'Jos\x82 N\xa3\xa4ez/notas.txt' 'x' || fail "make-archives"
  taken "$in/"$'Jos\x82 N\xa3\xa4ez'"/matmul.cu" "unzipped folder"
  printf 'id,name\nana,Ana\njnunez,"N\xc3\xba\xc3\xb1ez, Jos\xc3\xa9"\n' > "$work/$case/roster.csv"
  batch 0 --roster "$work/$case/roster.csv"
  rows "$header" "$(row ana 'build failed')" "$(row jnunez 'build failed')"
  utf8
  says "$out/feedback/ana.md" $'took Jos\xc3\xa9 N\xc3\xba\xc3\xb1ez/matmul.cu'
  says "$out/feedback/jnunez.md" "taken: unzipped folder"
  says "$log" $'roster: Jos\xc3\xa9 N\xc3\xba\xc3\xb1ez is the name of jnunez: graded as jnunez'
}

case_utf8_zip() {  # a zip with a UTF-8 name (the flag Python, Windows 11 and Info-ZIP set)
  mkdir -p "$in"
  "$make_archives" --raw-zip "$in/ana.zip" c matmul.cu '#error "taken: utf8 zip"' u $'notas-caf\xc3\xa9.txt' 'hola' ||
    fail "make-archives"
  batch 0
  rows "$header" "$(row ana 'build failed')"
  says "$out/feedback/ana.md" "taken: utf8 zip"
  never "$out/results.json" "unsafe archive"
}

case_roster_windows_1252() {  # a roster saved by Excel as plain CSV; an accented name sent nothing
  mkdir -p "$in/ana"
  printf 'no code\n' > "$in/ana/notes.txt"
  printf 'id,name,lms_id\r\nana,Ana Bel\xe9n,1\r\njnunez,"N\xfa\xf1ez, Jos\xe9",2\r\n' > "$work/$case/roster.csv"
  batch 0 --roster "$work/$case/roster.csv"
  rows "$header" "$(row ana 'missing file')" "$(row jnunez 'no submission')"
  utf8
  says "$out/results.json" $'nothing was submitted by N\xc3\xba\xc3\xb1ez, Jos\xc3\xa9'
  says "$out/moodle.csv" $'jnunez,2,"N\xc3\xba\xc3\xb1ez, Jos\xc3\xa9",'
  printf 'id;name;lms_id\r\nana;Ana Bel\xe9n;1\r\njnunez;N\xfa\xf1ez, Jos\xe9;2\r\n' > "$work/$case/semicolons.csv"
  out=$work/$case/out-semicolons batch 0 --roster "$work/$case/semicolons.csv"  # Excel where ',' is the decimal point
  out=$work/$case/out-semicolons rows "$header" "$(row ana 'missing file')" "$(row jnunez 'no submission')"
  printf '\xff\xfei\x00d\x00\n\x00' > "$work/$case/utf16.csv"  # "Unicode text": refused, named
  out=$work/$case/out16 batch 64 --roster "$work/$case/utf16.csv"
  says "$log" "utf16.csv:1: saved as UTF-16"
}

case_canvas_screenshot() {  # a screenshot whose name ends in a 13-digit number
  mkdir -p "$in"
  printf 'png' > "$in/tanakaai_106_9006_screenshot-1764633540123.png"
  taken "$in/tanakaai_106_9006_matmul.cu" "tanaka"
  batch 0 --from canvas
  rows "$header" "$(row 106 'build failed')"
  says "$out/feedback/106.md" "taken: tanaka"
}

case_canvas_merged_downloads() {  # two downloads in one folder: bob's older file and his newer
  mkdir -p "$in"
  taken "$in/builderbob_102_9002_matmul.cu" "older, broken"
  taken "$in/builderbob_LATE_102_9050_matmul.cu" "newer, fixed"
  taken "$in/carol_103_9003_matmul.cu" "carol's plain file"
  "$make_archives" --raw-zip "$in/carol_103_9040_Lab1.zip" c Lab1/matmul.cu '#error "taken: carol zip, newer"' || fail "zip"
  "$make_archives" --raw-zip "$in/carol_103_9070_shots.zip" c shot.png 'png' || fail "zip"
  batch 0 --from canvas
  rows "$header" "$(row 102 'build failed')" "$(row 103 'build failed')"
  says "$out/feedback/102.md" "taken: newer, fixed"
  says "$out/feedback/102.md" "took builderbob_LATE_102_9050_matmul.cu (the newest upload: Canvas file 9050), ignored builderbob_102_9002_matmul.cu"
  says "$out/feedback/103.md" "taken: carol zip, newer"
}

case_duplicate_by_lms_id() {  # a folder by course id beside one by LMS id: the newer by --times
  mkdir -p "$in"
  taken "$in/alice/matmul.cu" "alice folder, newer"
  taken "$in/111/matmul.cu" "111 folder, older"
  printf 'id,name,lms_id\nalice,Alice,111\n' > "$work/$case/roster.csv"
  deadline 2026-12-03T00:00:00Z
  printf 'id,submitted_at\nalice,2026-12-02T10:00:00Z\n111,2026-12-01T10:00:00Z\n' > "$work/$case/times.csv"
  batch 0 --roster "$work/$case/roster.csv" --config "$work/$case/course.toml" --times "$work/$case/times.csv"
  rows "$late_header" "$(row alice 'build failed' ',2026-12-02T10:00:00Z,0.00,0,0')"
  says "$out/feedback/alice.md" "taken: alice folder, newer"
  says "$out/feedback/alice.md" "took alice (the newest: submitted 2026-12-02T10:00:00Z), ignored 111"
  out=$work/$case/out-no-times batch 3 --roster "$work/$case/roster.csv"  # nothing says which: stop, named
  says "$log" "two submissions for student 'alice': 111 and alice"
}

case_gradescope_two_submissions() {  # one student in two submissions: the newer by :created_at:
  mkdir -p "$in"
  taken "$in/submission_1/matmul.cu" "submission 1, older"
  taken "$in/submission_2/matmul.cu" "submission 2, newer"
  printf 'submission_1:\n  :submitters:\n  - :sid: kim\n  :created_at: 2026-12-01 10:00:00.000000000 +00:00\n' > "$in/submission_metadata.yml"
  printf 'submission_2:\n  :submitters:\n  - :sid: kim\n  - :sid: kim\n  :created_at: 2026-12-02 10:00:00.000000000 +00:00\n' >> "$in/submission_metadata.yml"
  batch 0 --from gradescope  # kim twice in submission_2 (a group form filled twice) is one member
  rows "$header" "$(row kim 'build failed')"
  says "$out/feedback/kim.md" "taken: submission 2, newer"
}

case_gradescope_ids_and_paths() {  # an accented :sid:, an unlisted folder, a key that is a path
  mkdir -p "$in" "$work/$case/outside-secret"
  taken "$in/submission_3/matmul.cu" "jose by email"
  taken "$in/submission_4/matmul.cu" "unlisted"
  taken "$work/$case/outside-secret/matmul.cu" "SECRET from outside the export"
  printf 'submission_3:\n  :submitters:\n  - :name: Jos\xc3\xa9 N\xc3\xba\xc3\xb1ez\n    :sid: Jos\xc3\xa9 N\xc3\xba\xc3\xb1ez\n    :email: jnunez@uni.edu\n' > "$in/submission_metadata.yml"
  printf '../outside-secret:\n  :submitters:\n  - :sid: eve\n' >> "$in/submission_metadata.yml"
  batch 0 --from gradescope
  rows "$header" "$(row jnunez@uni.edu 'build failed')"
  says "$out/feedback/jnunez@uni.edu.md" "taken: jose by email"
  says "$log" "submission_4: a submission folder that submission_metadata.yml does not list"
  says "$log" "../outside-secret: in submission_metadata.yml, but not the name of a folder inside the export: refused"
  says "$out/results.json" "submission_4: a submission folder"
  never "$out/results.json" "SECRET"
}

case_gradescope_bad_metadata() {  # empty metadata; a :created_at: that is no time
  mkdir -p "$in/submission_1"
  : > "$in/submission_metadata.yml"
  batch 64 --from gradescope
  says "$log" "submission_metadata.yml: lists no submission"
  printf 'submission_1:\n  :submitters:\n  - :sid: kim\n  :created_at: {when: yesterday}\n' > "$in/submission_metadata.yml"
  batch 64 --from gradescope
  says "$log" "submission_metadata.yml: submission_1: :created_at: not a text value"
}

case_accented_folders() {  # folders named as people are: the roster's student, or an id made from the name
  mkdir -p "$in"
  taken "$in/"$'Jos\xc3\xa9 N\xc3\xba\xc3\xb1ez'"/matmul.cu" "jose"
  taken "$in/"$'\xce\x93\xce\xb9\xce\xac\xce\xbd\xce\xbd\xce\xb7\xcf\x82 \xce\xa0\xce\xb1\xcf\x80\xce\xb1\xce\xb4\xcf\x8c\xcf\x80\xce\xbf\xcf\x85\xce\xbb\xce\xbf\xcf\x82'"/matmul.cu" "giannis"
  printf 'id,name\nana,Ana\njnunez,Jos\xc3\xa9 N\xc3\xba\xc3\xb1ez\n' > "$work/$case/roster.csv"
  batch 0 --roster "$work/$case/roster.csv"
  rows "$header" "$(row Giannis_Papadopoulos 'build failed')" "$(row ana 'no submission')" "$(row jnunez 'build failed')"
  says "$out/feedback/jnunez.md" "taken: jose"
  says "$log" "is no usable id (letters, digits, . _ - @): graded as Giannis_Papadopoulos"
  utf8
}

case_moodle_latin1_names() {  # Moodle folders whose names were written in Latin-1
  mkdir -p "$in"
  taken "$in/"$'Jos\xe9 N\xfa\xf1ez_5678_assignsubmission_file_'"/matmul.cu" "moodle jose"
  batch 0 --from moodle
  rows "$header" "$(row 5678 'build failed')"
  utf8
  says "$out/moodle.csv" $'5678,5678,Jos\xc3\xa9 N\xc3\xba\xc3\xb1ez,0.00'
}

case_build_only_exports_no_grades() {  # a built student's LMS grade is left empty, not 0.00
  mkdir -p "$in/ana"
  taken "$in/ana/matmul.cu" "ana"
  kept ana built
  batch 0
  rows "$header" "$(row ana built)"
  grep -qx ',,ana,,,' "$out/canvas.csv" || fail "canvas.csv gives ana a grade: $(cat "$out/canvas.csv")"
  grep -qx 'ana,,,' "$out/moodle.csv" || fail "moodle.csv gives ana a grade: $(cat "$out/moodle.csv")"
}

case_interrupted_regrade() {  # Ctrl-C in a --regrade-all: every output holds the class; the rerun resumes
  local id
  for id in a b c d e; do taken "$in/$id/matmul.cu" "$id"; done
  local jobs=1
  batch 0
  : >"$log"  # empty before the wait below reads it: the first run's "[1/5]" must not be seen
  "$grader" batch matmul-tiled "$in" -o "$out" --build-only --seed 7 --jobs 1 --regrade-all >"$log" 2>&1 &
  local pid=$! waited=0
  until grep -q '^\[1/5\]' "$log" || [ $waited -ge 600 ]; do sleep 0.1; waited=$((waited + 1)); done
  kill -INT $pid
  wait $pid
  local rc=$?
  [ $rc = 130 ] || fail "the interrupted --regrade-all exited $rc, not 130: $(tail -3 "$log")"
  local all=("$header")
  for id in a b c d e; do all+=("$(row $id 'build failed')"); done
  rows "${all[@]}"
  [ "$(grep -c ',,,' "$out/canvas.csv")" = 5 ] || fail "canvas.csv does not hold the 5 students: $(cat "$out/canvas.csv")"
  batch 0 --regrade-all
  says "$log" "resuming the interrupted --regrade-all"
  never "$log" "[1/5]"
  rows "${all[@]}"
  batch 0 --regrade-all  # a regrade that ended leaves nothing to resume: all again
  says "$log" "[5/5]"
}

case_one_batch_per_folder() {  # a second batch on one results folder is refused; -o a file is a usage error
  mkdir -p "$in/ana" "$out"
  printf 'no code\n' > "$in/ana/notes.txt"
  exec 9>"$out/batch.lock"  # another batch's lock, held by this shell
  flock -n 9 || fail "could not take the lock"
  batch 3
  says "$log" "another grader batch is grading into"
  exec 9>&-
  batch 0
  rows "$header" "$(row ana 'missing file')"
  : > "$work/$case/a-file"
  out=$work/$case/a-file batch 64
  says "$log" "is a file, not a folder"
  out=$work/$case/a-file/results batch 64  # under a file: said as such, not a raw filesystem error
  says "$log" "a-file is a file, so no results folder can be made under it"
}

case_times_and_deadlines() {  # --times ids matching nobody are warned; a deadline without its offset names its file
  mkdir -p "$in/ana"
  printf 'no code\n' > "$in/ana/notes.txt"
  deadline 2026-12-03T00:00:00Z
  printf 'id,submitted_at\nzz1,2026-12-02T10:00:00Z\nzz2,2026-12-02T11:00:00Z\n' > "$work/$case/times.csv"
  batch 0 --config "$work/$case/course.toml" --times "$work/$case/times.csv"
  rows "$late_header" "$(row ana 'missing file' ',,0.00,0,0')"
  says "$log" "2 of its 2 ids match no submission and no roster row"
  deadline 2026-12-03T00:00:00
  out=$work/$case/out-no-offset batch 64 --config "$work/$case/course.toml"
  says "$log" "course.toml: [deadline] due: give its UTC offset"
}

case_duplicate_late_by_entry_times() {  # the newer entry taken by --times: its own time makes the late work
  mkdir -p "$in"
  taken "$in/"$'Jos\xc3\xa9 N\xc3\xba\xc3\xb1ez'"/matmul.cu" "named folder, newer"
  taken "$in/jnunez/matmul.cu" "id folder, older"
  printf 'id,name\njnunez,"N\xc3\xba\xc3\xb1ez, Jos\xc3\xa9"\n' > "$work/$case/roster.csv"
  deadline 2026-12-01T00:00:00Z
  printf 'id,submitted_at\nJos\xc3\xa9 N\xc3\xba\xc3\xb1ez,2026-12-03T10:00:00Z\njnunez,2026-12-01T10:00:00Z\n' \
    > "$work/$case/times.csv"
  batch 0 --roster "$work/$case/roster.csv" --config "$work/$case/course.toml" --times "$work/$case/times.csv"
  rows "$late_header" "$(row jnunez 'build failed' ',2026-12-03T10:00:00Z,58.00,0,0')"
  says "$out/feedback/jnunez.md" "taken: named folder, newer"
  never "$log" "match no submission"  # both keys told the entries apart: both were used
}

case_mac_and_cjk_names() {  # folders a Mac named (accents apart, NFD; Korean jamo), a Chinese name, a link
  mkdir -p "$in" "$work/$case/elsewhere"
  taken "$in/"$'Jose\xcc\x81 Nu\xcc\x81n\xcc\x83ez'"/matmul.cu" "jose, decomposed"
  taken "$in/"$'\xe7\x8e\x8b\xe5\xb0\x8f\xe6\x98\x8e'"/matmul.cu" "wang"
  taken "$in/"$'\xe1\x84\x80\xe1\x85\xb5\xe1\x86\xb7\xe1\x84\x86\xe1\x85\xb5\xe1\x86\xab'"/matmul.cu" "kim"
  taken "$work/$case/elsewhere/matmul.cu" "outside"
  (cd "$work/$case/elsewhere" && cmake -E tar cf secret.zip --format=zip matmul.cu)
  ln -s "$work/$case/elsewhere/secret.zip" "$in/erin.zip"
  printf 'id,name\njnunez,Jos\xc3\xa9 N\xc3\xba\xc3\xb1ez\nwxm,\xe7\x8e\x8b\xe5\xb0\x8f\xe6\x98\x8e\nkm,\xea\xb9\x80\xeb\xaf\xbc\nerin,Erin\n' \
    > "$work/$case/roster.csv"
  batch 0 --roster "$work/$case/roster.csv"
  rows "$header" "$(row erin 'no submission')" "$(row jnunez 'build failed')" "$(row km 'build failed')" \
    "$(row wxm 'build failed')"
  says "$out/feedback/jnunez.md" "taken: jose, decomposed"
  says "$out/feedback/wxm.md" "taken: wang"
  says "$out/feedback/km.md" "taken: kim"
  says "$log" "erin.zip: a link (links are not followed"
  never "$log" "not on the roster"
  utf8
}

case_canvas_tie_and_names() {  # one Canvas file id twice: named, not guessed; a name two students share
  mkdir -p "$in"
  taken "$in/ana_301_9001_matmul.cu" "ana plain"
  "$make_archives" --raw-zip "$in/ana_301_9001_Lab1.zip" c matmul.cu '#error "taken: ana zip"' || fail "zip"
  batch 3 --from canvas
  says "$log" "two uploads of student '301' with one Canvas file id (9001)"
  rm -rf "$in" && mkdir -p "$in"
  taken "$in/"$'Mar\xc3\xada Garc\xc3\xada'"/matmul.cu" "maria"
  taken "$in/sg/matmul.cu" "sg"
  printf 'id,name,lms_id\nmgarcia1,Mar\xc3\xada Garc\xc3\xada,\nmgarcia2,"Garc\xc3\xada, Mar\xc3\xada",\nsg,S G,201\n' \
    > "$work/$case/roster.csv"
  batch 0 --roster "$work/$case/roster.csv"
  says "$log" "is the name of 2 students (mgarcia1, mgarcia2): graded as Maria_Garcia"
  says "$out/results.json" "graded as Maria_Garcia, has this name: if it is theirs, rename it to mgarcia2"
  batch 0 --roster "$work/$case/roster.csv" --regrade 201  # the LMS id the run names: sg's
  never "$log" "no such submission"
}

case_mac_keys_and_moodle_files() {  # --times typed composed for names a Mac wrote decomposed; a Moodle file
  mkdir -p "$in"
  taken "$in/"$'Jose\xcc\x81 Nu\xcc\x81n\xcc\x83ez_5601_assignsubmission_file_'"/matmul.cu" "jose, decomposed, newer"
  taken "$in/Jose Nunez_5601_assignsubmission_file_/matmul.cu" "jose, plain, older"
  taken "$in/Ana Lopez2_5001_assignsubmission_file_/matmul.cu" "ana folder, older"
  taken "$in/"$'Ana Lo\xcc\x81pez_5001_assignsubmission_file_matmul.cu' "ana file, newer"
  deadline 2026-12-01T00:00:00Z
  printf 'id,submitted_at\n%s,2026-12-03T10:00:00Z\n%s,2026-12-01T10:00:00Z\n%s,2026-12-01T10:00:00Z\n%s,2026-12-04T10:00:00Z\n' \
    $'Jos\xc3\xa9 N\xc3\xba\xc3\xb1ez_5601_assignsubmission_file_' 'Jose Nunez_5601_assignsubmission_file_' \
    'Ana Lopez2_5001_assignsubmission_file_' $'Ana L\xc3\xb3pez_5001_assignsubmission_file_matmul.cu' > "$work/$case/times.csv"
  batch 0 --from moodle --config "$work/$case/course.toml" --times "$work/$case/times.csv"
  rows "$late_header" "$(row 5001 'build failed' ',2026-12-04T10:00:00Z,82.00,0,0')" \
    "$(row 5601 'build failed' ',2026-12-03T10:00:00Z,58.00,0,0')"
  says "$out/feedback/5601.md" "taken: jose, decomposed, newer"
  says "$out/feedback/5001.md" "taken: ana file, newer"
  never "$log" "match no submission"
  never "$log" "<file>"
}

case_marks_ids_and_links() {  # Arabic vowel and bidi marks; 23-digit Canvas ids; --regrade by name; -o a dead link
  mkdir -p "$in"
  taken "$in/"$'\xd9\x85\xd9\x8f\xd8\xad\xd9\x8e\xd9\x85\xd9\x8e\xd9\x91\xd8\xaf \xd8\xad\xd8\xb3\xd9\x86'"/matmul.cu" "mohamed, harakat"
  taken "$in/"$'\xe2\x80\x8f\xd8\xb3\xd8\xa7\xd8\xb1\xd8\xa9 \xd8\xa3\xd8\xad\xd9\x85\xd8\xaf'"/matmul.cu" "sara, RLM"
  taken "$in/"$'Jos\xc3\xa9 N\xc3\xba\xc3\xb1ez'"/matmul.cu" "jose"
  printf 'id,name\nmhasan,\xd9\x85\xd8\xad\xd9\x85\xd8\xaf \xd8\xad\xd8\xb3\xd9\x86\nsahmed,\xd8\xb3\xd8\xa7\xd8\xb1\xd8\xa9 \xd8\xa3\xd8\xad\xd9\x85\xd8\xaf\njnunez,"N\xc3\xba\xc3\xb1ez, Jos\xc3\xa9"\n' \
    > "$work/$case/roster.csv"
  batch 0 --roster "$work/$case/roster.csv"
  rows "$header" "$(row jnunez 'build failed')" "$(row mhasan 'build failed')" "$(row sahmed 'build failed')"
  says "$out/feedback/mhasan.md" "taken: mohamed, harakat"
  says "$out/feedback/sahmed.md" "taken: sara, RLM"
  batch 0 --roster "$work/$case/roster.csv" --regrade $'Jos\xc3\xa9 N\xc3\xba\xc3\xb1ez'  # the entry's own name
  never "$log" "no such submission"
  says "$log" "graded 1 submission"
  rm -rf "$in" "$out" && mkdir -p "$in"
  taken "$in/a_201_99999999999999999999998_matmul.cu" "older"
  taken "$in/a_201_99999999999999999999999_matmul.cu" "newer"
  ln -s /etc/hostname "$in/a_201_100000000000000000000000_matmul.cu"  # the newest upload, a link
  batch 0 --from canvas
  says "$out/feedback/201.md" "taken: newer"
  says "$out/feedback/201.md" "not graded: a_201_100000000000000000000000_matmul.cu, a link"
  says "$log" "Canvas file 99999999999999999999999"
  ln -s "$work/$case/nowhere" "$work/$case/dead"
  out=$work/$case/dead/sub batch 64 --from canvas
  says "$log" "is a link to $work/$case/nowhere, which does not exist"
}

case_vietnamese_case_and_groups() {  # composed Vietnamese names; ids in another case; a group regraded; a new upload
  mkdir -p "$in"
  taken "$in/"$'Nguy\xe1\xbb\x85n V\xc4\x83n \xc4\x90\xe1\xbb\xa9c'"/matmul.cu" "duc, composed"
  taken "$in/Ana.Lopez@Uni.EDU/matmul.cu" "ana, e-mail in capitals"
  taken "$in/A0123456X/matmul.cu" "bo, id in capitals"
  printf 'id,name,email\nnvduc,Nguy\xe1\xbb\x85n V\xc4\x83n \xc4\x90\xe1\xbb\xa9c,\nalopez,Ana Lopez,ana.lopez@uni.edu\na0123456x,Bo,\n' \
    > "$work/$case/roster.csv"
  batch 0 --roster "$work/$case/roster.csv"
  rows "$header" "$(row a0123456x 'build failed')" "$(row alopez 'build failed')" "$(row nvduc 'build failed')"
  says "$log" "Ana.Lopez@Uni.EDU is the e-mail of alopez"
  rm -rf "$in" "$out" && mkdir -p "$in"
  taken "$in/submission_101/matmul.cu" "group, first"
  printf 'submission_101:\n  :submitters:\n  - :sid: ana\n  - :sid: bob\n  :created_at: 2026-12-01 10:00:00.000000000 +00:00\n' > "$in/submission_metadata.yml"
  batch 0 --from gradescope
  batch 0 --from gradescope --regrade submission_101  # the group's entry: every member, files unchanged
  says "$log" "graded 2 submissions"
  never "$log" "no such submission"
  rm -rf "$in" "$out" && mkdir -p "$in"
  taken "$in/picard_303_9003_matmul.cu" "older upload"
  batch 0 --from canvas
  taken "$in/picard_LATE_303_9200_matmul-1.cu" "newer upload"
  batch 0 --from canvas  # no --regrade: the kept result is of another file than the one taken now
  says "$log" "303: its submission changed since it was graded"
  says "$out/feedback/303.md" "taken: newer upload"
  printf 'id,name,lms_id\njlp,Jean-Luc Picard,303\n' > "$work/$case/roster2.csv"
  deadline 2026-12-01T00:00:00Z  # the LMS's export by its id, then a correction by the course's
  printf 'id,submitted_at\n303,2026-12-04T10:00:00Z\njlp,2026-12-02T10:00:00Z\n' > "$work/$case/times.csv"
  batch 64 --from canvas --roster "$work/$case/roster2.csv" --config "$work/$case/course.toml" --times "$work/$case/times.csv"
  says "$log" "--times gives jlp two times"
}

case_times_changed_between_runs() {  # a corrected --times: every output follows; the warning counts rows
  mkdir -p "$in"
  taken "$in/picard_303_9003_matmul.cu" "picard"
  deadline 2026-12-01T00:00:00Z
  printf 'id,submitted_at\n303,2026-12-01T10:00:00Z\nzzz,2026-12-01T10:00:00Z\n' > "$work/$case/times.csv"
  batch 0 --from canvas --config "$work/$case/course.toml" --times "$work/$case/times.csv"
  says "$log" "1 of its 2 ids match no submission"
  printf 'id,submitted_at\n303,2026-12-05T10:00:00Z\n' > "$work/$case/times.csv"
  batch 0 --from canvas --config "$work/$case/course.toml" --times "$work/$case/times.csv"
  rows "$late_header" "$(row 303 'build failed' ',2026-12-05T10:00:00Z,106.00,0,0')"
  says "$out/students/303.json" "2026-12-05T10:00:00Z"
  never "$out/students/303.json" "2026-12-01T10:00:00Z"
}

cases=(latin1_source windows_zip utf8_zip roster_windows_1252 canvas_screenshot canvas_merged_downloads
       duplicate_by_lms_id gradescope_two_submissions gradescope_ids_and_paths gradescope_bad_metadata
       accented_folders moodle_latin1_names build_only_exports_no_grades interrupted_regrade
       one_batch_per_folder times_and_deadlines duplicate_late_by_entry_times mac_and_cjk_names
       canvas_tie_and_names mac_keys_and_moodle_files marks_ids_and_links vietnamese_case_and_groups
       times_changed_between_runs)
for case in "${cases[@]}"; do
  [ ${#only[@]} -eq 0 ] || [[ " ${only[*]} " == *" $case "* ]] || continue
  rm -rf "${work:?}/$case"
  mkdir -p "$work/$case"
  in=$work/$case/in out=$work/$case/out log=$work/$case/log
  before=$failures
  "case_$case"
  ran=$((ran + 1))
  [ $failures = "$before" ] && echo "ok: $case"
done
echo "$ran cases, $failures failures"
[ $failures = 0 ]
