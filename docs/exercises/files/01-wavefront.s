; 01-wavefront.s -- exercise 1 (docs/exercises/01-wavefront.md): C[3,2] = A[3,2] x B[2,2]
; on a 2x2 weight-stationary array, raw int32 result.
;
;   A = 1 2     B =  1  2
;       3 4         10 20
;       5 6
;
; B is the stationary operand: WBUF row k = B[k], PRELOAD puts B[r][c] into PE (r, c).
; A streams: SPAD row m = A[m], COMPUTE feeds A[m][r] into PE row r (docs/TIMING.md §6).

.arch "ex-2x2.json"

.tensor A dtype=int8  shape=[3,2] addr=0x100 role=input data=[1,2, 3,4, 5,6]
.tensor B dtype=int8  shape=[2,2] addr=0x200 role=const data=[1,2, 10,20]
.tensor C dtype=int32 shape=[3,2] addr=0x300 role=output

CFG_LOAD stride_inner=2                   ; rows of A and B are 2 bytes apart
LOAD mem=wbuf dst=0 dram_addr=B outer=1 inner=2 nseg=1 seglen=2 push=compute   ; WBUF 0..1 := B
LOAD mem=spad dst=0 dram_addr=A outer=1 inner=3 nseg=1 seglen=2 push=compute   ; SPAD 0..2 := A
PRELOAD src=0 rows=2 pop=load             ; wait for B; weights := WBUF rows 0..1
COMPUTE src=0 acc_addr=0 rows=3 accum=0 pop=load push=store   ; wait for A; ACC 0..2 := A x B
CFG_STORE stride_inner=8                  ; rows of C are 2 int32 = 8 bytes apart
STORE raw32=1 src=0 dram_addr=C outer=1 inner=3 cols=2 pop=compute   ; C := ACC rows 0..2
HALT
