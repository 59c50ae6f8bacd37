#!/usr/bin/env python3
"""The class of tests/batch/course-class.sh (issue 34): builds it, and checks what `grader batch`
made of it, against the table tests/batch/course-class.tsv.
    course_class.py make <source-root> <class-dir>
    course_class.py check <class-dir> <results-root> [--build-only]
<class-dir>/<section>/ is a section's submissions as its LMS downloads them, with
<class-dir>/roster-<section>.csv beside it; <results-root>/<section>/ is the batch's results
folder and <results-root>/<section>.log its output (standard output and error)."""
import csv
import io
import json
import os
import re
import shutil
import sys
import tarfile
import tempfile
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
TABLE = os.path.join(HERE, 'course-class.tsv')
SECTIONS = {'lyon': 'canvas', 'arequipa': 'moodle', 'athens': 'folders'}  # section: its --from
LAB = 'matmul-tiled'
ASSIGNMENT = 'Lab 1: matmul (12345)'
NO_GRADE = {'no submission', 'built', 'no GPU', 'grader error', 'slurm failed'}  # an empty LMS cell
# The statuses a run without a GPU gives as a GPU run would (a build failure is final: its 0 is a
# grade, exported by --build-only too); with --build-only, every other student is `built`.
NEVER_BUILT = {'build failed', 'no submission', 'missing file', 'rejected'}

sys.path.insert(0, os.path.join(HERE, '..', 'realcode'))
import make_submissions  # noqa: E402  (the real-code fixtures' construction, reused)


def table():
    students, skips, tooks, says = [], [], [], []
    for line in open(TABLE, encoding='utf-8'):
        if line.startswith('#') or not line.strip():
            continue
        cols = line.rstrip('\n').split('\t')
        if cols[0] == 'student':
            section, sid, lms, name, code, status, points = cols[1:8]
            lo, _, hi = points.partition('-')
            students.append(dict(section=section, id=sid, lms='' if lms == '-' else lms, name=name, code=code,
                                 status=status, lo=float(lo), hi=float(hi or lo)))
        elif cols[0] == 'skip':
            skips.append(dict(section=cols[1], text=cols[2]))
        elif cols[0] == 'took':
            tooks.append(dict(section=cols[1], id=cols[2], text=cols[3]))
        elif cols[0] == 'says':
            says.append(dict(section=cols[1], where=cols[2], text=cols[3]))
        else:
            raise SystemExit(f'{TABLE}: unknown row {cols[0]}')
    return students, skips, tooks, says


# ---- the code each student sent ------------------------------------------------------------------

class Code:
    def __init__(self, src):
        self.src = src
        self.reference = make_submissions.solution_text(f'{src}/solutions/{LAB}/matmul.cu')
        self.starter = open(f'{src}/labs/{LAB}/matmul.cu').read()
        self.tmp = tempfile.mkdtemp(prefix='course-class-')
        self.expected = {}  # realcode fixture: (status, points) as tests/realcode/expected.tsv says
        for line in open(f'{HERE}/../realcode/expected.tsv'):
            cols = line.rstrip('\n').split('\t')
            if cols[0] == LAB:
                self.expected[cols[1]] = (cols[2], cols[3])

    def realcode(self, fixture):
        paths = make_submissions.build(self.src, LAB, f'{HERE}/../realcode/fixtures/{LAB}/{fixture}.cu.in', self.tmp)
        return open(paths[0]).read()

    def text(self, code):
        if code == 'reference':
            return self.reference
        if code in ('starter', 'broken'):
            return self.starter if code == 'starter' else self.reference
        if code.startswith('realcode:'):
            return self.realcode(code.split(':', 1)[1])
        raise SystemExit(f'{TABLE}: unknown code {code}')


def commented(text, lines, encoding, crlf=False):
    """The code with a header of comments in a course's language, saved in that course's encoding."""
    out = ''.join(f'// {line}\n' for line in lines) + text
    if crlf:
        out = out.replace('\n', '\r\n')
    return out.encode(encoding)


def broken(reference):
    """A French student's accented identifier, in Latin-1, inside the tiled kernel: nvcc stops on
    that line, and its error quotes it (a Latin-1 line in the compiler's output)."""
    m = re.search(r'^__global__ void tiledKernel\([^)]*\) \{\n', reference, re.M)
    if not m:
        raise SystemExit('broken: no tiledKernel definition in the reference')
    line = '  const int c\u00f4t\u00e9 = TILE_WIDTH;  // c\u00f4t\u00e9 de la tuile, en \u00e9l\u00e9ments\n'
    return commented(reference[:m.end()] + line + reference[m.end():],
                     ['TP 1 : produit matriciel par tuiles (\u00c9lo\u00efse Moreau)'], 'latin-1')


class WindowsZipInfo(zipfile.ZipInfo):
    """An entry as Windows Explorer writes it: the name in the OEM code page (CP437 here), without
    the UTF-8 flag."""
    def _encodeFilenameFlags(self):
        return self.filename.encode('cp437'), self.flag_bits & ~0x800


def windows_zip(path, entries):
    with zipfile.ZipFile(path, 'w', zipfile.ZIP_DEFLATED) as z:
        for name, data in entries:
            info = WindowsZipInfo(name, date_time=(2026, 12, 1, 22, 14, 0))
            info.create_system = 0  # MS-DOS, as Explorer
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, data)


PNG = b'\x89PNG\r\n\x1a\n' + b'\x00' * 64  # a screenshot's first bytes are enough here

FR = ['TP 1 : multiplication de matrices, version na\u00efve puis par tuiles en m\u00e9moire partag\u00e9e.',
      'Remarque : chaque bloc calcule une tuile de C ; les \u00e9l\u00e9ments hors limites valent 0.']
ES = ['Pr\u00e1ctica 1: multiplicaci\u00f3n de matrices (versi\u00f3n ingenua y por bloques).',
      'Autor: Jos\u00e9 N\u00fa\u00f1ez. Cada bloque calcula una tesela de C; el \u00edndice k recorre la fase.']
EL = ['\u0386\u03c3\u03ba\u03b7\u03c3\u03b7 1: \u03c0\u03bf\u03bb\u03bb\u03b1\u03c0\u03bb\u03b1\u03c3\u03b9\u03b1\u03c3\u03bc\u03cc\u03c2 '
      '\u03c0\u03b9\u03bd\u03ac\u03ba\u03c9\u03bd \u03bc\u03b5 \u03c0\u03bb\u03b1\u03ba\u03af\u03b4\u03b9\u03b1.']


def write(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    open(path, 'wb').write(data if isinstance(data, bytes) else data.encode('utf-8'))


def make(src, root):
    students, _, _, _ = table()
    code = Code(src)
    by_id = {s['id']: s for s in students}
    for s in students:  # the table's realcode rows must say what tests/realcode/expected.tsv says
        if s['code'].startswith('realcode:'):
            status, points = code.expected[s['code'].split(':', 1)[1]]
            if status != s['status'] or points != f"{s['lo']:g}-{s['hi']:g}":
                raise SystemExit(f"{TABLE}: {s['id']}: {s['code']} is {status} {points} in tests/realcode/expected.tsv")
    shutil.rmtree(root, ignore_errors=True)

    def c(sid):
        return code.text(by_id[sid]['code'])

    # Lyon: Canvas's "Download Submissions", unzipped: <name>_[LATE_]<user id>_<submission id>_<file>.
    d = f'{root}/lyon'
    write(f'{d}/tanakaai_106_9006_matmul.cu', commented(c('atanaka'), FR, 'latin-1'))
    write(f'{d}/tanakaai_106_9006_screenshot-1764633540123.png', PNG)
    write(f'{d}/dupontzoe_107_9007_matmul.cu', code.starter)  # the first upload: the starter
    write(f'{d}/dupontzoe_LATE_107_9017_matmul-1.cu', commented(c('zdupont'), FR, 'latin-1'))  # resubmitted
    write(f'{d}/lefebvrechloe_108_9008_matmul.cu', c('clefebvre'))
    write(f'{d}/moreaueloise_110_9010_matmul.cu', broken(code.reference))
    write(f'{d}/bernardhugo_111_9011_matmul.cu', c('hbernard'))
    write(f'{d}/girardleo_112_9002_matmul.cu', code.starter)  # older than his zip
    windows_zip(f'{d}/girardleo_112_9022_Lab1.zip', [
        ('L\u00e9o Girard/matmul.cu', commented(c('lgirard'), FR, 'latin-1', crlf=True)),
        ('L\u00e9o Girard/capture d\'\u00e9cran.png', PNG)])
    write(f'{d}/girardleo_112_9023_screenshot-1764633540123.png', PNG)
    write(f'{d}/nguyenthuy_113_9013_matmul.cu', c('tnguyen'))
    write(f'{d}/rouxmaelle_LATE_114_9014_matmul.cu', c('mroux'))
    # Excel in France: Windows-1252, ';' between fields, CRLF.
    roster('lyon', students, f'{root}/roster-lyon.csv', 'cp1252', ';', bom=False)

    # Arequipa: Moodle's "Download all submissions", in folders; one folder's name in Latin-1
    # (as an unzip without a UTF-8 locale leaves it).
    d = f'{root}/arequipa'
    f = '_assignsubmission_file_'
    write(f'{d}/Jos\u00e9 N\u00fa\u00f1ez_5601{f}/matmul.cu', commented(c('jnunez'), ES, 'latin-1'))
    os.makedirs(f'{d}/Mar\u00eda Quispe_5602{f}')
    windows_zip(f'{d}/Mar\u00eda Quispe_5602{f}/Lab1.zip', [
        ('Tarea de Mar\u00eda/matmul.cu', commented(c('mquispe'), ES, 'latin-1', crlf=True)),
        ('Tarea de Mar\u00eda/notas-caf\u00e9.txt', 'compil\u00e9 con nvcc'.encode('latin-1'))])
    write(f'{d}/\u00d1usta Mamani_5603{f}/matmul.cu', c('nmamani'))
    write(f'{d}/Ren\u00e9e Condori_5604{f}/matmul.cu', c('rcondori'))
    latin1_folder = os.fsencode(d) + b'/I\xf1igo Huam\xe1n_5605' + f.encode()
    os.makedirs(latin1_folder)
    open(latin1_folder + b'/matmul.cu', 'w').write(c('ihuaman'))
    write(f'{d}/Ana Bel\u00e9n Flores_5606{f}/matmul.cu', c('aflores'))
    write(f'{d}/Ana Bel\u00e9n Flores_5606_assignsubmission_onlinetext_/onlinetext.html', '<p>ver el archivo</p>\n')
    roster('arequipa', students, f'{root}/roster-arequipa.csv', 'cp1252', ',', bom=False)

    # Athens: folders and archives named by the students, as they sent them.
    d = f'{root}/athens'
    write(f'{d}/\u0394\u03b7\u03bc\u03ae\u03c4\u03c1\u03b7\u03c2 \u03a0\u03b1\u03c0\u03b1\u03b4\u03cc\u03c0\u03bf\u03c5\u03bb\u03bf\u03c2/matmul.cu',
          commented(c('dpapadopoulos'), EL, 'utf-8'))
    os.makedirs(d, exist_ok=True)
    windows_zip(f'{d}/Zo\u00eb Lef\u00e8vre.zip', [('Zo\u00eb Lef\u00e8vre/matmul.cu', commented(c('zlefevre'), FR, 'latin-1'))])
    write(f'{d}/kpetrou/matmul.cu', commented(c('kpetrou'), EL, 'cp1253'))  # a Greek Windows editor's encoding
    cp437_folder = os.fsencode(d) + b'/' + 'Lo\u00efc Martin'.encode('cp437')
    os.makedirs(cp437_folder)  # what unzip leaves of a Windows zip's folder
    open(cp437_folder + b'/matmul.cu', 'w').write(c('lmartin'))
    write(f'{d}/egeorgiou/matmul.cu', c('egeorgiou'))
    data = c('nalexiou').encode()
    with tarfile.open(f'{d}/nalexiou.tgz', 'w:gz') as t:
        info = tarfile.TarInfo('nalexiou/lab1/matmul.cu')
        info.size = len(data)
        t.addfile(info, io.BytesIO(data))
    write(f'{d}/notas.txt', 'los apuntes del curso\n')
    # Excel's "CSV UTF-8" (a byte-order mark) in Greece: ';' between fields.
    roster('athens', students, f'{root}/roster-athens.csv', 'utf-8', ';', bom=True)
    shutil.rmtree(code.tmp, ignore_errors=True)
    n = sum(1 for s in students if s['code'] != 'none')
    print(f'course-class: {n} submissions in {len(SECTIONS)} sections ({", ".join(f"{k}: {v}" for k, v in SECTIONS.items())}) '
          f'under {root}, rosters {", ".join(f"roster-{k}.csv" for k in SECTIONS)}')


def roster(section, students, path, encoding, sep, bom):
    buf = io.StringIO()
    w = csv.writer(buf, delimiter=sep, lineterminator='\r\n')
    w.writerow(['id', 'name', 'lms_id'])
    for s in students:
        if s['section'] == section:
            w.writerow([s['id'], s['name'], s['lms']])
    write(path, (b'\xef\xbb\xbf' if bom else b'') + buf.getvalue().encode(encoding))


# ---- the check ----------------------------------------------------------------------------------

def points(text):
    return float(text) if text not in ('', None) else None


def check(root, results, build_only):
    students, skips, tooks, says = table()
    problems = []

    def bad(section, what):
        problems.append(f'{section}: {what}')

    for section in SECTIONS:
        out, log_path = f'{results}/{section}', f'{results}/{section}.log'
        roster = [s for s in students if s['section'] == section]
        ids = [s['id'] for s in roster]
        log = open(log_path, encoding='utf-8', errors='replace').read() if os.path.exists(log_path) else ''
        for name in ['gradebook.csv', 'results.json', 'canvas.csv', 'moodle.csv']:
            if not os.path.exists(f'{out}/{name}'):
                bad(section, f'no {name}')
        if any(p.startswith(section + ': no ') for p in problems):
            continue
        for dirpath, _, files in os.walk(out):  # every file the batch wrote for the class is UTF-8
            if '/work' in dirpath[len(out):] or '/similarity' in dirpath[len(out):] or '/lms' in dirpath[len(out):]:
                continue
            for name in files:
                if name.endswith(('.csv', '.json', '.md')):
                    try:
                        open(os.path.join(dirpath, name), encoding='utf-8').read()
                    except UnicodeDecodeError as e:
                        bad(section, f'{os.path.join(dirpath, name)} is not UTF-8: {e}')

        # gradebook.csv: every roster student exactly once, nobody else; each status as expected.
        book = list(csv.DictReader(open(f'{out}/gradebook.csv', encoding='utf-8', newline='')))
        got = [r['student'] for r in book]
        for sid in ids:
            if got.count(sid) != 1:
                bad(section, f'gradebook.csv has {got.count(sid)} rows for {sid}')
        for sid in sorted(set(got) - set(ids)):
            bad(section, f'gradebook.csv has a row for {sid}, who is not on the roster')
        rows = {r['student']: r for r in book}
        want = {}
        for s in roster:
            status = s['status']
            if build_only and status not in NEVER_BUILT:
                status = 'built'
            lo, hi = (0, 0) if build_only else (s['lo'], s['hi'])
            want[s['id']] = (status, lo, hi)
            r = rows.get(s['id'])
            if not r:
                continue
            if r['status'] not in status.split('|'):
                bad(section, f"{s['id']} ({s['code']}) is '{r['status']}', expected '{status}'")
            total = points(r['total'])
            if total is None or not lo - 1e-6 <= total <= hi + 1e-6:
                bad(section, f"{s['id']} ({s['code']}) has {r['total']} points, expected {lo:g}-{hi:g}")

        # results.json: the same students, statuses and points; the skips named.
        doc = json.load(open(f'{out}/results.json', encoding='utf-8'))
        js = [x['student'] for x in doc.get('students', [])]
        if sorted(js) != sorted(got):
            bad(section, f'results.json lists {sorted(js)}, gradebook.csv {sorted(got)}')
        details = {}
        for x in doc.get('students', []):
            r = rows.get(x['student'])
            details[x['student']] = '\n'.join([x.get('detail') or ''] + list(x.get('notes') or []))
            for note in x.get('notes') or []:  # the feedback's notes name the id the student is graded under
                m = re.search(r'graded as (\S+)$', note)
                if m and m.group(1) != x['student']:
                    bad(section, f"{x['student']}'s notes say '{note}'")
            if not r:
                continue
            if x['status'] != r['status']:
                bad(section, f"{x['student']}: results.json says '{x['status']}', gradebook.csv '{r['status']}'")
            p = x.get('report', {}).get('points')
            if p is None or abs(float(p) - points(r['total'])) > 0.006:
                bad(section, f"{x['student']}: results.json has {p} points, gradebook.csv {r['total']}")
        skipped_json = '\n'.join(str(v) for v in doc.get('run', {}).get('skipped', []))  # results.json's run.skipped

        # canvas.csv (matched by SIS User ID, the course's id; ID the Canvas user id) and moodle.csv
        # (matched by ID number; User id the LMS id): the same points, an empty cell where no grade.
        for lms, key, lms_key, name_key in [('canvas.csv', 'SIS User ID', 'ID', 'Student'),
                                            ('moodle.csv', 'ID number', 'User id', 'Full name')]:
            table_rows = list(csv.DictReader(open(f'{out}/{lms}', encoding='utf-8', newline='')))
            header = list(table_rows[0].keys()) if table_rows else []
            if ASSIGNMENT not in header:
                bad(section, f'{lms} has no column "{ASSIGNMENT}": {header}')
                continue
            keyed = {}
            for r in table_rows:
                keyed.setdefault(r[key], []).append(r)
            for sid in sorted(set(keyed) - set(ids)):
                bad(section, f'{lms} has a row for {sid}, who is not on the roster')
            for s in roster:
                rs = keyed.get(s['id'], [])
                if len(rs) != 1:
                    bad(section, f"{lms} has {len(rs)} rows for {s['id']}")
                    continue
                r, g = rs[0], rows.get(s['id'])
                if r[lms_key] != s['lms']:
                    bad(section, f"{lms}: {s['id']}'s {lms_key} is '{r[lms_key]}', expected '{s['lms']}'")
                if r[name_key] != s['name']:
                    bad(section, f"{lms}: {s['id']}'s {name_key} is '{r[name_key]}', expected '{s['name']}'")
                if not g:
                    continue
                cell = r[ASSIGNMENT]
                if g['status'] in NO_GRADE:
                    if cell != '':
                        bad(section, f"{lms} gives {s['id']} ({g['status']}) the grade '{cell}': no grade is to be exported")
                elif points(cell) is None or abs(points(cell) - points(g['total'])) > 0.006:
                    bad(section, f"{lms} gives {s['id']} '{cell}', gradebook.csv {g['total']}")

        # feedback and Gradescope's results per student.
        for s in roster:
            g = rows.get(s['id'])
            if s['status'] != 'no submission' and not os.path.exists(f"{out}/feedback/{s['id']}.md"):
                bad(section, f"no feedback/{s['id']}.md")
            gs = f"{out}/gradescope/{s['id']}/results.json"
            if not build_only and g and g['status'] not in NO_GRADE:
                if not os.path.exists(gs):
                    bad(section, f"no gradescope/{s['id']}/results.json")
                elif abs(float(json.load(open(gs, encoding='utf-8'))['score']) - points(g['total'])) > 0.006:
                    bad(section, f"gradescope/{s['id']}/results.json's score is not gradebook.csv's {g['total']}")

        # The run's words: every skip in the end-of-run summary (and nothing else skipped), every
        # duplicate's choice in the run's output and the student's feedback.
        summary = log[log.rfind('\ngraded '):] if '\ngraded ' in log else ''
        if not summary:
            bad(section, f'{log_path} has no end-of-run summary ("graded N submissions ...")')
        mine = [k['text'] for k in skips if k['section'] == section]
        m = re.search(r'^skipped (\d+) entr', summary, re.M)
        if (int(m.group(1)) if m else 0) != len(mine):
            bad(section, f"the summary names {m.group(1) if m else 0} skipped entries, the table {len(mine)}")
        for text in mine:
            if text not in summary:
                bad(section, f"the summary does not name the skipped '{text}'")
            if text not in skipped_json:
                bad(section, f"results.json's \"skipped\" does not name '{text}'")
        for t in tooks:
            if t['section'] != section:
                continue
            if f"two entries for {t['id']}: {t['text']}" not in log:
                bad(section, f"the run does not say 'two entries for {t['id']}: {t['text']}'")
            fb = f"{out}/feedback/{t['id']}.md"
            if t['text'] not in (open(fb, encoding='utf-8').read() if os.path.exists(fb) else ''):
                bad(section, f"feedback/{t['id']}.md does not say '{t['text']}'")
        for t in says:
            if t['section'] != section:
                continue
            where = t['where']
            if where == 'log':
                text = log
            elif where.startswith('detail:'):
                text = details.get(where.split(':', 1)[1], '')
            elif where.startswith('feedback:'):
                fb = f"{out}/feedback/{where.split(':', 1)[1]}.md"
                text = open(fb, encoding='utf-8').read() if os.path.exists(fb) else ''
            else:
                raise SystemExit(f'{TABLE}: unknown place {where}')
            if t['text'] not in text:
                bad(section, f"{where} does not say '{t['text']}'")

        counts = {}
        for r in book:
            counts[r['status']] = counts.get(r['status'], 0) + 1
        print(f"{section} ({SECTIONS[section]}): {len(book)} rows: "
              + ', '.join(f'{n} {k}' for k, n in sorted(counts.items())))
        for r in book:
            print(f"  {r['student']:16} {r['status']:14} {r['total']:>6}   expected {want.get(r['student'], ('?', 0, 0))[0]}")

    total = sum(1 for s in students)
    for p in problems:
        print('FAILED:', p)
    print(f"course-class: {total} roster students in {len(SECTIONS)} sections, {len(problems)} problems"
          + (' (--build-only)' if build_only else ''))
    return 1 if problems else 0


def main():
    if len(sys.argv) >= 4 and sys.argv[1] == 'make':
        make(os.path.abspath(sys.argv[2]), sys.argv[3])
    elif len(sys.argv) >= 4 and sys.argv[1] == 'check':
        sys.exit(check(sys.argv[2], sys.argv[3], '--build-only' in sys.argv[4:]))
    else:
        raise SystemExit(__doc__)


if __name__ == '__main__':
    main()
