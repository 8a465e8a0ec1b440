; 08-gemm-loops.s -- exercise 8, an answer: a tiled GEMM with loops on the tiny arch (4x4 array),
;   C[16,14] (int32) = A[16,10] (int8) x B[10,14] (int8).
; K tiles kt = 0..2 of 4, 4, 2 rows; N tiles nt = 0..3 of 4, 4, 4, 2 columns; step s = nt*KT + kt.
; SPAD rows 16*kt..: A[:, K tile kt] (loaded in the first N pass); WBUF rows 4*(s%2)..: the B tile
; of step s (two buffers); ACC rows 16*nt..: C[:, N tile nt]. Tokens: each LOAD pushes to compute,
; popped by the PRELOAD (B) and the first pass's COMPUTE (A); COMPUTE s frees its WBUF buffer for
; the LOAD of step s+2 (push=load / pop=compute); the last K tile's COMPUTE hands the N tile to its STORE.
; It assembles to the same bytes as 08-gemm-flat.s, written out by hand (tests/isa/asm_loops_test.c).
.arch tiny

.set M, 16
.set K, 10
.set N, 14
.set R, 4
.set KT, (K + R - 1) / R
.set NT, (N + R - 1) / R

.layer gemm
.tensor A dtype=int8  shape=[M,K] addr=0x1000 role=input data=seed:81
.tensor B dtype=int8  shape=[K,N] addr=0x2000 role=const data=seed:82
.tensor C dtype=int32 shape=[M,N] addr=0x3000 role=output

LAYER layer_id=0
CFG_STORE stride_inner=4*N
.rep NT, nt
  .rep KT, kt
    .set s, nt*KT + kt                  ; the step
    .set kr, min(R, K - kt*R)           ; rows of this K tile
    .set nc, min(R, N - nt*R)           ; columns of this N tile
    CFG_LOAD stride_inner=N
    LOAD mem=wbuf dst=R*(s%2) dram_addr=B+kt*R*N+nt*R outer=1 inner=kr nseg=1 seglen=nc pop=compute*(s>=2) push=compute
    .if nt == 0
      CFG_LOAD stride_inner=K
      LOAD mem=spad dst=M*kt dram_addr=A+kt*R outer=1 inner=M nseg=1 seglen=kr push=compute
    .endif
    PRELOAD src=R*(s%2) rows=kr pop=load
    COMPUTE src=M*kt acc_addr=M*nt rows=M accum=(kt>0) pop=load*(nt==0) push=load*(s+2<KT*NT)|store*(kt==KT-1)
  .endr
  STORE raw32=1 src=M*nt dram_addr=C+4*R*nt outer=1 inner=M cols=min(R, N - nt*R) pop=compute
.endr
HALT
