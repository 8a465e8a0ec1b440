; the global buffer: a STORE into it, a gathering LOAD back from it, ACC loads and pooling through it
.arch {"array":{"rows":4,"cols":4},"acc":{"rows":32},"gbuf":{"bytes":256,"bus_bytes":2,"latency":13},"dram":{"latency":5}}
.layer g
.tensor X dtype=int8 shape=[4,4] addr=0x100 role=input data=seed:3
.tensor Y dtype=int32 shape=[4,4] addr=0x200 role=output
LAYER layer_id=0
CFG_LOAD stride_inner=4 mult=3 shift=1
LOAD mem=acc dst=0 dram_addr=X outer=1 inner=4 nseg=1 seglen=4
LOAD mem=acc dst=4 dram_addr=0x10 outer=1 inner=4 nseg=1 seglen=4 gbuf=1 push=store
CFG_POOL pool=max kh=2 kw=2 sh=2 sw=2 in_h=2 in_w=2
CFG_STORE stride_inner=4
STORE pop=load src=0 dram_addr=0x40 outer=1 inner=1 cols=4 gbuf=1
CFG_POOL pool=none kh=1 kw=1 sh=1 sw=1 in_h=1 in_w=1
STORE raw32=1 src=4 dram_addr=0x80 outer=1 inner=2 cols=4 gbuf=1 push=load
CFG_LOAD stride_inner=8 seg_stride=2
LOAD pop=store mem=spad dst=0 dram_addr=0x40 outer=1 inner=2 nseg=2 seglen=2 gbuf=1
LOAD mem=wbuf transpose=1 tstride=4 dst=0 dram_addr=0x80 outer=1 inner=4 nseg=1 seglen=4 gbuf=1
HALT
