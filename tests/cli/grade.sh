#!/bin/sh
# grade.sh BUILD_DIR: the grading recipe of docs/GRADING.md, end to end. Makes 30 submissions of
# the gemm4 lab (tests/grade/make-submissions.py: right, different but correct, wrong values,
# racy, malformed, too slow), hidden inputs, and the reference from the teacher's solution
# (tests/grade/solution.s, sasim run --output-dir); grades the folder with scripts/grade in one
# command; then checks every CSV row: the status the generator meant, the cycles `sasim run`
# gives that program on the hidden inputs (empty where it did not run to the end), the race
# report count. Also: the summary's counts, the same CSV at -j 1 and -j 4, per-student logs,
# a second test case (--case), the wall-clock limit, --arch, the CSV written whole or not at
# all, usage errors.
set -u
B=${1:-build}
SASIM=$B/bin/sasim
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
CLI_PREFIX=grade
. tests/cli/lib.sh
GRADE="python3 scripts/grade --sasim $SASIM"
NPY="python3 tests/grade/npy.py"

if ! python3 tests/grade/make-submissions.py "$SASIM" "$T/subs" >"$T/gen.err" 2>&1; then
  fail setup "make-submissions.py: $(head -c 300 "$T/gen.err")"; exit 1
fi
$NPY "$T/A.npy" int8 4,4 --range -7 5 256 && $NPY "$T/B.npy" int8 4,4 --range 9 -3 256
$SASIM asm tests/grade/solution.s -o "$T/sol.bin" >/dev/null 2>&1 &&
  $SASIM run "$T/sol.bin" --input A="$T/A.npy" --input B="$T/B.npy" --output-dir "$T/ref" >/dev/null 2>&1 ||
  fail setup "the teacher's solution does not assemble or run"
ARGS="--input A=$T/A.npy --input B=$T/B.npy --expect C=$T/ref/C.npy --max-cycles 200 --arch docs/exercises/files/ex-2x2.json"

$GRADE "$T/subs" $ARGS -j 2 -o "$T/grades.csv" --logs "$T/logs" >"$T/summary" 2>"$T/err"; rc=$?
if [ $rc -eq 0 ] && [ -s "$T/grades.csv" ]; then pass run; else fail run "exit $rc: $(head -c 300 "$T/err")"; fi

# Every row against the generator's manifest and a direct sasim run of the same program.
cat >"$T/verify.py" <<'EOF'
import csv, os, re, subprocess, sys
sasim, t = sys.argv[1], sys.argv[2]
want = {r['student']: r for r in csv.DictReader(open(os.path.join(t, 'manifest.csv')))}
rows = list(csv.DictReader(open(os.path.join(t, 'grades.csv'))))
print(('PASS' if len(rows) == 30 and len(want) == 30 else 'FAIL') + f' grade-rows: {len(rows)} rows, {len(want)} submissions')
print(('PASS' if [r['student'] for r in rows] == sorted(want) else 'FAIL') + ' grade-students: one row per student, sorted')
def program(student):
    for p in (os.path.join(t, 'subs', student + x) for x in ('.s', '.bin')):
        if os.path.isfile(p):
            return p
    d = os.path.join(t, 'subs', student)
    return os.path.join(d, sorted(os.listdir(d))[0])
for r in rows:
    s, w = r['student'], want.get(r['student'], {})
    why = []
    if r['status'] != w.get('status'):
        why.append(f"status {r['status']}, want {w.get('status')} ({w.get('why')})")
    slow = r['message'].startswith('too slow')
    if r['status'] in ('pass', 'fail') and not slow:
        p = program(s)
        if p.endswith('.s'):
            subprocess.run([sasim, 'asm', p, '-o', os.path.join(t, 'direct.bin')], check=True)
            p = os.path.join(t, 'direct.bin')
        out = subprocess.run([sasim, 'run', p, '--input', 'A=' + os.path.join(t, 'A.npy'), '--input',
                              'B=' + os.path.join(t, 'B.npy')], stdout=subprocess.PIPE).stdout.decode()
        m = re.search(r'^(\d+) cycles$', out, re.M)
        if not m or r['cycles'] != m.group(1):
            why.append(f"cycles {r['cycles']!r}, sasim run says {m.group(1) if m else 'nothing'}")
        if r['races'] != '0':
            why.append(f"races {r['races']!r}, want 0")
    elif r['cycles'] != '':
        why.append(f"cycles {r['cycles']!r} for a program that did not run to the end")
    if r['status'] == 'race' and not (r['races'].isdigit() and int(r['races']) > 0 and 'error:' in r['message']):
        why.append(f"race row without a count and a report: {r['races']!r} {r['message']!r}")
    if r['status'] == 'fail' and not (slow or r['message'].startswith('expect C: mismatch with ')):
        why.append(f"fail row without the first mismatch: {r['message']!r}")
    if r['status'] == 'pass' and r['message']:
        why.append(f"pass row with a message: {r['message']!r}")
    if r['status'] == 'error' and not r['message']:
        why.append('error row without its error')
    print(f'FAIL grade-row-{s}: ' + '; '.join(why) if why else f'PASS grade-row-{s}')
EOF
if [ -s "$T/grades.csv" ]; then python3 "$T/verify.py" "$SASIM" "$T"; fi

# The summary: a line per student and the counts of the manifest.
counts=$(python3 -c '
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
print(", ".join("%d %s" % (sum(r["status"] == s for r in rows), s) for s in ("pass", "fail", "race", "error")))' "$T/manifest.csv")
if grep -q "^30 submissions graded in .* s: $counts (CSV: " "$T/summary" && [ "$(grep -c '^s[0-9][0-9]-' "$T/summary")" -eq 30 ]; then
  pass summary
else fail summary "no '30 submissions graded ...: $counts' line and 30 rows in: $(tail -n 3 "$T/summary" | tr '\n' '|')"; fi
[ "$(ls "$T/logs" | wc -l)" -eq 30 ] && grep -q 'sasim run' "$T/logs/s11-kai.txt" && grep -q '\[0,0\]: got' "$T/logs/s11-kai.txt" &&
  pass logs || fail logs "want 30 logs, s11-kai's with its run and mismatch"

# The same grades whatever the parallelism.
$GRADE "$T/subs" $ARGS -j 1 -o "$T/j1.csv" >/dev/null 2>&1 && $GRADE "$T/subs" $ARGS -j 4 -o "$T/j4.csv" >/dev/null 2>&1
cmp -s "$T/grades.csv" "$T/j1.csv" && cmp -s "$T/grades.csv" "$T/j4.csv" && pass parallel-same || fail parallel-same "the CSV of -j 1, -j 2 and -j 4 differ"

# --case: a second set of hidden inputs and its reference gives the same grades; a case whose
# reference does not match its inputs fails every program that runs, naming the case.
$NPY "$T/A2.npy" int8 4,4 --range 100 -13 256 && $NPY "$T/B2.npy" int8 4,4 --range -50 7 256
$SASIM run "$T/sol.bin" --input A="$T/A2.npy" --input B="$T/B2.npy" --output-dir "$T/ref2" >/dev/null 2>&1 ||
  fail setup "the solution does not run on the second case"
$GRADE "$T/subs" $ARGS --case --input A="$T/A2.npy" --input B="$T/B2.npy" --expect C="$T/ref2/C.npy" \
  -o "$T/cases.csv" >/dev/null 2>&1
# (status, cycles and races equal; a message is the same or, for a run's, prefixed with "case 1: ")
same=$(python3 -c 'import csv, sys
one, two = (list(csv.DictReader(open(f))) for f in sys.argv[1:])
bad = [b["student"] for a, b in zip(one, two) if [a[k] for k in ("student", "status", "cycles", "races")] !=
       [b[k] for k in ("student", "status", "cycles", "races")] or b["message"] not in (a["message"], "case 1: " + a["message"])]
print(" ".join(bad) if bad or len(one) != len(two) else "same")' "$T/grades.csv" "$T/cases.csv")
[ "$same" = same ] && pass cases-same || fail cases-same "rows differ: $same"
$GRADE "$T/subs" $ARGS --case --input A="$T/A2.npy" --input B="$T/B2.npy" --expect C="$T/ref/C.npy" \
  -o "$T/cases.csv" >/dev/null 2>&1
grep -q '^s01-ada,fail,[0-9][0-9]*,"case 2: expect C: mismatch with .*: 16 of 16 elements differ, the first: \[0,0\]: got ' "$T/cases.csv" &&
  grep -q '^s11-kai,fail,[0-9][0-9]*,"case 1: expect C: mismatch' "$T/cases.csv" && pass cases-second-fails ||
  fail cases-second-fails "$(grep -E '^s(01|11)-' "$T/cases.csv" | tr '\n' '|')"
expect usage-empty-case 2 'grade: error: no --expect .* in case 2' -- $GRADE "$T/subs" $ARGS --case --input A="$T/A2.npy"

# The wall-clock limit: a submission still running past --timeout fails, killed with whatever it
# started, and the others are graded (a sasim that sleeps 30 s before running s01-ada's program).
mkdir "$T/few" && cp "$T/subs/s01-ada.s" "$T/subs/s23-wes.s" "$T/few/"
cat >"$T/slow-sasim" <<EOF
#!/bin/sh
case "\$*" in run*) sleep 30 ;; esac
exec "$(cd "$B/bin" && pwd)/sasim" "\$@"
EOF
chmod +x "$T/slow-sasim"
start=$(date +%s)
python3 scripts/grade --sasim "$T/slow-sasim" "$T/few" $ARGS --timeout 1 -o "$T/few.csv" >/dev/null 2>&1
took=$(($(date +%s) - start))
if grep -q '^s01-ada,fail,,too slow: still running after 1 s (--timeout),0$' "$T/few.csv" &&
   grep -q '^s23-wes,error,,.*unknown mnemonic' "$T/few.csv" && [ $took -lt 20 ]; then pass timeout
else fail timeout "took $took s: $(cat "$T/few.csv" 2>/dev/null | tr '\n' '|')"; fi

# Written whole or not at all: an unwritable place leaves nothing, an old CSV stays until replaced.
expect unwritable 1 'grade: error: .*nodir/g.csv: cannot write' -- $GRADE "$T/few" $ARGS -o "$T/nodir/g.csv"
[ ! -e "$T/nodir" ] && pass unwritable-nothing-left || fail unwritable-nothing-left "something was written"
echo old >"$T/old.csv"
$GRADE "$T/few" $ARGS -o "$T/old.csv" >/dev/null 2>&1
head -n 1 "$T/old.csv" | grep -q '^student,status,cycles,message,races$' && [ "$(ls -a "$T" | grep -c '^\.old\.csv')" -eq 0 ] &&
  pass replaced || fail replaced "old.csv not replaced whole, or a temporary left"

expect usage-no-expect 2 'grade: error: no --expect' -- $GRADE "$T/few" --input A="$T/A.npy"
expect usage-unknown 2 'grade: error: unknown option --frobnicate' -- $GRADE "$T/few" --expect "$T/ref/C.npy" --frobnicate
expect usage-jobs 2 'grade: error: -j expects a number' -- $GRADE "$T/few" --expect "$T/ref/C.npy" -j x
expect missing-ref 1 'grade: error: .*nothere.npy: no such file' -- $GRADE "$T/few" --expect "$T/nothere.npy"
expect no-sasim 1 'grade: error: sasim not found' -- python3 scripts/grade --sasim "$T/nothere" "$T/few" --expect "$T/ref/C.npy"
mkdir "$T/none"
expect no-submission 1 'no submission' -- $GRADE "$T/none" --expect "$T/ref/C.npy"
expect help 0 'grades a folder of student programs' -- python3 scripts/grade --help

# --arch: a submission whose .arch line was edited (the tiny arch) is an error, named by its file.
mkdir "$T/arch" && sed "s|^\.arch .*|.arch \"$(pwd)/workloads/arch/tiny.json\"|" "$T/subs/s01-ada.s" >"$T/arch/edited.s"
$GRADE "$T/arch" $ARGS -o "$T/arch.csv" >/dev/null 2>&1
grep -q "^edited,error,,\".*/arch/edited.s: error: arch mismatch: compiled for \"\"tiny\"\" (4x4)" "$T/arch.csv" && pass arch ||
  fail arch "$(cat "$T/arch.csv" 2>/dev/null | tr '\n' '|')"
