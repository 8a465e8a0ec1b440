; 07-race-fixed.s -- exercise 7, fixed: C[8,4] = A[8,4] x B[4,4] on the tiny arch, in two tiles of 4 rows of A.
; Both tiles use SPAD rows 0..3 (one buffer); the results go to ACC rows 0..3 and 4..7.
; The answer to exercise 7: tile 0's COMPUTE pushes a token to the load unit, which the second
; SPAD LOAD pops, so it overwrites SPAD rows 0..3 only after the COMPUTE has read them.
.arch tiny
.layer gemm
.tensor A dtype=int8  shape=[8,4] addr=0x100 role=input data=[1,2,3,4, 5,6,7,8, -1,0,1,0, 2,-3,4,-5, 0,1,0,1, 1,1,1,1, -2,2,-2,2, 3,0,0,3]
.tensor B dtype=int8  shape=[4,4] addr=0x200 role=const data=[1,0,0,2, 0,1,0,-1, 0,0,1,3, 1,1,1,1]
.tensor C dtype=int32 shape=[8,4] addr=0x300 role=output

LAYER layer_id=0
CFG_LOAD stride_inner=4
LOAD mem=wbuf dst=0 dram_addr=B outer=1 inner=4 nseg=1 seglen=4 push=compute      ; B -> WBUF 0..3
LOAD mem=spad dst=0 dram_addr=0x100 outer=1 inner=4 nseg=1 seglen=4 push=compute  ; A rows 0..3 -> SPAD 0..3
PRELOAD src=0 rows=4 pop=load
COMPUTE src=0 acc_addr=0 rows=4 accum=0 pop=load push=load|store                   ; tile 0
LOAD mem=spad dst=0 dram_addr=0x110 outer=1 inner=4 nseg=1 seglen=4 pop=compute push=compute ; A rows 4..7 -> SPAD 0..3
COMPUTE src=0 acc_addr=4 rows=4 accum=0 pop=load push=store                        ; tile 1
CFG_STORE stride_inner=16
STORE raw32=1 src=0 dram_addr=0x300 outer=1 inner=4 cols=4 pop=compute
STORE raw32=1 src=4 dram_addr=0x340 outer=1 inner=4 cols=4 pop=compute
HALT
