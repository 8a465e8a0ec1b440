#!/usr/bin/python3
"""make-submissions.py: makes the 30 submissions tests/cli/grade.sh grades, from the teacher's
solution of the gemm4 lab (tests/grade/solution.s, docs/GRADING.md). Python 3 standard library.

    python3 tests/grade/make-submissions.py SASIM OUTDIR

Writes OUTDIR/<student>.s, .bin (assembled with SASIM) or a subfolder per student, and
OUTDIR/../manifest.csv: student,status,why, the status the grader must give (pass, fail, race,
error). The submissions are: right (as given, as a .bin, in a folder, reformatted), different
but correct (other orders, layouts and token placements: other cycle counts), wrong values,
racy or token errors, malformed (do not assemble, do not load, no program, two programs), an
empty skeleton, and too slow (correct, but past the grading's --max-cycles 200).
"""
import csv
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
MARK = '; ---- your code from here ----'


def solution():
    """The solution's text before its code, and its code lines (without comments)."""
    with open(os.path.join(HERE, 'solution.s'), encoding='utf-8') as f:
        text = f.read()
    i = text.index(MARK)
    code = []
    for line in text[i:].split('\n'):
        s = line.split(';')[0].strip()
        if s and s != 'HALT':
            code.append(s)
    return text[:i], code


HEAD, CODE = solution()
# The solution's lines by what they do (tests below rewrite them).
CFGL, LDB, LDA, P00, C00, P10, C10, P01, C01, P11, C11, CFGS, ST0, ST1 = range(14)
assert len(CODE) == 14, CODE


def program(lines, head=HEAD):
    return head + MARK + '\n' + '\n'.join(lines) + '\n; ---- to here ----\nHALT\n'


def sub(lines, k, old, new):
    """lines with old replaced by new in line k (which must hold old)."""
    out = list(lines)
    assert old in out[k], (out[k], old)
    out[k] = out[k].replace(old, new)
    return out


def variants():
    """(student, status, why, form, text): form is s, bin, dir (a folder with the .s), dirbin,
    raw (text written as a .bin), empty-dir or two-files."""
    c = CODE
    v = []
    # Right.
    v.append(('s01-ada', 'pass', 'the solution', 's', program(c)))
    v.append(('s02-ben', 'pass', 'the solution, handed in assembled', 'bin', program(c)))
    v.append(('s03-cleo', 'pass', 'the solution in a folder with notes', 'dir', program(c)))
    v.append(('s04-dan', 'pass', 'the solution, assembled, in a folder', 'dirbin', program(c)))
    v.append(('s05-eve', 'pass', 'reformatted: blank lines, spacing, own comments', 's',
              program(['; my tiling: K tiles inner'] + [re.sub(r' ', '   ', l) + '   ; ok' for l in c])))
    # Different but correct.
    v.append(('s06-finn', 'pass', 'N tiles inner, K tiles outer', 's',
              program(c[:P00] + [c[P00], c[C00], c[P01], c[C01], c[P10], c[C10], c[P11], c[C11]] + c[CFGS:])))
    v.append(('s07-gus', 'pass', 'one STORE for all of C (outer=2)', 's',
              program(c[:C10] + [c[C10].replace(' push=store', '')] + c[P01:CFGS] +
                      ['CFG_STORE stride_outer=8 stride_inner=16',
                       'STORE raw32=1 src=0 dram_addr=C outer=2 inner=4 cols=2 pop=compute'])))
    v.append(('s08-hana', 'pass', 'A loaded per K tile, two tokens', 's',
              program([c[CFGL], c[LDB],
                       'LOAD mem=spad dst=0 dram_addr=A outer=1 inner=4 nseg=1 seglen=2 push=compute',
                       'LOAD mem=spad dst=4 dram_addr=A+2 outer=1 inner=4 nseg=1 seglen=2 push=compute',
                       c[P00], c[C00], c[P10], c[C10].replace('accum=1', 'accum=1 pop=load')] + c[P01:])))
    v.append(('s09-ivo', 'pass', 'N tile 1 in ACC rows 8..11', 's',
              program(sub(sub(sub(c, C01, 'acc_addr=4', 'acc_addr=8'), C11, 'acc_addr=4', 'acc_addr=8'),
                          ST1, 'src=4', 'src=8'))))
    v.append(('s10-jo', 'pass', 'B loaded per N tile, a token each', 's',
              program([c[CFGL],
                       'LOAD mem=wbuf dst=0 dram_addr=B outer=1 inner=4 nseg=1 seglen=2 push=compute',
                       c[LDA],
                       'LOAD mem=wbuf dst=4 dram_addr=B+2 outer=1 inner=4 nseg=1 seglen=2 push=compute',
                       c[P00], c[C00], c[P10], c[C10], c[P01].replace('rows=2', 'rows=2 pop=load')] + c[C01:])))
    # Wrong values.
    v.append(('s11-kai', 'fail', 'second K tile overwrites instead of adding (accum=0)', 's',
              program(sub(c, C10, 'accum=1', 'accum=0'))))
    v.append(('s12-lea', 'fail', 'K tiles of B swapped', 's',
              program(sub(sub(c, P00, 'src=0', 'src=2'), P10, 'src=2', 'src=0'))))
    v.append(('s13-max', 'fail', 'second STORE one column off', 's', program(sub(c, ST1, 'C+8', 'C+4'))))
    v.append(('s14-nia', 'fail', 'forgot K tile 1', 's',
              program([c[CFGL], c[LDB], c[LDA], c[P00], c[C00] + ' push=store', c[P01], c[C01] + ' push=store']
                      + c[CFGS:])))
    v.append(('s15-omar', 'fail', 'stores one column of each N tile (cols=1)', 's',
              program(sub(sub(c, ST0, 'cols=2', 'cols=1'), ST1, 'cols=2', 'cols=1'))))
    v.append(('s16-pia', 'fail', 'B rows read 2 bytes apart (stride)', 's',
              program(['CFG_LOAD stride_outer=2 stride_inner=2', c[LDB], c[CFGL]] + c[LDA:])))
    v.append(('s17-quin', 'fail', 'the skeleton handed in empty', 's', program([])))
    # Racy, or token errors.
    v.append(('s18-rosa', 'race', 'A loaded before B: the PRELOAD takes A\'s token', 's',
              program([c[CFGL], c[LDA], c[LDB]] + c[P00:])))
    v.append(('s19-sam', 'race', 'STOREs wait for nothing', 's',
              program(c[:C10] + [c[C10].replace(' push=store', '')] + c[P01:C11] +
                      [c[C11].replace(' push=store', ''), c[CFGS],
                       c[ST0].replace(' pop=compute', ''), c[ST1].replace(' pop=compute', '')])))
    v.append(('s20-tia', 'race', 'first COMPUTE does not wait for A', 's',
              program(sub(c, C00, ' pop=load', ''))))
    v.append(('s21-uma', 'race', 'A\'s K tile 1 reuses SPAD rows 0..3 without a token back', 's',
              program([c[CFGL], c[LDB],
                       'LOAD mem=spad dst=0 dram_addr=A outer=1 inner=4 nseg=1 seglen=2 push=compute',
                       'LOAD mem=spad dst=0 dram_addr=A+2 outer=1 inner=4 nseg=1 seglen=2 push=compute',
                       c[P00], c[C00], c[P10], c[C10].replace('src=4', 'src=0').replace('accum=1', 'accum=1 pop=load'),
                       c[P01], 'COMPUTE src=0 acc_addr=4 rows=4 accum=0', c[P11],
                       'COMPUTE src=0 acc_addr=4 rows=4 accum=1 push=store'] + c[CFGS:])))
    v.append(('s22-vic', 'race', 'one push for two STOREs', 's',
              program(sub(c, C10, ' push=store', ''))))
    # Malformed.
    v.append(('s23-wes', 'error', 'misspelt mnemonic', 's', program(sub(c, C00, 'COMPUTE', 'COMPUT'))))
    v.append(('s24-xia', 'error', 'a .bin that is not a program', 'raw', 'this is my homework\n'))
    v.append(('s25-yan', 'error', 'operand out of range (rows=9 on a 2-row array)', 's',
              program(sub(c, P00, 'rows=2', 'rows=9'))))
    v.append(('s26-zoe', 'error', 'a folder with two programs', 'two-files', program(c)))
    v.append(('s27-abe', 'error', 'an empty folder', 'empty-dir', ''))
    v.append(('s28-bea', 'error', 'output tensor C renamed', 's',
              program(c, HEAD.replace('.tensor C ', '.tensor Cout ')).replace('dram_addr=C', 'dram_addr=Cout')))
    # Too slow: right values, past --max-cycles 200.
    v.append(('s29-cy', 'fail', 'too slow: reloads A 30 times', 's',
              program([c[CFGL]] + [c[LDA].replace(' push=compute', '')] * 30 + c[LDB:])))
    v.append(('s30-dee', 'fail', 'too slow: reloads B 40 times', 's',
              program([c[CFGL]] + [c[LDB].replace(' push=compute', '')] * 40 + c[LDB:])))
    return v


def assemble(sasim, text, out, tmp):
    with open(tmp, 'w', encoding='utf-8') as f:
        f.write(text)
    subprocess.run([sasim, 'asm', tmp, '-o', out], check=True)
    os.remove(tmp)


def main(argv):
    if len(argv) != 3:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    sasim, out = argv[1], argv[2]
    os.makedirs(out, exist_ok=True)
    rows = []
    for student, status, why, form, text in variants():
        base = os.path.join(out, student)
        if form == 's':
            with open(base + '.s', 'w', encoding='utf-8') as f:
                f.write(text)
        elif form == 'bin':
            assemble(sasim, text, base + '.bin', base + '.tmp.s')
        elif form == 'raw':
            with open(base + '.bin', 'w', encoding='utf-8') as f:
                f.write(text)
        elif form in ('dir', 'dirbin', 'two-files', 'empty-dir'):
            os.makedirs(base, exist_ok=True)
            if form == 'dir':
                with open(os.path.join(base, 'gemm4.s'), 'w', encoding='utf-8') as f:
                    f.write(text)
                with open(os.path.join(base, 'notes.txt'), 'w', encoding='utf-8') as f:
                    f.write('I tiled K inner.\n')
            elif form == 'dirbin':
                assemble(sasim, text, os.path.join(base, 'gemm4.bin'), base + '.tmp.s')
            elif form == 'two-files':
                for name in ('gemm4.s', 'gemm4-old.s'):
                    with open(os.path.join(base, name), 'w', encoding='utf-8') as f:
                        f.write(text)
        else:
            raise ValueError(form)
        rows.append((student, status, why))
    with open(os.path.join(os.path.dirname(os.path.abspath(out)), 'manifest.csv'), 'w', newline='',
              encoding='utf-8') as f:
        w = csv.writer(f)
        w.writerow(['student', 'status', 'why'])
        w.writerows(rows)
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
