#!/usr/bin/env python3
"""view_browser.py BUILD OUTDIR: loads pages of `sasim run --view` in headless Chromium and checks
what they show (tests/cli/view.sh runs it; standard library only).

For each program it writes the page and the --pe-trace text of the same run (same window), starts
chromedriver, and talks WebDriver's HTTP JSON protocol to it: it moves the page to chosen cycles
with the page's own controls (the cycle box, the step buttons, the slider, play/pause, "active
cycles only"), reads every PE cell, the accumulator line and the timeline's instruction table
from the DOM, and compares them with the trace's grids at the same cycle and with the
instruction times of the run's Chrome trace. A PNG screenshot of each page goes to OUTDIR
(look at them). Prints PASS/FAIL lines (prefix view-browser-), or one SKIP line when Chromium or
chromedriver is missing.
"""
import base64
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

CHROMIUM = '/usr/bin/chromium'
CHROMEDRIVER = '/usr/bin/chromedriver'
ELEMENT = 'element-6066-11e4-a52e-4f735466cecf'   # the W3C WebDriver element key
failures = 0


def report(ok, name, why=''):
    global failures
    if ok:
        print(f'PASS view-browser-{name}')
    else:
        failures += 1
        print(f'FAIL view-browser-{name}: {why}')
    sys.stdout.flush()


# ---- the --pe-trace text (the format of sim/pe_trace.h) ----

def parse_trace(text):
    """{cycle: {'mode': str, 'grids': {name: [[cell, ...], ...]}, 'acc': [item, ...]}}, with the
    stationary grid (weight or input) carried over from the last cycle that printed it."""
    cycles, cur, grid, stat = {}, None, None, None
    for line in text.splitlines():
        m = re.match(r'cycle (\d+): (\S+)', line)
        if m:
            cur = {'mode': m.group(2).rstrip(','), 'grids': {}, 'acc': []}
            cycles[int(m.group(1))] = cur
            grid = None
            continue
        if cur is None:
            continue
        if line.startswith('  ACC writes:'):
            cur['acc'] += line[len('  ACC writes:'):].split()
            grid = 'acc'
            continue
        if grid == 'acc' and line.startswith('             '):   # a continued ACC line
            cur['acc'] += line.split()
            continue
        words = line.split()
        if not words:
            continue
        if re.fullmatch(r'r\d+', words[0]) and grid:
            cur['grids'][grid].append(words[1:])
        elif len(words) > 1 and words[1] == 'c0':
            grid = words[0]
            cur['grids'][grid] = []
    for t in sorted(cycles):   # the stationary grid persists until printed again
        c = cycles[t]
        if c['mode'] == 'output-stationary':
            stat = None
        else:
            key = 'input' if c['mode'] == 'input-stationary' else 'weight'
            stat = c['grids'].get(key, stat)
        c['stat'] = stat
    return cycles


# ---- WebDriver over HTTP ----

class Driver:
    def __init__(self, port, profile):
        self.base = f'http://127.0.0.1:{port}'
        caps = {'capabilities': {'alwaysMatch': {'browserName': 'chrome', 'goog:chromeOptions': {
            'binary': CHROMIUM,
            'args': ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage',
                     '--window-size=1400,1000', f'--user-data-dir={profile}', '--allow-file-access-from-files']}}}}
        r = self.call('POST', '/session', caps)
        self.sid = r['sessionId']

    def call(self, method, path, body=None):
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(self.base + path, data=data, method=method,
                                     headers={'Content-Type': 'application/json'})
        try:
            with urllib.request.urlopen(req, timeout=60) as f:
                return json.loads(f.read())['value']
        except urllib.error.HTTPError as e:
            raise RuntimeError(f'{method} {path}: {e.code} {e.read()[:300]!r}') from None

    def s(self, method, path, body=None):
        return self.call(method, f'/session/{self.sid}{path}', body)

    def get(self, url):
        self.s('POST', '/url', {'url': url})

    def find(self, css):
        return self.s('POST', '/element', {'using': 'css selector', 'value': css})[ELEMENT]

    def click(self, css):
        self.s('POST', f'/element/{self.find(css)}/click', {})

    def type(self, css, text, clear=True):
        e = self.find(css)
        if clear:
            self.s('POST', f'/element/{e}/clear', {})
        self.s('POST', f'/element/{e}/value', {'text': text})

    def js(self, script, *args):
        return self.s('POST', '/execute/sync', {'script': script, 'args': list(args)})

    def screenshot(self, path):
        png = base64.b64decode(self.s('GET', '/screenshot'))
        with open(path, 'wb') as f:
            f.write(png)
        return png

    def quit(self):
        try:
            self.s('DELETE', '')
        except Exception:
            pass


READ_DOM = """
const out = {cycle: +document.body.dataset.cycle, cells: [], acc: document.getElementById('accline').textContent,
             mode: document.getElementById('mode').textContent, now: {}};
for (const e of document.querySelectorAll('#grid .pe')) {
  const v = {id: e.id, cls: e.className};
  for (const k of ['w', 'n', 'a', 'b', 'p', 'd']) v[k] = e.querySelector('.' + k).textContent;
  out.cells.push(v);
}
for (const u of ['fetch', 'load', 'compute', 'store']) out.now[u] = document.getElementById('now-' + u).textContent;
return out;
"""


def compare(dom, want, rows, cols):
    """'' when the DOM shows the trace's cycle `want` (None: an idle cycle), else the first difference."""
    cells = {c['id']: c for c in dom['cells']}
    if len(cells) != rows * cols:
        return f'{len(cells)} PE cells, want {rows * cols}'
    g = want['grids'] if want else {}
    mode = want['mode'] if want else ''
    for r in range(rows):
        for c in range(cols):
            e = cells[f'pe-{r}-{c}']
            where = f'PE ({r}, {c})'

            def cell(name, empty='.'):
                return g[name][r][c] if name in g else empty

            if mode == 'output-stationary':
                for k, name in (('a', 'a'), ('b', 'b'), ('d', 'drain')):
                    t = cell(name)
                    if e[k] != ('' if t == '.' else t):
                        return f'{where}: {name} shows {e[k]!r}, the trace {t!r}'
                t = cell('sum')
                if t == '.':
                    ok = e['w'] == '' and not re.search(r'mac|hold|drn', e['cls'])
                elif t == 'd':
                    ok = 'drn' in e['cls']
                else:
                    m = re.fullmatch(r'(-?\d+)\((\d+)\)', t)
                    ok = bool(m) and e['w'] == m.group(1) and e['n'] == m.group(2)
                if not ok:
                    return f'{where}: sum shows {e["w"]!r}({e["n"]!r}) class {e["cls"]!r}, the trace {t!r}'
            else:
                moving = 'weight' if mode == 'input-stationary' else 'act'
                stat = want['stat'] if want else None
                if stat is not None and e['w'] != stat[r][c]:
                    return f'{where}: stationary shows {e["w"]!r}, the trace {stat[r][c]!r}'
                for k, name in (('a', moving), ('p', 'psum')):
                    t = cell(name)
                    if e[k] != ('' if t == '.' else t):
                        return f'{where}: {name} shows {e[k]!r}, the trace {t!r}'
                if ('mac' in e['cls']) != (cell('psum') != '.'):
                    return f'{where}: class {e["cls"]!r} but the trace psum is {cell("psum")!r}'
    acc = ('ACC writes: ' + ' '.join(want['acc'])) if want and want['acc'] else ''
    if dom['acc'] != acc:
        return f'ACC line {dom["acc"]!r}, the trace {acc!r}'
    return ''


def seek(d, cycle):
    d.type('#cyc', f'{cycle}\n')
    return d.js(READ_DOM)


def check_cycles(d, name, trace, cycles, rows, cols):
    bad = ''
    for t in cycles:
        dom = seek(d, t)
        if dom['cycle'] != t:
            bad = f'the cycle box moved the page to {dom["cycle"]}, not {t}'
        else:
            why = compare(dom, trace.get(t), rows, cols)
            if why:
                bad = f'cycle {t}: {why}'
        if bad:
            break
    report(not bad, f'{name}-cells', bad or '')


def chrome_insns(path):
    """[(insn, unit name, op, end)] from a --trace file (its 'X' slices)."""
    with open(path) as f:
        d = json.load(f)
    ev = d['traceEvents'] if isinstance(d, dict) else d
    names = {e['tid']: e['args']['name'] for e in ev if e.get('ph') == 'M' and e.get('name') == 'thread_name'}
    out = []
    for e in ev:
        if e.get('ph') == 'X' and 'insn' in e.get('args', {}) and names.get(e['tid']) in ('load', 'compute', 'store'):
            out.append((e['args']['insn'], names[e['tid']], e['name'].split()[0], e['args']['end']))
    return out


def check_timeline(d, name, insns, lo, hi):
    """At the end cycle of a few instructions inside [lo, hi), the unit's row of the page's
    instruction table names the instruction."""
    picks = {}
    for k, unit, op, end in insns:
        if lo <= end < hi and op != 'LAYER':
            picks.setdefault((unit, op), (k, unit, op, end))
    bad, n = '', 0
    for k, unit, op, end in list(picks.values())[:6]:
        dom = seek(d, end)
        n += 1
        if dom['cycle'] != end:
            bad = f'the cycle box moved the page to {dom["cycle"]}, not {end}'
            break
        if f'insn {k}: {op}' not in dom['now'][unit]:
            bad = f'cycle {end}: the {unit} row shows {dom["now"][unit]!r}, want insn {k} ({op})'
            break
    report(not bad and n > 0, f'{name}-timeline', bad or 'no instruction ends in the window')


def sasim(build, *args):
    return subprocess.run([f'{build}/bin/sasim', *args], capture_output=True, text=True)


def make_view(build, tmp, name, binpath, window):
    """Writes NAME.html and returns (page path, parsed trace, chrome trace insns)."""
    page = f'{tmp}/{name}.html'
    r = sasim(build, 'run', binpath, '--mode', 'detailed', '--view', page, *window)
    if r.returncode:
        raise RuntimeError(f'sasim run --view: {r.stderr[:300]}')
    r = sasim(build, 'run', binpath, '--mode', 'detailed', '--pe-trace', *window)
    if r.returncode:
        raise RuntimeError(f'sasim run --pe-trace: {r.stderr[:300]}')
    trace = parse_trace(r.stdout)
    r = sasim(build, 'run', binpath, '--trace', f'{tmp}/{name}.json')
    if r.returncode:
        raise RuntimeError(f'sasim run --trace: {r.stderr[:300]}')
    return page, trace, chrome_insns(f'{tmp}/{name}.json')


def spread(cycles, n):
    """n cycles spread over the sorted list (first, last and between)."""
    if len(cycles) <= n:
        return cycles
    return [cycles[round(i * (len(cycles) - 1) / (n - 1))] for i in range(n)]


def run(build, outdir, tmp):
    sacc = f'{build}/bin/sacc'
    # programs: (name, binary, --from/--to window, array size)
    progs = []
    def asm(src, name):
        out = f'{tmp}/{name}.bin'
        r = sasim(build, 'asm', src, '-o', out)
        if r.returncode:
            raise RuntimeError(f'sasim asm {src}: {r.stderr[:300]}')
        return out
    progs.append(('ex1-ws', asm('docs/exercises/files/01-wavefront.s', 'ex1'), []))
    progs.append(('asm-os', asm('workloads/asm/gemm_os_tiny.s', 'os'), []))
    progs.append(('asm-is', asm('workloads/asm/gemm_is_tiny.s', 'is'), []))
    for df in ('ws', 'os', 'is'):
        out = f'{tmp}/tiny_cnn_{df}.bin'
        r = subprocess.run([sacc, 'compile', 'workloads/nets/tiny_cnn.json', '--dataflow', df, '--arch', 'tiny',
                            '-o', out], capture_output=True, text=True)
        if r.returncode:
            raise RuntimeError(f'sacc compile --dataflow {df}: {r.stderr[:300]}')
        progs.append((f'cnn-{df}', out, ['--from', '200', '--to', '700']))
    progs.append(('tiled-16x16', asm('workloads/asm/gemm_tiled.s', 'tiled'), ['--from', '150', '--to', '330']))

    port = free_port()
    drv = subprocess.Popen([CHROMEDRIVER, f'--port={port}'], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(100):
            try:
                urllib.request.urlopen(f'http://127.0.0.1:{port}/status', timeout=1).read()
                break
            except Exception:
                time.sleep(0.1)
        d = Driver(port, f'{tmp}/profile')
        try:
            for name, binpath, window in progs:
                page, trace, insns = make_view(build, tmp, name, binpath, window)
                d.get('file://' + os.path.abspath(page))
                info = d.js('return [D.rows, D.cols, D.from, D.to, D.frames.length];')
                rows, cols, lo, hi, nframes = info
                active = sorted(trace)
                report(nframes == len(active) and nframes > 0, f'{name}-loaded',
                       f'{nframes} active cycles in the page, {len(active)} in the trace')
                chosen = active if name == 'ex1-ws' else spread(active, 6)
                idle = [t for t in range(lo, hi) if t not in trace][:2]
                check_cycles(d, name, trace, chosen + idle, rows, cols)
                check_timeline(d, name, insns, lo, hi)
                if name == 'ex1-ws':
                    check_controls(d, trace, rows, cols)
                def busy_cells(t):
                    g = trace[t]['grids']
                    return sum(x != '.' for row in g.get('psum', g.get('sum', [])) for x in row)
                busy = max(active, key=busy_cells)
                seek(d, busy)
                png = f'{outdir}/{name}.png'
                data = d.screenshot(png)
                report(data[:8] == b'\x89PNG\r\n\x1a\n' and len(data) > 5000, f'{name}-screenshot', f'{png}: not a PNG')
        finally:
            d.quit()
    finally:
        drv.terminate()
        drv.wait(10)


def check_controls(d, trace, rows, cols):
    """Exercise 1's page through its buttons, slider, play/pause and "active cycles only", and its
    timeline against the answer key (PRELOAD insn 3 in cycles 14-15, COMPUTE insn 4 in 17-22)."""
    steps = []
    seek(d, 17)
    d.click('#fwd')
    steps.append(('forward', 18, d.js(READ_DOM)))
    d.click('#fwd')
    steps.append(('forward', 19, d.js(READ_DOM)))
    d.click('#back')
    steps.append(('back', 18, d.js(READ_DOM)))
    d.js("document.getElementById('slider').focus();")
    d.type('#slider', '\ue014', clear=False)   # the right arrow key on the slider
    steps.append(('slider', 19, d.js(READ_DOM)))
    d.click('#last')
    steps.append(('last', 42, d.js(READ_DOM)))
    d.click('#first')
    steps.append(('first', 0, d.js(READ_DOM)))
    seek(d, 15)
    d.click('#skip')
    d.click('#fwd')
    steps.append(('active-only forward', 17, d.js(READ_DOM)))
    d.click('#back')
    steps.append(('active-only back', 15, d.js(READ_DOM)))
    d.click('#skip')
    bad = ''
    for what, want, dom in steps:
        if dom['cycle'] != want:
            bad = f'{what}: cycle {dom["cycle"]}, want {want}'
            break
        why = compare(dom, trace.get(want), rows, cols)
        if why:
            bad = f'{what} to {want}: {why}'
            break
    report(not bad, 'ex1-ws-controls', bad)
    seek(d, 17)
    d.click('#play')
    time.sleep(0.8)   # 4 cycles per second: a few steps
    d.click('#play')
    dom = d.js(READ_DOM)
    why = compare(dom, trace.get(dom['cycle']), rows, cols) if 18 <= dom['cycle'] <= 24 else f'cycle {dom["cycle"]}'
    report(not why, 'ex1-ws-play-pause', why)
    bad = ''
    for cycle, unit, want in ((14, 'compute', 'insn 3: PRELOAD'), (15, 'compute', 'insn 3: PRELOAD'),
                              (17, 'compute', 'insn 4: COMPUTE'), (22, 'compute', 'insn 4: COMPUTE'),
                              (5, 'load', 'insn 2: LOAD'), (23, 'store', 'insn 6: STORE')):
        dom = seek(d, cycle)
        if want not in dom['now'][unit]:
            bad = f'cycle {cycle}: {unit} row {dom["now"][unit]!r}, want {want!r}'
            break
    dom = seek(d, 16)
    if not bad and dom['now']['compute'] != '-':
        bad = f'cycle 16: the compute row should be empty (-), shows {dom["now"]["compute"]!r}'
    report(not bad, 'ex1-ws-timeline-answer-key', bad)


def free_port():
    s = socket.socket()
    s.bind(('127.0.0.1', 0))
    port = s.getsockname()[1]
    s.close()
    return port


def main():
    build, outdir = sys.argv[1], sys.argv[2]
    for exe, pkg in ((CHROMIUM, 'chromium'), (CHROMEDRIVER, 'chromium-driver')):
        if not os.access(exe, os.X_OK):
            print(f'SKIP view-browser: {exe} not found (Debian package {pkg}: sh scripts/install-deps.sh --browser)')
            return 0
    os.makedirs(outdir, exist_ok=True)
    tmp = tempfile.mkdtemp()
    try:
        run(build, outdir, tmp)
    except Exception as e:   # the browser or a tool failed: one failure, with the reason
        report(False, 'run', f'{type(e).__name__}: {e}')
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
