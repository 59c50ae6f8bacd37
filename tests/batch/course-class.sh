#!/usr/bin/env bash
# A real course's class of 20 matmul-tiled submissions, graded end to end (issue 34, "Must show":
# on the H100). Three sections, each as its LMS downloads it, each with its own roster:
#   lyon      a Canvas download (--from canvas): files <name>_[LATE_]<user id>_<submission id>_<file>,
#             a resubmission's -1, screenshots beside the code, a Windows zip (CP437 names, an
#             accented folder) newer than the same student's older .cu; the roster as Excel saves
#             plain CSV in France (Windows-1252, ';', CRLF, no BOM);
#   arequipa  a Moodle download (--from moodle): a folder per student, one named in Latin-1, a
#             Windows zip inside one, an online-text folder (skipped, named); Latin-1 sources; the
#             roster in Windows-1252 with ','; one student on it sent nothing;
#   athens    folders and archives named as the students are (Δημήτρης Παπαδόπουλος/, Zoë Lefèvre.zip,
#             Loïc Martin/ in CP437 bytes, a .tgz), a source in Windows-1253, a stray notas.txt;
#             the roster as "CSV UTF-8" (BOM, ';').
# The code: copies of the reference (solutions/matmul-tiled/matmul.cu without its starter
# markers), the shipped starter, the real-code fixtures (tests/realcode/make_submissions.py) and
# one Latin-1 source with a compile error on an accented line, so the grades vary.
# tests/batch/course-class.tsv says what each student must get and what the runs must name;
# tests/batch/course_class.py builds the class from it and checks: every roster student exactly
# one row with the expected status and points; gradebook.csv, results.json, canvas.csv (by
# SIS User ID and ID) and moodle.csv (by ID number and User id) agree on every student's points
# and name (in UTF-8 whatever the roster's encoding), and leave no grade where none is due;
# feedback/<id>.md for each who sent something (and gradescope/<id>/results.json's score); the
# notes name the id each is graded under; every output UTF-8; every skipped entry in the
# end-of-run summary and results.json; every duplicate's choice said, in the run and the feedback.
#
#   tests/batch/course-class.sh [--build-only] <grader-binary> <work-dir> [-j N]
# Full (a GPU machine): -j 16 by default, a 120 s --timeout and the real-code runs' 30 s call
# limit; prints each batch's time line. --build-only (no GPU): compiles every submission, grades
# nothing (-j 2 by default); the check is then that every roster student is built or named (build
# failed, no submission) and that no grade is exported (0 points, empty LMS cells; only the build
# failure's 0, final without a GPU, is a grade).
# --build-only takes about 35 s on 2 cores (19 compiles with nvcc, one CMake configure per
# section), short enough for the CPU CTest suite, but it is not registered there yet (that is
# tests/CMakeLists.txt's, outside this script). Exit 0 when everything agrees, 1 otherwise.
set -uo pipefail
build_only=()
if [ "${1:-}" = --build-only ]; then build_only=(--build-only); shift; fi
[ $# -ge 2 ] || { sed -n '2,/^set -uo/p' "$0" | sed '$d'; exit 64; }
grader=$(cd "$(dirname "$1")" && pwd)/$(basename "$1") work=$2
shift 2
jobs=16
[ ${#build_only[@]} -eq 0 ] || jobs=2
if [ "${1:-}" = -j ] && [ -n "${2:-}" ]; then jobs=$2; shift 2; fi
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
[ -x "$grader" ] || { echo "course-class: $grader is not a program"; exit 64; }
# The work folder is this script's own: made afresh each run, never a folder of something else.
if [ -e "$work" ] && [ ! -e "$work/.course-class" ] && [ -n "$(ls -A "$work" 2>/dev/null)" ]; then
  echo "course-class: $work holds something else; give a new or empty folder"; exit 64
fi
rm -rf "$work"
mkdir -p "$work/results"
: > "$work/.course-class"
work=$(cd "$work" && pwd)
python3 "$here/course_class.py" make "$root" "$work/class" || { echo "FAILED: building the class"; exit 1; }
printf '[lab]\ncall_timeout_s = 30\n' > "$work/short.toml"  # as tests/realcode/run-on-gpu.sh grades the fixtures

status=0
start=$(date +%s)
for section in lyon:canvas arequipa:moodle athens:folders; do
  name=${section%%:*} from=${section#*:}
  echo "== $name: grader batch matmul-tiled --from $from -j $jobs ${build_only[*]}"
  t0=$(date +%s)
  # -o outside the submissions; the seed fixed so a rerun grades the same inputs.
  "$grader" batch matmul-tiled "$work/class/$name" -o "$work/results/$name" --from "$from" \
    --roster "$work/class/roster-$name.csv" --lms-assignment "Lab 1: matmul (12345)" --seed 2026 -j "$jobs" \
    --config "$work/short.toml" --timeout 120 "${build_only[@]}" >"$work/results/$name.log" 2>&1
  rc=$?
  echo "   exit $rc after $(( $(date +%s) - t0 )) s; log $work/results/$name.log"
  grep -E '^(graded |time: |skipped |  )' "$work/results/$name.log" | grep -v '^  [^ ]*$' | sed 's/^/   /'
  [ $rc -eq 0 ] || { echo "FAILED: $name: grader batch exited $rc: $(tail -5 "$work/results/$name.log")"; status=1; }
done
echo "== the check ($(( $(date +%s) - start )) s of batches)"
python3 "$here/course_class.py" check "$work/class" "$work/results" "${build_only[@]}" || status=1
exit $status
