; asm_errors.s -- the errors of docs/ASM.md ("Errors"): assembling this file prints the messages
; shown there, in this order (tests/cli/asmdoc.sh checks it).
.arch default
.tensor A dtype=int8 shape=[2,2] addr=0x10 role=input data=[1,2,3]
.tensor X dtype=int8 shape=[16,16] addr=0x100 role=input
PRELOAD src=0 rows=16
LOAD mem=spad push=compute|load outer=1 inner=1 nseg=1 seglen=1
COMPUTE src=0 acc_addr=0
COMPUTE src=0 rows=0
LOAD mem=spad dram_addr=Y+4 outer=1 inner=1 nseg=1 seglen=1
CFG_LOAD stride_inner=16
LOAD mem=spad dram_addr=0xfffffff0 outer=1 inner=2 nseg=1 seglen=16
COMPUT src=0 rows=16
.rep 3, i
  PRELOAD src=0 rows=i*8+1
.endr
.set z, 8/(2-2)
HALT
