; gemm_tiled.s -- a tiled, double-buffered int8 GEMM with requantization and ReLU on the
; default arch (16x16 array). The shapes do not divide the array, so edge tiles are partial.
;
;   C[40,24] (int8) = relu(requant(A[40,20] x B[20,24] + bias))        per output column n:
;   C[m][n] = sat8(max(0, sat32(round_shift(sat32(acc[m][n] + bias[n]) * mult[n], shift[n]))))
;   acc[m][n] = sum_k A[m][k] * B[k][n]  (int32)          (numerics: isa/numerics.h, sa_post)
;
; Inputs: A = data=seed:1, B = data=seed:2 (splitmix64, docs/ASM.md), int8 in [-128, 127].
; Parameters P[3][24] (int32): row 0 bias[n] = 1000*(n-12), row 1 mult[n] = 1 + n%4,
; row 2 shift[n] = 10 for n < 12, else 11.
; Expected result: C == gemm_tiled_expected.npy (computed by an independent numpy model);
; 55% of the outputs are 0 (ReLU), 1% saturate at 127, the sum of all 960 outputs is 15050,
; and row 0 is  0 0 0 126 31 0 107 0 5 0 0 0 16 48 21 0 0 0 28 88 6 23 42 0.
;
; Tiling (weight-stationary, docs/TIMING.md section 6). R = C = 16.
;   K = 20 = 16 + 4  -> K tiles kt0 = k 0..15, kt1 = k 16..19 (PRELOAD rows=16, then rows=4)
;   N = 24 = 16 + 8  -> N tiles nt0 = n 0..15, nt1 = n 16..23 (seglen/cols 16, then 8)
;   M = 40           -> one COMPUTE of rows=40 per (kt, nt): no M tiling needed.
; Four steps s = (kt, nt) in the order (0,0) (0,1) (1,0) (1,1): for kt0 the ACC rows are
; overwritten (accum=0), for kt1 added to (accum=1).
;
; On-chip layout:
;   SPAD rows  0..39  A[m][0..15]   (kt0)        rows 40..79  A[m][16..19], rest 0 (kt1)
;   WBUF rows  0..15  buffer 0: B tile of steps 0 and 2  (B[k][0..15])
;   WBUF rows 16..31  buffer 1: B tile of steps 1 and 3  (B[k][16..23], rest 0)
;   ACC  rows  0..39  C[m][0..15]  (nt0)         rows 40..79  C[m][16..23]  (nt1)
;   PARAM rows 0..2   bias/mult/shift of nt0     rows 3..5    of nt1
; WBUF is double-buffered: the load unit fills one buffer while the array preloads from the
; other, and the B tile of step s+2 reuses the buffer of step s.
;
; Every cross-unit dependency is a token (push by the producer, pop by the consumer; the k-th
; pop on a channel matches the k-th push, and each push comes first in program order):
;   load -> compute  (RAW, 6 tokens): each B tile before its PRELOAD, each A tile before the
;                    first COMPUTE that reads it. Load order B00 A0 B01 B10 A1 B11 matches the
;                    compute order PRELOAD0 COMPUTE0 PRELOAD1 PRELOAD2 COMPUTE2 PRELOAD3.
;   compute -> load  (WAR, 2 tokens): WBUF buffer 0 / 1 has been read before the B tile of
;                    step 2 / 3 overwrites it. Buffer 0 is released by PRELOAD0, buffer 1 by
;                    COMPUTE1, not PRELOAD1: a token must come from an instruction that ends
;                    after every earlier instruction of its unit (so that token order is
;                    completion order, the rule tests/common/randprog.c checks), and PRELOAD1
;                    can end while COMPUTE0 still streams.
;   compute -> store (RAW, 2 tokens): COMPUTE2 / COMPUTE3 finish ACC rows 0..39 / 40..79.
;   load -> store    (RAW, 2 tokens): the PARAM rows of nt0 / nt1 are loaded.
;   store -> compute (WAR on ACC): none needed, each N tile has its own ACC rows.
;   SPAD is never overwritten, so no compute -> load token guards it.

.arch default

.layer gemm_tiled

.tensor A dtype=int8  shape=[40,20] addr=0x1000 role=input data=seed:1
.tensor B dtype=int8  shape=[20,24] addr=0x2000 role=const data=seed:2
.tensor P dtype=int32 shape=[3,24]  addr=0x3000 role=const data=[-12000,-11000,-10000,-9000,-8000,-7000,-6000,-5000,-4000,-3000,-2000,-1000,0,1000,2000,3000,4000,5000,6000,7000,8000,9000,10000,11000, 1,2,3,4,1,2,3,4,1,2,3,4,1,2,3,4,1,2,3,4,1,2,3,4, 10,10,10,10,10,10,10,10,10,10,10,10,11,11,11,11,11,11,11,11,11,11,11,11]
.tensor C dtype=int8  shape=[40,24] addr=0x4000 role=output

LAYER layer_id=0

; ---- step 0: kt0 x nt0 ----
CFG_LOAD stride_inner=24                  ; B rows are 24 bytes apart
LOAD mem=wbuf dst=0 dram_addr=B outer=1 inner=16 nseg=1 seglen=16 push=compute
                                          ; WBUF 0..15 := B[0..15][0..15]          (token L->C #0)
CFG_LOAD stride_inner=20                  ; A rows are 20 bytes apart
LOAD mem=spad dst=0 dram_addr=A outer=1 inner=40 nseg=1 seglen=16 push=compute
                                          ; SPAD 0..39 := A[0..39][0..15]          (token L->C #1)
PRELOAD src=0 rows=16 pop=load push=load  ; bank 0 := WBUF 0..15 after #0; then buffer 0 is free (C->L #0)
COMPUTE src=0 acc_addr=0 rows=40 accum=0 pop=load
                                          ; after #1: ACC 0..39 := A[:, 0..15] x B[0..15][0..15]

; ---- step 1: kt0 x nt1 ----
CFG_LOAD stride_inner=24
LOAD mem=wbuf dst=16 dram_addr=B+16 outer=1 inner=16 nseg=1 seglen=8 push=compute
                                          ; WBUF 16..31 := B[0..15][16..23], rest 0 (token L->C #2)
CFG_LOAD stride_inner=96                  ; the P rows (bias, mult, shift) are 96 bytes apart
LOAD mem=param dst=0 dram_addr=P outer=1 inner=3 nseg=1 seglen=64 push=store
                                          ; PARAM 0..2 := P[0..2][0..15]  (int32)  (token L->S #0)
LOAD mem=param dst=3 dram_addr=P+64 outer=1 inner=3 nseg=1 seglen=32 push=store
                                          ; PARAM 3..5 := P[0..2][16..23]          (token L->S #1)
PRELOAD src=16 rows=16 pop=load           ; bank 1 := WBUF 16..31 after #2
COMPUTE src=0 acc_addr=40 rows=40 accum=0 push=load
                                          ; ACC 40..79 := A[:, 0..15] x B[0..15][16..23]
                                          ; (A tile 0 was waited for by step 0's COMPUTE);
                                          ; then buffer 1 is free (C->L #1)

; ---- step 2: kt1 x nt0 ----
CFG_LOAD stride_inner=24
LOAD mem=wbuf dst=0 dram_addr=B+384 outer=1 inner=4 nseg=1 seglen=16 pop=compute push=compute
                                          ; after C->L #0: WBUF 0..3 := B[16..19][0..15] (L->C #3)
CFG_LOAD stride_inner=20
LOAD mem=spad dst=40 dram_addr=A+16 outer=1 inner=40 nseg=1 seglen=4 push=compute
                                          ; SPAD 40..79 := A[0..39][16..19], rest 0  (L->C #4)
PRELOAD src=0 rows=4 pop=load             ; after #3: bank 0 := WBUF 0..3, array rows 4..15 zero
COMPUTE src=40 acc_addr=0 rows=40 accum=1 pop=load push=store
                                          ; after #4: ACC 0..39 += A[:, 16..19] x B[16..19][0..15];
                                          ; nt0 complete (token C->S #0)

; ---- step 3: kt1 x nt1 ----
CFG_LOAD stride_inner=24
LOAD mem=wbuf dst=16 dram_addr=B+400 outer=1 inner=4 nseg=1 seglen=8 pop=compute push=compute
                                          ; after C->L #1: WBUF 16..19 := B[16..19][16..23] (L->C #5)
PRELOAD src=16 rows=4 pop=load            ; after #5: bank 1 := WBUF 16..19
COMPUTE src=40 acc_addr=40 rows=40 accum=1 push=store
                                          ; ACC 40..79 += A[:, 16..19] x B[16..19][16..23];
                                          ; nt1 complete (token C->S #1)

; ---- output: post-process and store both N tiles ----
CFG_STORE act=relu params=1 prow=0 stride_inner=24
                                          ; ReLU, bias/mult/shift from PARAM 0..2; C rows 24 B apart
STORE src=0 dram_addr=C outer=1 inner=40 cols=16 pop=compute|load
                                          ; after C->S #0 and L->S #0: C[m][0..15] := post(ACC m)
CFG_STORE act=relu params=1 prow=3 stride_inner=24
                                          ; same, parameters of nt1 from PARAM 3..5
STORE src=40 dram_addr=C+16 outer=1 inner=40 cols=8 pop=compute|load
                                          ; after C->S #1 and L->S #1: C[m][16..23] := post(ACC 40+m)
HALT
