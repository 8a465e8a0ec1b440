.arch default
.tensor p dtype=int32 shape=[3,16] addr=0x0 role=const data=zeros
CFG_LOAD stride_inner=64
LOAD mem=param dst=0 dram_addr=p outer=1 inner=3 nseg=1 seglen=64 push=store
CFG_STORE act=clamp params=1 prow=0 clamp_lo=-6 clamp_hi=0x7f stride_outer=0 stride_inner=16
CFG_LOAD mult=-7 shift=63 stride_outer=0xffffff stride_inner=0 seg_stride=0xfffff
STORE raw32=0 src=0 dram_addr=0x1000 outer=1 inner=1 cols=16 pop=load
HALT
