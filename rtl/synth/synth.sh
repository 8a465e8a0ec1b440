#!/bin/sh
# synth.sh [RxC] [OUTDIR]: synthesizes, with yosys, the parts of the RTL that yosys 0.23 (Debian
# 12) reads: sa_pe (one PE), sa_array at RxC (default 4x4: the PEs and the input skew lines) and
# sa_requant (the post-processing rounding shift). For each it prints yosys's cell counts and
# `stat -tech cmos` transistor estimate; the last line is one JSON object with all of them, for
# scripts (the area model). Logs and yosys's own JSON stay in OUTDIR (default build/synth).
# `make synth ARRAY=8x8` runs it. docs/RTL.md says what is synthesized and what is not.
# ARRAY "pe" synthesizes sa_pe only (a few seconds; tests/rtl/synth.sh); ARRAY "sfu" synthesizes
# the special-function datapath sa_sfu_math only (docs/SFU.md §4; not yet part of sa_top).
set -eu
ARRAY=${1:-4x4}
OUT=${2:-build/synth}
only_pe=0 only_sfu=0
[ "$ARRAY" = pe ] && { only_pe=1; ARRAY=1x1; }
[ "$ARRAY" = sfu ] && { only_sfu=1; ARRAY=1x1; }
rows=${ARRAY%%x*} cols=${ARRAY#*x}
case "$rows$cols" in
  '' | *[!0-9]*) echo "synth.sh: error: ARRAY=$ARRAY: expected ROWSxCOLS, e.g. 4x4" >&2; exit 2 ;;
esac
if [ "$rows" -lt 1 ] || [ "$cols" -lt 1 ] || [ "$rows" -gt 256 ] || [ "$cols" -gt 256 ]; then
  echo "synth.sh: error: ARRAY=$ARRAY: rows and cols must be 1..256" >&2; exit 2
fi
command -v yosys >/dev/null 2>&1 || {
  echo "synth.sh: error: yosys is not installed (sh scripts/install-deps.sh --rtl --synth)" >&2; exit 1; }
# The row tag's width, as sa_compute computes it: $clog2(rows + cols + 2).
tagw=0
while [ $((1 << tagw)) -lt $((rows + cols + 2)) ]; do tagw=$((tagw + 1)); done
mkdir -p "$OUT"

# synth NAME READ_SCRIPT EXTRA_COMMANDS: read, set up, map with cmos.ys, keep log and stat JSON.
synth() {
  name=$1 script=$2 extra=$3
  t0=$(date +%s)
  if ! yosys -q -l "$OUT/$name.log" -p "script rtl/synth/$script; $extra script rtl/synth/cmos.ys; \
tee -q -o $OUT/$name.json stat -json -tech cmos" >/dev/null 2>"$OUT/$name.err"; then
    echo "synth.sh: error: yosys failed on $name (log: $OUT/$name.log):" >&2
    grep -m 5 -i 'error' "$OUT/$name.log" "$OUT/$name.err" >&2 || true
    exit 1
  fi
  echo "== $name ($(($(date +%s) - t0)) s; log $OUT/$name.log)"
  # yosys's last `stat -tech cmos` table: cell counts by type, then the transistor estimate.
  awk '/Printing statistics/ { buf = ""; keep = 1 } keep { buf = buf $0 "\n" } END { printf "%s", buf }' \
    "$OUT/$name.log" | sed -n '/^=== /,/Estimated number of transistors/p'
}

if [ $only_sfu = 1 ]; then
  names=sa_sfu_math
  synth sa_sfu_math sa_sfu_math.ys ""
else
  names=sa_pe
  synth sa_pe sa_pe.ys ""
fi
if [ $only_pe = 0 ] && [ $only_sfu = 0 ]; then
  names="$names sa_array_${rows}x${cols} sa_requant"
  synth "sa_array_${rows}x${cols}" sa_array.ys \
    "hierarchy -top sa_array -chparam Rows $rows -chparam Cols $cols -chparam TagW $tagw;"
  synth sa_requant sa_requant.ys ""
fi

python3 - "$OUT" "$rows" "$cols" "$(yosys -V | head -n 1)" $names <<'EOF'
import json, sys
out, rows, cols, version = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
mods = []
for name in sys.argv[5:]:
    with open("%s/%s.json" % (out, name)) as f:
        d = json.load(f)["design"]
    t = str(d["estimated_num_transistors"])
    by = d["num_cells_by_type"]
    mods.append({"module": name.split("_%dx" % rows)[0], "name": name, "cells": d["num_cells"],
                 "flip_flops": sum(n for c, n in by.items() if "DFF" in c),
                 "transistors": int(t.rstrip("+")), "transistors_exact": not t.endswith("+"),
                 "cells_by_type": by})
print(json.dumps({"synth": "yosys", "version": version,
                  "array": "%dx%d" % (rows, cols) if len(mods) > 1 else None,
                  "flow": "rtl/synth/cmos.ys", "modules": mods}, separators=(",", ":")))
EOF
