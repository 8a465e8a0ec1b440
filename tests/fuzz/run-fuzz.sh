#!/bin/sh
# run-fuzz.sh SECONDS: builds every tests/fuzz/fuzz_<target>.c as a libFuzzer binary (clang,
# -fsanitize=fuzzer,address,undefined, with the isa/ and sim/ sources) in build-fuzz/, then runs
# each for SECONDS seconds on its seeds tests/fuzz/corpus/<target>/. New inputs go to
# build-fuzz/corpus-<target>/ (the repository corpus is only read); a crashing input is written
# to build-fuzz/crashes-<target>/ -- copy it into tests/fuzz/corpus/<target>/ once fixed, so
# that `make test` replays it. Exit status: 0 when every target ran clean, 1 otherwise.
# Environment: FUZZ_CC (default clang).
set -u
secs=${1:-60}
case $secs in '' | *[!0-9]*) echo "usage: $0 SECONDS" >&2; exit 2 ;; esac
cc=${FUZZ_CC:-clang}
out=build-fuzz
mkdir -p "$out" || exit 1

if ! command -v "$cc" >/dev/null 2>&1; then
  echo "run-fuzz: error: $cc not found; libFuzzer needs clang (Debian: apt-get install clang)" >&2
  exit 1
fi
printf '#include <stddef.h>\n#include <stdint.h>\nint LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);\nint LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; (void)n; return 0; }\n' >"$out/probe.c"
if ! "$cc" -fsanitize=fuzzer "$out/probe.c" -o "$out/probe" >"$out/probe.log" 2>&1; then
  echo "run-fuzz: error: $cc has no libFuzzer (-fsanitize=fuzzer failed, see $out/probe.log);" \
    "install clang with its compiler-rt runtime" >&2
  exit 1
fi

srcs=""
for f in isa/*.c sim/*.c compiler/*.c; do
  case $f in isa/gen_isa.c | sim/main.c | compiler/main.c) ;; *) srcs="$srcs $f" ;; esac
done
flags="-std=c11 -g -O1 -D_POSIX_C_SOURCE=200809L -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all"

status=0
for t in tests/fuzz/fuzz_*.c; do
  [ -f "$t" ] || continue
  name=$(basename "$t" .c)
  target=${name#fuzz_}
  seeds=tests/fuzz/corpus/$target
  echo "run-fuzz: building $name"
  # shellcheck disable=SC2086  # $srcs is a word list
  if ! "$cc" $flags "$t" $srcs -o "$out/$name" -ljansson -lz -lm; then
    echo "run-fuzz: error: cannot build $name" >&2
    status=1
    continue
  fi
  mkdir -p "$out/corpus-$target" "$out/crashes-$target"
  [ -d "$seeds" ] || echo "run-fuzz: warning: no seed directory $seeds" >&2
  echo "run-fuzz: running $name for ${secs}s (seeds: $seeds, new inputs: $out/corpus-$target)"
  if ! "$out/$name" -max_total_time="$secs" -timeout=10 \
    -artifact_prefix="$out/crashes-$target/" "$out/corpus-$target" $( [ -d "$seeds" ] && echo "$seeds" ) \
    >"$out/$name.log" 2>&1; then
    echo "run-fuzz: FAIL $name: see $out/$name.log and $out/crashes-$target/" >&2
    tail -n 30 "$out/$name.log" >&2
    status=1
  else
    echo "run-fuzz: ok $name: $(grep -E '^#[0-9]+' "$out/$name.log" | tail -n 1)"
  fi
done
exit $status
