; clean_sfu.s -- tests/race/racy_raw_sfu.s fixed as `sasim check` says: push=sfu on the COMPUTE
; and pop=compute on the SFU_MAP, so the SFU reads ACC rows 0..1 only after the COMPUTE has
; written them. No race: `sasim check` prints nothing, both engines run it to the same output.
.arch "../../workloads/arch/tiny.json"
.layer gemm_gelu
.tensor A dtype=int8  shape=[2,3] addr=0x100 role=input data=[1,2,3, 4,5,6]
.tensor B dtype=int8  shape=[3,2] addr=0x200 role=const data=[1,-1, 1,0, -1,0]
.tensor C dtype=int32 shape=[2,2] addr=0x300 role=output
LAYER layer_id=0
CFG_LOAD stride_inner=2
LOAD mem=wbuf dst=0 dram_addr=B outer=1 inner=3 nseg=1 seglen=2 push=compute
CFG_LOAD stride_inner=3
LOAD mem=spad dst=0 dram_addr=A outer=1 inner=2 nseg=1 seglen=3 push=compute
PRELOAD src=0 rows=3 pop=load
COMPUTE src=0 acc_addr=0 rows=2 accum=0 pop=load push=sfu
CFG_SFU mult=1073741824 shift=19                ; x * 2048: the int32 sums at scale 1 as Q4.11
SFU_MAP fn=gelu src=0 acc_addr=2 rows=2 pop=compute push=store
CFG_STORE stride_inner=8
STORE raw32=1 pop=sfu src=2 dram_addr=C outer=1 inner=2 cols=2
HALT
