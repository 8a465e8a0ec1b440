; racy_overflow.s -- token misuse: both LOADs push load->compute before the compute unit pops
; either, so the channel can hold 2 tokens, but this arch's tokens.max is 1 (the program is
; otherwise gemm's clean order). Fix: a larger tokens.max, or a compute->load token between
; the LOADs.
; expect: overflow load->compute insn=none other=none
.arch {"name":"tiny-tokens1","array":{"rows":4,"cols":4},"spad":{"rows":64},"wbuf":{"rows":32},"acc":{"rows":64},"param":{"rows":8},"dram":{"bytes":1048576,"bus_bytes":4,"latency":10,"max_inflight":4},"queues":{"load":4,"compute":4,"store":4},"store":{"fifo_rows":2,"post_latency":3},"tokens":{"max":1}}
.layer gemm
.tensor A dtype=int8  shape=[2,3] addr=0x100 role=input data=[1,2,3, 4,5,6]
.tensor B dtype=int8  shape=[3,2] addr=0x200 role=const data=[1,-1, 1,0, -1,0]
.tensor C dtype=int32 shape=[2,2] addr=0x300 role=output
LAYER layer_id=0
CFG_LOAD stride_inner=2
LOAD mem=wbuf dst=0 dram_addr=B outer=1 inner=3 nseg=1 seglen=2 push=compute
CFG_LOAD stride_inner=3
LOAD mem=spad dst=0 dram_addr=A outer=1 inner=2 nseg=1 seglen=3 push=compute
PRELOAD src=0 rows=3 pop=load
COMPUTE src=0 acc_addr=0 rows=2 accum=0 pop=load push=store
CFG_STORE stride_inner=8
STORE raw32=1 src=0 dram_addr=C outer=1 inner=2 cols=2 pop=compute
HALT
