; gemm_small on an inline tiny arch (no file access while fuzzing)
.arch {"name": "tiny", "array": {"rows": 4, "cols": 4}, "spad": {"rows": 64}, "wbuf": {"rows": 32}, "acc": {"rows": 64}, "param": {"rows": 8}, "dram": {"bytes": 1048576, "bus_bytes": 4, "latency": 10, "max_inflight": 4}, "queues": {"load": 4, "compute": 4, "store": 4}, "store": {"fifo_rows": 2}}
.layer gemm
.tensor A dtype=int8  shape=[4,4] addr=0x100 role=input data=[1,2,3,4, 5,6,7,8, -1,0,1,0, 2,-3,4,-5]
.tensor B dtype=int8  shape=[4,4] addr=0x200 role=const data=[1,0,0,2, 0,1,0,-1, 0,0,1,3, 1,1,1,1]
.tensor C dtype=int32 shape=[4,4] addr=0x300 role=output
LAYER layer_id=0
CFG_LOAD stride_inner=4
LOAD mem=wbuf dst=0 dram_addr=B outer=1 inner=4 nseg=1 seglen=4 push=compute
LOAD mem=spad dst=0 dram_addr=A outer=1 inner=4 nseg=1 seglen=4 push=compute
PRELOAD src=0 rows=4 pop=load
COMPUTE src=0 acc_addr=0 rows=4 accum=0 pop=load push=store
CFG_STORE stride_inner=16
STORE raw32=1 src=0 dram_addr=C outer=1 inner=4 cols=4 pop=compute
HALT
