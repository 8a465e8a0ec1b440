#!/bin/sh
# threads.sh BUILD: `sasim run --threads` (fast mode: the values of big COMPUTEs and COMPUTE_ISs
# shared with a second host thread, sim/fast_par.c) changes nothing but the host time: the --json
# stats and every output tensor of --threads 1 and --threads 2 are identical, in the three
# dataflows on arches whose column counts split unevenly; out-of-range values are refused.
B=${1:-build}; SASIM=$B/bin/sasim; SACC=$B/bin/sacc
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
CLI_PREFIX=threads; . tests/cli/lib.sh

same_runs() {   # name prog: --threads 1 and 2 give the same stats and outputs
  name=$1 prog=$2
  for n in 1 2; do
    if ! $SASIM run "$prog" --threads $n --json "$T/s$n.json" --output-dir "$T/o$n" >"$T/r$n" 2>&1; then
      fail "$name" "--threads $n: $(head -c 300 "$T/r$n")"; return
    fi
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d.pop("program",None); print(json.dumps(d,sort_keys=True))' \
      "$T/s$n.json" >"$T/j$n"
  done
  if ! cmp -s "$T/j1" "$T/j2"; then fail "$name" "the stats differ"; return; fi
  if ! diff -r "$T/o1" "$T/o2" >/dev/null; then fail "$name" "the outputs differ"; return; fi
  rm -rf "$T/o1" "$T/o2"
  pass "$name"
}

mkdir -p "$T/arch"
# A 16x14 array: 7 column pairs, an odd number of chunks; and 16x9: an odd last column.
for c in 14 9; do
  python3 -c 'import json,sys; a=json.load(open("workloads/arch/default.json")); a["name"]="cols"+sys.argv[1]
a["array"]["cols"]=int(sys.argv[1]); json.dump(a,open(sys.argv[2],"w"))' $c "$T/arch/cols$c.json"
done
# ResNet-18's COMPUTEs are big enough to be shared (sim/fast.c PAR_MIN_MACS); residual's are not
# (one thread: the same either way).
run_net() {   # net dataflow arch
  a=$(basename "$3" .json)
  if $SACC compile workloads/nets/$1.json --dataflow $2 --arch "$3" -o "$T/p.bin" >"$T/c" 2>&1; then
    same_runs "$1-$2-$a" "$T/p.bin"
  else fail "$1-$2-$a" "sacc: $(head -c 300 "$T/c")"; fi
}
for df in ws os is; do run_net residual $df workloads/arch/default.json; done
# (Under the sanitizers the default arch's run is left to the plain build: the two odd splits
# below cover the same code.)
case $B in *asan*) ;; *) run_net resnet18 ws workloads/arch/default.json ;; esac
run_net resnet18 ws "$T/arch/cols9.json"
run_net resnet18 is "$T/arch/cols14.json"
expect threads-3 2 "--threads: 1 or 2, got 3" -- $SASIM run "$T/p.bin" --threads 3
expect threads-0 2 "--threads" -- $SASIM run "$T/p.bin" --threads 0
