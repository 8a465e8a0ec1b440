; racy_raw_gbuf.s -- RAW through the global buffer: the product is stored into the GBUF (a layer's
; output kept on chip), then loaded back into SPAD rows 8..9 for the next layer, but the LOAD does
; not wait for the STORE (no store->load token). Fix: push=load on the STORE, pop=store on the
; second LOAD.
; expect: race RAW GBUF 0x40..0x45 insn=9 other=8 fix=push_pop
.arch "../../workloads/arch/tiny.json"
.layer gemm
.tensor A dtype=int8  shape=[2,3] addr=0x100 role=input data=[1,2,3, 4,5,6]
.tensor B dtype=int8  shape=[3,2] addr=0x200 role=const data=[1,-1, 1,0, -1,0]
LAYER layer_id=0
CFG_LOAD stride_inner=2
LOAD mem=wbuf dst=0 dram_addr=B outer=1 inner=3 nseg=1 seglen=2 push=compute
CFG_LOAD stride_inner=3
LOAD mem=spad dst=0 dram_addr=A outer=1 inner=2 nseg=1 seglen=3 push=compute
PRELOAD src=0 rows=3 pop=load
COMPUTE src=0 acc_addr=0 rows=2 accum=0 pop=load push=store
CFG_STORE stride_inner=8
STORE raw32=1 src=0 dram_addr=0x40 outer=1 inner=2 cols=2 pop=compute gbuf=1
LOAD mem=spad dst=8 dram_addr=0x40 outer=1 inner=2 nseg=1 seglen=3 gbuf=1
HALT
