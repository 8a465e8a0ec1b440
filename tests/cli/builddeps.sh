#!/bin/sh
# builddeps.sh BUILD_DIR: the build finds jansson and zlib without root (README.md, "Building
# without root"). A private prefix holds a copy of jansson's headers (marked, so the compiler
# says when it reads them) and library, described by a jansson.pc in a directory of its own:
#  - with PKG_CONFIG_PATH naming it, make's compile lines carry -I<prefix>/include, its link
#    lines -L<prefix>/lib -ljansson and a run path to it (make -n), the dependency step passes
#    for a user who is not root without calling apt-get (fake `id` and `apt-get` on the PATH),
#    and compiling isa/arch.c reads the private jansson.h;
#  - JANSSON_CFLAGS/JANSSON_LIBS on make's command line beat pkg-config;
#  - without pkg-config the flags are today's (-ljansson -lz -lm -pthread);
#  - with the library nowhere, the dependency step fails and names the Debian command, Homebrew
#    and the overrides, still without apt-get.
# BUILD_DIR is not used (scratch build directories only); the build is never run in full.
set -u
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
CLI_PREFIX=builddeps
. tests/cli/lib.sh

CC=${CC:-cc}
lib=$($CC -print-file-name=libjansson.so)
inc=""
for d in /usr/include /usr/local/include; do [ -f "$d/jansson.h" ] && inc=$d && break; done
if [ -z "$inc" ] || [ ! -f "$lib" ]; then
  echo "SKIP $CLI_PREFIX-all: no jansson.h in /usr/include or /usr/local/include, or no libjansson.so, to copy"
  exit 0
fi
J=$T/jansson
mkdir -p "$J/include" "$J/lib" "$T/pc" "$T/fake"
{ echo '#pragma message "private jansson.h of builddeps.sh"'; cat "$inc/jansson.h"; } >"$J/include/jansson.h"
cp "$inc/jansson_config.h" "$J/include/"
cp -L "$lib" "$J/lib/libjansson.so"
cat >"$T/pc/jansson.pc" <<EOF
prefix=$J
includedir=\${prefix}/include
libdir=\${prefix}/lib
Name: Jansson
Description: a private copy for builddeps.sh
Version: 2.14
Cflags: -I\${includedir}
Libs: -L\${libdir} -ljansson
EOF
# Not root, and an apt-get that records being called.
printf '#!/bin/sh\n[ "${1:-}" = -u ] && { echo 1000; exit 0; }\nexec /usr/bin/id "$@"\n' >"$T/fake/id"
printf '#!/bin/sh\necho "apt-get $*" >>%s/apt-called\nexit 1\n' "$T" >"$T/fake/apt-get"
chmod 755 "$T/fake/id" "$T/fake/apt-get"
PATH="$T/fake:$PATH"
[ "$(id -u)" = 1000 ] || { fail fake-user "the fake id is not on the PATH"; exit 0; }
B=$T/b

PKG_CONFIG_PATH="$T/pc" make -n --no-print-directory BUILD="$B" "$B/bin/sasim" >"$T/dry.out" 2>&1
grep -q -- "-c isa/arch.c" "$T/dry.out" || fail dry-run "no compile line for isa/arch.c: $(head -c 300 "$T/dry.out")"
if grep -- "-c isa/arch.c" "$T/dry.out" | grep -qF -- "-I$J/include"; then pass pkgconfig-cflags
else fail pkgconfig-cflags "isa/arch.c is compiled without -I$J/include: $(grep -- '-c isa/arch.c' "$T/dry.out")"; fi
link=$(grep -- "-o $B/bin/sasim" "$T/dry.out")
case $link in
  *"-L$J/lib -ljansson"*"-Wl,-rpath,$J/lib"*) pass pkgconfig-libs ;;
  *) fail pkgconfig-libs "the link line lacks -L$J/lib -ljansson and its run path: $link" ;;
esac

if make -s --no-print-directory BUILD="$B" PKG_CONFIG_PATH="$T/pc" "$B/isa/arch.o" >"$T/make.out" 2>&1 &&
   [ -f "$B/.deps-ok" ] && [ -f "$B/isa/arch.o" ]; then pass deps-step-no-root
else fail deps-step-no-root "$(tail -c 400 "$T/make.out")"; fi
grep -q 'private jansson.h of builddeps.sh' "$T/make.out" && pass private-header-used ||
  fail private-header-used "compiling isa/arch.c did not read $J/include/jansson.h: $(tail -c 300 "$T/make.out")"

make -n --no-print-directory BUILD="$T/d2" PKG_CONFIG_PATH="$T/pc" JANSSON_CFLAGS=-I/opt/j/include \
  JANSSON_LIBS="-L/opt/j/lib -ljansson" "$T/d2/bin/sasim" >"$T/dry2.out" 2>&1
if grep -- "-c isa/arch.c" "$T/dry2.out" | grep -qF -- "-I/opt/j/include" &&
   ! grep -qF -- "$J" "$T/dry2.out" && grep -- "-o $T/d2/bin/sasim" "$T/dry2.out" | grep -qF -- "-L/opt/j/lib -ljansson -lz -lm -pthread -Wl,-rpath,/opt/j/lib"; then
  pass overrides
else fail overrides "$(grep -- '-o '"$T"'/d2/bin/sasim\|-c isa/arch.c' "$T/dry2.out")"; fi

make -n --no-print-directory BUILD="$T/d3" PKG_CONFIG=/nonexistent/pkg-config "$T/d3/bin/sasim" >"$T/dry3.out" 2>&1
if grep -- "-o $T/d3/bin/sasim" "$T/dry3.out" | grep -qE -- "-o $T/d3/bin/sasim -ljansson -lz -lm -pthread\$" &&
   grep -- "-c isa/arch.c" "$T/dry3.out" | grep -qE -- "-ffp-contract=off -O3 -g +-MMD"; then
  pass no-pkgconfig-defaults
else fail no-pkgconfig-defaults "$(grep -- '-o '"$T"'/d3/bin/sasim\|-c isa/arch.c' "$T/dry3.out")"; fi

make -s --no-print-directory BUILD="$T/b2" PKG_CONFIG=/nonexistent/pkg-config JANSSON_CFLAGS="-I$T/none" \
  JANSSON_LIBS="-L$T/none -ljansson_absent" "$T/b2/.deps-ok" >"$T/miss.out" 2>&1; rc=$?
msg=$(tr '\n' ' ' <"$T/miss.out")
case $rc:$msg in
  0:*) fail missing-message "the dependency step passed without the library: $msg" ;;
  *"apt-get update && apt-get install -y libjansson-dev"*"brew install jansson zlib pkg-config"*"PKG_CONFIG_PATH=PREFIX/lib/pkgconfig"*"JANSSON_CFLAGS=-IPREFIX/include JANSSON_LIBS=\"-LPREFIX/lib -ljansson\""*)
    pass missing-message ;;
  *) fail missing-message "$msg" ;;
esac
[ ! -f "$T/b2/.deps-ok" ] && pass missing-no-stamp || fail missing-no-stamp "$T/b2/.deps-ok written"
[ ! -f "$T/apt-called" ] && pass no-apt-get || fail no-apt-get "$(cat "$T/apt-called")"
