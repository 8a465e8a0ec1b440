; gbuf_order.s: the global buffer's corner cases for the RTL lockstep (tests/rtl/gbuf.sh runs it on
; several archs by rewriting the .arch line): int8, RAW32 and max-pooled STOREs into the buffer;
; a GBUF LOAD right behind a DRAM LOAD (its responses wait for the DRAM ones, TIMING 5a); ACC
; LOADs from the buffer, one accumulating onto rows a DRAM LOAD still in flight writes (the late
; DRAM beats must land under it); a DRAM LOAD behind a GBUF one; a transposed GBUF LOAD.
.arch "arch_gbuf.json"

.layer produce
.layer consume

.tensor X  dtype=int8  shape=[4,4] addr=0x100 role=input data=[1,2,0,-1, 3,-2,1,0, 0,1,1,1, -1,0,2,1]
.tensor W  dtype=int8  shape=[4,4] addr=0x200 role=const data=[1,0,0,2, 0,1,0,-1, 0,0,1,3, 1,1,1,1]
.tensor Z  dtype=int32 shape=[4,4] addr=0x400 role=output
.tensor A  dtype=int32 shape=[8,4] addr=0x500 role=output

LAYER layer_id=0
CFG_LOAD stride_inner=4
LOAD mem=spad dst=0 dram_addr=X outer=1 inner=4 nseg=1 seglen=4
LOAD mem=wbuf dst=0 dram_addr=W outer=1 inner=4 nseg=1 seglen=4 push=compute
PRELOAD src=0 rows=4 pop=load
COMPUTE src=0 acc_addr=0 rows=4 push=store                     ; ACC 0..3 := X x W
CFG_STORE stride_inner=4
STORE src=0 dram_addr=0 outer=1 inner=4 cols=4 gbuf=1 pop=compute ; GBUF 0x00..0x0f := sat8(ACC 0..3)
CFG_STORE stride_inner=16
STORE raw32=1 src=0 dram_addr=0x43 outer=1 inner=4 cols=4 gbuf=1  ; GBUF 0x43..0x82 := ACC 0..3 (unaligned)
CFG_POOL pool=max kh=2 kw=1 sh=2 sw=1 in_h=4 in_w=1
CFG_STORE stride_outer=4
STORE src=0 dram_addr=0x91 outer=2 inner=1 cols=4 gbuf=1 push=load ; GBUF 0x91..0x98 := maxpool(ACC 0..3)
CFG_POOL pool=none kh=1 kw=1 sh=1 sw=1 in_h=1 in_w=1

LAYER layer_id=1
CFG_LOAD stride_inner=4
LOAD mem=wbuf dst=4 dram_addr=W outer=1 inner=4 nseg=1 seglen=4 pop=store   ; DRAM
LOAD mem=spad dst=4 dram_addr=0 outer=1 inner=4 nseg=1 seglen=4 gbuf=1      ; GBUF, behind it
CFG_LOAD stride_inner=4 mult=3 shift=1
LOAD mem=acc dst=8 dram_addr=0x91 outer=1 inner=2 nseg=1 seglen=4 gbuf=1    ; ACC 8..9 := pooled rows
LOAD mem=acc dst=10 dram_addr=X outer=1 inner=4 nseg=1 seglen=4             ; ACC 10..13 from DRAM ...
LOAD mem=acc accum=1 dst=10 dram_addr=0 outer=1 inner=4 nseg=1 seglen=4 gbuf=1 ; ... += GBUF rows
CFG_LOAD stride_inner=16 mult=1 shift=0
LOAD mem=acc accum=1 dst=8 dram_addr=0x43 outer=1 inner=2 nseg=1 seglen=4 gbuf=1 ; ACC 8..9 += RAW32 bytes
CFG_LOAD stride_inner=4
LOAD mem=wbuf transpose=1 dst=8 dram_addr=0 outer=1 inner=4 nseg=1 seglen=4 tstride=4 gbuf=1 push=compute|store
PRELOAD src=4 rows=4 pop=load
COMPUTE src=4 acc_addr=16 rows=4 push=store                    ; ACC 16..19 := GBUF rows x W
CFG_STORE stride_inner=16
STORE raw32=1 src=16 dram_addr=Z outer=1 inner=4 cols=4 pop=compute|load
STORE raw32=1 src=8 dram_addr=A outer=1 inner=8 cols=4
HALT
