#!/bin/sh
# install.sh BUILD_DIR: `make install PREFIX=...` (and DESTDIR) into a scratch directory, then the
# installed tools, run from elsewhere, on a shipped net and arch: sacc compiles LeNet-5 for the
# installed tiny arch, sasim runs it and prints the reference outputs, sacc-sweep finds the
# installed tools and data by itself (a spec naming workloads/... paths included); docs are
# there; sacc-grade grades with the installed sasim; make uninstall removes it all.
# Self-contained: the installed tree is then moved elsewhere (so nothing can reach this source
# tree or its build through a path the install recorded), with a `make` on the PATH that fails
# loudly, and from there: --arch tiny, an asm example, the exercises' check commands against
# their answer keys (docs/ -> the installed share/doc/sacc), and --engine rtl from the installed
# models (SKIP, with the reason, when make rtl has not built them), including the error for an
# arch whose model was not installed. No installed text file names the source tree.
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
for f in bin/sacc bin/sasim bin/sacc-sweep bin/sacc-grade share/sacc/arch/tiny.json share/sacc/arch/default.json \
         share/sacc/nets/lenet5.json share/sacc/sweeps/tiny.json share/doc/sacc/README.md \
         share/doc/sacc/ARCH.md share/doc/sacc/SWEEP.md; do
  [ -f "$P/$f" ] || missing="$missing $f"
done
[ -z "$missing" ] && pass files || fail files "missing:$missing"
for f in share/sacc/asm/gemm_tiled.s share/sacc/asm/gemm_tiled_expected.npy; do
  [ -f "$P/$f" ] || missing="$missing $f"
done
(cd docs && find exercises -type f ! -name '*.pyc') >"$T/ex.list"
while read -r f; do
  cmp -s "docs/$f" "$P/share/doc/sacc/$f" || missing="$missing share/doc/sacc/$f"
done <"$T/ex.list"
[ -z "$missing" ] && [ "$(wc -l <"$T/ex.list")" -gt 5 ] && pass files-exercises-asm ||
  fail files-exercises-asm "missing or different:$missing"
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

# Self-contained: the tree moved where no recorded path leads back (M), a failing `make` first on
# the PATH, the current directory elsewhere.
M=$T/moved
mv "$P" "$M"
mkdir -p "$T/fakebin" "$T/w2"
printf '#!/bin/sh\necho "make called from the installed tree: $*" >>%s/make-called\nexit 1\n' "$T" >"$T/fakebin/make"
chmod 755 "$T/fakebin/make"
cd "$T/w2"
OLDPATH=$PATH
PATH="$T/fakebin:$PATH"
refs=$(grep -rlI -e "$REPO" "$M" 2>/dev/null | head -3)
[ -z "$refs" ] && pass no-source-paths || fail no-source-paths "installed text files name $REPO: $refs"
if "$M/bin/sacc" compile "$M/share/sacc/nets/lenet5.json" --arch tiny -o m.bin >c.out 2>&1 && cmp -s m.bin "$T/work/l.bin"; then
  pass moved-arch-by-name
else fail moved-arch-by-name "$(head -c 300 c.out)"; fi
if "$M/bin/sasim" asm "$M/share/sacc/asm/gemm_small.s" -o g.bin >a.out 2>&1 && "$M/bin/sasim" run g.bin >g.out 2>&1 &&
   "$REPO/$B/bin/sasim" asm "$REPO/workloads/asm/gemm_small.s" -o g2.bin >/dev/null 2>&1 &&
   "$REPO/$B/bin/sasim" run g2.bin >g2.out 2>&1 && cmp -s g.out g2.out && grep -q '^output ' g.out; then
  pass moved-asm-example
else fail moved-asm-example "$(cat a.out g.out 2>/dev/null | head -c 300)"; fi
# The exercises' commands say build/bin/ and docs/exercises/: here build/bin/ is the installed
# bin/ (check-exercises --build) and docs/ the installed share/doc/sacc.
ln -s "$M/share/doc/sacc" docs
# Every exercise but 6 (its check runs rtl/synth/timing.py of the source tree, with yosys); a
# sanitizer build only two (the rest are tests/cli/exercises.sh's there).
exs=$(cd "$M/share/doc/sacc/exercises" && ls [0-9]*.md | grep -v '^06-' | sed 's/\.md$//')
case $B in *asan*) exs="01-wavefront 07-races" ;; esac
for ex in $exs; do
  if python3 "$REPO/scripts/check-exercises" --build "$M" "docs/exercises/$ex.md" >ex.out 2>&1 &&
     grep -q '^PASS ' ex.out && ! grep -q '^FAIL ' ex.out; then pass "moved-exercise-$ex"
  else fail "moved-exercise-$ex" "$(grep -v '^PASS' ex.out | head -c 400)"; fi
done
# sacc-grade (docs/GRADING.md) grades with the sasim beside it: the installed asm example (its
# .arch by name) against its expected output passes, the installed lab skeleton (no code) fails.
mkdir -p subs && sed 's|^\.arch .*|.arch tiny|' "$M/share/sacc/asm/gemm_small.s" >subs/good.s && cp "$M/share/doc/sacc/exercises/files/gemm4-skeleton.s" subs/empty.s
if "$M/bin/sacc-grade" subs --expect C="$M/share/sacc/asm/gemm_small_expected.npy" -o g.csv --logs glogs >g.out 2>&1 &&
   grep -q '^good,pass,' g.csv && grep -q '^empty,fail,' g.csv && grep -q "^\$ $M/bin/sasim run" glogs/good.txt; then
  pass moved-grade
else fail moved-grade "$(cat g.out g.csv 2>/dev/null | head -c 400)"; fi
tiny_key=$("$REPO/$B/bin/sasim-rtl" --config-key "$REPO/workloads/arch/tiny.json" 2>/dev/null)
if [ ! -x "$REPO/$B/bin/sasim-rtl" ] || [ ! -x "$REPO/$B/rtl/$tiny_key/sasim-rtl-model" ]; then
  echo "SKIP $CLI_PREFIX-moved-engine-rtl: the RTL engine or the tiny arch's model is not built in $B (make rtl), so none was installed"
else
  [ -x "$M/bin/sasim-rtl" ] && [ -x "$M/libexec/sacc/rtl/$tiny_key/sasim-rtl-model" ] && pass rtl-installed ||
    fail rtl-installed "no bin/sasim-rtl or libexec/sacc/rtl/$tiny_key/sasim-rtl-model"
  if "$M/bin/sasim" run m.bin --engine rtl >r.out 2>&1 && grep '^output ' r.out | sort >got &&
     grep '^output ' "$REPO/tests/golden/lenet5.ref.txt" | sort >want && [ -s want ] && cmp -s got want; then
    pass moved-engine-rtl
  else fail moved-engine-rtl "$(head -c 400 r.out)"; fi
  # An arch whose model is not installed: an error naming the arch, the config and the commands.
  mkdir -p "$T/nomodel/rtl"
  "$M/bin/sacc" compile "$M/share/sacc/nets/lenet5.json" --arch "$M/share/sacc/arch/tpu-like.json" -o big.bin >/dev/null 2>&1
  expect moved-rtl-missing-model 1 "no RTL model for arch \"tpu-like\" \(R256_C256_.*\) in $M/libexec/sacc/rtl \(installed: .*R4_C4_.*\); build it in the source tree \(make rtl-model ARCH=<its arch.json>.*make install PREFIX=$M\)" \
    -- "$M/bin/sasim" run big.bin --engine rtl
fi
[ ! -f "$T/make-called" ] && pass no-make-called || fail no-make-called "$(head -3 "$T/make-called")"
PATH=$OLDPATH
cd "$REPO"
mv "$M" "$P"

# DESTDIR: the files land under it, at the PREFIX path.
if make --no-print-directory -s BUILD="$B" PREFIX=/opt/sacc DESTDIR="$T/dest" install >"$T/make2.out" 2>&1 &&
   [ -x "$T/dest/opt/sacc/bin/sasim" ] && [ -f "$T/dest/opt/sacc/share/sacc/arch/tiny.json" ]; then pass destdir
else fail destdir "$(tail -c 300 "$T/make2.out")"; fi

make --no-print-directory -s BUILD="$B" PREFIX="$P" uninstall >"$T/make3.out" 2>&1
left=$(find "$P" -type f | head -3)
[ -z "$left" ] && pass uninstall || fail uninstall "left: $left"
