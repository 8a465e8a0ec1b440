; asm_race_loop.s -- a race inside a loop (tests/cli/asmdoc.sh): both tiles of A go to SPAD rows
; 0..3, and nothing orders the second LOAD after the first COMPUTE, so `sasim check` reports a
; WAR on SPAD rows 0..3 between the loop body's lines 14 and 15.
.arch {"array": {"rows": 4, "cols": 4}, "spad": {"rows": 64}, "wbuf": {"rows": 32}, "acc": {"rows": 64}}
.layer g
.tensor A dtype=int8 shape=[8,4] addr=0x100 role=input data=seed:3
.tensor B dtype=int8 shape=[4,4] addr=0x200 role=const data=seed:4
.tensor C dtype=int32 shape=[8,4] addr=0x300 role=output
LAYER layer_id=0
CFG_LOAD stride_inner=4
LOAD mem=wbuf dst=0 dram_addr=B outer=1 inner=4 nseg=1 seglen=4 push=compute
PRELOAD src=0 rows=4 pop=load
.rep 2, t
  LOAD mem=spad dst=0 dram_addr=A+16*t outer=1 inner=4 nseg=1 seglen=4 push=compute
  COMPUTE src=0 acc_addr=4*t rows=4 pop=load push=store
.endr
CFG_STORE stride_inner=16
.rep 2, t
  STORE raw32=1 src=4*t dram_addr=C+64*t outer=1 inner=4 cols=4 pop=compute
.endr
HALT
