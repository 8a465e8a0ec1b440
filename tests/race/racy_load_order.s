; racy_load_order.s -- issue 14's first example: a 2x3 by 3x2 product whose two LOADs come in
; the other order. PRELOAD pops the first load->compute token, which is the SPAD load's, not the
; WBUF load's: nothing orders the WBUF load before the PRELOAD that reads its rows (RAW on WBUF).
; `sasim check` reports it; `sasim run` refuses it; the fix is to swap the two LOADs.
; expect: race RAW WBUF 0..2 insn=5 other=4 fix=later_push
;
;   C[2,2] (int32) = A[2,3] x B[3,2],  A = [[1,2,3],[4,5,6]]  B = [[1,-1],[1,0],[-1,0]]
.arch "../../workloads/arch/tiny.json"
.layer gemm
.tensor A dtype=int8  shape=[2,3] addr=0x100 role=input data=[1,2,3, 4,5,6]
.tensor B dtype=int8  shape=[3,2] addr=0x200 role=const data=[1,-1, 1,0, -1,0]
.tensor C dtype=int32 shape=[2,2] addr=0x300 role=output
LAYER layer_id=0
CFG_LOAD stride_inner=3
LOAD mem=spad dst=0 dram_addr=A outer=1 inner=2 nseg=1 seglen=3 push=compute
CFG_LOAD stride_inner=2
LOAD mem=wbuf dst=0 dram_addr=B outer=1 inner=3 nseg=1 seglen=2 push=compute
PRELOAD src=0 rows=3 pop=load
COMPUTE src=0 acc_addr=0 rows=2 accum=0 pop=load push=store
CFG_STORE stride_inner=8
STORE raw32=1 src=0 dram_addr=C outer=1 inner=2 cols=2 pop=compute
HALT
