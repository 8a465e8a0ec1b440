.arch {"name": "odd", "array": {"rows": 2, "cols": 3}, "dram": {"bytes": 4096}}
.tensor x dtype=int8 shape=[8,8] addr=0 role=input data=seed:99
CFG_LOAD stride_outer=16 stride_inner=8 seg_stride=3
LOAD mem=wbuf accum=0 dst=1 dram_addr=x+1 outer=2 inner=2 nseg=3 seglen=1 push=compute
PRELOAD src=1 rows=2 pop=load
COMPUTE src=0 acc_addr=0 rows=5
HALT
