#!/usr/bin/env python3
"""vcd_check.py FILE [--window LO HI] [--first-high NAME_SUFFIX]: checks that FILE is a
well-formed VCD (the subset Verilator writes: $timescale, nested $scope/$upscope, $var, then
#time lines and value changes) and prints one summary line. With --window, every timestamp
must lie in [LO, HI). With --first-high, also prints "first-high NAME TIME" for each variable
whose dotted name ends with NAME_SUFFIX and that is 1 at some timestamp (the first such time).
Exit status 0 when the file is valid, 1 with an "error:" line otherwise. Used by tests/rtl/vcd.sh.
"""
import sys


def fail(msg):
    print("error: " + msg)
    sys.exit(1)


def main(argv):
    if len(argv) < 2:
        fail("usage: vcd_check.py FILE [--window LO HI] [--first-high SUFFIX]")
    path, lo, hi, suffix = argv[1], None, None, None
    i = 2
    while i < len(argv):
        if argv[i] == "--window":
            lo, hi = int(argv[i + 1]), int(argv[i + 2])
            i += 3
        elif argv[i] == "--first-high":
            suffix = argv[i + 1]
            i += 2
        else:
            fail("unknown option " + argv[i])
    with open(path) as f:
        tokens = f.read().split()
    # Header: keyword sections up to $enddefinitions.
    scope, names, widths = [], {}, {}
    n_scopes, timescale, k = 0, None, 0
    while True:
        if k >= len(tokens):
            fail("no $enddefinitions")
        t = tokens[k]
        if t == "$enddefinitions":
            if tokens[k + 1] != "$end":
                fail("$enddefinitions without $end")
            k += 2
            break
        if t == "$scope":      # $scope module NAME $end
            scope.append(tokens[k + 2])
            n_scopes += 1
            k += 4
        elif t == "$upscope":
            if not scope:
                fail("$upscope without $scope")
            scope.pop()
            k += 2
        elif t == "$var":      # $var TYPE WIDTH ID NAME [RANGE] $end
            end = tokens.index("$end", k)
            ident, width = tokens[k + 3], int(tokens[k + 2])
            names.setdefault(ident, []).append(".".join(scope + [tokens[k + 4]]))
            widths[ident] = width
            k = end + 1
        elif t.startswith("$"):
            end = tokens.index("$end", k)
            if t == "$timescale":
                timescale = " ".join(tokens[k + 1:end])
            k = end + 1
        else:
            fail("unexpected token %r in the header" % t)
    if scope:
        fail("%d $scope without $upscope" % len(scope))
    if not timescale:
        fail("no $timescale")
    if not names:
        fail("no $var")
    # Body: #time, then value changes 0X / 1X / xX / zX or bVALUE ID.
    times, first_high, now = [], {}, None
    while k < len(tokens):
        t = tokens[k]
        k += 1
        if t.startswith("#"):
            now = int(t[1:])
            if times and now <= times[-1]:
                fail("timestamp #%d after #%d" % (now, times[-1]))
            if lo is not None and not lo <= now < hi:
                fail("timestamp #%d outside the window [%d, %d)" % (now, lo, hi))
            times.append(now)
            continue
        if t in ("$dumpvars", "$dumpall", "$dumpon", "$dumpoff", "$end"):
            continue
        if now is None:
            fail("value change %r before the first timestamp" % t)
        if t[0] in "bBrR":
            value, ident = t[1:], tokens[k]
            k += 1
        elif t[0] in "01xXzZ":
            value, ident = t[0], t[1:]
        else:
            fail("bad value change %r" % t)
        if ident not in names:
            fail("value change for undeclared id %r" % ident)
        if value.lstrip("0") == "1" and ident not in first_high:
            first_high[ident] = now
    if not times:
        fail("no timestamps")
    print("vcd ok: timescale %s, %d scopes, %d vars, %d timestamps from #%d to #%d"
          % (timescale, n_scopes, sum(len(v) for v in names.values()), len(times), times[0], times[-1]))
    if suffix:
        for ident, when in sorted(first_high.items(), key=lambda x: x[1]):
            for n in names[ident]:
                if n.endswith(suffix):
                    print("first-high %s %d" % (n, when))
    scopes = sorted({n.rsplit(".", 1)[0] for v in names.values() for n in v})
    for s in scopes:
        print("scope " + s)


if __name__ == "__main__":
    main(sys.argv)
