; every special-function unit instruction, with tokens to and from it
.arch {"array":{"rows":4,"cols":4},"acc":{"rows":32},"param":{"rows":8},"sfu":{"lanes":3,"latency":2},"queues":{"sfu":2}}
.layer sfu
.tensor X dtype=int8 shape=[8,4] addr=0x100 role=input data=[1,-2,3,-4, 5,-6,7,-8, 9,10,11,12, -13,-14,-15,-16, 17,18,19,20, 21,22,23,24, 25,26,27,28, 29,30,31,32]
.tensor P dtype=int32 shape=[3,4] addr=0x200 role=const data=[1,2,3,4, 64,64,64,64, 7,7,7,7]
.tensor Y dtype=int32 shape=[16,4] addr=0x300 role=output
LAYER layer_id=0
CFG_LOAD stride_inner=4 mult=1 shift=0
LOAD mem=acc dst=0 dram_addr=X outer=1 inner=8 nseg=1 seglen=4
CFG_LOAD stride_inner=16
LOAD mem=param dst=0 dram_addr=P outer=1 inner=3 nseg=1 seglen=16 push=sfu
CFG_SFU mult=1073741824 shift=23 eps=3
SFU_MAP pop=load fn=silu src=0 acc_addr=8 rows=2
SFU_EW ewop=mul bcast=1 src=0 src2=7 acc_addr=10 rows=2
SFU_SOFTMAX src=2 acc_addr=12 rows=2 len=6 sstride=2 sm_mult=200 sm_shift=1 sm_j=3
SFU_LAYERNORM src=0 acc_addr=0 rows=1 len=4 sstride=0 pbase=0
SFU_REDUCE push=store red=sumsq src=4 acc_addr=4 rows=2 len=3 sstride=9
CFG_STORE stride_inner=16
STORE raw32=1 pop=sfu src=0 dram_addr=Y outer=1 inner=16 cols=4
HALT
