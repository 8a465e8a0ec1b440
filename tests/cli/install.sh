#!/bin/sh
# install.sh BUILD_DIR: `make install PREFIX=...` (and DESTDIR) into a scratch directory, then the
# installed tools, run from elsewhere, on a shipped net and arch: sacc compiles LeNet-5 for the
# installed tiny arch, sasim runs it and prints the reference outputs, sacc-sweep finds the
# installed tools and data by itself (a spec naming workloads/... paths included); docs are
# there; make uninstall removes it all.
set -u
B=${1:-build}
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
CLI_PREFIX=install
. tests/cli/lib.sh
REPO=$(pwd)
P=$T/prefix

if make --no-print-directory -s BUILD="$B" PREFIX="$P" install >"$T/make.out" 2>&1; then pass make-install
else fail make-install "$(tail -c 400 "$T/make.out")"; fi
missing=""
for f in bin/sacc bin/sasim bin/sacc-sweep share/sacc/arch/tiny.json share/sacc/arch/default.json \
         share/sacc/nets/lenet5.json share/sacc/sweeps/tiny.json share/doc/sacc/README.md \
         share/doc/sacc/ARCH.md share/doc/sacc/SWEEP.md; do
  [ -f "$P/$f" ] || missing="$missing $f"
done
[ -z "$missing" ] && pass files || fail files "missing:$missing"
[ -x "$P/bin/sacc-sweep" ] && pass sweep-executable || fail sweep-executable "bin/sacc-sweep is not executable"

# Run from a directory that is not the repository, with only the installed files named.
mkdir -p "$T/work"
cd "$T/work"
if "$P/bin/sacc" compile "$P/share/sacc/nets/lenet5.json" --arch "$P/share/sacc/arch/tiny.json" -o l.bin >c.out 2>&1 &&
   "$P/bin/sasim" run l.bin >r.out 2>&1; then
  grep '^output ' r.out | sort >got
  grep '^output ' "$REPO/tests/golden/lenet5.ref.txt" | sort >want
  [ -s want ] && cmp -s got want && pass installed-tools-run || fail installed-tools-run "outputs: $(cat got) want $(cat want)"
else
  fail installed-tools-run "$(cat c.out r.out 2>/dev/null | head -c 300)"
fi

# A shipped arch by name: the installed share/sacc/arch/tiny.json.
if "$P/bin/sacc" compile "$P/share/sacc/nets/lenet5.json" --arch tiny -o n.bin >c.out 2>&1 && cmp -s n.bin l.bin; then
  pass installed-arch-by-name
else
  fail installed-arch-by-name "$(head -c 300 c.out)"
fi

# sacc-sweep: shipped names, then the shipped spec whose paths say workloads/...; the plan must
# name the installed sacc and sasim, not the repository's.
if "$P/bin/sacc-sweep" --nets lenet5 --base-arch tiny --arch array.cols=4,8 --out sw --no-plot >s.out 2>&1 &&
   [ "$(grep -c ',ok,' sw/results.csv)" = 2 ]; then pass sweep-names
else fail sweep-names "$(tail -c 300 s.out)"; fi
grep -q "\"sacc\": \"$P/bin/sacc\"" sw/plan.json && grep -q "\"sasim\": \"$P/bin/sasim\"" sw/plan.json &&
  pass sweep-installed-tools || fail sweep-installed-tools "$(grep '"sa' sw/plan.json | head -3)"
sed 's|"lenet5"|"workloads/nets/lenet5.json"|; s|"base_arch": "small"|"base_arch": "workloads/arch/small.json"|' \
  "$P/share/sacc/sweeps/tiny.json" >spec.json
if "$P/bin/sacc-sweep" spec.json --out sw2 --no-plot --jobs 2 >s2.out 2>&1 && grep -q 'sw2/results.csv: 8 rows, 8 ok' s2.out &&
   grep -q "\"net_path\": \"$P/share/sacc/nets/lenet5.json\"" sw2/plan.json; then pass sweep-workloads-paths
else fail sweep-workloads-paths "$(tail -c 300 s2.out)"; fi
cd "$REPO"

# DESTDIR: the files land under it, at the PREFIX path.
if make --no-print-directory -s BUILD="$B" PREFIX=/opt/sacc DESTDIR="$T/dest" install >"$T/make2.out" 2>&1 &&
   [ -x "$T/dest/opt/sacc/bin/sasim" ] && [ -f "$T/dest/opt/sacc/share/sacc/arch/tiny.json" ]; then pass destdir
else fail destdir "$(tail -c 300 "$T/make2.out")"; fi

make --no-print-directory -s BUILD="$B" PREFIX="$P" uninstall >"$T/make3.out" 2>&1
left=$(find "$P" -type f | head -3)
[ -z "$left" ] && pass uninstall || fail uninstall "left: $left"
