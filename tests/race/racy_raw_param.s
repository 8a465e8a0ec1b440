; racy_raw_param.s -- RAW on PARAM: the per-channel parameters (multiplier, shift, bias) are
; loaded into PARAM rows 0..2, and the requantizing STORE reads them, but the parameter LOAD
; pushes no token to the store unit. Fix: push=store on the LOAD, pop=load on the STORE.
; expect: race RAW PARAM 0..2 insn=10 other=6 fix=push_pop
.arch "../../workloads/arch/tiny.json"
.layer gemm
.tensor A dtype=int8  shape=[2,3] addr=0x100 role=input data=[1,2,3, 4,5,6]
.tensor B dtype=int8  shape=[3,2] addr=0x200 role=const data=[1,-1, 1,0, -1,0]
.tensor C dtype=int32 shape=[2,2] addr=0x300 role=output
.tensor P dtype=int32 shape=[3,2] addr=0x400 role=const data=[3,5, 2,2, 10,-10]
.tensor Q dtype=int8 shape=[2,2] addr=0x500 role=output
LAYER layer_id=0
CFG_LOAD stride_inner=2
LOAD mem=wbuf dst=0 dram_addr=B outer=1 inner=3 nseg=1 seglen=2 push=compute
CFG_LOAD stride_inner=3
LOAD mem=spad dst=0 dram_addr=A outer=1 inner=2 nseg=1 seglen=3 push=compute
CFG_LOAD stride_inner=8
LOAD mem=param dst=0 dram_addr=P outer=1 inner=3 nseg=1 seglen=8
PRELOAD src=0 rows=3 pop=load
COMPUTE src=0 acc_addr=0 rows=2 accum=0 pop=load push=store
CFG_STORE stride_inner=2 params=1 prow=0
STORE raw32=0 src=0 dram_addr=Q outer=1 inner=2 cols=2 pop=compute
HALT
