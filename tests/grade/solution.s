; solution.s -- a teacher's solution of the graded lab docs/exercises/files/gemm4-skeleton.s
; (docs/GRADING.md): its output on the hidden inputs is the reference, and tests/grade/ makes the
; test's 30 submissions from it. The lab: C[4,4] = A[4,4] x B[4,4] on the 2x2 array
; of exercise 1 (docs/exercises/01-wavefront.md), raw int32 result.
;
; The array holds a 2x2 block of B at a time, so the product takes 2 K tiles x 2 N tiles:
;   C[:, 2n..2n+1] = A[:, 0..1] x B[0..1, 2n..2n+1] + A[:, 2..3] x B[2..3, 2n..2n+1]
; Write the instructions between the two marks below: the LOADs of A and B, a PRELOAD and a
; COMPUTE per (K tile, N tile), the STOREs of C, with the tokens that order them, then HALT.
; Keep the .arch and .tensor lines as they are: the grader replaces A and B with its own
; matrices (sasim run --input A=... --input B=...) and compares C with its reference.
;
; Try it:    sasim check gemm4.s                          (no races, no token errors)
;            sasim asm gemm4.s -o gemm4.bin
;            sasim run gemm4.bin --print C --expect C=gemm4-example.npy   (if you were given it)
; With the sample data below, C must be
;       1  2  3  4
;       6  2 -2  2
;       6  6  0  0
;       9  5  0  6
;
; The machine (exercise 1's ex-2x2.json, written out so that the file stands alone): 2x2 array,
; SPAD, WBUF and ACC 16 rows each (a SPAD row is 2 int8, a WBUF row 2 int8, an ACC row 2 int32),
; 4-byte DRAM bus, latency 10.
.arch {"name":"ex-2x2","array":{"rows":2,"cols":2},"spad":{"rows":16},"wbuf":{"rows":16},"acc":{"rows":16},"param":{"rows":4},"dram":{"bytes":4096,"bus_bytes":4,"latency":10,"max_inflight":8},"queues":{"load":4,"compute":4,"store":4},"store":{"fifo_rows":2,"post_latency":3},"tokens":{"max":255},"clock_mhz":1000.0}

.tensor A dtype=int8  shape=[4,4] addr=0x100 role=input data=[1,0,2,-1, 0,3,1,1, 2,2,0,-2, 1,4,3,0]
.tensor B dtype=int8  shape=[4,4] addr=0x200 role=input data=[1,1,1,0, 2,1,-1,0, 0,0,1,2, 0,-1,0,0]
.tensor C dtype=int32 shape=[4,4] addr=0x300 role=output

; ---- your code from here ----
CFG_LOAD stride_outer=2 stride_inner=4    ; row o*4+i of a LOAD below := 2 bytes at base + 2o + 4i
LOAD mem=wbuf dst=0 dram_addr=B outer=2 inner=4 nseg=1 seglen=2 push=compute
                                          ; WBUF row 4n+k := B[k][2n..2n+1]
LOAD mem=spad dst=0 dram_addr=A outer=2 inner=4 nseg=1 seglen=2 push=compute
                                          ; SPAD row 4t+m := A[m][2t..2t+1]
PRELOAD src=0 rows=2 pop=load             ; K tile 0, N tile 0: B[0..1][0..1]
COMPUTE src=0 acc_addr=0 rows=4 accum=0 pop=load
PRELOAD src=2 rows=2                      ; K tile 1, N tile 0: B[2..3][0..1]
COMPUTE src=4 acc_addr=0 rows=4 accum=1 push=store
PRELOAD src=4 rows=2                      ; K tile 0, N tile 1
COMPUTE src=0 acc_addr=4 rows=4 accum=0
PRELOAD src=6 rows=2                      ; K tile 1, N tile 1
COMPUTE src=4 acc_addr=4 rows=4 accum=1 push=store
CFG_STORE stride_inner=16                 ; rows of C are 4 int32 apart
STORE raw32=1 src=0 dram_addr=C outer=1 inner=4 cols=2 pop=compute         ; C[:, 0..1] := ACC 0..3
STORE raw32=1 src=4 dram_addr=C+8 outer=1 inner=4 cols=2 pop=compute       ; C[:, 2..3] := ACC 4..7
; ---- to here ----
HALT
