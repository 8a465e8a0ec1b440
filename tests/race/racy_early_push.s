; racy_early_push.s -- token misuse: a CFG_LOAD pushes compute, but it ends before the LOAD
; before it (a DMA) has finished, so its token says nothing about that LOAD; and the COMPUTE's pop
; takes that token instead of the SPAD load's, so the SPAD rows race too. Fix: remove push=compute
; from the CFG_LOAD.
; expect: early_push load->compute insn=3 other=none
; expect: race RAW SPAD 0..1 insn=6 other=4 fix=later_push
.arch "../../workloads/arch/tiny.json"
.layer gemm
.tensor A dtype=int8  shape=[2,3] addr=0x100 role=input data=[1,2,3, 4,5,6]
.tensor B dtype=int8  shape=[3,2] addr=0x200 role=const data=[1,-1, 1,0, -1,0]
.tensor C dtype=int32 shape=[2,2] addr=0x300 role=output
LAYER layer_id=0
CFG_LOAD stride_inner=2
LOAD mem=wbuf dst=0 dram_addr=B outer=1 inner=3 nseg=1 seglen=2 push=compute
CFG_LOAD stride_inner=3 push=compute
LOAD mem=spad dst=0 dram_addr=A outer=1 inner=2 nseg=1 seglen=3 push=compute
PRELOAD src=0 rows=3 pop=load
COMPUTE src=0 acc_addr=0 rows=2 accum=0 pop=load push=store
CFG_STORE stride_inner=8
STORE raw32=1 src=0 dram_addr=C outer=1 inner=2 cols=2 pop=compute
HALT
