#!/bin/sh
# auto.sh BUILD_DIR: `sacc compile --dataflow auto` (issue 15 item 2): every shipped network, on the
# default and the tiny arch, gives the reference's output bytes (tests/golden/NAME.ref.txt) with
# each GEMM in the dataflow the cost model picked; programs that mix dataflows run alike in the
# fast and detailed engines; the choice shows in --dump-ir tiling (with the estimates it was made
# on) and in --json (a "dataflow" per layer); auto never keeps a plan against its estimates (the
# lowest whole-network estimate, WS unless beaten by the margin); --layer-dataflow forces a
# layer's dataflow (a program mixing all three, checked against the reference and in both
# engines). The big networks run only in an optimized build.
set -u
B=${1:-build}
SACC=$B/bin/sacc
SASIM=$B/bin/sasim
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
CLI_PREFIX=auto
. tests/cli/lib.sh
BIG="alexnet vgg16 resnet18 resnet50 mobilenetv2"
case $B in *asan*) small_only=1 ;; *) small_only=0 ;; esac

for f in workloads/nets/*.json; do
  n=$(basename "$f" .json)
  case " $BIG " in *" $n "*) [ $small_only = 1 ] && continue ;; esac
  golden_net "default-$n" "$f" --dataflow auto
done
for n in tiny_cnn residual lenet5 edge_odd edge_channels edge_gap_fc edge_depthwise edge_pooling depthwise; do
  golden_net "tiny-$n" "workloads/nets/$n.json" --dataflow auto --arch workloads/arch/tiny.json
  golden_net "tiny-single-$n" "workloads/nets/$n.json" --dataflow auto --arch workloads/arch/tiny.json --no-double-buffer
done

# auto's dump says which whole-network plan it kept and the estimates it was made on (compiler/
# compile.c): the lowest of the uniform plans and the per-op mix, and WS unless the winner is 0.5%
# (at least 500 cycles) below WS's; every GEMM line carries its choice and its three fused
# estimates, and with a uniform plan every GEMM runs in it. On LeNet-5 on the tiny, small and
# default arch, and AlexNet on the default one (where the mix wins).
for pair in lenet5:tiny lenet5:small lenet5:default edge_odd:large alexnet:default; do
  n=${pair%%:*} arch=${pair#*:}
  case " $BIG " in *" $n "*) [ $small_only = 1 ] && continue ;; esac
  if $SACC compile workloads/nets/$n.json --arch workloads/arch/$arch.json --dataflow auto -o "$T/a.bin" \
       --dump-ir tiling >"$T/dump" 2>"$T/err"; then
    r=$(python3 -c 'import re,sys
bad = []; n = 0; pick = None; dfs = set()
for line in open(sys.argv[1]):
    m = re.match(r"# auto: (ws|os|is|mix) \(network estimates ws (\S+) os (\S+) is (\S+) mix (\S+); ", line)
    if m:
        pick = m.group(1)
        est = {k: float(v) for k, v in zip(("ws", "os", "is", "mix"), m.group(2, 3, 4, 5)) if v != "-"}
        bar = est["ws"] - max(0.005 * est["ws"], 500)
        ok = {k: v for k, v in est.items() if k == "ws" or v < bar}
        if est[pick] != min(ok.values()) or pick not in ok:
            bad.append("kept %s of %s" % (pick, est))
        continue
    if not line.startswith("op ") or " gemm " not in line: continue
    m = re.match(r"op \d+ gemm (\S+) \[(ws|os|is); est ws (\S+) os (\S+) is (\S+)\]$", line.rstrip())
    if not m: bad.append("unparsed: " + line.strip()); continue
    n += 1; dfs.add(m.group(2))
    est = dict(zip(("ws", "os", "is"), m.group(3, 4, 5)))
    if est[m.group(2)] == "-": bad.append("%s: %s chosen without an estimate" % (m.group(1), m.group(2)))
if pick is None: bad.append("no # auto line")
elif pick != "mix" and dfs != {pick}: bad.append("uniform %s kept, GEMMs in %s" % (pick, sorted(dfs)))
print("ok %d %s" % (n, pick) if not bad and n else "; ".join(bad) or "no gemm lines")' "$T/dump")
    case $r in "ok "*) pass "dump-choices-$n-$arch" ;; *) fail "dump-choices-$n-$arch" "$r" ;; esac
    grep -q '^# tiling: .*dataflow per op (--dataflow auto' "$T/dump" && pass "dump-header-$n-$arch" ||
      fail "dump-header-$n-$arch" "$(grep -m1 '^# tiling' "$T/dump")"
  else
    fail "dump-choices-$n-$arch" "sacc compile: $(head -c 300 "$T/err")"
  fi
done

# A program that mixes all three dataflows (--layer-dataflow): LeNet-5 on the tiny arch with conv2
# input-stationary and fc1 output-stationary, the rest weight-stationary (the JSON and the dump
# say so); it gives the reference's bytes, and the fast and detailed engines agree on it figure
# for figure. With auto, an override wins over the cost model.
if $SACC compile workloads/nets/lenet5.json --arch workloads/arch/tiny.json --dataflow ws --layer-dataflow conv2=is \
     --layer-dataflow fc1=os -o "$T/m.bin" --json "$T/m.json" --dump-ir tiling >"$T/mdump" 2>"$T/err"; then
  mix=$(python3 -c 'import json,sys
d = json.load(open(sys.argv[1]))
print(" ".join("%s=%s" % (l["name"], l["dataflow"]) for l in d["layers"] if l["dataflow"]))' "$T/m.json")
  [ "$mix" = "conv1=ws conv2=is fc1=os fc2=ws fc3=ws" ] && pass "json-mixed" || fail "json-mixed" "layers' dataflows: '$mix'"
  grep -q '^op 2 gemm conv2 \[is\]$' "$T/mdump" && grep -q '^op 4 gemm fc1 \[os\]$' "$T/mdump" && pass "dump-forced" ||
    fail "dump-forced" "$(grep '^op' "$T/mdump" | head -5 | tr '\n' ' ')"
  $SASIM run "$T/m.bin" --json "$T/f.json" >"$T/f.out" 2>"$T/err" &&
    $SASIM run "$T/m.bin" --mode detailed --json "$T/d.json" >"$T/d.out" 2>>"$T/err" &&
    python3 -c 'import json,sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
a.pop("program"); b.pop("program")
sys.exit(a != b)' "$T/f.json" "$T/d.json" && cmp -s "$T/f.out" "$T/d.out" &&
    pass "mixed-engines-agree" || fail "mixed-engines-agree" "$(head -c 300 "$T/err")"
  # sasim's stats name each layer's dataflow, read from its compute instructions (sim/layer_dataflow.c):
  # in --json, in the --csv's last column and in the --stats table; pooling layers compute nothing.
  simdf=$(python3 -c 'import json,sys
d = json.load(open(sys.argv[1]))
print(" ".join("%s=%s" % (l["name"], l["dataflow"]) for l in d["layers"]))' "$T/f.json")
  [ "$simdf" = "conv1=ws pool1=- conv2=is pool2=- fc1=os fc2=ws fc3=ws" ] && pass "sim-json-dataflow" ||
    fail "sim-json-dataflow" "layers' dataflows in sasim --json: '$simdf'"
  $SASIM run "$T/m.bin" --stats --csv "$T/m.csv" >"$T/m.stats" 2>>"$T/err"
  grep -qE '^conv2 +is +[0-9]' "$T/m.stats" && grep -qE '^fc1 +os +[0-9]' "$T/m.stats" &&
    grep -qE '^pool1 +- +[0-9]' "$T/m.stats" && grep -q '^"fc1",.*,os$' "$T/m.csv" && grep -q '^layer,.*,dataflow$' "$T/m.csv" &&
    pass "sim-stats-dataflow" || fail "sim-stats-dataflow" "$(grep -E '^(layer|conv2|fc1) ' "$T/m.stats" | tr '\n' ' ')"
  grep '^output ' "$T/f.out" | sort >"$T/got"; grep '^output ' tests/golden/lenet5.ref.txt | sort >"$T/want"
  cmp -s "$T/got" "$T/want" && pass "mixed-reference" || fail "mixed-reference" "$(diff "$T/want" "$T/got" | head -3 | tr '\n' ' ')"
else
  fail "json-mixed" "sacc compile: $(head -c 300 "$T/err")"
fi
$SACC compile workloads/nets/lenet5.json --dataflow auto --layer-dataflow fc1=is -o "$T/o.bin" --json "$T/o.json" >/dev/null 2>&1
python3 -c 'import json,sys
d = {l["name"]: l["dataflow"] for l in json.load(open(sys.argv[1]))["layers"]}
sys.exit(d.get("fc1") != "is")' "$T/o.json" && pass "auto-override" || fail "auto-override" "$(head -c 300 "$T/o.json")"
expect layer-unknown 1 "^sacc: error: --layer-dataflow pool1=os: no layer named \"pool1\" runs a GEMM" -- \
  $SACC compile workloads/nets/lenet5.json --layer-dataflow pool1=os -o "$T/x.bin"
expect layer-bad-df 2 "^sacc: compile: --layer-dataflow: expected LAYER=ws, LAYER=os or LAYER=is, got 'fc1=xs'\$" -- \
  $SACC compile workloads/nets/lenet5.json --layer-dataflow fc1=xs -o "$T/x.bin"

# A fixed dataflow dumps no choice, and --json names it for every GEMM layer.
$SACC compile workloads/nets/lenet5.json --dataflow is -o "$T/i.bin" --json "$T/i.json" --dump-ir tiling >"$T/idump" 2>&1
if grep -q '\[ws;\|\[os;\|\[is;' "$T/idump"; then fail "fixed-no-choice" "$(grep -m1 '\[..;' "$T/idump")"
elif ! grep -q '^# tiling: .*input-stationary' "$T/idump"; then fail "fixed-no-choice" "$(head -1 "$T/idump")"
else pass "fixed-no-choice"; fi
python3 -c 'import json,sys
d = json.load(open(sys.argv[1]))
sys.exit(any(l["dataflow"] not in ("is", None) for l in d["layers"]) or not any(l["dataflow"] == "is" for l in d["layers"]))' \
  "$T/i.json" && pass "json-fixed" || fail "json-fixed" "$(head -c 300 "$T/i.json")"
expect bad-choice 2 "^sacc: compile: --dataflow: expected ws, os, is or auto, got 'best'\$" -- $SACC compile workloads/nets/lenet5.json --dataflow best -o "$T/x.bin"
