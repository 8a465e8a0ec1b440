; racy_war_dram.s -- WAR on DRAM: the STORE writes C over bytes that a late LOAD (SPAD rows
; 8..9) still reads, and nothing orders the LOAD before the STORE: the COMPUTE the STORE waits
; for popped an earlier load token. Fix: push=store on the late LOAD, pop=load on the STORE.
; expect: race WAR DRAM 0x300..0x302 insn=10 other=6 fix=push_pop
.arch "../../workloads/arch/tiny.json"
.layer gemm
.tensor A dtype=int8  shape=[2,3] addr=0x100 role=input data=[1,2,3, 4,5,6]
.tensor B dtype=int8  shape=[3,2] addr=0x200 role=const data=[1,-1, 1,0, -1,0]
.tensor C dtype=int32 shape=[2,2] addr=0x300 role=output
LAYER layer_id=0
CFG_LOAD stride_inner=2
LOAD mem=wbuf dst=0 dram_addr=B outer=1 inner=3 nseg=1 seglen=2 push=compute
CFG_LOAD stride_inner=3
LOAD mem=spad dst=0 dram_addr=A outer=1 inner=2 nseg=1 seglen=3 push=compute
CFG_LOAD stride_inner=8
LOAD mem=spad dst=8 dram_addr=C outer=1 inner=1 nseg=1 seglen=3
PRELOAD src=0 rows=3 pop=load
COMPUTE src=0 acc_addr=0 rows=2 accum=0 pop=load push=store
CFG_STORE stride_inner=8
STORE raw32=1 src=0 dram_addr=C outer=1 inner=2 cols=2 pop=compute
HALT
