; gbuf_fuse.s -- two layers fused through the global buffer (GBUF, docs/TIMING.md §5a) on the
; tiny arch (4x4 array; DRAM B = 4, L = 10, F = 4; GBUF B_g = 4, L_g = 2; S = 3, D = 2, queues 4):
;
;   layer 0 "fc":   Y[4,2] (int8)  = sat8(X[4,4] x W1[4,2])      stored into the GBUF, not DRAM
;   layer 1 "conv": Z[3,4] (int32) = im2col(Y) x W2[4,4]          a 1-D convolution, kernel 2:
;                   im2col row p = Y[p][0], Y[p][1], Y[p+1][0], Y[p+1][1]   (p = 0..2)
;
; Y never goes to DRAM: its 8 bytes are written to the GBUF by a STORE (gbuf=1), one row of 2
; bytes every 4 bytes (GBUF 0x0, 0x4, 0x8, 0xc), and read back by a LOAD (gbuf=1) whose gather
; (two segments of 2 bytes, SEG_STRIDE 4, rows STRIDE_INNER 4 apart) builds the im2col rows,
; exactly as it would from DRAM. Expected Z (gbuf_fuse_expected.npy, numpy:
; Y = clip(X @ W1, -128, 127); Z = im2col(Y) @ W2):
;     -3  -2   2  11
;      6  -2   4  23
;      2   0   3  16
; Counted: DRAM read 16 + 8 + 16 = 40 B in 12 beats, written 48 B in 12 beats; GBUF written 8 B
; in 4 beats, read 12 B in 6 beats (the DRAM traffic the buffer saved).
;
; Cycles, by hand (f fetch, s start, r ready, e end; docs/TIMING.md §2-§7, §5a):
;  0 LAYER 0         f 0   s 1 (every unit's copy; compute's and store's run then too)
;  1 CFG_LOAD        f 1   s 2   r 3
;  2 LOAD X          f 2   s 3: DRAM beats 0-3 issue in 3, 4, 5, 6; r 7, e 6 + 10 = 16
;  3 CFG_LOAD        f 3   s 7   r 8
;  4 LOAD W1         f 4   s 8: beats 4-7 wait for slots (F = 4): I = 3+10, 4+10, ... = 13, 14,
;                    15, 16 (cycles 8-12 stall); r 17, e 26; pushes compute (visible at 27)
;  5 PRELOAD         f 5   s 27 (token)   r 28   e 30
;  6 COMPUTE         f 6   s 31 (bank complete)   r 35   e 31 + 4 - 1 + 4 + 4 - 1 = 41
;  7 CFG_STORE       f 7   s 8 (store unit: after its LAYER copy)
;  8 STORE -> GBUF   f 8   s 42 (token): rows read at P = 42, 43, then the FIFO (D = 2) holds
;                    row 2 until row 0's beat issued: P = 46, 47; ready from P + 3 = 45, 46, 49,
;                    50, where the GBUF beats issue (one per row; never a stall); answered
;                    L_g = 2 later: A = 47, 48, 51, 52. r 51, e 52; pushes load (visible at 53)
;  9 LAYER 1         f 9   load s 17 (after LOAD W1's ready); compute s 35; store s 51
; 10 CFG_LOAD        f 10  s 18
; 11 LOAD W2         f 11  s 53 (takes the STORE's token: the GBUF LOAD behind it is ordered
;                    after the STORE by the load unit's order): DRAM beats 8-11 in 53-56;
;                    r 57, e 56 + 10 = 66
; 12 LOAD Y (GBUF)   f 12  s 57: 6 GBUF beats (2 per row) in 57-62, r 63. Alone they would be
;                    answered in 59-64; in issue order behind W2's DRAM beats (answered 63-66),
;                    one per cycle: A_b = max(I_b + 2, A_(b-1) + 1) = max(59, 67) = 67, 68,
;                    ..., max(64, 72) = 72, so e = 72 (not 64); the im2col rows (2 beats each)
;                    land in SPAD in 68, 70, 72. Pushes compute (at 73)
; 13 PRELOAD         f 13  s 73 (token)   r 74   e 76
; 14 COMPUTE         f 28: the compute queue (depth 4) holds 5, 6, 9, 13 until PRELOAD 5
;                    starts in 27; s 77 (bank 1 complete)   r 80   e 77 + 3 - 1 + 7 = 86
; 15 CFG_STORE       f 29  s 52 (after insn 9's copy)
; 16 STORE Z         f 30  s 87 (token): rows read at P = 87, 88, 94 (FIFO), ready from 90, 91,
;                    97; 16 B = 4 DRAM beats a row: 90-93; 100-103 (slots: 90 + 10 ...; 94-99
;                    stall); 110-113 (104-109 stall). r 114, e 113 + 10 = 123
; 17 HALT            f 31
; cycles = 1 + 123 = 124. tests/sim/gbuf_test.c checks every figure above on both engines.

.arch "../arch/tiny.json"

.layer fc
.layer conv

.tensor X  dtype=int8  shape=[4,4] addr=0x100 role=input data=[1,2,0,-1, 3,-2,1,0, 0,1,1,1, -1,0,2,1]
.tensor W1 dtype=int8  shape=[4,2] addr=0x200 role=const data=[1,0, 0,1, 2,-1, 1,1]
.tensor W2 dtype=int8  shape=[4,4] addr=0x300 role=const data=[1,0,0,2, 0,1,0,-1, 0,0,1,3, 1,1,1,1]
.tensor Z  dtype=int32 shape=[3,4] addr=0x400 role=output

LAYER layer_id=0
CFG_LOAD stride_inner=4                   ; X rows are 4 bytes apart
LOAD mem=spad dst=0 dram_addr=X outer=1 inner=4 nseg=1 seglen=4                  ; SPAD 0..3 := X
CFG_LOAD stride_inner=2                   ; W1 rows are 2 bytes apart
LOAD mem=wbuf dst=0 dram_addr=W1 outer=1 inner=4 nseg=1 seglen=2 push=compute    ; WBUF 0..3 := W1, 0, 0
PRELOAD src=0 rows=4 pop=load
COMPUTE src=0 acc_addr=0 rows=4 push=store                                       ; ACC 0..3 := X x W1
CFG_STORE stride_inner=4                  ; Y rows 4 bytes apart in the GBUF
STORE src=0 dram_addr=0 outer=1 inner=4 cols=2 gbuf=1 pop=compute push=load      ; GBUF 0x0.. := sat8(ACC 0..3)

LAYER layer_id=1
CFG_LOAD stride_inner=4 seg_stride=4      ; W2 rows; the im2col gather: rows 4 apart, segments 4 apart
LOAD mem=wbuf dst=4 dram_addr=W2 outer=1 inner=4 nseg=1 seglen=4 pop=store       ; WBUF 4..7 := W2
LOAD mem=spad dst=4 dram_addr=0 outer=1 inner=3 nseg=2 seglen=2 gbuf=1 push=compute
                                          ; SPAD 4..6 := im2col(Y), from the GBUF
PRELOAD src=4 rows=4 pop=load
COMPUTE src=4 acc_addr=4 rows=3 push=store                                       ; ACC 4..6 := im2col(Y) x W2
CFG_STORE stride_inner=16                 ; Z rows are 16 bytes apart
STORE raw32=1 src=4 dram_addr=Z outer=1 inner=3 cols=4 pop=compute               ; Z := ACC 4..6 as int32
HALT
