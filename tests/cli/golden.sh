#!/bin/sh
# golden.sh BUILD_DIR: the reference outputs of every example net (sacc ref: one line per output
# with its CRC32) must equal tests/golden/NAME.ref.txt; and every shipped program's statistics (sasim run --json, both engines) must
# equal its checked-in golden, tests/golden/NAME.stats.json, so that any change to a cycle count
# or counter is seen and reviewed. `make golden` (SA_GOLDEN_UPDATE=1) rewrites the goldens; its
# diff is reviewed like code. The "program" key (a path) is left out of the comparison.
set -u
B=${1:-build}
SASIM=$B/bin/sasim
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
normalize() {  # drop the path label, keep everything else in a stable form
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d.pop("program",None); print(json.dumps(d,indent=2,sort_keys=True))' "$1"
}
for s in workloads/asm/*.s; do
  n=$(basename "$s" .s)
  g=tests/golden/$n.stats.json
  if ! $SASIM asm "$s" -o "$T/$n.bin" 2>"$T/err"; then echo "FAIL golden-$n: $(head -c 200 "$T/err")"; continue; fi
  for mode in fast detailed; do
    if ! $SASIM run "$T/$n.bin" --mode $mode --json "$T/$n.$mode.json" >/dev/null 2>"$T/err"; then
      echo "FAIL golden-$n-$mode: $(head -c 200 "$T/err")"; continue
    fi
    normalize "$T/$n.$mode.json" >"$T/$n.$mode.norm"
    if [ "${SA_GOLDEN_UPDATE:-0}" = 1 ] && [ $mode = fast ]; then cp "$T/$n.$mode.norm" "$g"; echo "wrote $g" >&2; fi
    if [ ! -f "$g" ]; then echo "FAIL golden-$n-$mode: no $g (run make golden)"; continue; fi
    if cmp -s "$T/$n.$mode.norm" "$g"; then echo "PASS golden-$n-$mode"
    else echo "FAIL golden-$n-$mode: statistics differ from $g: $(diff "$g" "$T/$n.$mode.norm" | head -4 | tr '\n' ' ')"; fi
  done
done

for n in workloads/nets/*.json; do
  b=$(basename "$n" .json)
  g=tests/golden/$b.ref.txt
  if ! $B/bin/sacc ref "$n" >"$T/$b.ref" 2>"$T/err"; then echo "FAIL golden-ref-$b: $(head -c 200 "$T/err")"; continue; fi
  if [ "${SA_GOLDEN_UPDATE:-0}" = 1 ]; then cp "$T/$b.ref" "$g"; echo "wrote $g" >&2; fi
  if [ ! -f "$g" ]; then echo "FAIL golden-ref-$b: no $g (run make golden)"; continue; fi
  cmp -s "$T/$b.ref" "$g" && echo "PASS golden-ref-$b" || echo "FAIL golden-ref-$b: reference outputs differ from $g"
done
