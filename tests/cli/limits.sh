#!/bin/sh
# limits.sh BUILD_DIR: bounded cost on large legal inputs and bombs (issue 18 items 9-12, 14, 18):
# the quick cases, each under a memory ulimit or a timeout far above what the bounded code needs;
# the slow and big ones are in tests/hostile/bound.sh. Prints PASS/FAIL lines for tests/run.sh.
# Run from the repository root.
set -u
B=${1:-build}
SASIM=$B/bin/sasim
SACC=$B/bin/sacc
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
CLI_PREFIX=limits
. tests/cli/lib.sh

# Item 14: the assembler finds tensor names by hash. 240k .tensor lines, each also named by a
# LOAD's dram_addr, took 100 s when each lookup walked the list; now about a second.
awk 'BEGIN {
  n = 240000
  for (i = 0; i < n; i++) printf ".tensor t%d dtype=int8 shape=[4] addr=%d role=scratch\n", i, i * 4
  print "CFG_LOAD stride_outer=0 stride_inner=4 seg_stride=0"
  for (i = 0; i < n; i += 1000) printf "LOAD mem=spad dst=0 dram_addr=t%d outer=1 inner=1 nseg=1 seglen=4\n", i
  print "HALT"
}' >"$T/many.s"
expect asm-240k-tensors 0 '' -- timeout 30 $SASIM asm "$T/many.s" -o "$T/many.bin"
{ sed '$d' "$T/many.s"; echo '.tensor t65537 dtype=int8 shape=[4] addr=0 role=scratch'; echo HALT; } >"$T/dup.s"
expect asm-duplicate-tensor 1 'dup.s:240242:9: error: duplicate tensor .t65537.' -- timeout 30 $SASIM asm "$T/dup.s" -o "$T/dup.bin"
