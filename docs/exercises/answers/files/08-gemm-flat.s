; 08-gemm-flat.s -- exercise 8's GEMM written out by hand, without loops: the program
; 08-gemm-loops.s expands to, instruction for instruction (tests/isa/asm_loops_test.c checks
; that both assemble to the same bytes).  C[16,14] (int32) = A[16,10] x B[10,14] on tiny.
; Steps s = 0..11 go N tile by N tile (nt), and K tile by K tile (kt) inside; B tiles
; alternate between WBUF rows 0..3 and 4..7.
.arch tiny

.layer gemm
.tensor A dtype=int8  shape=[16,10] addr=0x1000 role=input data=seed:81
.tensor B dtype=int8  shape=[10,14] addr=0x2000 role=const data=seed:82
.tensor C dtype=int32 shape=[16,14] addr=0x3000 role=output

LAYER layer_id=0
CFG_STORE stride_inner=56

; ---- step 0: B[0..3][0..3] ----
CFG_LOAD stride_inner=14
LOAD mem=wbuf dst=0 dram_addr=0x2000 outer=1 inner=4 nseg=1 seglen=4 push=compute
CFG_LOAD stride_inner=10
LOAD mem=spad dst=0 dram_addr=0x1000 outer=1 inner=16 nseg=1 seglen=4 push=compute
PRELOAD src=0 rows=4 pop=load
COMPUTE src=0 acc_addr=0 rows=16 accum=0 pop=load push=load

; ---- step 1: B[4..7][0..3] ----
CFG_LOAD stride_inner=14
LOAD mem=wbuf dst=4 dram_addr=0x2038 outer=1 inner=4 nseg=1 seglen=4 push=compute
CFG_LOAD stride_inner=10
LOAD mem=spad dst=16 dram_addr=0x1004 outer=1 inner=16 nseg=1 seglen=4 push=compute
PRELOAD src=4 rows=4 pop=load
COMPUTE src=16 acc_addr=0 rows=16 accum=1 pop=load push=load

; ---- step 2: B[8..9][0..3] ----
CFG_LOAD stride_inner=14
LOAD mem=wbuf dst=0 dram_addr=0x2070 outer=1 inner=2 nseg=1 seglen=4 pop=compute push=compute
CFG_LOAD stride_inner=10
LOAD mem=spad dst=32 dram_addr=0x1008 outer=1 inner=16 nseg=1 seglen=2 push=compute
PRELOAD src=0 rows=2 pop=load
COMPUTE src=32 acc_addr=0 rows=16 accum=1 pop=load push=load|store
STORE raw32=1 src=0 dram_addr=0x3000 outer=1 inner=16 cols=4 pop=compute

; ---- step 3: B[0..3][4..7] ----
CFG_LOAD stride_inner=14
LOAD mem=wbuf dst=4 dram_addr=0x2004 outer=1 inner=4 nseg=1 seglen=4 pop=compute push=compute
PRELOAD src=4 rows=4 pop=load
COMPUTE src=0 acc_addr=16 rows=16 accum=0 push=load

; ---- step 4: B[4..7][4..7] ----
CFG_LOAD stride_inner=14
LOAD mem=wbuf dst=0 dram_addr=0x203c outer=1 inner=4 nseg=1 seglen=4 pop=compute push=compute
PRELOAD src=0 rows=4 pop=load
COMPUTE src=16 acc_addr=16 rows=16 accum=1 push=load

; ---- step 5: B[8..9][4..7] ----
CFG_LOAD stride_inner=14
LOAD mem=wbuf dst=4 dram_addr=0x2074 outer=1 inner=2 nseg=1 seglen=4 pop=compute push=compute
PRELOAD src=4 rows=2 pop=load
COMPUTE src=32 acc_addr=16 rows=16 accum=1 push=load|store
STORE raw32=1 src=16 dram_addr=0x3010 outer=1 inner=16 cols=4 pop=compute

; ---- step 6: B[0..3][8..11] ----
CFG_LOAD stride_inner=14
LOAD mem=wbuf dst=0 dram_addr=0x2008 outer=1 inner=4 nseg=1 seglen=4 pop=compute push=compute
PRELOAD src=0 rows=4 pop=load
COMPUTE src=0 acc_addr=32 rows=16 accum=0 push=load

; ---- step 7: B[4..7][8..11] ----
CFG_LOAD stride_inner=14
LOAD mem=wbuf dst=4 dram_addr=0x2040 outer=1 inner=4 nseg=1 seglen=4 pop=compute push=compute
PRELOAD src=4 rows=4 pop=load
COMPUTE src=16 acc_addr=32 rows=16 accum=1 push=load

; ---- step 8: B[8..9][8..11] ----
CFG_LOAD stride_inner=14
LOAD mem=wbuf dst=0 dram_addr=0x2078 outer=1 inner=2 nseg=1 seglen=4 pop=compute push=compute
PRELOAD src=0 rows=2 pop=load
COMPUTE src=32 acc_addr=32 rows=16 accum=1 push=load|store
STORE raw32=1 src=32 dram_addr=0x3020 outer=1 inner=16 cols=4 pop=compute

; ---- step 9: B[0..3][12..13] ----
CFG_LOAD stride_inner=14
LOAD mem=wbuf dst=4 dram_addr=0x200c outer=1 inner=4 nseg=1 seglen=2 pop=compute push=compute
PRELOAD src=4 rows=4 pop=load
COMPUTE src=0 acc_addr=48 rows=16 accum=0 push=load

; ---- step 10: B[4..7][12..13] ----
CFG_LOAD stride_inner=14
LOAD mem=wbuf dst=0 dram_addr=0x2044 outer=1 inner=4 nseg=1 seglen=2 pop=compute push=compute
PRELOAD src=0 rows=4 pop=load
COMPUTE src=16 acc_addr=48 rows=16 accum=1

; ---- step 11: B[8..9][12..13] ----
CFG_LOAD stride_inner=14
LOAD mem=wbuf dst=4 dram_addr=0x207c outer=1 inner=2 nseg=1 seglen=2 pop=compute push=compute
PRELOAD src=4 rows=2 pop=load
COMPUTE src=32 acc_addr=48 rows=16 accum=1 push=store
STORE raw32=1 src=48 dram_addr=0x3030 outer=1 inner=16 cols=2 pop=compute
HALT
