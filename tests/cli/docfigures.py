#!/usr/bin/python3
"""docfigures.py: recomputes the figures README.md and docs/*.md quote, so they cannot drift.
Python 3 standard library only.

    python3 tests/cli/docfigures.py [--build DIR] [--update] [--small] [--list] [FILE.md ...]

A checkable figure is marked in the Markdown by an HTML comment right after it (invisible once
rendered):

    ResNet-18 runs in 8,942,320<!-- fig: resnet18 cycles --> cycles
    ... 8.94 M<!-- fig: resnet18 cycles --> cycles            (a " M" after the number: millions)
    | cycles | 3,093,137<!-- fig: mobilenetv2 --dataflow os cycles --> |

The comment says `fig: NET [SACC_OPTION...] KEY`: NET is workloads/nets/NET.json, compiled by
`sacc compile NET.json [SACC_OPTION...] --json C.json -o P.bin` and run by `sasim run P.bin
--json S.json` (fast mode); KEY is what to read:
  - a path in S.json: `cycles`, `dram.read_bytes`, `energy.total_pj`; `layers[NAME].FIELD`
    picks a layer by name, and `layers[NAME].span` is last_end - first_start + 1;
  - `sacc.PATH`: a path in the compiler's C.json (`sacc.macs`);
  - `roofline`: cycles over the roofline bound max(sacc.macs / (rows x cols), DRAM read bytes /
    bus bytes, DRAM write bytes / bus bytes), as bench/compile prints it (a shipped arch);
  - any of these followed by `/N` (e.g. `energy.total_pj/1e6` for microjoules).
The figure is the last number before the comment on its line (commas allowed); comments in
code (`...` spans, fenced blocks) are examples, not marks. A count read as
it is (cycles, bytes) must equal the tool's exactly; a scaled one (" M", `/N`), a ratio or a
number with decimals must equal the tool's value rounded to as many decimals as the doc shows
(half up). Timings are machine-dependent: they are never marked
(the docs say the command and machine; bench/ measures them).

One PASS/FAIL line per figure (the form tests/run.sh counts); a FAIL names the file and line,
what the doc says, what the tools give, the commands, and how to update. --update rewrites every
marked figure that differs, in place, in the doc's format (then re-read the prose around each).
--small checks only the figures of small runs (lenet5, for a sanitizer build). --list prints
the figures and their commands without running anything.
"""
import concurrent.futures
import decimal
import json
import os
import re
import subprocess
import sys
import tempfile

COMMENT = re.compile(r'<!--\s*fig:\s*(.*?)\s*-->')
NUMBER = re.compile(r'-?\d[\d,]*(?:\.\d+)?')
SMALL_NETS = {'lenet5', 'tiny_cnn'}
DEFAULT_FILES = ['README.md']


class Figure:
    def __init__(self, path, lineno, spec, text, start, end, scale):
        self.path, self.lineno, self.spec = path, lineno, spec
        self.text, self.start, self.end, self.scale = text, start, end, scale
        words = spec.split()
        if len(words) < 2:
            raise ValueError(f'{path}:{lineno}: "fig: {spec}": want NET [SACC_OPTION...] KEY')
        self.net, self.opts, self.key = words[0], tuple(words[1:-1]), words[-1]
        # A count (cycles, bytes) read as it is, in a whole number: equal exactly. Anything
        # scaled (" M", /N) or derived (roofline), or written with decimals: rounded as shown.
        self.exact = scale == 1 and '/' not in self.key and self.key != 'roofline' and '.' not in text

    @property
    def where(self):
        return f'{self.path}:{self.lineno}'


def find_figures(path):
    """The marked figures of one Markdown file."""
    figs = []
    with open(path, encoding='utf-8') as f:
        lines = f.read().split('\n')
    fenced = False
    for i, line in enumerate(lines):
        if line.lstrip().startswith('```'):
            fenced = not fenced
        if fenced:
            continue
        code = [c.span() for c in re.finditer(r'`[^`]*`', line)]   # `<!-- fig: ... -->` shown as code
        prev_end = 0
        for m in COMMENT.finditer(line):
            if any(a <= m.start() < b for a, b in code):
                continue
            before = line[prev_end:m.start()]
            nums = list(NUMBER.finditer(before))
            if not nums:
                raise ValueError(f'{path}:{i + 1}: "<!-- fig: {m.group(1)} -->" follows no number')
            n = nums[-1]
            suffix = before[n.end():]
            if suffix.strip() not in ('', 'M'):
                raise ValueError(f'{path}:{i + 1}: "<!-- fig: {m.group(1)} -->" must follow its number '
                                 f'(or the number and " M"), not "{suffix}"')
            scale = 1e6 if suffix.strip() == 'M' else 1
            figs.append(Figure(path, i + 1, m.group(1), n.group(0), prev_end + n.start(), prev_end + n.end(), scale))
            prev_end = m.end()
    return figs


def commands(build, fig, tmp):
    """The shell-quotable commands that produce one figure's run, and their output files."""
    tag = re.sub(r'[^\w.-]', '_', ' '.join((fig.net,) + fig.opts))
    prog, cj, sj = (os.path.join(tmp, f'{tag}.{ext}') for ext in ('bin', 'c.json', 's.json'))
    sacc = [os.path.join(build, 'bin', 'sacc'), 'compile', f'workloads/nets/{fig.net}.json', *fig.opts,
            '--json', cj, '-o', prog]
    sasim = [os.path.join(build, 'bin', 'sasim'), 'run', prog, '--json', sj]
    return sacc, sasim, cj, sj


def shown(cmd, tmp):
    """cmd as a reader would type it: the scratch files named P.bin, C.json, S.json."""
    names = {'.bin': 'P.bin', '.c.json': 'C.json', '.s.json': 'S.json'}
    out = []
    for a in cmd:
        if a.startswith(tmp + '/'):
            a = next(v for k, v in names.items() if a.endswith(k))
        out.append(a)
    return ' '.join(out)


def run_one(build, fig, tmp):
    """(compiler JSON, simulator JSON) of a figure's run, or raises RuntimeError."""
    sacc, sasim, cj, sj = commands(build, fig, tmp)
    for cmd in (sacc, sasim):
        p = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=600)
        if p.returncode:
            raise RuntimeError(f'{shown(cmd, tmp)}: exit status {p.returncode}: '
                               + ' '.join(p.stderr.decode('utf-8', 'replace').split())[:300])
    with open(cj) as f:
        c = json.load(f)
    with open(sj) as f:
        s = json.load(f)
    return c, s


def lookup(doc, path, what):
    cur = doc
    for part in path.split('.'):
        m = re.fullmatch(r'(\w+)\[([^\]]+)\]', part)
        if m:
            items = cur.get(m.group(1)) if isinstance(cur, dict) else None
            hit = [x for x in items or [] if isinstance(x, dict) and x.get('name') == m.group(2)]
            if not hit:
                raise KeyError(f'no {m.group(1)}[] entry named "{m.group(2)}" in {what}')
            cur = hit[0]
        elif part == 'span' and isinstance(cur, dict) and 'first_start' in cur and 'last_end' in cur:
            cur = cur['last_end'] - cur['first_start'] + 1
        elif isinstance(cur, dict) and part in cur:
            cur = cur[part]
        else:
            raise KeyError(f'no "{part}" (of {path}) in {what}')
    if not isinstance(cur, (int, float)) or isinstance(cur, bool):
        raise KeyError(f'{path} in {what} is not a number')
    return cur


def value(fig, c, s):
    key, div = fig.key, 1.0
    if '/' in key:
        key, d = key.split('/', 1)
        div = float(d)
    if key == 'roofline':
        name = s.get('arch')
        try:
            with open(f'workloads/arch/{name}.json') as fh:
                arch = json.load(fh)
        except (OSError, ValueError, TypeError) as e:
            raise ValueError(f'roofline: the arch of the run, "{name}" is not a shipped arch: {e}')
        pes = arch['array']['rows'] * arch['array']['cols']
        bus = lookup(s, 'dram.bus_bytes', 'the sasim --json')
        bound = max(lookup(c, 'macs', 'the sacc --json') / pes, lookup(s, 'dram.read_bytes', 'the sasim --json') / bus,
                    lookup(s, 'dram.write_bytes', 'the sasim --json') / bus)
        v = lookup(s, 'cycles', 'the sasim --json') / bound
    elif key.startswith('sacc.'):
        v = lookup(c, key[5:], 'the sacc --json')
    else:
        v = lookup(s, key, 'the sasim --json')
    return v / div


def decimals(text):
    return len(text.split('.')[1]) if '.' in text else 0


def render(v, like):
    """v written the way the doc writes `like` (commas, decimals)."""
    q = decimal.Decimal(repr(float(v))).quantize(decimal.Decimal(1).scaleb(-decimals(like)), rounding=decimal.ROUND_HALF_UP)
    if ',' in like:
        return f'{q:,}'
    return str(q)


def matches(v, text, exact):
    d = decimal.Decimal(text.replace(',', ''))
    if exact:
        return float(v) == float(d)
    return decimal.Decimal(repr(float(v))).quantize(d, rounding=decimal.ROUND_HALF_UP) == d


def main(argv):
    build, update, small, listing, files = 'build', False, False, False, []
    i = 1
    while i < len(argv):
        a = argv[i]
        if a == '--build' and i + 1 < len(argv):
            build = argv[i + 1]
            i += 2
            continue
        if a == '--update':
            update = True
        elif a == '--small':
            small = True
        elif a == '--list':
            listing = True
        elif a in ('-h', '--help'):
            print(__doc__.strip())
            return 0
        elif a.startswith('-'):
            print(f'docfigures: error: unknown option {a} (see --help)', file=sys.stderr)
            return 2
        else:
            files.append(a)
        i += 1
    if not files:
        files = DEFAULT_FILES + sorted(os.path.join('docs', f) for f in os.listdir('docs') if f.endswith('.md'))
        for d in ('docs/exercises', 'docs/exercises/answers'):   # the questions and their answer keys
            files += sorted(os.path.join(d, f) for f in os.listdir(d) if f.endswith('.md'))
    figs = []
    try:
        for path in files:
            figs += find_figures(path)
    except (OSError, ValueError) as e:
        print(f'FAIL docfigures-markup: {e}')
        return 1
    if not figs:
        print('FAIL docfigures-none: no marked figure found (<!-- fig: ... -->)')
        return 1
    if small:
        figs = [f for f in figs if f.net in SMALL_NETS]
        if not figs:
            print('SKIP docfigures-small: no figure of a small run is marked')
            return 0
    tmp = tempfile.mkdtemp(prefix='sa-docfig-')
    try:
        if listing:
            for f in figs:
                sacc, sasim, _, _ = commands(build, f, tmp)
                print(f'{f.where}: {f.text}{" M" if f.scale != 1 else ""} = {f.key} of: '
                      f'{shown(sacc, tmp)} && {shown(sasim, tmp)}')
            return 0
        runs = {}
        for f in figs:
            runs.setdefault((f.net, f.opts), f)
        results = {}
        with concurrent.futures.ThreadPoolExecutor(max_workers=2) as ex:
            futs = {k: ex.submit(run_one, build, f, tmp) for k, f in runs.items()}
            for k, fut in futs.items():
                try:
                    results[k] = fut.result()
                except (RuntimeError, OSError, ValueError, subprocess.TimeoutExpired) as e:
                    results[k] = e
        failed, edits = 0, {}
        for f in figs:
            sacc, sasim, _, _ = commands(build, f, tmp)
            how = f'{shown(sacc, tmp)} && {shown(sasim, tmp)}, then {f.key}'
            r = results[(f.net, f.opts)]
            if isinstance(r, Exception):
                print(f'FAIL docfigures-{f.where} ({f.spec}): the run failed: {r}')
                failed += 1
                continue
            try:
                v = value(f, *r) / f.scale
            except (KeyError, ValueError, ZeroDivisionError) as e:
                print(f'FAIL docfigures-{f.where} ({f.spec}): {e} ({how})')
                failed += 1
                continue
            unit = ' M' if f.scale != 1 else ''
            if matches(v, f.text, f.exact):
                print(f'PASS docfigures-{f.where} {f.spec} = {f.text}{unit}')
                continue
            new = render(v, f.text)
            failed += 1
            print(f'FAIL docfigures-{f.where} ({f.spec}): {f.path} line {f.lineno} says {f.text}{unit}, the tools '
                  f'give {new}{unit} ({how}). If the change is intended, update the doc: edit that line, or run '
                  f'python3 tests/cli/docfigures.py --build {build} --update (rewrites every marked figure in '
                  f'place), and re-read the sentence around it')
            edits.setdefault(f.path, []).append((f.lineno, f.start, f.end, new))
        if update and edits:
            for path, es in edits.items():
                with open(path, encoding='utf-8') as fh:
                    lines = fh.read().split('\n')
                for lineno, start, end, new in sorted(es, key=lambda e: (e[0], -e[1])):
                    ln = lines[lineno - 1]
                    lines[lineno - 1] = ln[:start] + new + ln[end:]
                tmpf = path + '.docfigures.tmp'
                with open(tmpf, 'w', encoding='utf-8') as fh:
                    fh.write('\n'.join(lines))
                os.replace(tmpf, path)
                print(f'docfigures: {path}: {len(es)} figure(s) updated', file=sys.stderr)
        return 1 if failed else 0
    finally:
        for root, dirs, fs in os.walk(tmp, topdown=False):
            for x in fs:
                os.unlink(os.path.join(root, x))
            os.rmdir(root)


if __name__ == '__main__':
    sys.exit(main(sys.argv))
