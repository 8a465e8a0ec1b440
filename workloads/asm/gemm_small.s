; gemm_small.s -- the smallest complete program: one 4x4 GEMM on the tiny arch (4x4 array),
; result written as raw int32. Read it next to docs/ASM.md and docs/TIMING.md.
;
;   C[4,4] (int32) = A[4,4] (int8) x B[4,4] (int8)
;
;       A =  1  2  3  4      B = 1 0 0  2      C = A x B =  5  6  7 13
;            5  6  7  8          0 1 0 -1                  13 14 15 33
;           -1  0  1  0          0 0 1  3                  -1  0  1  1
;            2 -3  4 -5          1 1 1  1                  -3 -8 -1 14
;
; Expected result: after `sasim run`, tensor C holds exactly the matrix above (int32,
; row-major, little-endian at 0x300).
;
; Weight-stationary dataflow (docs/TIMING.md section 6): B is the stationary operand. WBUF row
; k holds B[k][0..3]; PRELOAD shifts those 4 rows into the array. SPAD row m holds A[m][0..3];
; COMPUTE streams the 4 SPAD rows through the array and writes ACC row m = A[m] x B = C[m].
; STORE with raw32=1 copies the int32 accumulators to DRAM without post-processing.
;
; Units and tokens: the load unit, the compute unit and the store unit run in parallel and
; wait for each other only through tokens. push=U gives one token to unit U when the
; instruction ends; pop=U takes one from U before it starts.
;   LOAD B  --push=compute-->  PRELOAD   (the weights are in WBUF before PRELOAD reads them)
;   LOAD A  --push=compute-->  COMPUTE   (the inputs are in SPAD before COMPUTE reads them)
;   COMPUTE --push=store---->  STORE     (the sums are in ACC before STORE reads them)

.arch "../arch/tiny.json"                 ; 4x4 array, 4-byte DRAM bus, latency 10

.layer gemm                               ; layer 0, for per-layer statistics

.tensor A dtype=int8  shape=[4,4] addr=0x100 role=input data=[1,2,3,4, 5,6,7,8, -1,0,1,0, 2,-3,4,-5]
.tensor B dtype=int8  shape=[4,4] addr=0x200 role=const data=[1,0,0,2, 0,1,0,-1, 0,0,1,3, 1,1,1,1]
.tensor C dtype=int32 shape=[4,4] addr=0x300 role=output

LAYER layer_id=0                          ; all three units: what follows belongs to layer "gemm"

; -- load unit --
CFG_LOAD stride_inner=4                   ; consecutive rows of A and B are 4 bytes apart in DRAM
LOAD mem=wbuf dst=0 dram_addr=B outer=1 inner=4 nseg=1 seglen=4 push=compute
                                          ; WBUF rows 0..3 := B[0..3][0..3]; then 1 token -> compute
LOAD mem=spad dst=0 dram_addr=A outer=1 inner=4 nseg=1 seglen=4 push=compute
                                          ; SPAD rows 0..3 := A[0..3][0..3]; then 1 token -> compute

; -- compute unit --
PRELOAD src=0 rows=4 pop=load             ; wait for B; weight bank 0 := WBUF rows 0..3 (B)
COMPUTE src=0 acc_addr=0 rows=4 accum=0 pop=load push=store
                                          ; wait for A; ACC rows 0..3 := SPAD rows 0..3 x B;
                                          ; then 1 token -> store

; -- store unit --
CFG_STORE stride_inner=16                 ; consecutive rows of C are 16 bytes (4 int32) apart
STORE raw32=1 src=0 dram_addr=C outer=1 inner=4 cols=4 pop=compute
                                          ; wait for the sums; C[i][0..3] := ACC row i (int32)

HALT                                      ; stop fetching; the machine stops when all units drain
