.arch {"array": {"rows": 4, "cols": 4}, "spad": {"rows": 64}, "wbuf": {"rows": 32}, "acc": {"rows": 64}}
.set M, 8
.set T, 3
.layer l
.tensor A dtype=int8 shape=[M,12] addr=0x100 role=input data=seed:5
.tensor B dtype=int8 shape=[12,4] addr=0x200 role=const data=seed:6
.tensor C dtype=int32 shape=[M,4] addr=0x300 role=output
LAYER layer_id=0
CFG_LOAD stride_inner=12
.rep T, t
  LOAD mem=spad dst=M*t dram_addr=A+4*t outer=1 inner=M nseg=1 seglen=4 push=compute
.endr
CFG_LOAD stride_inner=4
.rep T, t
  LOAD mem=wbuf dst=4*(t%2) dram_addr=B+16*t outer=1 inner=4 nseg=1 seglen=4 pop=compute*(t>=2) push=compute
  PRELOAD src=4*(t%2) rows=4 pop=load
  COMPUTE src=M*t acc_addr=0 rows=M accum=(t>0) pop=load push=load*(t+2<T)|store*(t==T-1)
.endr
CFG_STORE stride_inner=16
STORE raw32=1 src=0 dram_addr=C outer=1 inner=M cols=4 pop=compute
HALT
