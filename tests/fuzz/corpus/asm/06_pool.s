.arch default
.tensor in dtype=int8 shape=[4,4,16] addr=0x1000 role=input data=seed:3
.tensor out dtype=int8 shape=[2,2,16] addr=0x2000 role=output
CFG_LOAD stride_inner=16 mult=1 shift=0
LOAD mem=acc dst=0 dram_addr=in outer=1 inner=16 nseg=1 seglen=16 push=store
CFG_POOL pool=max kh=2 kw=2 sh=2 sw=2 pad_t=0 pad_l=0 in_h=4 in_w=4
CFG_STORE act=none params=0 stride_outer=32 stride_inner=16
STORE src=0 dram_addr=out outer=2 inner=2 cols=16 pop=load
HALT
