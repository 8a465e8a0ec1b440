# lib.sh: shared by the CLI test scripts (sourced, not run: tests/run.sh runs only *.sh files
# other than this one). Needs $T (a scratch directory) and a prefix in $CLI_PREFIX.
pass() { echo "PASS $CLI_PREFIX-$1"; }
fail() { echo "FAIL $CLI_PREFIX-$1: $2"; }
# expect NAME STATUS PATTERN -- CMD...: exit status and an output line matching PATTERN
expect() {
  name=$1 want=$2 pat=$3; shift 4
  "$@" >"$T/out" 2>&1; rc=$?
  if [ $rc -ne "$want" ]; then fail "$name" "exit $rc, want $want: $(head -c 300 "$T/out")"; return; fi
  if [ -n "$pat" ] && ! grep -qE -- "$pat" "$T/out"; then fail "$name" "no line matching /$pat/ in: $(head -c 300 "$T/out")"; return; fi
  pass "$name"
}
# batched NET N OUT: NET with the batch dimension of every input set to N.
batched() {
  python3 -c 'import json,sys
d = json.load(open(sys.argv[1]))
for i in d["inputs"]: i["shape"][0] = int(sys.argv[2])
json.dump(d, open(sys.argv[3], "w"))' "$1" "$2" "$3"
}
# golden_net TEST NET [SACC_ARGS...]: compiles NET with $SACC (and the args), runs it on $SASIM,
# and passes TEST when its output lines (name, shape, CRC32) equal tests/golden/<NET name>.ref.txt.
golden_net() {
  name=$1 net=$2; shift 2
  g=tests/golden/$(basename "$net" .json).ref.txt
  if ! $SACC compile "$net" "$@" -o "$T/g.bin" >"$T/g.err" 2>&1; then fail "$name" "sacc compile: $(head -c 300 "$T/g.err")"; return; fi
  if ! $SASIM run "$T/g.bin" >"$T/g.out" 2>"$T/g.err"; then fail "$name" "sasim run: $(head -c 300 "$T/g.err")"; return; fi
  grep '^output ' "$T/g.out" | sort >"$T/g.got"
  grep '^output ' "$g" 2>/dev/null | sort >"$T/g.want"
  if [ ! -s "$T/g.want" ]; then fail "$name" "no $g"
  elif cmp -s "$T/g.got" "$T/g.want"; then pass "$name"
  else fail "$name" "outputs differ from the reference: $(diff "$T/g.want" "$T/g.got" | head -4 | tr '\n' ' ')"; fi
}
# help_parses TEST TOOL CMD [ARGS...]: every option `TOOL CMD --help` lists must parse: given with a
# value when it takes one (the first of its listed values, 1 for a count, else a scratch path), then ARGS, TOOL must not call
# it unknown or short of a value. (The other direction, every table row in --help, is
# cli_check_tool's, run by tests/isa/cliopt_test and tests/compiler/sacc_cli_test.)
help_parses() {
  name=$1 tool=$2 cmd=$3; shift 3
  $tool "$cmd" --help >"$T/help" 2>&1 || { fail "$name" "$tool $cmd --help failed"; return; }
  awk '/^  -/ { sub(/^  /, ""); sub(/  .*/, ""); print }' "$T/help" >"$T/labels"
  [ -s "$T/labels" ] || { fail "$name" "no options in $tool $cmd --help"; return; }
  bad= n=0
  while IFS= read -r label; do
    meta=$(echo "$label" | sed -n 's/.* \([^ -][^ ]*\)$/\1/p')   # the last word, unless a spelling
    names=$label
    [ -z "$meta" ] || names=${label% *}
    for s in $(echo "$names" | tr ',' ' '); do
      case $s in -h|--help) continue ;; esac
      n=$((n + 1))
      if [ -n "$meta" ]; then
        v=$(echo "$meta" | sed 's/[|,].*//; s/\.\.\.$//')
        # A number for a count, else a path in the scratch directory: an output option given a
        # bare "1" would write a file named 1 into the current directory.
        case $meta in *'|'*|*,*) ;; N|M|D) v=1 ;; *) v=$T/hp-value ;; esac
        $tool "$cmd" "$s" "$v" "$@" >"$T/o" 2>&1
      else
        $tool "$cmd" "$s" "$@" >"$T/o" 2>&1
      fi
      if grep -qE "unknown option|needs a value|takes no value" "$T/o"; then bad="$bad $s"; fi
    done
  done <"$T/labels"
  if [ -n "$bad" ]; then fail "$name" "listed in --help but refused:$bad"; else pass "$name"; fi
}

# same_as_ref NAME NET [SASIM-OPTIONS -- SACC-OPTIONS]: the compiled program's outputs equal sacc ref's
# (the `output` lines, CRC32 of each). Needs SACC, SASIM and a scratch directory T. sacc ref runs
# once per net file content and script (the reference does not depend on the compile options).
same_as_ref() {
  name=$1 net=$2; shift 2
  simopt=
  while [ $# -gt 0 ] && [ "$1" != -- ]; do simopt="$simopt $1"; shift; done
  [ $# -gt 0 ] && shift
  # sacc ref of a net runs once per script: its output is kept in $T/refcache, keyed by the
  # net file's bytes (a script may rewrite a file between checks), and reused by later checks.
  mkdir -p "$T/refcache"
  rk=$T/refcache/$(cksum <"$net" | tr ' ' _)
  if [ -f "$rk.out" ] && cmp -s "$net" "$rk.net"; then cp "$rk.out" "$T/want.all"
  elif ! $SACC ref "$net" >"$T/want.all" 2>"$T/err"; then fail "$name" "sacc ref: $(head -c 300 "$T/err")"; return
  else cp "$net" "$rk.net" && cp "$T/want.all" "$rk.out"; fi
  if ! $SACC compile "$net" "$@" -o "$T/same.bin" >/dev/null 2>"$T/err"; then fail "$name" "sacc compile: $(head -c 300 "$T/err")"; return; fi
  # shellcheck disable=SC2086
  if ! $SASIM run "$T/same.bin" $simopt >"$T/got.all" 2>"$T/err"; then fail "$name" "sasim run: $(head -c 300 "$T/err")"; return; fi
  grep '^output ' "$T/want.all" | sort >"$T/want"; grep '^output ' "$T/got.all" | sort >"$T/got"
  if [ ! -s "$T/want" ]; then fail "$name" "sacc ref printed no output line"
  elif cmp -s "$T/want" "$T/got"; then pass "$name"
  else fail "$name" "outputs differ from sacc ref: $(diff "$T/want" "$T/got" | head -4 | tr '
' ' ')"; fi
}
